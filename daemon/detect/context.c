/* context.c — see context.h. */
#include "detect/context.h"

#include <errno.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#ifndef BENCHWATCH_REVISION
#define BENCHWATCH_REVISION "unknown"
#endif

static const char *const host_items[] = {
        "bios_version", "cpu_model", "kernel_release", "microcode",
        "os_version_id", "product_name", NULL,
};

/* How a person names an item in "what changed". */
static const struct { const char *item, *said; } said_as[] = {
        { "bios_version", "BIOS" },       { "cpu_model", "CPU" },
        { "kernel_release", "kernel" },   { "microcode", "microcode" },
        { "os_version_id", "OS version" }, { "product_name", "machine" },
        { "disk_device", "device" },      { NULL, NULL },
};

static ssize_t find(const struct context *c, const char *name, bool *found)
{
        size_t lo = 0, hi = c->n;
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int d = strcmp(c->items[mid].name, name);
                if (!d) {
                        *found = true;
                        return (ssize_t)mid;
                }
                if (d < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *found = false;
        return (ssize_t)lo;
}

int context_set(struct context *c, const char *name, const char *value)
{
        bool found;
        size_t at = (size_t)find(c, name, &found);
        char *v = strdup(value ? value : "");
        if (!v)
                return -ENOMEM;
        if (found) {
                free(c->items[at].value);
                c->items[at].value = v;
                return 0;
        }
        char *n = strdup(name);
        struct label *items = n ? realloc(c->items, (c->n + 1) * sizeof(*items)) : NULL;
        if (!items) {
                free(n);
                free(v);
                return -ENOMEM;
        }
        memmove(items + at + 1, items + at, (c->n - at) * sizeof(*items));
        items[at] = (struct label){ .name = n, .value = v };
        c->items = items;
        c->n++;
        return 0;
}

const char *context_get(const struct context *c, const char *name)
{
        bool found;
        ssize_t at = find(c, name, &found);
        return found ? c->items[at].value : NULL;
}

void context_clear(struct context *c)
{
        for (size_t i = 0; i < c->n; i++) {
                free(c->items[i].name);
                free(c->items[i].value);
        }
        free(c->items);
        c->items = NULL;
        c->n = 0;
}

int context_copy(struct context *to, const struct context *from)
{
        struct context c = { 0 };
        for (size_t i = 0; i < from->n; i++)
                if (context_set(&c, from->items[i].name, from->items[i].value) < 0) {
                        context_clear(&c);
                        return -ENOMEM;
                }
        context_clear(to);
        *to = c;
        return 0;
}

bool context_equal(const struct context *a, const struct context *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->items[i].name, b->items[i].name) ||
                    strcmp(a->items[i].value, b->items[i].value))
                        return false;
        return true;
}

/* The value of the first "key<spaces/tabs>: value" line of a /proc/cpuinfo. */
static void cpuinfo_field(const char *text, const char *key, char *buf, size_t size)
{
        size_t n = strlen(key);
        buf[0] = 0;
        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                const char *colon = memchr(line, ':', len);
                if (!strncmp(line, key, n) && colon && (line[n] == ' ' || line[n] == '\t' ||
                                                        line[n] == ':')) {
                        const char *v = colon + 1 + (colon[1] == ' ');
                        snprintf(buf, size, "%.*s", (int)(line + len - v), v);
                        return;
                }
                line = nl ? nl + 1 : NULL;
        }
}

/* VERSION_ID of an os-release file, unquoted. */
static void os_version_id(const char *path, char *buf, size_t size)
{
        char text[4096];
        buf[0] = 0;
        if (fdio_read_small(path, text, sizeof(text)) < 0)
                return;
        for (char *line = text, *nl; line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = 0;
                if (strncmp(line, "VERSION_ID=", 11))
                        continue;
                char *v = line + 11;
                size_t len = strlen(v);
                if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
                        v[len - 1] = 0;
                        v++;
                }
                snprintf(buf, size, "%s", v);
                return;
        }
}

/* The host's items.  proc and sys are where procfs and sysfs are mounted
 * ("/proc", "/sys"), os_release the os-release file; a missing item is an
 * empty value.  0 or -ENOMEM. */
static int context_read_host(const char *proc, const char *sys, const char *os_release,
                             struct context *ret)
{
        char path[4096], model[256], micro[64], product[256], bios[128], osv[64];
        static char cpuinfo[1 << 16];
        struct utsname u;

        snprintf(path, sizeof(path), "%s/cpuinfo", proc);
        if (fdio_read_small(path, cpuinfo, sizeof(cpuinfo)) < 0)
                cpuinfo[0] = 0;
        cpuinfo_field(cpuinfo, "model name", model, sizeof(model));
        cpuinfo_field(cpuinfo, "microcode", micro, sizeof(micro));
        snprintf(path, sizeof(path), "%s/class/dmi/id", sys);
        if (fdio_read_sysfs(path, "product_name", product, sizeof(product)) < 0)
                product[0] = 0;
        if (fdio_read_sysfs(path, "bios_version", bios, sizeof(bios)) < 0)
                bios[0] = 0;
        os_version_id(os_release, osv, sizeof(osv));
        const char *values[] = { bios, model, uname(&u) == 0 ? u.release : "",
                                 micro, osv, product };
        struct context c = { 0 };
        for (size_t i = 0; host_items[i]; i++)
                if (context_set(&c, host_items[i], values[i]) < 0) {
                        context_clear(&c);
                        return -ENOMEM;
                }
        context_clear(ret);
        *ret = c;
        return 0;
}

int context_read_this_host(struct context *ret)
{
        const char *os = access("/etc/os-release", R_OK) == 0 ? "/etc/os-release"
                                                              : "/usr/lib/os-release";
        return context_read_host("/proc", "/sys", os, ret);
}

int context_of_run(const struct context *host, const struct result *res,
                   struct context *ret)
{
        struct context c = { 0 };
        int r = context_copy(&c, host);
        const struct family *f = result_find(res, "benchwatch_disk_info");
        const struct sample *s = f && f->n_samples ? &f->samples[0] : NULL;
        for (size_t i = 0; r >= 0 && s && i < s->n_labels; i++) {
                char *name = str_printf("disk_%s", s->labels[i].name);
                r = name ? context_set(&c, name, s->labels[i].value) : -ENOMEM;
                free(name);
        }
        if (r < 0) {
                context_clear(&c);
                return r;
        }
        context_clear(ret);
        *ret = c;
        return 0;
}

/* "kernel", or "vda firmware" for disk_firmware on device vda. */
static char *said(const char *item, const struct context *after)
{
        for (size_t i = 0; said_as[i].item; i++)
                if (!strcmp(said_as[i].item, item))
                        return strdup(said_as[i].said);
        const char *dev = context_get(after, "disk_device");
        if (!strncmp(item, "disk_", 5) && dev && *dev)
                return str_printf("%s %s", dev, item + 5);
        return strdup(item);
}

static int say_change(FILE *f, const char *item, const char *before,
                      const char *after, const struct context *ctx, bool *first)
{
        char *name = said(item, ctx);
        if (!name)
                return -ENOMEM;
        fprintf(f, "%s%s %s → %s", *first ? "" : "; ", name,
                before && *before ? before : "(none)", after && *after ? after : "(none)");
        *first = false;
        free(name);
        return 0;
}

static int is_disk_item(const char *name)
{
        return !strncmp(name, "disk_", 5);
}

char *context_diff(const struct context *before, const struct context *after)
{
        char *buf = NULL;
        size_t len = 0;
        bool first = true;
        int r = 0;

        if (!before->n || !after->n)
                return NULL;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        for (int disk = 0; disk < 2; disk++) { /* the host's first */
                for (size_t i = 0; r >= 0 && i < before->n; i++) {
                        const char *name = before->items[i].name;
                        const char *a = context_get(after, name);
                        if (is_disk_item(name) == disk && (!a || strcmp(a, before->items[i].value)))
                                r = say_change(f, name, before->items[i].value, a, after, &first);
                }
                for (size_t i = 0; r >= 0 && i < after->n; i++) {
                        const char *name = after->items[i].name;
                        if (is_disk_item(name) == disk && !context_get(before, name))
                                r = say_change(f, name, NULL, after->items[i].value, after,
                                               &first);
                }
        }
        if (fclose(f) != 0 || r < 0 || first) {
                free(buf);
                return NULL;
        }
        return buf;
}

struct result *context_info_result(const struct context *host)
{
        struct result *r = result_new("", "benchwatch");
        const char *build[] = { "version", PACKAGE_VERSION, "revision",
                                BENCHWATCH_REVISION, NULL };
        const char *labels[2 * 8 + 1];
        size_t k = 0;

        for (size_t i = 0; i < host->n && k + 2 < sizeof(labels) / sizeof(*labels); i++) {
                labels[k++] = host->items[i].name;
                labels[k++] = host->items[i].value;
        }
        labels[k] = NULL;
        if (!r || result_add(r, "benchwatch_build_info",
                             "The benchwatch that measured (value 1)", METRIC_GAUGE,
                             build, 1, NULL) < 0 ||
            result_add(r, "benchwatch_host_info",
                       "The host the figures were measured on (value 1)",
                       METRIC_GAUGE, labels, 1, NULL) < 0) {
                result_free(r);
                return NULL;
        }
        r->success = true;
        r->started = now_wall_ms();
        return r;
}
