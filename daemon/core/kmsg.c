/* kmsg.c — see kmsg.h. */
#include "core/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"

const char *const kmsg_kind_names[KMSG_N_KINDS] = {
        "machine_check", "edac", "xid", "io_error", "reset",
};

/* What each kind's text holds, in the order of the kinds; NULL ends a row. */
static const char *const patterns[KMSG_N_KINDS][4] = {
        [KMSG_MACHINE_CHECK] = { "mce:", "Machine check", NULL },
        [KMSG_EDAC] = { "EDAC", NULL },
        [KMSG_XID] = { "NVRM: Xid", NULL },
        [KMSG_IO_ERROR] = { "I/O error", "blk_update_request", "critical medium error", NULL },
        [KMSG_RESET] = { "resetting", "reset controller", "timeout", NULL },
};

struct kmsg_reader {
        int fd;
        uint64_t next_seq;        /* the first sequence number still to count */
        struct kmsg_counts counts;
        char line[KMSG_RECORD_MAX]; /* a line not yet ended */
        size_t n_line;
        bool overlong;            /* the line outgrew line[]: skip to its end */
        char buf[KMSG_RECORD_MAX];
};

/* The decimal number at *p, up to `stop`; *p moved past the stop. */
static int field(const char **p, const char *end, char stop, uint64_t *ret)
{
        const char *s = *p;
        uint64_t v = 0;
        if (s == end || *s < '0' || *s > '9')
                return -EINVAL;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
                unsigned d = (unsigned)(*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -EINVAL;
                v = v * 10 + d;
        }
        if (s == end || *s != stop)
                return -EINVAL;
        *p = s + 1;
        *ret = v;
        return 0;
}

int kmsg_parse(const char *rec, size_t len, struct kmsg_record *ret)
{
        const char *nl = memchr(rec, '\n', len);
        const char *end = nl ? nl : rec + len, *p = rec;
        const char *semi = memchr(rec, ';', (size_t)(end - rec));
        uint64_t prio, seq, usec;
        if (!semi || field(&p, semi, ',', &prio) < 0 || field(&p, semi, ',', &seq) < 0)
                return -EINVAL;
        /* USEC, then FLAGS (and perhaps more fields) up to the ';' */
        const char *comma = memchr(p, ',', (size_t)(semi - p));
        if (field(&p, semi + 1, comma ? ',' : ';', &usec) < 0 || prio > 0xffffff)
                return -EINVAL;
        *ret = (struct kmsg_record){
                .facility = (unsigned)(prio >> 3), .level = (unsigned)(prio & 7),
                .seq = seq, .usec = usec,
                .text = semi + 1, .text_len = (size_t)(end - semi - 1),
        };
        return 0;
}

enum kmsg_kind kmsg_classify(const char *text, size_t len)
{
        for (int k = 0; k < KMSG_N_KINDS; k++)
                for (const char *const *p = patterns[k]; *p; p++)
                        if (memmem(text, len, *p, strlen(*p)))
                                return (enum kmsg_kind)k;
        return KMSG_OTHER;
}

/* One whole line: a record's first line, or a continuation (" KEY=v"). */
static void take_line(struct kmsg_reader *k, const char *line, size_t len)
{
        struct kmsg_record rec;
        if (!len || line[0] == ' ' || kmsg_parse(line, len, &rec) < 0)
                return;
        if (rec.seq < k->next_seq)
                return; /* counted before, or before the place we start at */
        if (k->next_seq && rec.seq > k->next_seq)
                k->counts.lost += rec.seq - k->next_seq;
        k->next_seq = rec.seq == UINT64_MAX ? rec.seq : rec.seq + 1;
        k->counts.records++;
        if (rec.facility != 0)
                return;
        enum kmsg_kind kind = kmsg_classify(rec.text, rec.text_len);
        if (kind != KMSG_OTHER)
                k->counts.kind[kind]++;
}

void kmsg_reader_feed(struct kmsg_reader *k, const char *buf, size_t len)
{
        while (len) {
                const char *nl = memchr(buf, '\n', len);
                size_t n = nl ? (size_t)(nl - buf) : len;
                if (k->overlong || n > sizeof(k->line) - k->n_line) {
                        k->overlong = true;
                        k->n_line = 0;
                } else {
                        memcpy(k->line + k->n_line, buf, n);
                        k->n_line += n;
                }
                if (!nl)
                        return;
                if (!k->overlong)
                        take_line(k, k->line, k->n_line);
                k->overlong = false;
                k->n_line = 0;
                buf += n + 1;
                len -= n + 1;
        }
}

int kmsg_reader_new_detached(uint64_t after_seq, struct kmsg_reader **ret)
{
        struct kmsg_reader *k = calloc(1, sizeof(*k));
        if (!k)
                return -ENOMEM;
        k->fd = -1;
        k->next_seq = after_seq == KMSG_FROM_NOW ? 0 : after_seq + 1;
        *ret = k;
        return 0;
}

int kmsg_reader_open(const char *root, uint64_t after_seq, struct kmsg_reader **ret)
{
        struct kmsg_reader *k = NULL;
        char *path = str_printf("%s/dev/kmsg", root);
        int r = path ? kmsg_reader_new_detached(after_seq, &k) : -ENOMEM;
        if (r >= 0 && (k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0)
                r = -errno;
        if (r >= 0 && after_seq == KMSG_FROM_NOW && lseek(k->fd, 0, SEEK_END) < 0)
                r = -errno;
        free(path);
        if (r < 0) {
                kmsg_reader_free(k);
                return r;
        }
        *ret = k;
        return 0;
}

int kmsg_reader_poll(struct kmsg_reader *k)
{
        if (k->fd < 0)
                return -EBADF;
        for (int i = 0; i < KMSG_POLL_MAX; i++) {
                ssize_t n = read(k->fd, k->buf, sizeof(k->buf));
                if (n > 0) {
                        kmsg_reader_feed(k, k->buf, (size_t)n);
                        continue;
                }
                if (n == 0 || errno == EAGAIN)
                        return 0;
                if (errno == EINTR || errno == EPIPE)
                        continue; /* EPIPE: overwritten meanwhile; the gap is counted */
                return -errno;
        }
        return 0;
}

void kmsg_reader_counts(const struct kmsg_reader *k, struct kmsg_counts *ret)
{
        *ret = k->counts;
}

uint64_t kmsg_reader_next_seq(const struct kmsg_reader *k)
{
        return k->next_seq;
}

void kmsg_reader_free(struct kmsg_reader *k)
{
        if (!k)
                return;
        if (k->fd >= 0)
                close(k->fd);
        free(k);
}
