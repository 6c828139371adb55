/* fuzz_config.c — libFuzzer target for the configuration loader: the main
 * file and its conf.d drop-ins are text an operator (or a careless config
 * management run) writes, read by a daemon running as root.
 *
 * The whole input first goes through the lexer alone (conf_lexer.h), whose
 * blocks must hold what it promises: sections with their runs of blanks
 * collapsed, entries and errors on lines of the text, in order.  Then it
 * is split at lines "#--dropin--" into a main file and drop-ins.
 * The main text goes through conf_load_string(), and the whole set is
 * written to a private directory and loaded with conf_load_file(), so
 * both entry points, NUL bytes, overrides across files and the sink
 * sections (the real tables of every sink) are exercised.  Plugins are
 * fakes whose tables hold every parameter type and flag.  Invariants: a
 * load either succeeds or says why (never both, never neither). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/conf_lexer.h"
#include "sink/sink.h"

#include "fuzz.h"

static const char *const modes[] = { "read", "write", "randread", NULL };

static const struct bw_param_def every_type[] = {
        { .name = "path", .type = BW_PARAM_STRING, .default_value = "" },
        { .name = "block_size", .type = BW_PARAM_SIZE, .default_value = "4k",
          .min = 512, .max = 16 * 1073741824.0, .flags = BW_PARAM_LABEL },
        { .name = "size", .type = BW_PARAM_SIZE, .default_value = "1G" },
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1",
          .min = 1, .max = 1024, .flags = BW_PARAM_LABEL },
        { .name = "count", .type = BW_PARAM_INT, .default_value = "0" },
        { .name = "duration", .type = BW_PARAM_DURATION,
          .default_value = "10s", .min = 0.01, .max = 3600 },
        { .name = "rate", .type = BW_PARAM_DOUBLE, .default_value = "0",
          .min = 0, .max = 1e9 },
        { .name = "factor", .type = BW_PARAM_DOUBLE, .default_value = "1" },
        { .name = "direct", .type = BW_PARAM_BOOL, .default_value = "yes" },
        { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "randread",
          .choices = modes, .flags = BW_PARAM_LABEL },
        { .name = "header", .type = BW_PARAM_STRING, .default_value = "",
          .flags = BW_PARAM_MULTI },
        { .name = "password", .type = BW_PARAM_STRING, .default_value = "",
          .flags = BW_PARAM_SECRET },
        { .name = NULL },
};

static const struct bw_plugin plugins[] = {
        { .abi_version = BW_PLUGIN_ABI_VERSION, .name = "disk",
          .params = every_type },
        { .abi_version = BW_PLUGIN_ABI_VERSION, .name = "cpu",
          .params = every_type + 3 },
        { .abi_version = BW_PLUGIN_ABI_VERSION, .name = "http",
          .params = every_type + 8 },
};
#define N_PLUGINS (sizeof(plugins) / sizeof(plugins[0]))

static const struct bw_plugin *lookup(void *userdata, const char *name)
{
        for (size_t i = 0; i < N_PLUGINS; i++)
                if (!strcmp(plugins[i].name, name))
                        return &plugins[i];
        return NULL;
}

static const char *plugin_name(void *userdata, size_t i)
{
        return i < N_PLUGINS ? plugins[i].name : NULL;
}

static struct cfg_section_type sections[8];
static char dir[64];

static void remove_dir(void)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/main.conf", dir);
        unlink(path);
        snprintf(path, sizeof(path), "%s/conf.d", dir);
        rmdir(path);
        rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        size_t n = 0;
        for (size_t i = 0; sink_types[i] && n + 1 < 8; i++)
                sections[n++] = (struct cfg_section_type){
                        .name = sink_types[i]->section,
                        .options = sink_types[i]->options };
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof(dir), "%s/fuzz_config.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
        if (!mkdtemp(dir))
                abort();
        char sub[96];
        snprintf(sub, sizeof(sub), "%s/conf.d", dir);
        if (mkdir(sub, 0700) < 0)
                abort();
        atexit(remove_dir);
        return 0;
}

static void check(int r, struct config *cfg, char *err)
{
        if (r == 0 && (!cfg || err))
                abort(); /* success must not also report an error */
        if (r < 0 && r != -ENOMEM && (!err || !*err))
                abort(); /* a refused file must say why */
        for (size_t i = 0; r == 0 && i < cfg->n_probes; i++)
                if (!conf_probe_name_valid(cfg->probes[i].name) ||
                    !(cfg->probes[i].interval >= 1))
                        abort();
        conf_free(cfg);
        free(err);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
        /* a new file, not a truncated one: ext4 flushes a truncated
         * file's data on close (auto_da_alloc), a hundred times slower */
        unlink(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, p, n) != (ssize_t)n)
                abort();
        close(fd);
}

/* Writes the pieces; returns how many drop-ins were written. */
static unsigned write_files(const uint8_t *data, size_t size)
{
        static const char sep[] = "\n#--dropin--\n";
        const uint8_t *p = data, *end = data + size;
        char path[128];
        unsigned k = 0;
        for (;;) {
                const uint8_t *s = memmem(p, (size_t)(end - p), sep, sizeof(sep) - 1);
                const uint8_t *e = s ? s : end;
                if (k == 0)
                        snprintf(path, sizeof(path), "%s/main.conf", dir);
                else
                        snprintf(path, sizeof(path), "%s/conf.d/%02u.conf", dir, k);
                write_file(path, p, (size_t)(e - p));
                k++;
                if (!s || k > 20)
                        break;
                p = s + sizeof(sep) - 1;
        }
        return k - 1;
}

static void remove_dropins(unsigned n)
{
        char path[128];
        for (unsigned k = 1; k <= n; k++) {
                snprintf(path, sizeof(path), "%s/conf.d/%02u.conf", dir, k);
                unlink(path);
        }
}

struct lexed {
        unsigned lines, last_error;
};

static void on_error(void *userdata, unsigned line, const char *section, const char *msg)
{
        struct lexed *x = userdata;
        if (line < 1 || line > x->lines || line < x->last_error || !msg || !*msg)
                abort(); /* a line of the text, in order, with a reason */
        if (section && (!*section || strchr(section, '\n')))
                abort();
        x->last_error = line;
}

static void check_lexer(const uint8_t *data, size_t size)
{
        struct lexed x = { .lines = 1 };
        struct conf_block *b = NULL;
        size_t n = 0;
        for (size_t i = 0; i < size; i++)
                x.lines += data[i] == '\n';
        if (conf_lexer_run((const char *)data, size, on_error, &x, &b, &n) < 0)
                return;
        unsigned line = 0;
        for (size_t i = 0; i < n; i++) {
                const char *s = b[i].section;
                size_t len = strlen(s);
                if (!len || s[0] == ' ' || s[len - 1] == ' ' || strstr(s, "  ") ||
                    b[i].line <= line || b[i].line > x.lines)
                        abort();
                line = b[i].line;
                for (size_t k = 0; k < b[i].n; k++) {
                        if (b[i].v[k].line <= line || b[i].v[k].line > x.lines ||
                            !*b[i].v[k].key)
                                abort();
                        line = b[i].v[k].line;
                }
        }
        conf_lexer_free(b, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        check_lexer(data, size);

        struct cfg_env env = { .lookup = lookup, .plugin_name = plugin_name,
                               .sections = sections };
        struct config *cfg = NULL;
        char *err = NULL;
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        check(conf_load_string(&env, "fuzz", text, &cfg, &err), cfg, err);
        free(text);

        unsigned n = write_files(data, size);
        char path[128];
        snprintf(path, sizeof(path), "%s/main.conf", dir);
        cfg = NULL;
        err = NULL;
        check(conf_load_file(&env, path, &cfg, &err), cfg, err);
        remove_dropins(n);
        return 0;
}
