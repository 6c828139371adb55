/* sysparse.c — see sysparse.h. */
#include "core/sysparse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\n';
}

static const char *skip_blanks(const char *p)
{
        while (is_blank(*p))
                p++;
        return p;
}

/* The digits at *p (at least one), *p moved past them. */
static int scan_u64(const char **p, uint64_t *ret)
{
        const char *s = *p;
        uint64_t v = 0;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                unsigned d = (unsigned)(*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *p = s;
        *ret = v;
        return 0;
}

int sysparse_u64(const char *text, uint64_t *ret)
{
        const char *p = skip_blanks(text);
        uint64_t v;
        int r = scan_u64(&p, &v);
        if (r < 0)
                return r;
        if (*skip_blanks(p))
                return -EINVAL;
        *ret = v;
        return 0;
}

/* One "N" or "N-M" of a CPU list; *p moved past it. */
static int cpu_range(const char **p, uint64_t floor, uint64_t *ret_last, unsigned *ret_n)
{
        uint64_t a, b;
        int r = scan_u64(p, &a);
        if (r < 0)
                return r;
        b = a;
        if (**p == '-') {
                (*p)++;
                if ((r = scan_u64(p, &b)) < 0)
                        return r;
        }
        if (a < floor || b < a || b >= SYSPARSE_MAX_CPU)
                return -EINVAL;
        *ret_last = b;
        *ret_n = (unsigned)(b - a + 1);
        return 0;
}

int sysparse_cpulist(const char *text, unsigned *ids, unsigned max_ids, unsigned *ret_count)
{
        const char *p = skip_blanks(text);
        uint64_t floor = 0, last;
        unsigned count = 0, n;
        for (;;) {
                int r = cpu_range(&p, floor, &last, &n);
                if (r < 0)
                        return r;
                for (unsigned i = 0; ids && i < n && count + i < max_ids; i++)
                        ids[count + i] = (unsigned)(last - n + 1 + i);
                count += n;
                floor = last + 1;
                if (*p != ',')
                        break;
                p++;
        }
        if (*skip_blanks(p))
                return -EINVAL;
        *ret_count = count;
        return 0;
}

/* The start of the line whose first word is key (followed by ':' or a
 * blank), or NULL. */
static const char *find_key(const char *text, const char *key)
{
        size_t len = strlen(key);
        for (const char *line = text; len && line && *line;) {
                if (!strncmp(line, key, len) &&
                    (line[len] == ':' || line[len] == ' ' || line[len] == '\t'))
                        return line + len;
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return NULL;
}

int sysparse_keyed(const char *text, const char *key, double *ret)
{
        const char *p = find_key(text, key);
        uint64_t v;
        if (!p)
                return -ENOENT;
        if (*p == ':')
                p++;
        while (*p == ' ' || *p == '\t')
                p++;
        int r = scan_u64(&p, &v);
        if (r < 0)
                return r;
        double mult = 1;
        while (*p == ' ' || *p == '\t')
                p++;
        if (!strncmp(p, "kB", 2)) {
                mult = 1024;
                p += 2;
        }
        while (*p == ' ' || *p == '\t')
                p++;
        if (*p && *p != '\n')
                return -EINVAL;
        *ret = (double)v * mult;
        return 0;
}

int sysparse_blockstat(const char *text, struct sysparse_blockstat *ret)
{
        const char *p = text;
        double f[11];
        for (int i = 0; i < 11; i++) {
                uint64_t v;
                while (*p == ' ' || *p == '\t')
                        p++;
                int r = scan_u64(&p, &v);
                if (r < 0)
                        return r;
                if (*p && !is_blank(*p))
                        return -EINVAL;
                f[i] = (double)v;
        }
        *ret = (struct sysparse_blockstat){
                .reads = f[0], .read_ms = f[3], .writes = f[4], .write_ms = f[7],
                .in_flight = f[8], .io_ms = f[9], .queue_ms = f[10],
        };
        return 0;
}

/* An absolute path without "." or ".." components. */
static bool reachable(const char *path, size_t len)
{
        if (!len || path[0] != '/')
                return false;
        for (size_t i = 0; i < len; i++) {
                size_t n = 0;
                if (path[i] != '/')
                        continue;
                while (i + 1 + n < len && path[i + 1 + n] != '/')
                        n++;
                if ((n == 1 && path[i + 1] == '.') ||
                    (n == 2 && path[i + 1] == '.' && path[i + 2] == '.'))
                        return false;
        }
        return true;
}

/* Whether the comma-separated list s (len bytes) has the word "cpu". */
static bool has_cpu(const char *s, size_t len)
{
        for (size_t i = 0; i < len;) {
                size_t n = 0;
                while (i + n < len && s[i + n] != ',')
                        n++;
                if (n == 3 && !memcmp(s + i, "cpu", 3))
                        return true;
                i += n + 1;
        }
        return false;
}

static int set_copy(char **to, const char *s, size_t len)
{
        char *c = strndup(s, len);
        if (!c)
                return -ENOMEM;
        free(*to);
        *to = c;
        return 0;
}

/* One "ID:CONTROLLERS:PATH" line of len bytes. */
static int cgroup_line(const char *line, size_t len, struct sysparse_cgroup *c)
{
        const char *a = memchr(line, ':', len);
        const char *b = a ? memchr(a + 1, ':', len - (size_t)(a + 1 - line)) : NULL;
        if (!a || !b || a == line)
                return -EINVAL;
        for (const char *d = line; d < a; d++)
                if (*d < '0' || *d > '9')
                        return -EINVAL;
        const char *path = b + 1;
        size_t plen = len - (size_t)(path - line), clen = (size_t)(b - a - 1);
        if (!reachable(path, plen))
                return 0;
        if (a - line == 1 && line[0] == '0' && clen == 0)
                return set_copy(&c->v2_path, path, plen);
        if (!has_cpu(a + 1, clen))
                return 0;
        int r = set_copy(&c->v1_controllers, a + 1, clen);
        return r < 0 ? r : set_copy(&c->v1_path, path, plen);
}

int sysparse_cgroup(const char *text, struct sysparse_cgroup *ret)
{
        struct sysparse_cgroup c = { 0 };
        int r = 0;
        for (const char *line = text; r >= 0 && *line;) {
                const char *end = strchr(line, '\n');
                size_t len = end ? (size_t)(end - line) : strlen(line);
                if (len)
                        r = cgroup_line(line, len, &c);
                line += len + (end ? 1 : 0);
        }
        if (r < 0) {
                sysparse_cgroup_clear(&c);
                return r;
        }
        *ret = c;
        return 0;
}

void sysparse_cgroup_clear(struct sysparse_cgroup *c)
{
        free(c->v1_controllers);
        free(c->v1_path);
        free(c->v2_path);
        *c = (struct sysparse_cgroup){ 0 };
}
