/* conf.c — see conf.h.  The loader: each file's text goes through the
 * lexer (conf_lexer.h: text to blocks, a section header and its key/value
 * entries with line numbers, every malformed line reported), then its
 * blocks are applied in order here — a probe's whole section at once,
 * because `plugin =` may come after the plugin's parameters — against the
 * [daemon] table (conf_daemon.h), the plugins' tables and the caller's
 * section types; then the drop-ins of conf.d, and the checks across a
 * whole configuration.  Errors are collected, not logged. */
#include "core/conf.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/conf_builtin.h"
#include "core/conf_errors.h"
#include "core/conf_lexer.h"
#include "core/precheck.h"
#include "util/fdio.h"
#include "util/format.h"
#include "util/strutil.h"

#define MAX_FILE_SIZE (1024 * 1024)
#define MAX_ERRORS 100

/* The keys of a [probe NAME] section that belong to the core.  A plugin
 * parameter of the same name wins (http's per-request `timeout`); the run
 * deadline of such a probe is then set with `run_timeout`. */
enum { PO_INTERVAL, PO_TIMEOUT, PO_ENABLED, PO_RUN_TIMEOUT };
static const struct bw_param_def probe_options[] = {
        [PO_INTERVAL] = CONF_DAEMON_OPT_INTERVAL("time between two runs of this "
                                                 "probe"),
        [PO_TIMEOUT] = CONF_DAEMON_OPT_TIMEOUT("deadline of one run of this probe"),
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
        struct conf_errors errs;
        bool oom;
};

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
        conf_errors_add(&l->errs, file, line, section,
                        str_printf("%s%s: %s%s%s%s", file, where, section ? "[" : "",
                                   section ? section : "", section ? "] " : "", msg));
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

/* ---- blocks to values ---------------------------------------------------- */

/* One file's blocks, as the lexer made them (conf_lexer.h), being applied. */
struct file_text {
        struct cfg_reader *l;
        const char *file;
        struct conf_block *blocks;
        size_t n_blocks;
};

/* Stores entry k of b into ps (its key is known to ps). */
static void assign(struct cfg_reader *l, const char *file, const struct conf_block *b,
                   size_t k, struct param_set *ps)
{
        const struct conf_entry *e = &b->v[k];
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

/* The line of key in an earlier block of the same section in this file;
 * 0 when none (a section may appear twice in a file, a key once). */
static unsigned earlier_key(const struct file_text *fp, size_t bi, const char *key)
{
        for (size_t i = 0; i < bi; i++) {
                const struct conf_block *e = &fp->blocks[i];
                if (strcmp(e->section, fp->blocks[bi].section))
                        continue;
                for (size_t k = 0; k < e->n; k++)
                        if (!strcmp(e->v[k].key, key))
                                return e->v[k].line;
        }
        return 0;
}

static void apply_options(struct cfg_reader *l, const struct file_text *fp, size_t bi,
                          struct param_set *ps)
{
        const char *file = fp->file;
        const struct conf_block *b = &fp->blocks[bi];
        for (size_t k = 0; k < b->n; k++) {
                int i = param_index(ps->defs, b->v[k].key);
                unsigned first = i >= 0 && !(ps->defs[i].flags & BW_PARAM_MULTI) ?
                                 earlier_key(fp, bi, b->v[k].key) : 0;
                if (first) {
                        err_at(l, file, b->v[k].line, b->section, "%s: given twice in "
                               "[%s] in this file (first at line %u)", b->v[k].key,
                               b->section, first);
                        continue;
                }
                if (i >= 0) {
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
                                   const char *file, const struct conf_block *b)
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

static const struct conf_entry *plugin_entry(struct cfg_reader *l, const char *file,
                                        const struct conf_block *b)
{
        const struct conf_entry *found = NULL;
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
                                         const struct conf_block *b,
                                         const char *name)
{
        const struct conf_entry *pe = plugin_entry(l, file, b);
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
static unsigned earlier_block(const struct file_text *fp, size_t bi)
{
        for (size_t i = 0; i < bi; i++)
                if (!strcmp(fp->blocks[i].section, fp->blocks[bi].section))
                        return fp->blocks[i].line;
        return 0;
}

static void apply_probe_keys(struct cfg_reader *l, const char *file,
                             const struct conf_block *b, struct probe_cfg *p)
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

static void apply_probe(struct cfg_reader *l, const struct file_text *fp,
                        size_t bi)
{
        const struct conf_block *b = &fp->blocks[bi];
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
                            const struct conf_block *b)
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

/* [daemon]'s directories: an empty one would be the current directory
 * of whatever runs, or none. */
static void check_daemon_dirs(struct cfg_reader *l, const char *file,
                              const struct conf_block *b)
{
        for (size_t k = 0; k < b->n; k++)
                if (!b->v[k].value[0] && (!strcmp(b->v[k].key, "state_dir") ||
                                          !strcmp(b->v[k].key, "cache_dir") ||
                                          !strcmp(b->v[k].key, "plugin_dir")))
                        err_at(l, file, b->v[k].line, b->section, "%s: empty: name a "
                               "directory, or leave the option out for its default",
                               b->v[k].key);
}

static void apply_block(struct cfg_reader *l, const struct file_text *fp,
                        size_t bi)
{
        const struct conf_block *b = &fp->blocks[bi];
        const char *s = b->section;
        if (!strcmp(s, "daemon")) {
                apply_options(l, fp, bi, l->cfg->daemon);
                check_daemon_dirs(l, fp->file, b);
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
                if (!cs)
                        return;
                apply_options(l, fp, bi, cs->opts);
                free(cs->last_file);
                if (!(cs->last_file = strdup(fp->file)))
                        l->oom = true;
                cs->last_line = b->line;
                return;
        }
        unknown_section(l, fp->file, b);
}

/* A malformed line the lexer left out: "file:line: [section] message". */
static void lexer_error(void *userdata, unsigned line, const char *section, const char *msg)
{
        struct file_text *ft = userdata;
        err_at(ft->l, ft->file, line, section, "%s", msg);
}

static void load_text(struct cfg_reader *l, const char *file, const char *text,
                      size_t size)
{
        struct file_text ft = { .l = l, .file = file };
        conf_errors_file(&l->errs, file);
        int r = conf_lexer_run(text, size, lexer_error, &ft, &ft.blocks, &ft.n_blocks);
        if (r < 0)
                l->oom = true;
        for (size_t i = 0; i < ft.n_blocks && !l->oom; i++)
                apply_block(l, &ft, i);
        conf_lexer_free(ft.blocks, ft.n_blocks);
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

/* The run's deadline: run_timeout, else timeout, else [daemon]'s. */
static double probe_timeout(const struct config *cfg, const struct probe_cfg *p)
{
        const struct bw_param_value *o = p->opts->values;
        return o[PO_RUN_TIMEOUT].is_set ? o[PO_RUN_TIMEOUT].d
               : o[PO_TIMEOUT].is_set   ? o[PO_TIMEOUT].d
                                        : cfg->daemon->values[CFG_D_TIMEOUT].d;
}

static void apply_defaults(struct config *cfg)
{
        const struct bw_param_value *d = cfg->daemon->values;
        for (size_t i = 0; i < cfg->n_probes; i++) {
                struct probe_cfg *p = &cfg->probes[i];
                const struct bw_param_value *o = p->opts->values;
                p->interval = o[PO_INTERVAL].is_set ? o[PO_INTERVAL].d
                                                    : d[CFG_D_INTERVAL].d;
                p->timeout = probe_timeout(cfg, p);
                p->enabled = o[PO_ENABLED].b && !p->absent;
        }
}

/* A duration set must end before the timeout (param_duration_past). */
static void check_duration(struct cfg_reader *l, const struct probe_cfg *p,
                           const char *section)
{
        double timeout = probe_timeout(l->cfg, p);
        double duration = param_duration_past(p->params, timeout);
        if (!duration)
                return;
        char a[32], b[32];
        err_at(l, p->file, p->line, section, "duration %s does not end before the run's "
               "timeout %s: every run would be cut short; raise %s or shorten duration",
               format_duration(duration, a, sizeof(a)), format_duration(timeout, b, sizeof(b)),
               param_index(p->plugin->params, "timeout") >= 0 ? "run_timeout" : "timeout");
}

/* Each probe's cross-parameter checks (the plugin's `check`), so a bad
 * combination is reported here with file and line, not at its first run;
 * every probe whose own section read without an error is checked, beside
 * the other sections' errors (conf_errors.h).
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
                if (section && conf_errors_in(&l->errs, section)) {
                        free(section);
                        continue;
                }
                int r = precheck_run(p->plugin, p->name, p->params->values,
                                     d[CFG_D_CACHE_DIR].s, d[CFG_D_STATE_DIR].s,
                                     &why);
                if (!section || (r < 0 && !why))
                        l->oom = true;
                else if (r == -ENODEV)
                        p->absent = why, why = NULL;
                else if (r < 0)
                        err_at(l, p->file, p->line, section, "%s", why);
                else
                        check_duration(l, p, section);
                free(section);
                free(why);
        }
}

/* Each optional section's checks (cfg_section_type: check), beside the
 * other sections' errors, as the probes' are. */
static void check_sections(struct cfg_reader *l)
{
        const char *state_dir = l->cfg->daemon->values[CFG_D_STATE_DIR].s;
        for (size_t i = 0; i < l->cfg->n_sections && !l->oom; i++) {
                const struct cfg_section *s = &l->cfg->sections[i];
                const struct cfg_section_type *t = l->env->sections;
                while (t && t->name && strcmp(t->name, s->name))
                        t++;
                if (!t || !t->name || !t->check || !s->opts || conf_errors_in(&l->errs, s->name))
                        continue;
                int e = param_index(s->opts->defs, "enabled");
                if (e >= 0 && !s->opts->values[e].b)
                        continue;
                char *why = NULL;
                int r = t->check(s->name, s->opts, state_dir, &why);
                if (r == -ENOMEM)
                        l->oom = true;
                else if (r < 0) /* where it was last set: a drop-in's, its cause */
                        err_at(l, s->last_file ? s->last_file : s->file,
                               s->last_file ? s->last_line : s->line, s->name, "%s",
                               why ? why : strerror(-r));
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
        /* [daemon]'s directories are the checks' too */
        if (r >= 0 && !l->oom && !conf_errors_in(&l->errs, "daemon"))
                check_probes(l);
        if (r >= 0 && !l->oom)
                check_sections(l);
        char *text = conf_errors_text(&l->errs, MAX_ERRORS);
        if (l->oom || l->errs.oom || (l->errs.n_all && !text))
                r = -ENOMEM;
        else if (l->errs.n_all && r >= 0)
                r = -EINVAL;
        conf_errors_free(&l->errs);
        if (r < 0) {
                if (r != -ENOMEM && ret_error) {
                        *ret_error = text;
                        text = NULL;
                }
                free(text);
                conf_free(l->cfg);
                return r;
        }
        free(text);
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
                free(cfg->sections[i].last_file);
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
