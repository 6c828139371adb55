/* sink_textfile.c — [textfile]: every probe's latest result, rewritten as a
 * whole .prom file on each publish.
 *
 * node_exporter reads the file at every scrape and must never see half a
 * file, so it is replaced atomically; the write happens on the sink's own
 * thread because fsync on a busy disk can take long, and the scheduler must
 * not wait for it.  A failed write is retried with backoff, logged once. */
#include "sink/sink_textfile.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "encode/prom_text.h"
#include "sink/mailbox.h"
#include "sink/sinkconf.h"
#include "util/atomicfile.h"
#include "util/strutil.h"
#include "util/timeutil.h"

#define TEXTFILE_DEFAULT_PATH "/var/lib/prometheus/node-exporter/benchwatch.prom"

static const struct bw_param_def textfile_options[] = {
        { .name = "enabled",
          .type = BW_PARAM_BOOL,
          .default_value = "yes",
          .help = "write the textfile (the section's presence enables it)" },
        { .name = "path",
          .type = BW_PARAM_STRING,
          .default_value = TEXTFILE_DEFAULT_PATH,
          .help = "the .prom file node_exporter's textfile collector reads; a relative path is in "
                  "state_dir" },
        { .name = NULL },
};

struct textfile_sink {
        struct sink base;
        char *path;
        struct mailbox latest;
        pthread_t thread;
        bool thread_started;
        struct log_ratelimit rl;
        bool failing;
};

/* Replace `path` with `len` bytes of `data` (atomicfile.h), so that
 * node_exporter reads the old or the new file, never half of one.  Its
 * temporary file does not end in .prom: node_exporter never reads it. */
static int write_textfile(const char *path, const char *data, size_t len)
{
        char *d = strdup(path);
        int r = d ? atomicfile_write(dirname(d), path, data, len, 0644) : -ENOMEM;

        free(d);
        return r;
}

/* With the lock held: the file's new content, every probe's latest result
 * and the daemon's own figures; clears every dirty flag. */
static int render_locked(struct textfile_sink *t, char **ret, size_t *ret_len)
{
        struct mailbox *l = &t->latest;
        struct result *self = sink_health_figures(t->base.health);
        const struct result **all = calloc(l->n + 1, sizeof(*all));
        size_t n = 0;
        int r;

        if (!all) {
                result_free(self);
                return -ENOMEM;
        }
        for (size_t i = 0; i < l->n; i++) {
                l->dirty[i] = false;
                all[n++] = l->results[i];
        }
        if (self)
                all[n++] = self;
        r = prom_text_to_string(all, n, ret, ret_len);
        free(all);
        result_free(self);
        return r;
}

static void report(struct textfile_sink *t, int r, const char *what)
{
        if (r >= 0) {
                sink_health_ok(t->base.health, "textfile");
                if (t->failing)
                        log_info("textfile: '%s' written again", t->path);
                t->failing = false;
                return;
        }
        /* the Debian package's path is node_exporter's directory, which
         * exists once prometheus-node-exporter is installed */
        const char *hint = r == -ENOENT ? ": its directory does not exist (node_exporter's "
                                          "textfile directory? installing node_exporter "
                                          "creates it; written once it exists)"
                         : r == -EROFS ? " (read-only for this service: a directory that "
                                         "appeared after it started needs a restart)"
                         : "";
        sink_health_error(t->base.health, "textfile", "cannot %s '%s': %s%s", what, t->path,
                          strerror(-r), hint);
        if (!t->failing || log_ratelimit_ok(&t->rl))
                log_warning("textfile: cannot %s '%s': %s%s (will retry)", what,
                            t->path, strerror(-r), hint);
        if (!t->failing)
                t->rl.last = now_mono();
        t->failing = true;
}

static void *textfile_worker(void *arg)
{
        struct textfile_sink *t = arg;
        struct mailbox *l = &t->latest;
        double backoff = 0;

        pthread_mutex_lock(&l->lock);
        for (;;) {
                mailbox_wait(l, 0);
                if (mailbox_next_dirty(l) < 0)
                        break; /* stopping, nothing left to write */
                char *text = NULL;
                size_t len = 0;
                const char *what = "render";
                int r = render_locked(t, &text, &len);
                pthread_mutex_unlock(&l->lock);
                if (r >= 0) {
                        what = "write";
                        r = write_textfile(t->path, text, len);
                }
                free(text);
                report(t, r, what);
                pthread_mutex_lock(&l->lock);
                if (r >= 0) {
                        backoff = 0;
                        continue;
                }
                l->dirty[0] = true; /* the file is whole or nothing */
                if (l->stopping)
                        break;
                backoff = backoff ? (backoff * 2 > 60 ? 60 : backoff * 2) : 1;
                mailbox_sleep(l, now_mono() + backoff);
        }
        pthread_mutex_unlock(&l->lock);
        return NULL;
}

static int textfile_publish(struct sink *s, const struct result *r)
{
        struct textfile_sink *t = (struct textfile_sink *)s;

        return mailbox_put(&t->latest, r);
}

static void textfile_free(struct sink *s)
{
        struct textfile_sink *t = (struct textfile_sink *)s;

        if (!t)
                return;
        if (t->thread_started)
                mailbox_finish(&t->latest, t->thread);
        free(t->path);
        free(t);
}

/* The file to write, malloc'd into *ret: a relative path is in the state
 * directory ("benchwatch.prom"). */
static int textfile_path(const struct param_set *opts, const struct sink_env *env, char **ret,
                         char **ret_error)
{
        const char *path = sinkconf_opt(opts, "path")->s;
        char *p = path && *path && *path != '/' && env->state_dir ?
                  str_printf("%s/%s", env->state_dir, path) : strdup(path ? path : "");
        if (!p)
                return -ENOMEM;
        size_t n = strlen(p);
        if (!n || p[n - 1] == '/') {
                *ret_error = strdup("path must name a file");
                free(p);
                return -EINVAL;
        }
        /* node_exporter reads only *.prom; the suffix also keeps a typo
         * from replacing some other file (path = /etc/passwd) as root */
        if (n < 6 || strcmp(p + n - 5, ".prom") || p[n - 6] == '/') {
                *ret_error = strdup("path must end in .prom");
                free(p);
                return -EINVAL;
        }
        *ret = p;
        return 0;
}

static int textfile_check(const struct param_set *opts, const struct sink_env *env,
                          char **ret_error)
{
        char *path = NULL;
        int r = textfile_path(opts, env, &path, ret_error);
        free(path);
        return r;
}

static int textfile_create(const struct param_set *opts,
                           const struct sink_env *env, struct sink **ret,
                           char **ret_error)
{
        struct textfile_sink *t;
        char *path = NULL;
        int r = textfile_path(opts, env, &path, ret_error);
        if (r < 0)
                return r;
        t = calloc(1, sizeof(*t));
        if (!t) {
                free(path);
                return -ENOMEM;
        }
        t->path = path;
        t->base.name = "textfile";
        t->base.publish = textfile_publish;
        t->base.free = textfile_free;
        t->base.show = textfile_publish;
        t->base.health = env->health;
        t->rl.interval = 600;
        r = mailbox_start(&t->latest, &t->thread, textfile_worker, t);
        if (r < 0) {
                textfile_free(&t->base);
                return r;
        }
        t->thread_started = true;
        *ret = &t->base;
        return 0;
}

const struct sink_type sink_textfile_type = {
        .section = "textfile",
        .options = textfile_options,
        .default_on = false,
        .create = textfile_create,
        .check = textfile_check,
};
