/* loader.h — finds and loads plugins (dlopen'ed libtool modules).
 *
 * Every NAME.so in the plugin directory is a candidate; one that does not
 * export `benchwatch_plugin`, was built for another ABI version or declares
 * a broken parameter table is refused with a message saying what to do, and
 * the others still load. */
#ifndef BENCHWATCH_LOADER_H
#define BENCHWATCH_LOADER_H

#include <stddef.h>

#include "core/plugin.h"

struct plugin_registry {
        char *dir;
        const struct bw_plugin **plugins;
        void **handles;
        size_t n;
        char *warnings; /* plugins refused, one per line, or NULL */
        /* on demand (loader_open_on_demand): the NAME of every NAME.so in
         * dir, NULL-terminated; a plugin loads at its first lookup */
        char **files;
};

/* The plugin directory: $BENCHWATCH_PLUGIN_DIR, else the configured one
 * (may be NULL), else the compiled-in PLUGINDIR. */
const char *loader_default_dir(const char *configured);

/* Load one plugin file; ret_error says why it was refused. */
int loader_load_file(const char *path, const struct bw_plugin **ret,
                     void **ret_handle, char **ret_error);
/* Load every plugin in dir. Fails only if dir cannot be read. */
int loader_open(const char *dir, struct plugin_registry **ret,
                char **ret_error);
/* The plugins in dir, each loaded when first looked up, as NAME.so: the
 * daemon loads only those its configuration names, so that a plugin's
 * libraries (libcurl's, libmariadb's) never take its memory unless a
 * probe uses them.  Fails only if dir cannot be read. */
int loader_open_on_demand(const char *dir, struct plugin_registry **ret,
                          char **ret_error);
/* The plugin called name; on demand, loads NAME.so (a refusal is added to
 * reg->warnings). */
const struct bw_plugin *loader_find(struct plugin_registry *reg,
                                    const char *name);
/* The i-th plugin's name (on demand: the i-th file's), NULL past the end. */
const char *loader_name(const struct plugin_registry *reg, size_t i);
/* NULL-terminated list of names, valid while reg lives; caller frees the
 * array only. */
const char **loader_names(const struct plugin_registry *reg);
void loader_free(struct plugin_registry *reg);

#endif
