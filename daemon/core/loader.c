/* loader.c — see loader.h. */
#include "core/loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"
#include "util/strutil.h"

const char *loader_default_dir(const char *configured)
{
        const char *env = getenv("BENCHWATCH_PLUGIN_DIR");
        if (env && *env)
                return env;
        if (configured && *configured)
                return configured;
        return PLUGINDIR;
}


static bool valid_name(const char *name)
{
        if (!name || !(*name >= 'a' && *name <= 'z'))
                return false;
        for (const char *c = name; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
                        return false;
        return true;
}

static bool has_param(const struct bw_plugin *p, const char *name)
{
        return param_index(p->params, name) >= 0;
}

/* The parameter names the descriptor refers to exist; a message or NULL. */
static char *validate_names(const struct bw_plugin *p, const char *path)
{
        if (p->concurrency_param && !has_param(p, p->concurrency_param))
                return str_printf("%s: plugin '%s': concurrency_param '%s' is not "
                                  "one of its parameters: fix the plugin", path,
                                  p->name, p->concurrency_param);
        for (const struct bw_report_line *l = p->report; l && l->label; l++)
                if (l->show == BW_SHOW_PARAM && (!l->figure || !has_param(p, l->figure)))
                        return str_printf("%s: plugin '%s': report line '%s' shows "
                                          "parameter '%s', which it does not have: "
                                          "fix the plugin", path, p->name, l->label,
                                          l->figure ? l->figure : "(none)");
        return NULL;
}

/* Checks what the core relies on; returns a message or NULL. */
static char *validate(const struct bw_plugin *p, const uint32_t *hist_size,
                      const char *path)
{
        if (p->abi_version != BW_PLUGIN_ABI_VERSION)
                return str_printf("%s: built for plugin ABI %u, this benchwatch "
                              "needs ABI %u: rebuild the plugin against this "
                              "benchwatch's plugin.h, or remove it",
                              path, p->abi_version, BW_PLUGIN_ABI_VERSION);
        if (!hist_size || *hist_size != sizeof(struct bw_hist))
                return str_printf("%s: built with another latency histogram "
                                  "(struct bw_hist of %u bytes, this benchwatch's "
                                  "has %zu): rebuild the plugin against this "
                                  "benchwatch's hist.h, or remove it", path,
                                  hist_size ? *hist_size : 0, sizeof(struct bw_hist));
        if (!valid_name(p->name))
                return str_printf("%s: invalid plugin name: remove the file", path);
        if (!p->run)
                return str_printf("%s: plugin '%s' has no run callback: remove "
                              "the file", path, p->name);
        struct param_set *ps;
        char *why = NULL;
        int r = param_set_new(p->params, &ps, &why);
        if (r < 0) {
                char *e = str_printf("%s: plugin '%s': %s: fix the plugin", path,
                                 p->name, why ? why : strerror(-r));
                free(why);
                return e;
        }
        param_set_free(ps);
        return validate_names(p, path);
}

int loader_load_file(const char *path, const struct bw_plugin **ret,
                     void **ret_handle, char **ret_error)
{
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                *ret_error = str_printf("cannot load plugin %s", dlerror());
                return -ELIBBAD;
        }
        const struct bw_plugin *p = dlsym(h, BW_PLUGIN_SYMBOL);
        if (!p) {
                *ret_error = str_printf("%s: no symbol '%s': not a benchwatch "
                                    "plugin; remove it from the plugin "
                                    "directory", path, BW_PLUGIN_SYMBOL);
                dlclose(h);
                return -ELIBBAD;
        }
        char *why = validate(p, dlsym(h, BW_PLUGIN_HIST_SYMBOL), path);
        if (why) {
                *ret_error = why;
                dlclose(h);
                return -ELIBBAD;
        }
        *ret = p;
        *ret_handle = h;
        return 0;
}

static int add(struct plugin_registry *reg, const struct bw_plugin *p, void *h)
{
        const struct bw_plugin **np = realloc(reg->plugins, (reg->n + 1) * sizeof(*np));
        if (!np)
                return -ENOMEM;
        reg->plugins = np;
        void **nh = realloc(reg->handles, (reg->n + 1) * sizeof(*nh));
        if (!nh)
                return -ENOMEM;
        reg->handles = nh;
        np[reg->n] = p;
        nh[reg->n] = h;
        reg->n++;
        return 0;
}

static void warn(struct plugin_registry *reg, const char *msg)
{
        char *w = str_printf("%s%s%s", reg->warnings ? reg->warnings : "",
                         reg->warnings ? "\n" : "", msg);
        if (!w)
                return;
        free(reg->warnings);
        reg->warnings = w;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
        return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_plugin_file(const struct dirent *d)
{
        size_t l = strlen(d->d_name);
        return l > 3 && !strcmp(d->d_name + l - 3, ".so");
}

static const struct bw_plugin *find_loaded(const struct plugin_registry *reg,
                                           const char *name)
{
        for (size_t i = 0; reg && i < reg->n; i++)
                if (!strcmp(reg->plugins[i]->name, name))
                        return reg->plugins[i];
        return NULL;
}

static int load_entry(struct plugin_registry *reg, const char *dir,
                      const char *file)
{
        char *path = str_printf("%s/%s", dir, file), *why = NULL;
        const struct bw_plugin *p;
        void *h;
        if (!path)
                return -ENOMEM;
        int r = loader_load_file(path, &p, &h, &why);
        if (r >= 0 && find_loaded(reg, p->name)) {
                why = str_printf("%s: a plugin named '%s' is already loaded; "
                             "remove one of them", path, p->name);
                dlclose(h);
                r = -EEXIST;
        } else if (r >= 0) {
                r = add(reg, p, h);
                if (r < 0)
                        dlclose(h);
        }
        if (why)
                warn(reg, why);
        free(why);
        free(path);
        return r == -ENOMEM ? r : 0;
}

/* Every NAME.so in dir, each loaded now or (on_demand) only named. */
static int open_dir(const char *dir, bool on_demand, struct plugin_registry **ret,
                    char **ret_error)
{
        struct dirent **ents;
        int n = scandir(dir, &ents, is_plugin_file, cmp_names);
        if (n < 0) {
                int err = errno;
                *ret_error = str_printf("cannot read plugin directory '%s': %s "
                                    "(set BENCHWATCH_PLUGIN_DIR)", dir, strerror(err));
                return -err;
        }
        struct plugin_registry *reg = calloc(1, sizeof(*reg));
        int r = reg && (reg->dir = strdup(dir)) ? 0 : -ENOMEM;
        if (r >= 0 && on_demand && !(reg->files = calloc((size_t)n + 1, sizeof(char *))))
                r = -ENOMEM;
        for (int i = 0; i < n; i++) {
                const char *file = ents[i]->d_name;
                if (r >= 0 && !on_demand)
                        r = load_entry(reg, dir, file);
                else if (r >= 0 && !(reg->files[i] = strndup(file, strlen(file) - 3)))
                        r = -ENOMEM;
                free(ents[i]);
        }
        free(ents);
        if (r < 0) {
                loader_free(reg);
                return r;
        }
        *ret = reg;
        return 0;
}

int loader_open(const char *dir, struct plugin_registry **ret, char **ret_error)
{
        return open_dir(dir, false, ret, ret_error);
}

int loader_open_on_demand(const char *dir, struct plugin_registry **ret,
                          char **ret_error)
{
        return open_dir(dir, true, ret, ret_error);
}

const struct bw_plugin *loader_find(struct plugin_registry *reg,
                                    const char *name)
{
        const struct bw_plugin *p = find_loaded(reg, name);
        if (p || !reg || !reg->files)
                return p;
        for (char **f = reg->files; *f; f++) {
                if (strcmp(*f, name))
                        continue;
                char *file = str_printf("%s.so", name);
                if (file && load_entry(reg, reg->dir, file) >= 0)
                        p = find_loaded(reg, name);
                free(file);
                break;
        }
        return p;
}

const char *loader_name(const struct plugin_registry *reg, size_t i)
{
        if (reg->files) {
                size_t n = 0;
                while (reg->files[n])
                        n++;
                return i < n ? reg->files[i] : NULL;
        }
        return i < reg->n ? reg->plugins[i]->name : NULL;
}

const char **loader_names(const struct plugin_registry *reg)
{
        const char **v = calloc(reg->n + 1, sizeof(*v));
        for (size_t i = 0; v && i < reg->n; i++)
                v[i] = reg->plugins[i]->name;
        return v;
}

void loader_free(struct plugin_registry *reg)
{
        if (!reg)
                return;
        for (size_t i = 0; i < reg->n; i++)
                dlclose(reg->handles[i]);
        free(reg->plugins);
        free(reg->handles);
        free(reg->warnings);
        for (char **f = reg->files; f && *f; f++)
                free(*f);
        free(reg->files);
        free(reg->dir);
        free(reg);
}
