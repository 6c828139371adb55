/* conf.h — the configuration: an INI file plus its drop-in directory.
 *
 * The daemon, `check-config` and `run PROBE` all need the same validated
 * view of /etc/benchwatch/benchwatch.conf and conf.d/NAME.conf, so this module
 * turns text into typed values once, with errors that name file, line,
 * section, key and reason, and reports every error of every file at once
 * (an operator fixes a file in one round, not one line per restart).
 *
 * It knows nothing of the plugin loader or the sinks: plugins are found
 * through a lookup callback and the sink sections ([pushgateway], [journal]
 * ...) are described by option tables the caller passes in, so a section is
 * stored as a param_set validated against its table. */
#ifndef BENCHWATCH_CONF_H
#define BENCHWATCH_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conf_daemon.h"
#include "core/param.h"
#include "core/plugin.h"

/* A section type other than [daemon] and [probe NAME], e.g. the options of
 * [pushgateway] as the sinks module defines them. */
struct cfg_section_type {
        const char *name;
        const struct bw_param_def *options; /* ends with { .name = NULL } */
        /* What the section's options refuse together (a sink's url and
         * password file, [regression]'s min_runs against reference_runs),
         * with no side effect, checked when the configuration is read and
         * reported beside every other error (state_dir: [daemon]'s, for
         * paths relative to it); 0, or -errno with *ret_error (malloc'd).
         * Not called for a section with an error of its own, nor for one
         * with enabled = no.  NULL: nothing to check. */
        int (*check)(const char *section, const struct param_set *opts,
                     const char *state_dir, char **ret_error);
};

typedef const struct bw_plugin *(*cfg_plugin_lookup)(void *userdata,
                                                     const char *name);

struct cfg_env {
        cfg_plugin_lookup lookup;
        /* The i-th available plugin name, NULL past the end: lists the
         * choices in "unknown plugin" errors. Optional. */
        const char *(*plugin_name)(void *userdata, size_t i);
        void *userdata;
        /* Ends with { .name = NULL }; NULL: no sink sections allowed. */
        const struct cfg_section_type *sections;
};

struct probe_cfg {
        char *name;                   /* [A-Za-z0-9_.-]+ */
        const struct bw_plugin *plugin;
        double interval, timeout;     /* seconds, [daemon] defaults applied */
        bool enabled;                 /* and not absent */
        /* Why the probe does not apply to this host (its plugin's check
         * said -ENODEV: no driver, no device), malloc'd; NULL: it does. */
        char *absent;
        struct param_set *params;     /* the plugin's parameters */
        struct param_set *opts;       /* interval, timeout, enabled as given */
        char *file;                   /* where the probe was first defined */
        unsigned line;
};

struct cfg_section {
        const char *name;             /* the type's name, e.g. "pushgateway" */
        struct param_set *opts;
        char *file;                   /* where the section first appeared */
        unsigned line;
        char *last_file;              /* where it was last set (a drop-in's
                                       * block): its check's errors name it */
        unsigned last_line;
};

struct config {
        char *source;                 /* the main file, or e.g. "<built-in>" */
        struct param_set *daemon;     /* conf_daemon_options, by CFG_D_* */
        struct probe_cfg *probes;     /* in order of first appearance */
        size_t n_probes;
        struct cfg_section *sections; /* sink sections present, same order */
        size_t n_sections;
};

/* Load path, then <dir of path>/conf.d/NAME.conf in name order. A later file
 * overrides keys of [daemon] and sink sections and extends or overrides a
 * probe of the same name (each [probe NAME] at most once per file). Returns
 * 0; the -errno of the main file when it cannot be read (-ENOENT: it does
 * not exist); -EINVAL when any file has errors or a drop-in cannot be read;
 * -ENOMEM. Except for -ENOMEM, *ret_error (malloc'd) then holds every
 * error, one per line: "file:line: [section] key: reason". */
int conf_load_file(const struct cfg_env *env, const char *path,
                   struct config **ret, char **ret_error);
/* One file's text; name is used in errors and as config->source. */
int conf_load_string(const struct cfg_env *env, const char *name,
                     const char *text, struct config **ret,
                     char **ret_error);
/* conf_builtin_default (+ conf_builtin_disk if env finds "disk"), and
 * with main_path (a main file that does not exist) the drop-ins of its
 * conf.d, as conf_load_file() would add them: a package or an operator
 * changes one thing of the built-in configuration (the Debian package's
 * textfile path) without writing a whole file. */
int conf_load_builtin_with(const struct cfg_env *env, const char *main_path,
                           struct config **ret, char **ret_error);
/* The built-in configuration alone. */
int conf_load_builtin(const struct cfg_env *env, struct config **ret,
                      char **ret_error);
void conf_free(struct config *cfg);

const struct probe_cfg *conf_find_probe(const struct config *cfg,
                                        const char *name);
/* The options of a sink section, or NULL when the section is absent. */
const struct param_set *conf_section(const struct config *cfg,
                                     const char *name);
bool conf_probe_name_valid(const char *name);
/* The obsolete options the configuration sets (param.h), "[daemon]
 * yield_cpu; [regression] window, warmup" (malloc'd); NULL when none. */
char *conf_obsolete(const struct config *cfg);

#endif
