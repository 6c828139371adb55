/* blockdev.c — see blockdev.h. */
#include "blockdev.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/fdio.h"

#define MAX_DEPTH 8  /* loop on dm on md on ...: more is a cycle */
#define MAX_SLAVES 64

static void unresolved(struct blockdev_info *info, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static void unresolved(struct blockdev_info *info, const char *fmt, ...)
{
        va_list ap;

        if (!info->resolved && info->why[0])
                return; /* the first reason is the one that matters */
        info->resolved = false;
        va_start(ap, fmt);
        vsnprintf(info->why, sizeof(info->why), fmt, ap);
        va_end(ap);
}

/* A partition's directory becomes its disk's. */
static void to_whole_disk(char *dir)
{
        char attr[PATH_MAX + 16];

        snprintf(attr, sizeof(attr), "%s/partition", dir);
        if (access(attr, F_OK) == 0) {
                char *slash = strrchr(dir, '/');
                if (slash && slash != dir)
                        *slash = 0;
        }
}

static void attr_or(const char *dir, const char *a, const char *b, char *buf,
                    size_t size)
{
        if (fdio_read_sysfs(dir, a, buf, size) < 0 &&
            (!b || fdio_read_sysfs(dir, b, buf, size) < 0))
                buf[0] = 0;
}

/* "[mq-deadline] none" -> "mq-deadline"; "none" stays. */
static void selected_scheduler(char *s)
{
        char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;
        if (open && close) {
                size_t n = (size_t)(close - open - 1);
                memmove(s, open + 1, n);
                s[n] = 0;
        }
}

static void describe_physical(const char *dir, struct blockdev_info *info)
{
        const char *name = strrchr(dir, '/') + 1;
        size_t len = strlen(info->device);
        char needle[300];

        snprintf(needle, sizeof(needle), ",%s,", name);
        char have[sizeof(info->device) + 2];
        snprintf(have, sizeof(have), ",%s,", info->device);
        if (strstr(have, needle))
                return; /* two members on one disk: named once */
        if (len && len + 1 + strlen(name) < sizeof(info->device)) {
                info->device[len] = ','; /* fits: checked just above */
                memcpy(info->device + len + 1, name, strlen(name) + 1);
        }
        else if (!len)
                snprintf(info->device, sizeof(info->device), "%s", name);
        if (len)
                return; /* the attributes are the first device's */
        info->resolved = true;
        attr_or(dir, "device/model", NULL, info->model, sizeof(info->model));
        attr_or(dir, "device/firmware_rev", "device/rev", info->firmware,
                sizeof(info->firmware));
        attr_or(dir, "device/serial", "serial", info->serial, sizeof(info->serial));
        attr_or(dir, "queue/rotational", NULL, info->rotational,
                sizeof(info->rotational));
        attr_or(dir, "queue/scheduler", NULL, info->scheduler,
                sizeof(info->scheduler));
        selected_scheduler(info->scheduler);
}

static void walk_dev(const char *sys, dev_t dev, int depth,
                     struct blockdev_info *info);

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The devices beneath a dm or md device, sorted; 0 when it has none. */
static int list_slaves(const char *dir, char **names, int max)
{
        char path[PATH_MAX + 16];
        snprintf(path, sizeof(path), "%s/slaves", dir);
        DIR *d = opendir(path);
        if (!d)
                return 0;
        int n = 0;
        struct dirent *e;
        while (n < max && (e = readdir(d)))
                if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
                        n++;
        closedir(d);
        qsort(names, (size_t)n, sizeof(*names), by_name);
        return n;
}

static void walk_dir(const char *sys, const char *dir, int depth,
                     struct blockdev_info *info)
{
        const char *name = strrchr(dir, '/') + 1;
        char backing[PATH_MAX], *slaves[MAX_SLAVES];
        struct stat st;

        if (depth > MAX_DEPTH)
                return unresolved(info, "%s: devices stacked more than %d deep",
                                  name, MAX_DEPTH);
        if (fdio_read_sysfs(dir, "loop/backing_file", backing, sizeof(backing)) == 0) {
                if (stat(backing, &st) < 0)
                        return unresolved(info, "%s: backing file '%s': %s", name,
                                          backing, strerror(errno));
                return walk_dev(sys, st.st_dev, depth + 1, info);
        }
        int n = list_slaves(dir, slaves, MAX_SLAVES);
        if (!n)
                return describe_physical(dir, info);
        for (int i = 0; i < n; i++) {
                char link[PATH_MAX + 300], sub[PATH_MAX];
                snprintf(link, sizeof(link), "%s/slaves/%s", dir, slaves[i]);
                if (realpath(link, sub)) {
                        to_whole_disk(sub);
                        walk_dir(sys, sub, depth + 1, info);
                } else {
                        unresolved(info, "%s: %s", link, strerror(errno));
                }
                free(slaves[i]);
        }
}

static void walk_dev(const char *sys, dev_t dev, int depth,
                     struct blockdev_info *info)
{
        char link[PATH_MAX], dir[PATH_MAX];

        if (major(dev) == 0)
                return unresolved(info, "no block device behind it (device "
                                  "0:%u: tmpfs, overlay, NFS, btrfs...)",
                                  minor(dev));
        snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, major(dev),
                 minor(dev));
        if (!realpath(link, dir))
                return unresolved(info, "device %u:%u is not in %s/dev/block",
                                  major(dev), minor(dev), sys);
        to_whole_disk(dir);
        walk_dir(sys, dir, depth, info);
}

/* Describe the device holding path (a file, a directory, or a block
 * device itself).  sys is sysfs' mount point ("/sys").  Never fails:
 * what cannot be found is !resolved with a reason, or an empty field. */
static void blockdev_describe(const char *sys, const char *path,
                              struct blockdev_info *ret)
{
        struct stat st;

        memset(ret, 0, sizeof(*ret));
        if (stat(path, &st) < 0)
                return unresolved(ret, "'%s': %s", path, strerror(errno));
        walk_dev(sys, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, 0, ret);
        if (!ret->resolved && !ret->why[0])
                unresolved(ret, "'%s': no device found", path);
}

void blockdev_report(const struct bw_host *h, const char *path)
{
        struct blockdev_info d;
        const char *help = "The block device a probe's figures were measured "
                           "on (value 1), as node_exporter's node_disk_info "
                           "names it";

        blockdev_describe("/sys", path, &d);
        if (!d.resolved) {
                const char *labels[] = { "device", "unresolved", "reason", d.why,
                                         NULL };
                h->info(h, "benchwatch_disk_info", help, labels);
                return;
        }
        const char *labels[] = {
                "device", d.device, "model", d.model, "firmware", d.firmware,
                "rotational", d.rotational, "scheduler", d.scheduler,
                d.serial[0] ? "serial" : NULL, d.serial, NULL,
        };
        h->info(h, "benchwatch_disk_info", help, labels);
}
