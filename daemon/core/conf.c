/* conf.c — see conf.h.
 *
 * Each file is read in two passes. The first turns text into blocks (a
 * section header and its key/value entries, with line numbers): our own line
 * reader hands libinih one line at a time, which tells us the line number
 * (Debian builds inih without INI_HANDLER_LINENO), lets us refuse a line
 * longer than inih's buffer instead of having it cut silently, and lets us
 * name the reason for every malformed line or header (inih only returns the
 * number of the first bad line). Leading whitespace is stripped before inih
 * sees a line, so an indented key is a key and never a "continuation".
 * The second pass applies the blocks in order; it needs a probe's whole
 * section because `plugin =` may come after the plugin's parameters. */
#include "core/conf.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/precheck.h"
#include "util/fdio.h"
#include "util/strutil.h"

#ifndef PLUGINDIR
#define PLUGINDIR "/usr/local/lib/benchwatch"
#endif
/* From configure's --localstatedir (Makefile.am); builds without it (the
 * fuzzers) get the packaged locations. */
#ifndef BW_STATE_DIR
#define BW_STATE_DIR "/var/lib/benchwatch"
#endif
#ifndef BW_CACHE_DIR
#define BW_CACHE_DIR "/var/cache/benchwatch"
#endif

#define MAX_FILE_SIZE (1024 * 1024)
#define MAX_ERRORS 100

#define OPT_INTERVAL(text) { .name = "interval", .type = BW_PARAM_DURATION, \
        .default_value = "1h", .min = 1, .max = 30 * 86400.0, .unit = "s", \
        .help = text }
#define OPT_TIMEOUT(text) { .name = "timeout", .type = BW_PARAM_DURATION, \
        .default_value = "5min", .min = 0.1, .max = 86400, .unit = "s", \
        .help = text }

static const char *const ioprio_classes[] = { "best-effort", "idle", NULL };
/* in the order of priority.h's PRIO_CPU_* */
static const char *const cpu_policies[] = { "other", "batch", "idle", NULL };

const struct bw_param_def conf_daemon_options[] = {
        [CFG_D_INTERVAL] = OPT_INTERVAL("time between two runs of a probe, "
                                        "unless its section sets interval"),
        [CFG_D_TIMEOUT] = OPT_TIMEOUT("a run still going after this is "
                                      "killed and counts as failed"),
        [CFG_D_SPLAY] = { .name = "splay", .type = BW_PARAM_DOUBLE,
                .default_value = "0.1", .min = 0, .max = 1,
                .unit = "fraction of interval",
                .help = "each wait (and the first) is lengthened by a random "
                        "0..splay x interval so probes and hosts drift apart" },
        [CFG_D_FIRST_SPLAY] = { .name = "first_splay", .type = BW_PARAM_DURATION,
                .default_value = "30s", .min = 0, .max = 86400, .unit = "s",
                .help = "the first run of each probe after start waits at most this "
                        "(and at most splay x interval)" },
        [CFG_D_NICE] = { .name = "nice", .type = BW_PARAM_INT,
                .default_value = "10", .min = 0, .max = 19,
                .help = "CPU niceness of the processes that run probes" },
        [CFG_D_IOPRIO_CLASS] = { .name = "ioprio_class", .type = BW_PARAM_ENUM,
                .default_value = "best-effort", .choices = ioprio_classes,
                .help = "I/O scheduling class of probe runs" },
        [CFG_D_IOPRIO_LEVEL] = { .name = "ioprio_level", .type = BW_PARAM_INT,
                .default_value = "7", .min = 0, .max = 7,
                .help = "best-effort I/O priority, 0 highest .. 7 lowest" },
        [CFG_D_CPU_POLICY] = { .name = "cpu_policy", .type = BW_PARAM_ENUM,
                .default_value = "idle", .choices = cpu_policies,
                .help = "CPU scheduling policy of the daemon's runs of CPU-bound "
                        "probes (cpu, threads, memory): idle (SCHED_IDLE: any other "
                        "work preempts them at once), batch (SCHED_BATCH) or other "
                        "(the usual policy, at nice); `run` and `sweep` use other" },
        [CFG_D_CACHE_DIR] = { .name = "cache_dir", .type = BW_PARAM_STRING,
                .default_value = BW_CACHE_DIR,
                .help = "scratch files of probes (disk test files)" },
        [CFG_D_STATE_DIR] = { .name = "state_dir", .type = BW_PARAM_STRING,
                .default_value = BW_STATE_DIR,
                .help = "persistent state: baselines, last results" },
        [CFG_D_PLUGIN_DIR] = { .name = "plugin_dir", .type = BW_PARAM_STRING,
                .default_value = PLUGINDIR,
                .help = "where plugins are loaded from "
                        "($BENCHWATCH_PLUGIN_DIR overrides it)" },
        [CFG_D_MAX_LOAD] = { .name = "max_load", .type = BW_PARAM_DOUBLE,
                .default_value = "0", .min = 0, .max = 1000,
                .unit = "per CPU",
                .help = "defer a run while the 1-minute load average divided "
                        "by the number of CPUs is above this; 0: never" },
        [CFG_D_MAX_PSI_CPU] = { .name = "max_psi_cpu", .type = BW_PARAM_DOUBLE,
                .default_value = "25", .min = 0, .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of /proc/pressure/cpu "
                        "is above this; 0: never" },
        [CFG_D_MAX_PSI_IO] = { .name = "max_psi_io", .type = BW_PARAM_DOUBLE,
                .default_value = "25", .min = 0, .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of /proc/pressure/io "
                        "is above this; 0: never" },
        [CFG_D_MAX_PSI_MEMORY] = { .name = "max_psi_memory",
                .type = BW_PARAM_DOUBLE, .default_value = "10", .min = 0,
                .max = 100, .unit = "%",
                .help = "defer a run while 'some avg10' of "
                        "/proc/pressure/memory is above this; 0: never" },
        [CFG_D_DUTY_CYCLE] = { .name = "duty_cycle", .type = BW_PARAM_DOUBLE,
                .default_value = "0.1", .min = 0.001, .max = 1,
                .unit = "fraction of time",
                .help = "at most this share of wall time is spent running "
                        "probes: a run of d seconds is followed by at least "
                        "d x (1/duty_cycle - 1) without any; 1: no limit" },
        [CFG_D_HISTORY_SIZE] = { .name = "history_size", .type = BW_PARAM_SIZE,
                .default_value = "8M", .min = 64 * 1024, .max = 1024.0 * 1024 * 1024,
                .unit = "bytes",
                .help = "most bytes of each probe's history in state_dir "
                        "(benchwatch history); when full, the oldest half goes" },
        [CFG_D_YIELD] = { .name = "yield", .type = BW_PARAM_BOOL,
                .default_value = "yes",
                .help = "look at the host for half a second before a run and "
                        "defer it while there is no room for it (room) or "
                        "others need the disks or memory; stop a run that "
                        "takes CPU from others (yield_cpu_wait), is starved "
                        "of CPU itself, or meets others' disk I/O or memory "
                        "stalls (yield_io, yield_memory; checked every 250 ms, "
                        "two samples in a row) and count it as deferred; no: "
                        "runs always start when due and go to their end" },
        [CFG_D_YIELD_CPU] = { .name = "yield_cpu", .type = BW_PARAM_DOUBLE,
                .default_value = "50", .min = 0, .max = 100, .unit = "%",
                .help = PARAM_OBSOLETE_HELP "a probe runs when the host has "
                        "room for it, not by others' share of the host: see "
                        "room and yield_cpu_wait" },
        [CFG_D_YIELD_IO] = { .name = "yield_io", .type = BW_PARAM_SIZE,
                .default_value = "10M", .min = 0, .max = 1e15, .unit = "bytes/s",
                .help = "yield a probe that does disk I/O while processes other "
                        "than it read and write more than this per second on the "
                        "host's disks; 0: never" },
        [CFG_D_YIELD_MEMORY] = { .name = "yield_memory", .type = BW_PARAM_DOUBLE,
                .default_value = "10", .min = 0, .max = 100, .unit = "%",
                .help = "yield while some task stalls on memory (PSI) more than "
                        "this share of the time; 0: never" },
        [CFG_D_ROOM] = { .name = "room", .type = BW_PARAM_DOUBLE,
                .default_value = "0.8", .min = 0, .max = 100, .unit = "x the CPUs needed",
                .help = "a run starts when the CPUs it may run on had at least "
                        "this many times the CPUs the probe keeps busy idle "
                        "over the half second before (its last run's CPU time "
                        "per second; before its first, its threads), steal "
                        "left out; 0: never waits for room" },
        [CFG_D_YIELD_CPU_WAIT] = { .name = "yield_cpu_wait", .type = BW_PARAM_DOUBLE,
                .default_value = "10", .min = 0, .max = 100, .unit = "%",
                .help = "yield while other tasks wait for a CPU this many "
                        "percentage points of the time more than before the "
                        "run (PSI cpu some, less the probe's own waits); 0: "
                        "never" },
        [CFG_D_COUNT] = { .name = NULL },
};

/* The keys of a [probe NAME] section that belong to the core.  A plugin
 * parameter of the same name wins (http's per-request `timeout`); the run
 * deadline of such a probe is then set with `run_timeout`. */
enum { PO_INTERVAL, PO_TIMEOUT, PO_ENABLED, PO_RUN_TIMEOUT };
static const struct bw_param_def probe_options[] = {
        [PO_INTERVAL] = OPT_INTERVAL("time between two runs of this probe"),
        [PO_TIMEOUT] = OPT_TIMEOUT("deadline of one run of this probe"),
        [PO_ENABLED] = { .name = "enabled", .type = BW_PARAM_BOOL,
                         .default_value = "yes",
                         .help = "no: keep the section but do not schedule "
                                 "the probe" },
        [PO_RUN_TIMEOUT] = { .name = "run_timeout", .type = BW_PARAM_DURATION,
                             .default_value = "5min", .min = 0.1, .max = 86400,
                             .unit = "s", .help = "deadline of one run, for "
                             "plugins with a `timeout` parameter of their own" },
        { .name = NULL },
};

/* ---- text building ----------------------------------------------------- */

struct strbuf {
        char *s;
        size_t len;
        bool oom;
};

static void sb_add(struct strbuf *b, const char *t)
{
        size_t l = strlen(t);
        char *s = b->oom ? NULL : realloc(b->s, b->len + l + 1);
        if (!s) {
                b->oom = true;
                return;
        }
        memcpy(s + b->len, t, l + 1);
        b->s = s;
        b->len += l;
}

static void sb_list(struct strbuf *b, size_t i, const char *t)
{
        if (i)
                sb_add(b, ", ");
        sb_add(b, t);
}

/* ---- error collection ---------------------------------------------------- */

struct cfg_reader {
        const struct cfg_env *env;
        struct config *cfg;
        struct strbuf err;
        unsigned n_errors;
        bool oom;
};

static void add_error(struct cfg_reader *l, char *msg)
{
        if (!msg) {
                l->oom = true;
                return;
        }
        if (l->n_errors++ < MAX_ERRORS) {
                if (l->err.len)
                        sb_add(&l->err, "\n");
                sb_add(&l->err, msg);
        }
        free(msg);
}

/* "file:line: [section] message"; line 0 or section NULL leave them out. */
static void err_at(struct cfg_reader *l, const char *file, unsigned line,
                   const char *section, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
static void err_at(struct cfg_reader *l, const char *file, unsigned line,
                   const char *section, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *msg = str_vprintf(fmt, ap);
        va_end(ap);
        if (!msg) {
                l->oom = true;
                return;
        }
        char where[32] = "";
        if (line)
                snprintf(where, sizeof(where), ":%u", line);
        add_error(l, str_printf("%s%s: %s%s%s%s", file, where,
                                section ? "[" : "", section ? section : "",
                                section ? "] " : "", msg));
        free(msg);
}

static char *plugin_names(const struct cfg_reader *l)
{
        struct strbuf b = { 0 };
        const char *n;
        for (size_t i = 0; l->env->plugin_name &&
                           (n = l->env->plugin_name(l->env->userdata, i)); i++)
                sb_list(&b, i, n);
        if (!b.s && !b.oom)
                sb_add(&b, "none found");
        return b.oom ? (free(b.s), NULL) : b.s;
}

/* The options a user may set: the obsolete ones are accepted, not offered. */
static char *option_names(const struct bw_param_def *defs)
{
        struct strbuf b = { 0 };
        for (size_t i = 0, n = 0; defs[i].name; i++)
                if (!param_obsolete(&defs[i]))
                        sb_list(&b, n++, defs[i].name);
        return b.oom ? (free(b.s), NULL) : b.s;
}

/* ---- pass 1: text to blocks ---------------------------------------------- */

struct entry {
        char *key, *value;
        unsigned line;
};

struct block {
        char *section; /* inner text of [...], whitespace runs collapsed */
        unsigned line;
        struct entry *v;
        size_t n;
};

struct file_parse {
        struct cfg_reader *l;
        const char *file;
        const char *p, *end;  /* text not read yet */
        unsigned line;        /* of the line inih is working on */
        struct block *blocks;
        size_t n_blocks;
        bool bad_section;     /* after a broken header: drop its keys */
};

static const char *cur_section(const struct file_parse *fp)
{
        if (fp->bad_section || !fp->n_blocks)
                return NULL;
        return fp->blocks[fp->n_blocks - 1].section;
}

static char *collapse_spaces(const char *s, size_t len)
{
        char *t = malloc(len + 1);
        size_t n = 0;
        if (!t)
                return NULL;
        for (size_t i = 0; i < len; i++) {
                if (!isspace((unsigned char)s[i]))
                        t[n++] = s[i];
                else if (n && t[n - 1] != ' ')
                        t[n++] = ' ';
        }
        while (n && t[n - 1] == ' ')
                n--;
        t[n] = 0;
        return t;
}

static void add_block(struct file_parse *fp, char *name)
{
        struct block *b = realloc(fp->blocks,
                                  (fp->n_blocks + 1) * sizeof(*b));
        if (!b) {
                free(name);
                fp->l->oom = true;
                return;
        }
        fp->blocks = b;
        b[fp->n_blocks++] = (struct block){ .section = name, .line = fp->line };
        fp->bad_section = false;
}

/* A "[section]" line (s is trimmed, starts with '['). */
static void parse_header(struct file_parse *fp, const char *s, size_t len)
{
        const char *close = memchr(s, ']', len);
        fp->bad_section = true;
        if (!close) {
                err_at(fp->l, fp->file, fp->line, NULL,
                       "missing ']' in section header '%.*s'",
                       (int)(len > 60 ? 60 : len), s);
                return;
        }
        const char *rest = close + 1, *end = s + len;
        while (rest < end && isspace((unsigned char)*rest))
                rest++;
        if (rest < end && *rest != ';' && *rest != '#') {
                err_at(fp->l, fp->file, fp->line, NULL,
                       "unexpected text after ']': '%.*s'",
                       (int)(end - rest > 60 ? 60 : end - rest), rest);
                return;
        }
        char *name = collapse_spaces(s + 1, (size_t)(close - s - 1));
        if (!name) {
                fp->l->oom = true;
                return;
        }
        if (!*name) {
                free(name);
                err_at(fp->l, fp->file, fp->line, NULL, "empty section name");
                return;
        }
        add_block(fp, name);
}

/* Where inih will split "name = value" (it accepts ':' too), or NULL when
 * an inline comment (';' after whitespace) comes first. */
static const char *find_separator(const char *s, size_t len)
{
        bool was_space = false;
        for (size_t i = 0; i < len; i++) {
                if (s[i] == '=' || s[i] == ':')
                        return s + i;
                if (was_space && s[i] == ';')
                        return NULL;
                was_space = isspace((unsigned char)s[i]);
        }
        return NULL;
}

/* True when the (trimmed) line is a "key = value" line for inih; reports
 * every other kind of line that is not blank or a comment. */
static bool check_line(struct file_parse *fp, const char *s, size_t len,
                       size_t bufsize)
{
        if (memchr(s, '\0', len)) {
                err_at(fp->l, fp->file, fp->line, cur_section(fp),
                       "line contains a NUL byte");
                return false;
        }
        if (len == 0 || *s == ';' || *s == '#')
                return false;
        if (*s == '[') {
                parse_header(fp, s, len);
                return false;
        }
        const char *sep = find_separator(s, len);
        if (!sep)
                err_at(fp->l, fp->file, fp->line, cur_section(fp), "expected "
                       "'key = value', '[section]' or a comment");
        else if (sep == s)
                err_at(fp->l, fp->file, fp->line, cur_section(fp),
                       "missing key name before '%c'", *sep);
        else if (len + 2 > bufsize) /* inih needs room for "\n\0" */
                err_at(fp->l, fp->file, fp->line, cur_section(fp),
                       "line too long (%zu characters, at most %zu)", len,
                       bufsize - 2);
        return sep && sep != s && len + 2 <= bufsize;
}

/* inih's reader: one whole line per call, trimmed, or "\n" in place of a
 * line that inih must not see (comments, headers, lines we refused). */
static char *read_line(char *buf, int num, void *stream)
{
        struct file_parse *fp = stream;
        if (fp->p >= fp->end || num < 3)
                return NULL;
        const char *s = fp->p;
        const char *nl = memchr(s, '\n', (size_t)(fp->end - s));
        size_t len = (size_t)((nl ? nl : fp->end) - s);
        fp->p = nl ? nl + 1 : fp->end;
        fp->line++;
        while (len && isspace((unsigned char)*s))
                s++, len--;
        while (len && isspace((unsigned char)s[len - 1]))
                len--;
        if (!check_line(fp, s, len, (size_t)num))
                len = 0;
        memcpy(buf, s, len);
        buf[len] = '\n';
        buf[len + 1] = 0;
        return buf;
}

static int on_key(void *user, const char *section, const char *name,
                  const char *value)
{
        struct file_parse *fp = user;
        (void)section; /* ours, from parse_header(), is authoritative */
        if (fp->bad_section)
                return 1;
        if (!fp->n_blocks) {
                err_at(fp->l, fp->file, fp->line, NULL, "%s: outside of any "
                       "section (put it under [daemon] or [probe NAME])", name);
                return 1;
        }
        struct block *b = &fp->blocks[fp->n_blocks - 1];
        struct entry *v = realloc(b->v, (b->n + 1) * sizeof(*v));
        if (!v) {
                fp->l->oom = true;
                return 0;
        }
        b->v = v;
        v[b->n] = (struct entry){ .key = strdup(name), .value = strdup(value),
                                  .line = fp->line };
        if (!v[b->n].key || !v[b->n].value)
                fp->l->oom = true;
        b->n++;
        return 1;
}

static void free_blocks(struct file_parse *fp)
{
        for (size_t i = 0; i < fp->n_blocks; i++) {
                for (size_t k = 0; k < fp->blocks[i].n; k++) {
                        free(fp->blocks[i].v[k].key);
                        free(fp->blocks[i].v[k].value);
                }
                free(fp->blocks[i].v);
                free(fp->blocks[i].section);
        }
        free(fp->blocks);
}

/* ---- pass 2: blocks to values ---------------------------------------------- */

/* Stores entry k of b into ps (its key is known to ps). */
static void assign(struct cfg_reader *l, const char *file, const struct block *b,
                   size_t k, struct param_set *ps)
{
        const struct entry *e = &b->v[k];
        int i = param_index(ps->defs, e->key);
        assert(i >= 0);
        for (size_t j = 0; j < k && !(ps->defs[i].flags & BW_PARAM_MULTI); j++)
                if (!strcmp(b->v[j].key, e->key)) {
                        err_at(l, file, e->line, b->section, "%s: given twice "
                               "in this section (first at line %u)", e->key,
                               b->v[j].line);
                        return;
                }
        char *why = NULL;
        int r = param_set_assign(ps, e->key, e->value, &why);
        if (r == -ENOMEM || (r < 0 && !why))
                l->oom = true;
        else if (r < 0)
                err_at(l, file, e->line, b->section, "%s", why);
        free(why);
}

static void apply_options(struct cfg_reader *l, const char *file,
                          const struct block *b, struct param_set *ps)
{
        for (size_t k = 0; k < b->n; k++) {
                if (param_index(ps->defs, b->v[k].key) >= 0) {
                        assign(l, file, b, k, ps);
                        continue;
                }
                char *known = option_names(ps->defs);
                err_at(l, file, b->v[k].line, b->section,
                       "unknown option '%s' (known: %s)", b->v[k].key,
                       known ? known : "?");
                free(known);
        }
}

static struct probe_cfg *find_probe(struct config *cfg, const char *name)
{
        for (size_t i = 0; i < cfg->n_probes; i++)
                if (!strcmp(cfg->probes[i].name, name))
                        return &cfg->probes[i];
        return NULL;
}

/* A new probe; plugin NULL makes a placeholder after an error, so that
 * later sections of the same probe do not repeat it. */
static struct probe_cfg *add_probe(struct cfg_reader *l, const char *name,
                                   const struct bw_plugin *plugin,
                                   const char *file, const struct block *b)
{
        struct config *cfg = l->cfg;
        struct probe_cfg *v = realloc(cfg->probes,
                                      (cfg->n_probes + 1) * sizeof(*v));
        if (!v) {
                l->oom = true;
                return NULL;
        }
        cfg->probes = v;
        struct probe_cfg *p = &v[cfg->n_probes++];
        *p = (struct probe_cfg){ .name = strdup(name), .file = strdup(file),
                                 .line = b->line, .enabled = true };
        if (!p->name || !p->file)
                l->oom = true;
        char *why = NULL;
        int r = plugin ? param_set_new(plugin->params, &p->params, &why) : 0;
        if (r >= 0 && plugin)
                r = param_set_new(probe_options, &p->opts, NULL);
        if (r >= 0 && plugin)
                p->plugin = plugin;
        else if (r == -ENOMEM || (r < 0 && !why))
                l->oom = true;
        else if (r < 0)
                err_at(l, file, b->line, b->section, "plugin %s is broken: "
                       "%s", plugin->name, why);
        free(why);
        return p;
}

static const struct entry *plugin_entry(struct cfg_reader *l, const char *file,
                                        const struct block *b)
{
        const struct entry *found = NULL;
        for (size_t k = 0; k < b->n; k++) {
                if (strcmp(b->v[k].key, "plugin"))
                        continue;
                if (found)
                        err_at(l, file, b->v[k].line, b->section, "plugin: "
                               "given twice in this section (first at line "
                               "%u)", found->line);
                else
                        found = &b->v[k];
        }
        return found;
}

/* The probe a [probe NAME] block applies to (new or defined before), or
 * NULL when its keys cannot be checked. */
static struct probe_cfg *probe_for_block(struct cfg_reader *l, const char *file,
                                         const struct block *b,
                                         const char *name)
{
        const struct entry *pe = plugin_entry(l, file, b);
        struct probe_cfg *p = find_probe(l->cfg, name);
        if (p && pe && p->plugin && strcmp(pe->value, p->plugin->name)) {
                err_at(l, file, pe->line, b->section, "plugin: cannot change "
                       "the plugin of probe '%s' from %s to '%s' (defined at "
                       "%s:%u)", name, p->plugin->name, pe->value, p->file,
                       p->line);
                return NULL;
        }
        if (p)
                return p;
        const struct bw_plugin *plugin = NULL;
        char *names = plugin_names(l);
        if (!pe)
                err_at(l, file, b->line, b->section, "plugin: missing; add "
                       "'plugin = NAME' (available: %s)", names ? names : "?");
        else if (!(plugin = l->env->lookup(l->env->userdata, pe->value)))
                err_at(l, file, pe->line, b->section, "plugin: unknown plugin "
                       "'%s' (available: %s)", pe->value, names ? names : "?");
        free(names);
        return add_probe(l, name, plugin, file, b);
}

bool conf_probe_name_valid(const char *name)
{
        bool only_dots = true;
        if (!name || !*name)
                return false;
        for (const char *c = name; *c; c++) {
                if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
                        return false;
                only_dots = only_dots && *c == '.';
        }
        return !only_dots; /* "." and ".." would break URL paths */
}

/* The line of an earlier [probe NAME] block of the same file, or 0. */
static unsigned earlier_block(const struct file_parse *fp, size_t bi)
{
        for (size_t i = 0; i < bi; i++)
                if (!strcmp(fp->blocks[i].section, fp->blocks[bi].section))
                        return fp->blocks[i].line;
        return 0;
}

static void apply_probe_keys(struct cfg_reader *l, const char *file,
                             const struct block *b, struct probe_cfg *p)
{
        for (size_t k = 0; k < b->n; k++) {
                const char *key = b->v[k].key;
                if (!strcmp(key, "plugin"))
                        continue;
                if (param_index(p->plugin->params, key) >= 0)
                        assign(l, file, b, k, p->params);
                else if (param_index(probe_options, key) >= 0)
                        assign(l, file, b, k, p->opts);
                else
                        err_at(l, file, b->v[k].line, b->section,
                               "unknown parameter '%s' for plugin %s (see "
                               "`benchwatch plugins`)", key, p->plugin->name);
        }
}

static void apply_probe(struct cfg_reader *l, const struct file_parse *fp,
                        size_t bi)
{
        const struct block *b = &fp->blocks[bi];
        const char *name = b->section + strlen("probe");
        name += *name == ' ';
        unsigned first = earlier_block(fp, bi);
        if (!*name)
                err_at(l, fp->file, b->line, b->section, "missing probe "
                       "name: write [probe NAME]");
        else if (!conf_probe_name_valid(name))
                err_at(l, fp->file, b->line, b->section, "invalid probe name "
                       "'%s': use letters, digits, '_', '.' and '-'", name);
        else if (first)
                err_at(l, fp->file, b->line, b->section, "duplicate section "
                       "(first at line %u); override a probe in a conf.d file "
                       "instead", first);
        if (!*name || !conf_probe_name_valid(name) || first)
                return;
        struct probe_cfg *p = probe_for_block(l, fp->file, b, name);
        if (p && p->plugin)
                apply_probe_keys(l, fp->file, b, p);
}

static struct cfg_section *get_section(struct cfg_reader *l,
                                       const struct cfg_section_type *t,
                                       const char *file, unsigned line)
{
        struct config *cfg = l->cfg;
        for (size_t i = 0; i < cfg->n_sections; i++)
                if (!strcmp(cfg->sections[i].name, t->name))
                        return cfg->sections[i].opts ? &cfg->sections[i]
                                                     : NULL;
        struct cfg_section *v = realloc(cfg->sections,
                                        (cfg->n_sections + 1) * sizeof(*v));
        if (!v) {
                l->oom = true;
                return NULL;
        }
        cfg->sections = v;
        struct cfg_section *s = &v[cfg->n_sections++];
        *s = (struct cfg_section){ .name = t->name, .file = strdup(file),
                                   .line = line };
        char *why = NULL;
        int r = param_set_new(t->options, &s->opts, &why);
        if (!s->file || r == -ENOMEM || (r < 0 && !why))
                l->oom = true;
        else if (r < 0)
                err_at(l, file, line, t->name, "%s", why); /* a table bug */
        free(why);
        return s->opts ? s : NULL;
}

static void unknown_section(struct cfg_reader *l, const char *file,
                            const struct block *b)
{
        struct strbuf sb = { 0 };
        sb_add(&sb, "[daemon], [probe NAME]");
        for (const struct cfg_section_type *t = l->env->sections; t && t->name;
             t++) {
                sb_add(&sb, ", [");
                sb_add(&sb, t->name);
                sb_add(&sb, "]");
        }
        err_at(l, file, b->line, b->section, "unknown section (known: %s)",
               sb.s ? sb.s : "?");
        free(sb.s);
}

static void apply_block(struct cfg_reader *l, const struct file_parse *fp,
                        size_t bi)
{
        const struct block *b = &fp->blocks[bi];
        const char *s = b->section;
        if (!strcmp(s, "daemon")) {
                apply_options(l, fp->file, b, l->cfg->daemon);
                return;
        }
        if (!strncmp(s, "probe", 5) && (s[5] == 0 || s[5] == ' ')) {
                apply_probe(l, fp, bi);
                return;
        }
        for (const struct cfg_section_type *t = l->env->sections; t && t->name;
             t++) {
                if (strcmp(t->name, s))
                        continue;
                struct cfg_section *cs = get_section(l, t, fp->file, b->line);
                if (cs)
                        apply_options(l, fp->file, b, cs->opts);
                return;
        }
        unknown_section(l, fp->file, b);
}

static void load_text(struct cfg_reader *l, const char *file, const char *text,
                      size_t size)
{
        struct file_parse fp = { .l = l, .file = file, .p = text,
                                 .end = text + size };
        unsigned errors_before = l->n_errors;
        if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
                fp.p += 3; /* a UTF-8 byte order mark */
        int r = ini_parse_stream(read_line, &fp, on_key, &fp);
        if (r < 0)
                l->oom = true;
        else if (r > 0 && l->n_errors == errors_before && !l->oom)
                err_at(l, file, (unsigned)r, NULL, "cannot parse this line");
        for (size_t i = 0; i < fp.n_blocks && !l->oom; i++)
                apply_block(l, &fp, i);
        free_blocks(&fp);
}

/* ---- files ------------------------------------------------------------------ */

/* The whole file; *ret_why says why not (a static string). */
static int read_file(const char *path, char **ret_text, size_t *ret_size,
                     const char **ret_why)
{
        int r = fdio_read_file(path, MAX_FILE_SIZE, ret_text, ret_size, NULL);

        if (r == -EINVAL)
                *ret_why = "not a regular file";
        else if (r == -EFBIG)
                *ret_why = "larger than 1 MiB";
        else if (r < 0)
                *ret_why = strerror(-r);
        return r;
}

static int load_file(struct cfg_reader *l, const char *path)
{
        char *text = NULL;
        size_t size = 0;
        const char *why = NULL;
        int r = read_file(path, &text, &size, &why);
        if (r == -ENOMEM)
                l->oom = true;
        else if (r < 0)
                err_at(l, path, 0, NULL, "cannot read: %s", why);
        else
                load_text(l, path, text, size);
        free(text);
        return r;
}

static bool is_dropin_name(const char *name)
{
        size_t len = strlen(name);
        return name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".conf");
}

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.conf names in dir, sorted (C locale); none if dir does not exist. */
static int list_dropins(const char *dir, char ***ret, size_t *ret_n)
{
        DIR *d = opendir(dir);
        char **v = NULL;
        size_t n = 0;
        struct dirent *de;
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((de = readdir(d))) {
                if (!is_dropin_name(de->d_name))
                        continue;
                char **w = realloc(v, (n + 1) * sizeof(*v));
                char *s = w ? strdup(de->d_name) : NULL;
                if (w)
                        v = w;
                if (!s) {
                        closedir(d);
                        *ret = v;
                        *ret_n = n;
                        return -ENOMEM;
                }
                v[n++] = s;
        }
        closedir(d);
        if (n)
                qsort(v, n, sizeof(*v), cmp_names);
        *ret = v;
        *ret_n = n;
        return 0;
}

static void load_dropins(struct cfg_reader *l, const char *main_path)
{
        const char *slash = strrchr(main_path, '/');
        char *dir = !slash ? strdup("conf.d")
                  : str_printf("%.*s/conf.d", (int)(slash - main_path),
                               main_path);
        char **names = NULL;
        size_t n = 0;
        int r = dir ? list_dropins(dir, &names, &n) : -ENOMEM;
        if (r == -ENOMEM)
                l->oom = true;
        else if (r < 0)
                err_at(l, dir, 0, NULL, "cannot read directory: %s",
                       strerror(-r));
        for (size_t i = 0; i < n; i++) {
                char *path = str_printf("%s/%s", dir, names[i]);
                if (!path)
                        l->oom = true;
                else if (!l->oom)
                        load_file(l, path);
                free(path);
                free(names[i]);
        }
        free(names);
        free(dir);
}

/* ---- the public side ---------------------------------------------------- */

static int cfg_reader_init(struct cfg_reader *l, const struct cfg_env *env,
                           const char *source)
{
        assert(env && env->lookup);
        *l = (struct cfg_reader){ .env = env };
        l->cfg = calloc(1, sizeof(*l->cfg));
        if (!l->cfg)
                return -ENOMEM;
        l->cfg->source = strdup(source);
        int r = param_set_new(conf_daemon_options, &l->cfg->daemon, NULL);
        if (r < 0 || !l->cfg->source) {
                conf_free(l->cfg);
                return -ENOMEM;
        }
        return 0;
}

static void apply_defaults(struct config *cfg)
{
        const struct bw_param_value *d = cfg->daemon->values;
        for (size_t i = 0; i < cfg->n_probes; i++) {
                struct probe_cfg *p = &cfg->probes[i];
                const struct bw_param_value *o = p->opts->values;
                p->interval = o[PO_INTERVAL].is_set ? o[PO_INTERVAL].d
                                                    : d[CFG_D_INTERVAL].d;
                p->timeout = o[PO_RUN_TIMEOUT].is_set ? o[PO_RUN_TIMEOUT].d
                             : o[PO_TIMEOUT].is_set   ? o[PO_TIMEOUT].d
                                                      : d[CFG_D_TIMEOUT].d;
                p->enabled = o[PO_ENABLED].b && !p->absent;
        }
}

/* Each probe's cross-parameter checks (the plugin's `check`), so a bad
 * combination is reported here with file and line, not at its first run.
 * A probe whose plugin finds nothing to measure on this host (-ENODEV: a
 * GPU probe without the NVIDIA driver) is no error: one configuration
 * serves hosts with and without; it is kept, absent (apply_defaults). */
static void check_probes(struct cfg_reader *l)
{
        const struct bw_param_value *d = l->cfg->daemon->values;
        for (size_t i = 0; i < l->cfg->n_probes && !l->oom; i++) {
                struct probe_cfg *p = &l->cfg->probes[i];
                if (!p->plugin || !p->params)
                        continue;
                char *why = NULL, *section = str_printf("probe %s", p->name);
                int r = precheck_run(p->plugin, p->name, p->params->values,
                                     d[CFG_D_CACHE_DIR].s, d[CFG_D_STATE_DIR].s,
                                     &why);
                if (!section || (r < 0 && !why))
                        l->oom = true;
                else if (r == -ENODEV)
                        p->absent = why, why = NULL;
                else if (r < 0)
                        err_at(l, p->file, p->line, section, "%s", why);
                free(section);
                free(why);
        }
}

/* Hands out the config, or the errors; r is what reading the main file
 * returned. */
/* Under systemd, StateDirectory= and CacheDirectory= say where the unit
 * may write ($STATE_DIRECTORY, $CACHE_DIRECTORY: the first of a
 * colon-separated list): they are the defaults of state_dir and cache_dir,
 * whatever prefix benchwatch was built with.  A directory set in the file
 * wins. */
static void use_systemd_dirs(struct cfg_reader *l)
{
        static const struct { const char *env, *option; int index; } dirs[] = {
                { "STATE_DIRECTORY", "state_dir", CFG_D_STATE_DIR },
                { "CACHE_DIRECTORY", "cache_dir", CFG_D_CACHE_DIR },
        };
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                const char *v = getenv(dirs[i].env);
                if (!v || !*v || l->cfg->daemon->values[dirs[i].index].is_set)
                        continue;
                char *first = strndup(v, strcspn(v, ":")), *why = NULL;
                if (!first || param_set_assign(l->cfg->daemon, dirs[i].option, first, &why) < 0)
                        l->oom = true;
                free(first);
                free(why);
        }
}

static int cfg_reader_finish(struct cfg_reader *l, int r, struct config **ret,
                             char **ret_error)
{
        if (r >= 0 && !l->oom)
                use_systemd_dirs(l);
        if (r >= 0 && !l->n_errors && !l->oom)
                check_probes(l);
        if (l->n_errors > MAX_ERRORS) {
                char *more = str_printf("\n(%u more errors not shown)",
                                        l->n_errors - MAX_ERRORS);
                if (more)
                        sb_add(&l->err, more);
                free(more);
        }
        if (l->oom || l->err.oom)
                r = -ENOMEM;
        else if (l->n_errors && r >= 0)
                r = -EINVAL;
        if (r < 0) {
                if (r != -ENOMEM && ret_error) {
                        *ret_error = l->err.s;
                        l->err.s = NULL;
                }
                free(l->err.s);
                conf_free(l->cfg);
                return r;
        }
        apply_defaults(l->cfg);
        *ret = l->cfg;
        return 0;
}

int conf_load_file(const struct cfg_env *env, const char *path,
                   struct config **ret, char **ret_error)
{
        struct cfg_reader l;
        int r = cfg_reader_init(&l, env, path);
        if (r < 0)
                return r;
        r = load_file(&l, path);
        if (r >= 0 || r == -EINVAL || r == -EFBIG)
                load_dropins(&l, path);
        return cfg_reader_finish(&l, r == -EFBIG ? -EINVAL : r, ret, ret_error);
}

int conf_load_string(const struct cfg_env *env, const char *name,
                     const char *text, struct config **ret,
                     char **ret_error)
{
        struct cfg_reader l;
        int r = cfg_reader_init(&l, env, name);
        if (r < 0)
                return r;
        load_text(&l, name, text, strlen(text));
        return cfg_reader_finish(&l, 0, ret, ret_error);
}

int conf_load_builtin_with(const struct cfg_env *env, const char *main_path,
                           struct config **ret, char **ret_error)
{
        bool disk = env->lookup(env->userdata, "disklat") != NULL;
        char *text = str_printf("%s%s", conf_builtin_default,
                                disk ? conf_builtin_disk : "");
        struct cfg_reader l;
        if (!text)
                return -ENOMEM;
        int r = cfg_reader_init(&l, env, "<built-in>");
        if (r < 0) {
                free(text);
                return r;
        }
        load_text(&l, "<built-in>", text, strlen(text));
        free(text);
        if (main_path)
                load_dropins(&l, main_path);
        return cfg_reader_finish(&l, 0, ret, ret_error);
}

int conf_load_builtin(const struct cfg_env *env, struct config **ret,
                      char **ret_error)
{
        return conf_load_builtin_with(env, NULL, ret, ret_error);
}

void conf_free(struct config *cfg)
{
        if (!cfg)
                return;
        for (size_t i = 0; i < cfg->n_probes; i++) {
                free(cfg->probes[i].name);
                free(cfg->probes[i].file);
                free(cfg->probes[i].absent);
                param_set_free(cfg->probes[i].params);
                param_set_free(cfg->probes[i].opts);
        }
        for (size_t i = 0; i < cfg->n_sections; i++) {
                free(cfg->sections[i].file);
                param_set_free(cfg->sections[i].opts);
        }
        free(cfg->probes);
        free(cfg->sections);
        param_set_free(cfg->daemon);
        free(cfg->source);
        free(cfg);
}

const struct probe_cfg *conf_find_probe(const struct config *cfg,
                                        const char *name)
{
        return find_probe((struct config *)cfg, name);
}

const struct param_set *conf_section(const struct config *cfg,
                                     const char *name)
{
        for (size_t i = 0; i < cfg->n_sections; i++)
                if (!strcmp(cfg->sections[i].name, name))
                        return cfg->sections[i].opts;
        return NULL;
}

/* "[daemon] yield_cpu" for one section's obsolete options set. */
static void obsolete_of(struct strbuf *b, const char *section, const struct param_set *ps)
{
        char *list = param_set_obsolete(ps);
        if (!list)
                return;
        sb_add(b, b->len ? "; [" : "[");
        sb_add(b, section);
        sb_add(b, "] ");
        sb_add(b, list);
        free(list);
}

char *conf_obsolete(const struct config *cfg)
{
        struct strbuf b = { 0 };
        obsolete_of(&b, "daemon", cfg->daemon);
        for (size_t i = 0; i < cfg->n_sections; i++)
                obsolete_of(&b, cfg->sections[i].name, cfg->sections[i].opts);
        if (b.oom)
                free(b.s);
        return b.oom ? NULL : b.s;
}

/* ---- the embedded default ------------------------------------------------ */

/* 1-second runs for cpu, threads and memory latency: in 30 interleaved runs
 * of each their figures' noise at 1 s was no worse than at 2 s, for half the
 * CPU (bench/cost/durations.sh, docs/cost.md), so the intervals, and with
 * them the delays to a verdict, stay.  The DRAM run stays at 2 s: most of
 * its CPU is the first touch of its arrays (2.1 CPU s at 1 s, 2.3 at 2 s)
 * and its noise rose at 1 s. */
const char conf_builtin_default[] =
        "# benchwatch's built-in configuration, used when no configuration\n"
        "# file exists: probes that need no server, 1- and 2-second runs every\n"
        "# 10 to 30 minutes (about 0.25% of a 2-core host; a 15% loss is flagged\n"
        "# after 3 to 4 runs). See benchwatch.conf for every option.\n"
        "[daemon]\n"
        "interval = 30min\n"
        "timeout = 1min\n"
        "\n"
        "[probe cpu]\n"
        "plugin = cpu\n"
        "interval = 10min\n"
        "duration = 1s\n"
        "\n"
        "[probe threads]\n"
        "plugin = threads\n"
        "duration = 1s\n"
        "\n"
        "# DRAM bandwidth (STREAM copy and triad far beyond the last-level\n"
        "# cache): what a slower DIMM or a lost memory channel changes\n"
        "[probe memory]\n"
        "plugin = memory\n"
        "mode = dram\n"
        "interval = 20min\n"
        "duration = 2s\n"
        "\n"
        "# memory latency (a dependent pointer chase far beyond the last-level\n"
        "# cache, as lmbench's lat_mem_rd): what a lower memory speed changes\n"
        "[probe memory-latency]\n"
        "plugin = memory\n"
        "mode = latency\n"
        "duration = 1s\n"
        "\n"
        "# every probe's latest figures, for node_exporter's textfile collector\n"
        "[textfile]\n"
        "path = benchwatch.prom\n";

/* A disk's read latency as ioping -D measures it: 500 reads of 4 kB a
 * run, one at a time, 10 ms apart, where the saturating disk plugin read
 * about 50,000 (1.7 GB an hour, and up to a CPU of the host's hypervisor
 * while it ran: bench/compare/ioping.sh); its p50 is as steady from run to run.
 * 1 GiB: larger than the caches of disks (64 to 512 MiB on HDDs), so the
 * device itself answers; written once, kept in cache_dir (the file of the
 * disk plugin's probe of the same name, reused). */
const char conf_builtin_disk[] =
        "\n"
        "# a disk's read latency (ioping -D: a 4 kB O_DIRECT read every 10 ms\n"
        "# at random offsets of a 1 GiB test file); the disk plugin measures\n"
        "# IOPS where a probe of it is configured\n"
        "[probe disk]\n"
        "plugin = disklat\n"
        "size = 1G\n"
        "rate = 100\n"
        "duration = 5s\n";
