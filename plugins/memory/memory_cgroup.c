/* memory_cgroup.c — see memory_cgroup.h. */
#include "memory_cgroup.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fdio.h"

#define FILE_MAX 8192
#define DIR_MAX 4200 /* the mount and a cgroup path of up to 4095 bytes */
/* a v1 limit at or above this is "none" (the kernel's PAGE_COUNTER_MAX
 * pages, rounded down) */
#define V1_UNLIMITED (UINT64_C(1) << 62)

/* The number after "key " on a line of a memory.stat text; false if none. */
static bool stat_value(const char *text, const char *key, uint64_t *ret)
{
        size_t len = strlen(key);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (!strncmp(p, key, len) && p[len] == ' ') {
                        char *end;
                        unsigned long long v = strtoull(p + len + 1, &end, 10);
                        if (end == p + len + 1)
                                return false;
                        *ret = (uint64_t)v;
                        return true;
                }
        return false;
}

static bool read_number(const char *path, uint64_t *ret)
{
        char buf[64], *end;
        if (fdio_read_small(path, buf, sizeof(buf)) < 0)
                return false;
        unsigned long long v = strtoull(buf, &end, 10);
        if (end == buf)
                return false;
        *ret = (uint64_t)v;
        return true;
}

/* limit less (usage less inactive file pages), 0 when past it */
static uint64_t room_of(uint64_t limit, uint64_t usage, uint64_t inactive)
{
        uint64_t held = usage > inactive ? usage - inactive : 0;
        return limit > held ? limit - held : 0;
}

/* The path of the hierarchy whose line in self_cgroup names `controller`
 * ("" for v2's "0::"), into buf; false if there is none. */
static bool cgroup_path(const char *self_cgroup, const char *controller, char *buf,
                        size_t size)
{
        for (const char *p = self_cgroup; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                const char *c = strchr(p, ':'), *path = c ? strchr(c + 1, ':') : NULL;
                const char *eol = strchr(p, '\n');
                if (!path || (eol && path > eol))
                        continue;
                size_t clen = (size_t)(path - c - 1), want = strlen(controller);
                bool match = !want ? clen == 0 && !strncmp(p, "0:", 2) : false;
                for (const char *k = c + 1; want && k < path;) { /* "cpu,memory" */
                        const char *comma = memchr(k, ',', (size_t)(path - k));
                        const char *end = comma ? comma : path;
                        if ((size_t)(end - k) == want && !strncmp(k, controller, want))
                                match = true;
                        k = end + 1;
                }
                if (!match)
                        continue;
                size_t n = eol ? (size_t)(eol - path - 1) : strlen(path + 1);
                if (n + 1 > size)
                        return false;
                memcpy(buf, path + 1, n);
                buf[n] = 0;
                return true;
        }
        return false;
}

/* The room under one level's limit: v1 (memory.limit_in_bytes, at or above
 * V1_UNLIMITED none; memory.usage_in_bytes; total_inactive_file) or v2
 * (memory.max, "max" none; memory.current; inactive_file).  -ENOENT: no
 * limit there. */
static int room_at(const char *dir, bool v1, char *stat, uint64_t *ret)
{
        char path[DIR_MAX + 32];
        uint64_t limit, usage, inactive = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
        /* v2's "max" is no number: no limit, as v1's PAGE_COUNTER_MAX */
        if (!read_number(path, &limit) || (v1 && limit >= V1_UNLIMITED))
                return -ENOENT;
        snprintf(path, sizeof(path), "%s/memory.stat", dir);
        if (fdio_read_small(path, stat, FILE_MAX) >= 0)
                (void)stat_value(stat, v1 ? "total_inactive_file" : "inactive_file", &inactive);
        snprintf(path, sizeof(path), "%s/%s", dir,
                 v1 ? "memory.usage_in_bytes" : "memory.current");
        if (!read_number(path, &usage))
                return -ENOENT;
        *ret = room_of(limit, usage, inactive);
        return 0;
}

/* The tightest room of dir and its parents up to the hierarchy's root
 * (the first `top` bytes of dir): a limit may be any level's (a slice's
 * MemoryMax= over a unit's), and a level's usage holds its children's. */
static int room_up(char *dir, size_t top, bool v1, uint64_t *ret)
{
        char *stat = malloc(FILE_MAX);
        int r = -ENOENT;
        if (!stat)
                return -ENOMEM;
        for (;;) {
                uint64_t room;
                if (room_at(dir, v1, stat, &room) == 0 && (r < 0 || room < *ret)) {
                        *ret = room;
                        r = 0;
                }
                char *slash = strrchr(dir, '/');
                if (!slash || (size_t)(slash - dir) < top)
                        break;
                *slash = 0;
        }
        free(stat);
        return r;
}

int memory_cgroup_room(const char *self_cgroup, const char *mount, uint64_t *ret)
{
        char rel[4096], dir[DIR_MAX];
        bool v1 = cgroup_path(self_cgroup, "memory", rel, sizeof(rel));
        if (!v1 && !cgroup_path(self_cgroup, "", rel, sizeof(rel)))
                return -ENOENT;
        int top = snprintf(dir, sizeof(dir), "%s%s", mount, v1 ? "/memory" : "");
        if (top < 0 || (size_t)top >= sizeof(dir))
                return -ENOENT;
        snprintf(dir + top, sizeof(dir) - (size_t)top, "%s", strcmp(rel, "/") ? rel : "");
        /* in a container that shares the host's cgroup namespace the path
         * is the host's, and the mount's root is already this cgroup */
        if (access(dir, F_OK) < 0)
                dir[top] = 0;
        return room_up(dir, (size_t)top, v1, ret);
}
