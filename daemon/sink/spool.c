/* spool.c — see spool.h.  The spool's index (sequence, size, and the data
 * of runs that are not on disk) lives in memory; the directory is read
 * only once, at open. */
#include "sink/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/fdio.h"
#include "util/reserve.h"
#include "util/strutil.h"

#define SEQ_DIGITS 20
#define SUFFIX ".rw"
#define ENTRY_MAX (256u << 20) /* a bigger file is no request of ours */

struct entry {
        uint64_t seq;
        uint64_t size;
        uint8_t *mem; /* not on disk: the data itself */
};

struct spool {
        char *dir;
        char *reserve_dir; /* where reserve.h's room is, or NULL */
        uint64_t max_bytes, bytes, next_seq;
        struct entry *e; /* oldest first */
        size_t n, cap;
};

static char *entry_path(const struct spool *s, uint64_t seq)
{
        return str_printf("%s/%0*" PRIu64 SUFFIX, s->dir, SEQ_DIGITS, seq);
}

static bool digits(const char *name)
{
        for (size_t i = 0; i < SEQ_DIGITS; i++)
                if (name[i] < '0' || name[i] > '9')
                        return false;
        return true;
}

/* atomicfile_write()'s temporary file of a spool file. */
static bool is_temp(const char *name)
{
        return strlen(name) > SEQ_DIGITS + strlen(SUFFIX ".tmp-") && digits(name) &&
               !strncmp(name + SEQ_DIGITS, SUFFIX ".tmp-", strlen(SUFFIX ".tmp-"));
}

/* The sequence of a spool file name; false for anything else. */
static bool parse_name(const char *name, uint64_t *ret_seq)
{
        uint64_t v = 0;

        if (strlen(name) != SEQ_DIGITS + strlen(SUFFIX) ||
            strcmp(name + SEQ_DIGITS, SUFFIX) || !digits(name))
                return false;
        for (size_t i = 0; i < SEQ_DIGITS; i++) {
                if (v > (UINT64_MAX - 9) / 10)
                        return false;
                v = v * 10 + (uint64_t)(name[i] - '0');
        }
        *ret_seq = v;
        return true;
}

static int push_entry(struct spool *s, uint64_t seq, uint64_t size, uint8_t *mem)
{
        if (s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 64;
                struct entry *e = realloc(s->e, cap * sizeof(*e));
                if (!e)
                        return -ENOMEM;
                s->e = e;
                s->cap = cap;
        }
        s->e[s->n++] = (struct entry){ .seq = seq, .size = size, .mem = mem };
        s->bytes += size;
        if (seq >= s->next_seq)
                s->next_seq = seq + 1;
        return 0;
}

static int by_seq(const void *a, const void *b)
{
        uint64_t x = ((const struct entry *)a)->seq, y = ((const struct entry *)b)->seq;

        return x < y ? -1 : x > y;
}

/* One directory entry: a spooled run, a temporary file to remove, or
 * something else to leave alone. */
static int scan_one(struct spool *s, int dfd, const char *name)
{
        struct stat st;
        uint64_t seq;

        if (is_temp(name))
                return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
        if (!parse_name(name, &seq))
                return 0;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISREG(st.st_mode))
                return 0;
        return push_entry(s, seq, (uint64_t)st.st_size, NULL);
}

static int scan(struct spool *s)
{
        DIR *d = opendir(s->dir);
        struct dirent *de;
        int r = 0;

        if (!d)
                return -errno;
        while (r >= 0 && (errno = 0, de = readdir(d)))
                r = scan_one(s, dirfd(d), de->d_name);
        if (r >= 0 && errno)
                r = -errno;
        closedir(d);
        if (r >= 0 && s->n) /* an empty spool has no array yet */
                qsort(s->e, s->n, sizeof(*s->e), by_seq);
        return r;
}

void spool_free(struct spool *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->n; i++)
                free(s->e[i].mem);
        free(s->e);
        free(s->dir);
        free(s->reserve_dir);
        free(s);
}

int spool_check_dir(const char *dir)
{
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        return access(dir, R_OK | W_OK | X_OK) < 0 ? -errno : 0;
}

int spool_open_memory(uint64_t max_bytes, struct spool **ret)
{
        struct spool *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        s->max_bytes = max_bytes;
        s->next_seq = 1;
        *ret = s;
        return 0;
}

int spool_open(const char *dir, uint64_t max_bytes, struct spool **ret)
{
        struct spool *s = calloc(1, sizeof(*s));
        int r;

        if (!s || !(s->dir = strdup(dir))) {
                free(s);
                return -ENOMEM;
        }
        s->max_bytes = max_bytes;
        s->next_seq = 1;
        r = mkdir(dir, 0700) < 0 && errno != EEXIST ? -errno : 0;
        if (r >= 0)
                r = scan(s);
        if (r < 0) {
                spool_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int spool_pop(struct spool *s)
{
        struct entry e;
        char *path;
        int r = 0;

        if (s->n == 0)
                return -ENOENT;
        e = s->e[0];
        memmove(&s->e[0], &s->e[1], (s->n - 1) * sizeof(*s->e));
        s->n--;
        s->bytes -= e.size;
        if (e.mem) {
                free(e.mem);
                return 0;
        }
        path = entry_path(s, e.seq);
        if (!path)
                return -ENOMEM;
        if (unlink(path) < 0 && errno != ENOENT)
                r = -errno;
        free(path);
        return r;
}

/* Make room for len more bytes, oldest first; how many runs went. */
static size_t make_room(struct spool *s, uint64_t len);

size_t spool_trim(struct spool *s)
{
        return make_room(s, 0);
}

static size_t make_room(struct spool *s, uint64_t len)
{
        size_t dropped = 0;

        while (s->n > 0 && s->bytes + len > s->max_bytes) {
                (void)spool_pop(s); /* a file that will not go: still forgotten */
                dropped++;
        }
        return dropped;
}

int spool_set_reserve(struct spool *s, const char *dir)
{
        char *d = dir ? strdup(dir) : NULL;

        if (dir && !d)
                return -ENOMEM;
        free(s->reserve_dir);
        s->reserve_dir = d;
        return 0;
}

/* Write a run's file; on a full file system, once more after releasing
 * the reserve. */
static int write_entry(struct spool *s, uint64_t seq, const void *data, size_t len)
{
        char *path = entry_path(s, seq);
        int r;

        if (!path)
                return -ENOMEM;
        r = atomicfile_write(s->dir, path, data, len, 0600);
        if (reserve_make_room(s->reserve_dir, r))
                r = atomicfile_write(s->dir, path, data, len, 0600);
        free(path);
        return r;
}

/* Runs kept in memory go to disk, oldest first, as soon as it takes them:
 * until then a crash would lose them. */
static int persist(struct spool *s)
{
        for (size_t i = 0; i < s->n; i++) {
                struct entry *e = &s->e[i];
                int r;

                if (!e->mem)
                        continue;
                r = write_entry(s, e->seq, e->mem, e->size);
                if (r < 0)
                        return r;
                free(e->mem);
                e->mem = NULL;
        }
        return 0;
}

size_t spool_persist(struct spool *s)
{
        size_t n = 0;
        if (s->dir)
                (void)persist(s);
        for (size_t i = 0; i < s->n; i++)
                n += s->e[i].mem != NULL;
        return n;
}

int spool_add(struct spool *s, const void *data, size_t len, size_t *ret_dropped)
{
        uint64_t seq = s->next_seq;
        size_t dropped = 0;
        uint8_t *mem;
        int r;

        if (len > s->max_bytes) {
                if (ret_dropped)
                        *ret_dropped = 1;
                return 0;
        }
        dropped = make_room(s, len);
        if (ret_dropped)
                *ret_dropped = dropped;
        if (s->dir) {
                r = persist(s);
                if (r >= 0)
                        r = write_entry(s, seq, data, len);
                if (r >= 0)
                        return push_entry(s, seq, len, NULL);
        } else {
                r = 0; /* memory is all there is */
        }
        mem = malloc(len ? len : 1);
        if (!mem)
                return -ENOMEM;
        memcpy(mem, data, len);
        if (push_entry(s, seq, len, mem) < 0) {
                free(mem);
                return -ENOMEM;
        }
        return r;
}

size_t spool_add_held(struct spool *dst, const struct spool *src, size_t *ret_dropped)
{
        size_t held = 0, dropped = 0;

        for (size_t i = 0; i < src->n; i++) {
                const struct entry *e = &src->e[i];
                size_t before = dst->n, d = 0;

                if (!e->mem)
                        continue;
                held++;
                (void)spool_add(dst, e->mem, e->size, &d);
                /* d counts the oldest that made room, or this one when it
                 * alone exceeds the bound; one not added found no memory */
                dropped += d + (dst->n + d == before);
        }
        if (ret_dropped)
                *ret_dropped = dropped;
        return held;
}

int spool_peek(struct spool *s, uint8_t **ret, size_t *ret_len)
{
        const struct entry *e;
        char *path;
        int fd, r;

        if (s->n == 0)
                return -ENOENT;
        e = &s->e[0];
        if (e->mem) {
                *ret = malloc(e->size ? e->size : 1);
                if (!*ret)
                        return -ENOMEM;
                memcpy(*ret, e->mem, e->size);
                *ret_len = e->size;
                return 0;
        }
        path = entry_path(s, e->seq);
        if (!path)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        free(path);
        if (fd < 0)
                return -errno;
        r = fdio_read_all(fd, ENTRY_MAX, ret, ret_len);
        close(fd);
        return r;
}

size_t spool_count(const struct spool *s)
{
        return s->n;
}

uint64_t spool_bytes(const struct spool *s)
{
        return s->bytes;
}
