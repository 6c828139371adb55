/* sink_journal.c — results as journal entries or syslog lines (see
 * sink_journal.h).
 *
 * Operators read the journal first; one entry per run with a sentence for
 * humans and typed fields for `journalctl BENCHWATCH_PROBE=root-disk` keeps
 * both audiences served.  Both are datagrams to a local daemon: cheap, so
 * this sink publishes in the caller's thread; a full syslog socket drops
 * the line (MSG_DONTWAIT) rather than stall the scheduler. */
#include "sink/sink_journal.h"
#include "sink/sinkconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "core/log.h"
#include "util/format.h"
#include "util/strutil.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define FIELD_NAME_MAX 64 /* journald ignores longer field names */

/* ---- the fields ------------------------------------------------------------- */

struct strv {
        char **v;
        size_t n;
        int err;
};

static void strv_addf(struct strv *s, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void strv_addf(struct strv *s, const char *fmt, ...)
{
        char *str = NULL, **nv;
        va_list ap;

        if (s->err)
                return;
        va_start(ap, fmt);
        if (vasprintf(&str, fmt, ap) < 0)
                str = NULL;
        va_end(ap);
        nv = str ? realloc(s->v, (s->n + 1) * sizeof(*nv)) : NULL;
        if (!nv) {
                free(str);
                s->err = -ENOMEM;
                return;
        }
        s->v = nv;
        s->v[s->n++] = str;
}

void sink_journal_fields_free(char **fields, size_t n)
{
        for (size_t i = 0; fields && i < n; i++)
                free(fields[i]);
        free(fields);
}

/* "benchwatch_cpu_events_per_second" of plugin cpu -> "events_per_second" */
static const char *short_name(const struct result *r, const char *name)
{
        size_t n = strlen(r->plugin);

        if (!strncmp(name, "benchwatch_", 11) && !strncmp(name + 11, r->plugin, n) &&
            name[11 + n] == '_')
                return name + 12 + n;
        return !strncmp(name, "benchwatch_", 11) ? name + 11 : name;
}

/* The figure in words: "1234.5 events/s", "512.0 MiB/s", "8123 IOPS". */
static void describe(const char *what, double v, char *buf, size_t size)
{
        size_t wl = strlen(what);

        if (str_has_suffix(what, "bytes_per_second"))
                snprintf(buf, size, "%.1f MiB/s", v / 1048576);
        else if (str_has_suffix(what, "_per_second"))
                snprintf(buf, size, "%.1f %.*s/s", v, (int)(wl - 11), what);
        else if (!strcmp(what, "iops") || str_has_suffix(what, "_iops"))
                snprintf(buf, size, "%.0f IOPS", v);
        else if (str_has_suffix(what, "_seconds"))
                snprintf(buf, size, "%.*s %.3g ms", (int)(wl - 8), what, v * 1e3);
        else if (str_has_suffix(what, "_bytes"))
                snprintf(buf, size, "%.*s %.1f MiB", (int)(wl - 6), what, v / 1048576);
        else {
                char q[32];
                snprintf(buf, size, "%s %s", what, format_quantity(v, false, q, sizeof(q)));
        }
        for (char *p = buf; *p; p++)
                if (*p == '_')
                        *p = ' ';
}

/* "cpu probe 'cpu': 1234.5 events/s, p95 0.81 ms": the plugin's first
 * gauge (plugins emit their main figure first) and first latency's p95. */
static char *message(const struct result *r)
{
        char main_fig[160] = "", p95[64] = "", *m = NULL;

        if (!r->success) {
                if (asprintf(&m, "%s probe '%s' failed: %s", r->plugin, r->probe,
                             r->error ? r->error : "unknown error") < 0)
                        return NULL;
                return m;
        }
        for (size_t i = 0; i < r->n_families; i++) {
                const struct family *f = &r->families[i];
                if (!f->n_samples || !strncmp(f->name, "benchwatch_probe_", 17))
                        continue;
                if (f->type == METRIC_GAUGE && !*main_fig)
                        describe(short_name(r, f->name), f->samples[0].value,
                                 main_fig, sizeof(main_fig));
                else if (f->type == METRIC_SUMMARY && !*p95 &&
                         f->samples[0].hist && f->samples[0].hist->count)
                        snprintf(p95, sizeof(p95), "p95 %.3g ms",
                                 bw_hist_quantile_ns(f->samples[0].hist, 0.95) / 1e6);
        }
        if (asprintf(&m, "%s probe '%s': %s%s%s", r->plugin, r->probe,
                     *main_fig ? main_fig : "ok", *main_fig && *p95 ? ", " : "",
                     p95) < 0)
                return NULL;
        return m;
}

/* Upper-case, [A-Z0-9_] only, not starting with '_', at most max chars. */
static void field_name(char *s, size_t max)
{
        size_t n = 0;

        for (char *p = s; *p; p++, n++) {
                if (*p >= 'a' && *p <= 'z')
                        *p = (char)(*p - 'a' + 'A');
                else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                        *p = '_';
        }
        if (s[0] == '_' || (s[0] >= '0' && s[0] <= '9'))
                s[0] = 'X';
        if (n > max)
                s[max] = 0;
}

static bool label_varies(const struct family *f, const char *name,
                         const char *value)
{
        for (size_t i = 0; i < f->n_samples; i++) {
                const char *v = result_sample_label(&f->samples[i], name);
                if (!v || strcmp(v, value))
                        return true;
        }
        return false;
}

/* A key longer than max, cut to fit with a hash of the whole (FNV-1a) at
 * its end: the labels that tell samples apart come last, and cut off they
 * gave several fields one name (BENCHWATCH_REGRESSION_METRIC_BENCHWATCH_
 * DISK_LATENCY_SECONDS_MET, thrice in a line). */
static void shorten(char *key, size_t max)
{
        size_t len = strlen(key);
        uint32_t h = 2166136261u;
        if (len <= max)
                return;
        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char)key[i]) * 16777619u;
        snprintf(key + max - 9, 10, "_%08X", h);
}

/* Family name plus the labels that tell this sample from its siblings. */
static char *sample_key(const struct family *f, const struct sample *s)
{
        char *key = strdup(f->name);

        for (size_t i = 0; key && i < s->n_labels; i++) {
                char *k2 = NULL;
                if (!label_varies(f, s->labels[i].name, s->labels[i].value))
                        continue;
                if (asprintf(&k2, "%s_%s_%s", key, s->labels[i].name,
                             s->labels[i].value) < 0)
                        k2 = NULL;
                free(key);
                key = k2;
        }
        if (key) {
                field_name(key, SIZE_MAX);
                shorten(key, f->type == METRIC_SUMMARY ? FIELD_NAME_MAX - 4 : FIELD_NAME_MAX);
        }
        return key;
}

static void figure_fields(struct strv *sv, const struct family *f)
{
        static const struct { double q; const char *suffix; } qs[] = {
                { 0.5, "P50" }, { 0.95, "P95" }, { 0.99, "P99" }, { 1, "MAX" },
        };

        for (size_t i = 0; i < f->n_samples && !sv->err; i++) {
                const struct sample *s = &f->samples[i];
                char *key = sample_key(f, s);
                if (!key) {
                        sv->err = -ENOMEM;
                        return;
                }
                if (f->type != METRIC_SUMMARY)
                        strv_addf(sv, "%s=%.9g", key, s->value);
                else if (s->hist && s->hist->count)
                        for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
                                strv_addf(sv, "%s_%s=%.9g", key, qs[k].suffix,
                                          bw_hist_quantile_ns(s->hist, qs[k].q) / 1e9);
                free(key);
        }
}

int sink_journal_fields(const struct result *r, char ***ret, size_t *ret_n)
{
        struct strv sv = { 0 };
        char *m = message(r);

        if (m)
                strv_addf(&sv, "MESSAGE=%s", m);
        else
                sv.err = -ENOMEM;
        free(m);
        strv_addf(&sv, "PRIORITY=%d", r->success ? LOG_INFO : LOG_WARNING);
        strv_addf(&sv, "SYSLOG_IDENTIFIER=benchwatch");
        strv_addf(&sv, "BENCHWATCH_PROBE=%s", r->probe);
        strv_addf(&sv, "BENCHWATCH_PLUGIN=%s", r->plugin);
        strv_addf(&sv, "BENCHWATCH_SUCCESS=%d", r->success ? 1 : 0);
        if (!r->success)
                strv_addf(&sv, "BENCHWATCH_ERROR=%s", r->error ? r->error : "unknown error");
        strv_addf(&sv, "BENCHWATCH_DURATION=%.6f", r->duration);
        for (size_t i = 0; i < r->n_params && !sv.err; i++) {
                char *key = NULL;
                if (asprintf(&key, "BENCHWATCH_PARAM_%s", r->params[i].name) < 0) {
                        sv.err = -ENOMEM;
                        break;
                }
                field_name(key, FIELD_NAME_MAX);
                strv_addf(&sv, "%s=%s", key, r->params[i].value);
                free(key);
        }
        /* benchwatch_probe_* repeat SUCCESS and DURATION: not again. */
        for (size_t i = 0; i < r->n_families; i++)
                if (strncmp(r->families[i].name, "benchwatch_probe_", 17))
                        figure_fields(&sv, &r->families[i]);
        if (sv.err) {
                sink_journal_fields_free(sv.v, sv.n);
                return sv.err;
        }
        *ret = sv.v;
        *ret_n = sv.n;
        return 0;
}

/* ---- syslog text ------------------------------------------------------------ */

static bool needs_quotes(const char *v)
{
        return !*v || strpbrk(v, " \t\n\"\\=") != NULL;
}

static void put_value(FILE *f, const char *v)
{
        if (!needs_quotes(v)) {
                fputs(v, f);
                return;
        }
        fputc('"', f);
        for (; *v; v++) {
                if (*v == '"' || *v == '\\')
                        fputc('\\', f);
                if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
        }
        fputc('"', f);
}

static bool skip_in_line(const char *field)
{
        return !strncmp(field, "MESSAGE=", 8) || !strncmp(field, "PRIORITY=", 9) ||
               !strncmp(field, "SYSLOG_IDENTIFIER=", 18);
}

/* The syslog text of r (no priority/ident/time header). */
static int sink_syslog_line(const struct result *r, char **ret)
{
        char **fields, *buf = NULL;
        size_t n, len = 0;
        FILE *f;
        int e = sink_journal_fields(r, &fields, &n);

        if (e < 0)
                return e;
        f = open_memstream(&buf, &len);
        if (!f) {
                sink_journal_fields_free(fields, n);
                return -ENOMEM;
        }
        fputs(fields[0] + 8, f); /* MESSAGE= comes first */
        for (size_t i = 1; i < n; i++) {
                const char *eq = strchr(fields[i], '=');
                if (skip_in_line(fields[i]) || !eq)
                        continue;
                fprintf(f, " %.*s=", (int)(eq - fields[i]), fields[i]);
                put_value(f, eq + 1);
        }
        e = ferror(f) ? -ENOMEM : 0;
        if (fclose(f) != 0)
                e = -ENOMEM;
        sink_journal_fields_free(fields, n);
        if (e < 0) {
                free(buf);
                return e;
        }
        *ret = buf;
        return 0;
}

/* ---- the sinks ---------------------------------------------------------- */

static const char *const facility_names[] = {
        "daemon", "user", "local0", "local1", "local2", "local3", "local4",
        "local5", "local6", "local7", NULL,
};
static const int facility_values[] = {
        LOG_DAEMON, LOG_USER, LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3,
        LOG_LOCAL4, LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7,
};

static const struct bw_param_def journal_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes",
          .help = "one journal entry per run (syslog where journald is not running)" },
        { .name = NULL },
};

static const struct bw_param_def syslog_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes",
          .help = "one key=value syslog line per run" },
        { .name = "ident", .type = BW_PARAM_STRING, .default_value = "benchwatch",
          .help = "the syslog tag" },
        { .name = "facility", .type = BW_PARAM_ENUM, .default_value = "daemon",
          .choices = facility_names, .help = "the syslog facility" },
        { .name = "socket", .type = BW_PARAM_STRING, .default_value = "",
          .help = "send to this unix datagram socket instead of syslog(3)'s /dev/log" },
        { .name = NULL },
};

struct journal_sink {
        struct sink base;
        bool use_syslog;
        char *ident;
        int facility;
        char *socket_path; /* NULL: syslog(3) */
        int fd;
        struct log_ratelimit rl;
};

/* "<30>Nov 30 16:28:25 benchwatch[123]: line", as syslog(3) sends it. */
static int send_datagram(struct journal_sink *j, int prio, const char *line)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char stamp[32], *msg = NULL;
        struct tm tm;
        time_t now = time(NULL);
        int n, r = 0;

        if (strlen(j->socket_path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, j->socket_path, strlen(j->socket_path) + 1);
        localtime_r(&now, &tm);
        strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", &tm);
        n = asprintf(&msg, "<%d>%s %s[%d]: %s", j->facility | prio, stamp,
                     j->ident, (int)getpid(), line);
        if (n < 0)
                return -ENOMEM;
        if (sendto(j->fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL,
                   (struct sockaddr *)&sa, sizeof(sa)) < 0)
                r = -errno;
        free(msg);
        return r;
}

static int publish_syslog(struct journal_sink *j, const struct result *res)
{
        int prio = res->success ? LOG_INFO : LOG_WARNING;
        char *line = NULL;
        int r = sink_syslog_line(res, &line);

        if (r < 0)
                return r;
        if (j->socket_path)
                r = send_datagram(j, prio, line);
        else
                syslog(j->facility | prio, "%s", line);
        free(line);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && log_ratelimit_ok(&j->rl))
                log_warning("syslog: cannot send to '%s': %s", j->socket_path,
                            strerror(-r));
        return 0;
}

static int publish_journal(struct journal_sink *j, const struct result *res)
{
        char **fields;
        size_t n;
        int r = sink_journal_fields(res, &fields, &n);

        if (r < 0)
                return r;
        struct iovec *iov = calloc(n, sizeof(*iov));
        if (!iov) {
                sink_journal_fields_free(fields, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                iov[i].iov_base = fields[i];
                iov[i].iov_len = strlen(fields[i]);
        }
        r = sd_journal_sendv(iov, (int)n);
        free(iov);
        sink_journal_fields_free(fields, n);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && log_ratelimit_ok(&j->rl))
                log_warning("journal: cannot log the result of probe '%s': %s",
                            res->probe, strerror(-r));
        return 0;
}

static int journal_publish(struct sink *s, const struct result *res)
{
        struct journal_sink *j = (struct journal_sink *)s;

        return j->use_syslog ? publish_syslog(j, res) : publish_journal(j, res);
}

static void journal_free(struct sink *s)
{
        struct journal_sink *j = (struct journal_sink *)s;

        if (!j)
                return;
        if (j->fd >= 0)
                close(j->fd);
        free(j->ident);
        free(j->socket_path);
        free(j);
}

static bool journald_running(void)
{
        struct stat st;

        return stat(JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int new_sink(const char *name, const char *ident, int facility,
                    const char *socket_path, struct journal_sink **ret)
{
        struct journal_sink *j = calloc(1, sizeof(*j));

        if (!j)
                return -ENOMEM;
        j->base.name = name;
        j->base.publish = journal_publish;
        j->base.free = journal_free;
        j->fd = -1;
        j->facility = facility;
        j->rl.interval = 600;
        j->ident = strdup(ident);
        j->socket_path = socket_path && *socket_path ? strdup(socket_path) : NULL;
        if (!j->ident || (socket_path && *socket_path && !j->socket_path)) {
                journal_free(&j->base);
                return -ENOMEM;
        }
        if (j->socket_path) {
                j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (j->fd < 0) {
                        int r = -errno;
                        journal_free(&j->base);
                        return r;
                }
        } else {
                /* syslog(3) keeps the ident pointer: j->ident lives as long
                 * as the sink. */
                openlog(j->ident, LOG_PID | LOG_NDELAY, facility);
        }
        *ret = j;
        return 0;
}

static int journal_create(const struct param_set *opts,
                          const struct sink_env *env, struct sink **ret,
                          char **ret_error)
{
        struct journal_sink *j;
        int r = new_sink("journal", "benchwatch", LOG_DAEMON, NULL, &j);

        if (r < 0)
                return r;
        j->use_syslog = !journald_running();
        j->base.stand_in = j->use_syslog;
        j->base.health = env->health;
        if (j->use_syslog)
                log_debug("journal: journald is not running, results go to syslog");
        *ret = &j->base;
        return 0;
}

static int syslog_create(const struct param_set *opts,
                         const struct sink_env *env, struct sink **ret,
                         char **ret_error)
{
        const char *sock = sinkconf_opt(opts, "socket")->s;
        struct journal_sink *j;
        struct sockaddr_un sa;
        int r;

        if (sock && strlen(sock) >= sizeof(sa.sun_path)) {
                *ret_error = strdup("socket path too long");
                return -ENAMETOOLONG;
        }
        r = new_sink("syslog", sinkconf_opt(opts, "ident")->s,
                     facility_values[sinkconf_opt(opts, "facility")->i], sock, &j);
        if (r < 0)
                return r;
        j->use_syslog = true;
        j->base.health = env->health;
        *ret = &j->base;
        return 0;
}

const struct sink_type sink_journal_type = {
        .section = "journal",
        .options = journal_options,
        .default_on = true,
        .create = journal_create,
};

const struct sink_type sink_journal_syslog_type = {
        .section = "syslog",
        .options = syslog_options,
        .default_on = false,
        .supersedes = "journal",
        .create = syslog_create,
};
