/* test_conf.c — the configuration loader against good files (every unit
 * spelling, drop-in overrides in name order) and every kind of bad one,
 * asserting the exact "file:line: [section] reason" of each error.
 *
 * Plugins and sink sections are fakes declared here, so the test does not
 * depend on the loader or on the real plugins' parameter names. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/conf.h"
#include "detect/tracker.h"
#include "test.h"
#include "util/strutil.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

/* ---- fakes ---------------------------------------------------------------- */

static const char *const modes[] = { "read", "write", "randread", NULL };

static const struct bw_param_def disk_params[] = {
        { .name = "path", .type = BW_PARAM_STRING, .default_value = "" },
        { .name = "block_size", .type = BW_PARAM_SIZE, .default_value = "4k",
          .min = 512, .max = 16 * 1073741824.0, .flags = BW_PARAM_LABEL },
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1",
          .min = 1, .max = 1024 },
        { .name = "runtime", .type = BW_PARAM_DURATION, .default_value = "10s",
          .min = 1e-6, .max = 86400 },
        { .name = "rate", .type = BW_PARAM_DOUBLE, .default_value = "0",
          .min = 0, .max = 1e9 },
        { .name = "direct", .type = BW_PARAM_BOOL, .default_value = "yes" },
        { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "randread",
          .choices = modes, .flags = BW_PARAM_LABEL },
        { .name = "header", .type = BW_PARAM_STRING, .default_value = "",
          .flags = BW_PARAM_MULTI },
        { .name = "size", .type = BW_PARAM_SIZE, .default_value = "1G" },
        { .name = "duration", .type = BW_PARAM_DURATION,
          .default_value = "10s" },
        { .name = NULL },
};

static const struct bw_param_def cpu_params[] = {
        { .name = "max_prime", .type = BW_PARAM_INT, .default_value = "10000",
          .min = 3, .max = 1e9 },
        { .name = "threads", .type = BW_PARAM_INT, .default_value = "1",
          .min = 1, .max = 1024 },
        { .name = "duration", .type = BW_PARAM_DURATION,
          .default_value = "10s", .min = 0.01, .max = 3600 },
        { .name = NULL },
};

static const char *const memory_modes[] = { "block", "dram", "latency", NULL };
static const struct bw_param_def memory_params[] = {
        { .name = "mode", .type = BW_PARAM_ENUM, .default_value = "block",
          .choices = memory_modes },
        { .name = "block_size", .type = BW_PARAM_SIZE, .default_value = "1k" },
        { .name = "duration", .type = BW_PARAM_DURATION,
          .default_value = "10s" },
        { .name = NULL },
};

static const struct bw_plugin fake_disk = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "disk",
        .params = disk_params,
};
static const struct bw_param_def disklat_params[] = {
        { .name = "size", .type = BW_PARAM_SIZE, .default_value = "1G" },
        { .name = "rate", .type = BW_PARAM_DOUBLE, .default_value = "100",
          .min = 0.1, .max = 10000 },
        { .name = "duration", .type = BW_PARAM_DURATION,
          .default_value = "5s", .min = 0.01, .max = 3600 },
        { .name = NULL },
};
static const struct bw_plugin fake_disklat = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "disklat",
        .params = disklat_params,
};
static const struct bw_plugin fake_cpu = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "cpu",
        .params = cpu_params,
};
static const struct bw_plugin fake_threads = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "threads",
        .params = cpu_params,
};
static const struct bw_plugin fake_memory = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "memory",
        .params = memory_params,
};

/* A plugin whose check finds its device absent (gpu=absent), or a bad
 * parameter (gpu=bad), or all well. */
static const struct bw_param_def gpu_params[] = {
        { .name = "gpu", .type = BW_PARAM_STRING, .default_value = "all" },
        { .name = NULL },
};
static int gpu_check(const struct bw_run *run, const struct bw_host *h)
{
        if (!strcmp(run->values[0].s, "absent"))
                return h->fail(h, -ENODEV, "no NVIDIA driver (libcuda.so.1: cannot open "
                               "shared object file)");
        if (!strcmp(run->values[0].s, "bad"))
                return h->fail(h, -EINVAL, "gpu: 'bad' is neither 'all' nor a GPU index");
        return 0;
}
static const struct bw_plugin fake_gpu = {
        .abi_version = BW_PLUGIN_ABI_VERSION, .name = "gpu",
        .params = gpu_params, .check = gpu_check,
};

/* userdata: a NULL-terminated array of plugins */
static const struct bw_plugin *const all_plugins[] = {
        &fake_cpu, &fake_disk, &fake_memory, &fake_threads, NULL };
static const struct bw_plugin *const with_disklat[] = {
        &fake_cpu, &fake_disk, &fake_disklat, &fake_memory, &fake_threads, NULL };
static const struct bw_plugin *const with_gpu[] = {
        &fake_cpu, &fake_gpu, NULL };
static const struct bw_plugin *const no_disk[] = {
        &fake_cpu, &fake_memory, &fake_threads, NULL };

static const struct bw_plugin *lookup(void *userdata, const char *name)
{
        const struct bw_plugin *const *p = userdata;
        for (; *p; p++)
                if (!strcmp((*p)->name, name))
                        return *p;
        return NULL;
}

static const char *plugin_name(void *userdata, size_t i)
{
        const struct bw_plugin *const *p = userdata;
        for (size_t k = 0; k < i; k++)
                if (!p[k])
                        return NULL;
        return p[i] ? p[i]->name : NULL;
}

static const struct bw_param_def push_options[] = {
        { .name = "url", .type = BW_PARAM_STRING, .default_value = "" },
        { .name = "timeout", .type = BW_PARAM_DURATION, .default_value = "5s",
          .min = 0.1, .max = 60 },
        { .name = NULL },
};
static const struct bw_param_def journal_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes" },
        { .name = NULL },
};
static const struct bw_param_def textfile_options[] = {
        { .name = "enabled", .type = BW_PARAM_BOOL, .default_value = "yes" },
        { .name = "path", .type = BW_PARAM_STRING, .default_value = "" },
        { .name = NULL },
};
static const struct cfg_section_type sections[] = {
        { .name = "pushgateway", .options = push_options },
        { .name = "journal", .options = journal_options },
        { .name = "textfile", .options = textfile_options },
        /* the real one: the shipped file documents it */
        { .name = "regression", .options = tracker_options, .check = tracker_check },
        { .name = NULL },
};

static const struct cfg_env env = {
        .lookup = lookup, .plugin_name = plugin_name,
        .userdata = (void *)all_plugins, .sections = sections,
};

/* ---- helpers ---------------------------------------------------------------- */

static char *data_path(const char *rel)
{
        const char *top = getenv("top_srcdir");
        char *p = str_printf("%s/tests/data/config/%s", top ? top : TOP_SRCDIR,
                             rel);
        CHECK(p);
        return p;
}

static struct config *load_ok(const char *path)
{
        struct config *cfg = NULL;
        char *err = NULL;
        int r = conf_load_file(&env, path, &cfg, &err);
        if (r < 0)
                fprintf(stderr, "loading %s: %d:\n%s\n", path, r, err);
        CHECK(r == 0 && cfg && !err);
        return cfg;
}

static size_t count_lines(const char *s)
{
        size_t n = 1;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

/* err must consist of exactly the given lines, in this order; each is
 * "<path>:<rest>" with path prefixed. */
static void expect_lines(const char *err, const char *path, ...)
{
        va_list ap;
        size_t n = 0;
        const char *at = err;
        CHECK(err);
        va_start(ap, path);
        for (const char *rest; (rest = va_arg(ap, const char *)); n++) {
                char *want = str_printf("%s:%s", path, rest);
                size_t len = strlen(want);
                if (strncmp(at, want, len) || (at[len] && at[len] != '\n')) {
                        fprintf(stderr, "error line %zu:\n  got:  %.*s\n"
                                "  want: %s\nwhole text:\n%s\n", n + 1,
                                (int)strcspn(at, "\n"), at, want, err);
                        exit(1);
                }
                at += len + (at[len] == '\n');
                free(want);
        }
        va_end(ap);
        if (count_lines(err) != n)
                fprintf(stderr, "expected %zu lines, got:\n%s\n", n, err);
        CHECK(count_lines(err) == n);
}

/* Loads data file rel, which must fail with -EINVAL; returns the text and
 * (in *ret_path) the path used in messages. */
static char *load_bad(const char *rel, char **ret_path)
{
        struct config *cfg = NULL;
        char *err = NULL;
        char *path = data_path(rel);
        int r = conf_load_file(&env, path, &cfg, &err);
        if (r != -EINVAL)
                fprintf(stderr, "%s: r = %d, expected -EINVAL\n", rel, r);
        CHECK(r == -EINVAL && !cfg && err);
        *ret_path = path;
        return err;
}

static const struct bw_param_value *pv(const struct param_set *ps,
                                       const char *name)
{
        int i = param_index(ps->defs, name);
        CHECK(i >= 0);
        return &ps->values[i];
}

static void write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
}

/* ---- good files ------------------------------------------------------------ */

static void test_good_daemon(const struct config *cfg)
{
        const struct bw_param_value *d = cfg->daemon->values;
        CHECK(d[CFG_D_INTERVAL].d == 45 * 60);   /* main 1h, 10- 30min, 20- */
        CHECK(d[CFG_D_TIMEOUT].d == 90);         /* bare number: seconds */
        CHECK(d[CFG_D_SPLAY].d == 0.25);
        CHECK(d[CFG_D_NICE].i == 19);            /* 15, then 20-more.conf */
        CHECK(d[CFG_D_IOPRIO_CLASS].i == 1);
        CHECK(!strcmp(d[CFG_D_IOPRIO_CLASS].s, "idle"));
        CHECK(d[CFG_D_IOPRIO_LEVEL].i == 3);
        CHECK(!strcmp(d[CFG_D_CACHE_DIR].s, "/tmp/bw-cache"));
        CHECK(!strcmp(d[CFG_D_STATE_DIR].s, "/tmp/bw-state"));
        CHECK(!strcmp(d[CFG_D_PLUGIN_DIR].s, "/tmp/bw-plugins"));
        CHECK(d[CFG_D_MAX_LOAD].d == 1.5);
        CHECK(d[CFG_D_MAX_PSI_CPU].d == 30);
        CHECK(d[CFG_D_MAX_PSI_IO].d == 40.5);
        CHECK(d[CFG_D_MAX_PSI_MEMORY].d == 0);
        CHECK(d[CFG_D_DUTY_CYCLE].d == 0.5);
}

static void test_good_probes(const struct config *cfg)
{
        CHECK(cfg->n_probes == 4);
        CHECK(!strcmp(cfg->probes[0].name, "root-disk"));
        CHECK(!strcmp(cfg->probes[1].name, "cpu.fast_1"));
        CHECK(!strcmp(cfg->probes[2].name, "spaced"));
        CHECK(!strcmp(cfg->probes[3].name, "data-disk"));

        const struct probe_cfg *p = conf_find_probe(cfg, "root-disk");
        CHECK(p == &cfg->probes[0] && p->plugin == &fake_disk);
        CHECK(strstr(p->file, "good/benchwatch.conf") && p->line == 20);
        CHECK(p->interval == 45 * 60 && p->timeout == 90 && p->enabled);
        CHECK(pv(p->params, "block_size")->i == 4LL << 30); /* 4k,16k,4G */
        CHECK(pv(p->params, "threads")->i == 4);  /* "threads: 2", then 4 */
        CHECK(!strcmp(pv(p->params, "path")->s, "/var/tmp/bw.dat"));
        CHECK(pv(p->params, "runtime")->d == 0.5);
        CHECK(pv(p->params, "mode")->i == 2);
        CHECK(pv(p->params, "direct")->b);
        CHECK(pv(p->params, "rate")->d == 1500.5);
        const struct bw_param_value *h = pv(p->params, "header");
        CHECK(h->n_list == 3 && !strcmp(h->list[0], "X-One: 1") &&
              !strcmp(h->list[1], "X-Two: 2") &&
              !strcmp(h->list[2], "X-Three: 3"));

        p = conf_find_probe(cfg, "cpu.fast_1");
        CHECK(p && p->plugin == &fake_cpu && p->line == 32);
        CHECK(p->interval == 15 * 60 && p->timeout == 120 && p->enabled);
        CHECK(pv(p->params, "max_prime")->i == 20000);
        CHECK(pv(p->params, "duration")->d == 90);
        CHECK(pv(p->params, "threads")->i == 1 &&
              !pv(p->params, "threads")->is_set);

        p = conf_find_probe(cfg, "spaced");
        CHECK(p && !p->enabled && p->line == 39);

        p = conf_find_probe(cfg, "data-disk");
        CHECK(p && p->plugin == &fake_disk && strstr(p->file,
              "conf.d/10-override.conf") && p->line == 8);
        CHECK(pv(p->params, "block_size")->i == 1 << 20);
        CHECK(pv(p->params, "runtime")->d == 2);
        CHECK(!strcmp(pv(p->params, "path")->s, "/srv/bw.dat"));
        CHECK(!conf_find_probe(cfg, "nosuch"));
}

static void test_good(void)
{
        char *path = data_path("good/benchwatch.conf");
        struct config *cfg = load_ok(path);
        CHECK(!strcmp(cfg->source, path));
        test_good_daemon(cfg);
        test_good_probes(cfg);

        CHECK(cfg->n_sections == 2);
        CHECK(!strcmp(cfg->sections[0].name, "pushgateway"));
        CHECK(cfg->sections[0].line == 43);
        const struct param_set *push = conf_section(cfg, "pushgateway");
        CHECK(push && !strcmp(pv(push, "url")->s, "http://127.0.0.1:9091"));
        CHECK(pv(push, "timeout")->d == 2.5);
        const struct param_set *journal = conf_section(cfg, "journal");
        CHECK(journal && pv(journal, "enabled")->b &&
              !pv(journal, "enabled")->is_set);
        CHECK(strstr(cfg->sections[1].file, "20-more.conf"));
        CHECK(!conf_section(cfg, "textfile"));
        conf_free(cfg);
        free(path);
}

/* Spellings that only make sense inline: CRLF, BOM, ':' separators. */
static void test_string_forms(void)
{
        struct config *cfg = NULL;
        char *err = NULL;
        const char *text = "\xEF\xBB\xBF[daemon]\r\ninterval=2h\r\n"
                           "timeout : 1500ms ; why\r\n"
                           "  cache_dir = /tmp/a;b  \r\n\r\n"
                           "# full-line comment\r\n[probe x]\r\n"
                           "plugin=cpu\r\nduration = 1200ms";
        int r = conf_load_string(&env, "inline", text, &cfg, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err);
        CHECK(r == 0);
        CHECK(!strcmp(cfg->source, "inline"));
        CHECK(cfg->daemon->values[CFG_D_INTERVAL].d == 7200);
        CHECK(cfg->daemon->values[CFG_D_TIMEOUT].d == 1.5);
        CHECK(!strcmp(cfg->daemon->values[CFG_D_CACHE_DIR].s, "/tmp/a;b"));
        const struct probe_cfg *p = conf_find_probe(cfg, "x");
        CHECK(p && p->interval == 7200 && p->timeout == 1.5);
        CHECK(pv(p->params, "duration")->d == 1.2);
        conf_free(cfg);

        /* a duration set that does not end before the run's deadline:
         * every run would be cut short (a default one is a bound) */
        r = conf_load_string(&env, "inline", "[probe x]\nplugin = cpu\n"
                               "duration = 10s\ntimeout = 2s\n", &cfg, &err);
        CHECK(r == -EINVAL && err && strstr(err, "inline:1: [probe x] duration 10s does "
                                            "not end before the run's timeout 2s"));
        free(err);
        r = conf_load_string(&env, "inline", "[probe x]\nplugin = cpu\ntimeout = 2s\n",
                             &cfg, &err);
        CHECK(r == 0);
        conf_free(cfg);

        /* ';' right after a value is part of it; here it breaks a number */
        r = conf_load_string(&env, "inline", "[probe x]\nplugin = cpu\n"
                               "max_prime = 7;x\n", &cfg, &err);
        CHECK(r == -EINVAL);
        expect_lines(err, "inline", "3: [probe x] max_prime: '7;x' is not "
                     "an integer", NULL);
        free(err);

        /* an empty file is valid: nothing configured, every default */
        r = conf_load_string(&env, "empty", "", &cfg, &err);
        CHECK(r == 0 && cfg->n_probes == 0 && cfg->n_sections == 0);
        CHECK(cfg->daemon->values[CFG_D_INTERVAL].d == 3600);
        CHECK(cfg->daemon->values[CFG_D_TIMEOUT].d == 300);
        CHECK(cfg->daemon->values[CFG_D_NICE].i == 10);
        CHECK(cfg->daemon->values[CFG_D_IOPRIO_LEVEL].i == 7);
        conf_free(cfg);
}

static void test_sizes_and_durations(void)
{
        static const struct { const char *text; int64_t bytes; } sizes[] = {
                { "512", 512 }, { "16k", 16384 }, { "16K", 16384 },
                { "1M", 1 << 20 }, { "1MiB", 1 << 20 }, { "4G", 4LL << 30 },
                { "1.5k", 1536 }, { "2 M", 2 << 20 },
        };
        static const struct { const char *text; double s; } durs[] = {
                { "500ms", 0.5 }, { "2s", 2 }, { "15min", 900 },
                { "1h", 3600 }, { "30", 30 }, { "1.5h", 5400 },
                { "2m", 120 }, { "100us", 1e-4 }, { "3 sec", 3 },
        };
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
                struct config *cfg = NULL;
                char *err = NULL;
                char *t = str_printf("[probe d]\nplugin = disk\nblock_size = "
                                     "%s\n", sizes[i].text);
                CHECK(conf_load_string(&env, "s", t, &cfg, &err) == 0);
                CHECK(pv(cfg->probes[0].params, "block_size")->i ==
                      sizes[i].bytes);
                conf_free(cfg);
                free(t);
        }
        for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
                struct config *cfg = NULL;
                char *err = NULL;
                bool short_run = durs[i].s < 0.1; /* below timeout's min */
                char *t = str_printf("[probe d]\nplugin = disk\nruntime = "
                                     "%s\n%s%s\n", durs[i].text,
                                     short_run ? "" : "timeout = ",
                                     short_run ? "" : durs[i].text);
                if (conf_load_string(&env, "d", t, &cfg, &err) < 0)
                        fprintf(stderr, "%s\n", err);
                CHECK(cfg && !err);
                CHECK_NEAR(pv(cfg->probes[0].params, "runtime")->d,
                           durs[i].s, 1e-12);
                CHECK_NEAR(cfg->probes[0].timeout, short_run ? 300 : durs[i].s,
                           1e-12);
                conf_free(cfg);
                free(t);
        }
}

/* ---- bad files ---------------------------------------------------------------- */

static void test_malformed(void)
{
        char *path, *err = load_bad("bad/malformed.conf", &path);
        expect_lines(err, path,
                "3: [daemon] expected 'key = value', '[section]' or a comment",
                "4: [daemon] missing key name before '='", NULL);
        free(err);
        free(path);

        err = load_bad("bad/headers.conf", &path);
        expect_lines(err, path,
                "3: missing ']' in section header '[probe broken'",
                "6: empty section name",
                "8: unexpected text after ']': 'trailing'", NULL);
        free(err);
        free(path);
}

static void test_unknown(void)
{
        char *path, *err = load_bad("bad/unknown-section.conf", &path);
        expect_lines(err, path,
                "2: interval: outside of any section (put it under [daemon] "
                "or [probe NAME])",
                "6: [metrics] unknown section (known: [daemon], [probe NAME], "
                "[pushgateway], [journal], [textfile], [regression])",
                "8: [probes x] unknown section (known: [daemon], [probe NAME], "
                "[pushgateway], [journal], [textfile], [regression])", NULL);
        free(err);
        free(path);

        err = load_bad("bad/unknown-key.conf", &path);
        expect_lines(err, path,
                "2: [daemon] unknown option 'intervall' (known: interval, "
                "timeout, splay, nice, ioprio_class, ioprio_level, cache_dir, "
                "state_dir, plugin_dir, max_load, max_psi_cpu, max_psi_io, "
                "max_psi_memory, duty_cycle, history_size, yield, yield_io, "
                "yield_memory, first_splay, cpu_policy, room, yield_cpu_wait)",
                "6: [probe root-disk] unknown parameter 'blocksize' for plugin "
                "disk (see `benchwatch plugins`)",
                "9: [pushgateway] unknown option 'uri' (known: url, timeout)",
                NULL);
        free(err);
        free(path);
}

static void test_values(void)
{
        char *path, *err = load_bad("bad/bad-value.conf", &path);
        expect_lines(err, path,
                "2: [daemon] interval: 'soon' is not a duration (e.g. 500ms, "
                "2s, 15min, 1h)",
                "3: [daemon] nice: 'low' is not an integer",
                "4: [daemon] ioprio_class: 'realtime' is not one of: "
                "best-effort, idle",
                "8: [probe root-disk] block_size: '16q' is not a size (e.g. "
                "512, 16k, 1M, 4G)",
                "9: [probe root-disk] direct: 'maybe' is not a boolean "
                "(yes/no, true/false, on/off, 1/0)",
                "10: [probe root-disk] rate: 'fast' is not a number",
                "11: [probe root-disk] runtime: '5 fortnights' is not a "
                "duration (e.g. 500ms, 2s, 15min, 1h)",
                "12: [probe root-disk] mode: 'sideways' is not one of: read, "
                "write, randread", NULL);
        free(err);
        free(path);

        err = load_bad("bad/range.conf", &path);
        expect_lines(err, path,
                "2: [daemon] nice: '20' is out of range 0..19",
                "3: [daemon] interval: '0' is out of range 1s..30d",
                "4: [daemon] splay: '2' is out of range 0..1 fraction of "
                "interval",
                "5: [daemon] ioprio_level: '-1' is out of range 0..7",
                "6: [daemon] cache_dir: empty: name a directory, or leave the "
                "option out for its default",
                "10: [probe root-disk] threads: '0' is out of range 1..1024",
                "11: [probe root-disk] block_size: '1' is out of range "
                "512..16G",
                "12: [probe root-disk] timeout: '2d' is out of range "
                "100ms..1d", NULL);
        free(err);
        free(path);
}

static void test_probes(void)
{
        char *path, *err = load_bad("bad/duplicate.conf", &path);
        expect_lines(err, path,
                "4: [probe a] max_prime: given twice in this section (first "
                "at line 3)",
                "5: [probe a] unknown parameter 'header' for plugin cpu (see "
                "`benchwatch plugins`)",
                "10: [probe a] duplicate section (first at line 1); override "
                "a probe in a conf.d file instead", NULL);
        free(err);
        free(path);

        err = load_bad("bad/plugin.conf", &path);
        expect_lines(err, path,
                "1: [probe no-plugin] plugin: missing; add 'plugin = NAME' "
                "(available: cpu, disk, memory, threads)",
                "5: [probe wrong] plugin: unknown plugin 'nosuch' (available: "
                "cpu, disk, memory, threads)",
                "10: [probe twice] plugin: given twice in this section (first "
                "at line 9)", NULL);
        free(err);
        free(path);

        err = load_bad("bad/names.conf", &path);
        expect_lines(err, path,
                "1: [probe a/b] invalid probe name 'a/b': use letters, digits, "
                "'_', '.' and '-'",
                "3: [probe] missing probe name: write [probe NAME]",
                "5: [probe ..] invalid probe name '..': use letters, digits, "
                "'_', '.' and '-'",
                "7: [probe two words] invalid probe name 'two words': use "
                "letters, digits, '_', '.' and '-'", NULL);
        free(err);
        free(path);

        CHECK(conf_probe_name_valid("root-disk"));
        CHECK(conf_probe_name_valid("A.b_c-9"));
        CHECK(conf_probe_name_valid(".hidden"));
        CHECK(!conf_probe_name_valid(""));
        CHECK(!conf_probe_name_valid("."));
        CHECK(!conf_probe_name_valid("a b"));
        CHECK(!conf_probe_name_valid("a:b"));
        CHECK(!conf_probe_name_valid("ä"));
}

static void test_long_line(void)
{
        char *path, *err = load_bad("bad/long-line.conf", &path);
        /* inih's buffer is 200 bytes: 198 characters plus "\n\0" */
        expect_lines(err, path,
                "4: [probe root-disk] line too long (308 characters, at most "
                "198)",
                "6: [probe root-disk] line too long (204 characters, at most "
                "198)", NULL);
        free(err);
        free(path);
}

static void test_missing_file(void)
{
        struct config *cfg = NULL;
        char *err = NULL;
        char *path = data_path("bad/does-not-exist.conf");
        int r = conf_load_file(&env, path, &cfg, &err);
        CHECK(r == -ENOENT && !cfg);
        expect_lines(err, path, " cannot read: No such file or directory",
                     NULL);
        free(err);
        free(path);
}

/* ---- drop-ins in a temporary directory ------------------------------------ */

static char tmpdir[] = "/tmp/test_conf.XXXXXX";

/* A failed CHECK exits: leave nothing behind in /tmp either way. */
static void remove_tmpdir(void)
{
        if (strcmp(tmpdir + strlen(tmpdir) - 6, "XXXXXX"))
                test_rm_tree(tmpdir);
}

static char *tmp_path(const char *rel)
{
        char *p = str_printf("%s/%s", tmpdir, rel);
        CHECK(p);
        return p;
}

static void test_dropins(void)
{
        CHECK(mkdtemp(tmpdir));
        atexit(remove_tmpdir);
        char *main_conf = tmp_path("main.conf"), *d = tmp_path("conf.d");
        CHECK(mkdir(d, 0755) == 0);
        write_file(main_conf, "[probe p]\nplugin = disk\nthreads = 2\n");
        char *f;
        write_file(f = tmp_path("conf.d/b.conf"), "[probe p]\nthreads = 3\n");
        free(f);
        write_file(f = tmp_path("conf.d/a.conf"), "[probe p]\nthreads = 9\n"
                   "[daemon]\nnice = 1\n");
        free(f);
        write_file(f = tmp_path("conf.d/.c.conf"), "[bogus]\n");
        free(f);
        write_file(f = tmp_path("conf.d/c.conf~"), "[bogus]\n");
        free(f);
        struct config *cfg = load_ok(main_conf);
        /* main, then a.conf, then b.conf: b wins */
        CHECK(pv(cfg->probes[0].params, "threads")->i == 3);
        CHECK(cfg->daemon->values[CFG_D_NICE].i == 1);
        conf_free(cfg);

        /* errors of several files are all reported, in reading order */
        write_file(f = tmp_path("conf.d/a.conf"), "[probe p]\nplugin = cpu\n"
                   "[daemon]\nnice = -3\n");
        free(f);
        write_file(f = tmp_path("conf.d/b.conf"), "[probe q]\nthreads = 1\n");
        free(f);
        char *err = NULL;
        CHECK(conf_load_file(&env, main_conf, &cfg, &err) == -EINVAL);
        char *pa = tmp_path("conf.d/a.conf"), *pb = tmp_path("conf.d/b.conf");
        char *want = str_printf("%s:2: [probe p] plugin: cannot change the "
                "plugin of probe 'p' from disk to 'cpu' (defined at %s:1)\n"
                "%s:4: [daemon] nice: '-3' is out of range 0..19\n"
                "%s:1: [probe q] plugin: missing; add 'plugin = NAME' "
                "(available: cpu, disk, memory, threads)", pa, main_conf, pa,
                pb);
        if (strcmp(err, want))
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", err, want);
        CHECK(!strcmp(err, want));
        free(want);
        free(err);
        free(pa);
        free(pb);
        free(main_conf);
        free(d);
        CHECK(unlink(f = tmp_path("conf.d/.c.conf")) == 0);
        free(f);
        CHECK(unlink(f = tmp_path("conf.d/c.conf~")) == 0);
        free(f);
}

/* A drop-in that cannot be read is an error naming it and the reason. */
static void test_unreadable_dropins(void)
{
        char *main_conf = tmp_path("main.conf");
        char *a = tmp_path("conf.d/a.conf"), *b = tmp_path("conf.d/b.conf");
        char *dir = tmp_path("conf.d/d.conf"), *link = tmp_path("conf.d/e.conf");
        write_file(a, "[daemon]\nnice = 2\n");
        write_file(b, "[daemon]\nnice = 3\n");
        CHECK(mkdir(dir, 0755) == 0);
        CHECK(symlink("/nonexistent/benchwatch-test", link) == 0);
        bool as_root = geteuid() == 0;
        if (!as_root)
                CHECK(chmod(b, 0) == 0);
        struct config *cfg = NULL;
        char *err = NULL;
        CHECK(conf_load_file(&env, main_conf, &cfg, &err) == -EINVAL);
        char *want = str_printf("%s%s%s: cannot read: Is a directory\n"
                "%s: cannot read: No such file or directory",
                as_root ? "" : b, as_root ? "" : ": cannot read: Permission "
                "denied\n", dir, link);
        if (strcmp(err, want))
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", err, want);
        CHECK(!strcmp(err, want));
        free(want);
        free(err);

        /* an unreadable conf.d itself */
        CHECK(unlink(link) == 0 && rmdir(dir) == 0 && unlink(a) == 0 &&
              unlink(b) == 0);
        char *d = tmp_path("conf.d");
        CHECK(rmdir(d) == 0);
        write_file(d, "not a directory\n");
        CHECK(conf_load_file(&env, main_conf, &cfg, &err) == -EINVAL);
        want = str_printf("%s: cannot read directory: Not a directory", d);
        CHECK(!strcmp(err, want));
        free(want);
        free(err);
        CHECK(unlink(d) == 0 && unlink(main_conf) == 0 && rmdir(tmpdir) == 0);
        free(d);
        free(a);
        free(b);
        free(dir);
        free(link);
        free(main_conf);
}

/* ---- built-in default and the shipped file -------------------------------- */

static void test_builtin(void)
{
        struct config *cfg = NULL;
        char *err = NULL;
        struct cfg_env e = env;
        e.userdata = (void *)with_disklat;
        int r = conf_load_builtin(&e, &cfg, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err);
        CHECK(r == 0 && !strcmp(cfg->source, "<built-in>"));
        CHECK(cfg->n_probes == 5 && conf_find_probe(cfg, "disklat") &&
              conf_find_probe(cfg, "memory-latency"));
        /* the built-in disk probe is the latency trickle, not the
         * saturating disk plugin, and is named after its plugin: no
         * probe takes the disk plugin's name (`run disk threads=40`) */
        CHECK(!strcmp(conf_find_probe(cfg, "disklat")->plugin->name, "disklat"));
        for (size_t i = 0; i < cfg->n_probes; i++)
                CHECK(!strcmp(cfg->probes[i].name, "memory-latency") ||
                      !strcmp(cfg->probes[i].name, cfg->probes[i].plugin->name));
        /* The CPU-bound probes burn their whole run, so their seconds of
         * run an hour are the built-in configuration's cost: at most 0.25%
         * of a 2-core host, 18 CPU s an hour (bench/cost/cost.sh,
         * docs/reports/cost.md), at the intervals the delays are quoted for. */
        double burn = 0;
        for (size_t i = 0; i < cfg->n_probes; i++) {
                const struct probe_cfg *p = &cfg->probes[i];
                CHECK(p->interval <= 30 * 60 && p->timeout <= 60 && p->enabled);
                if (strcmp(p->plugin->name, "disklat"))
                        burn += pv(p->params, "duration")->d * 3600 / p->interval;
        }
        CHECK(burn > 0 && burn <= 18);
        CHECK(conf_find_probe(cfg, "cpu")->interval == 10 * 60 &&
              pv(conf_find_probe(cfg, "cpu")->params, "duration")->d == 1);
        conf_free(cfg);

        e.userdata = (void *)no_disk;
        CHECK(conf_load_builtin(&e, &cfg, &err) == 0);
        CHECK(cfg->n_probes == 4 && !conf_find_probe(cfg, "disklat"));
        CHECK(conf_find_probe(cfg, "cpu") && conf_find_probe(cfg, "threads")
              && conf_find_probe(cfg, "memory"));
        conf_free(cfg);
}

/* Without a main file, the built-in configuration takes the drop-ins of
 * its conf.d: the Debian package's debian/50-node-exporter.conf points
 * the textfile at node_exporter's directory and keeps the probes. */
static void test_builtin_dropins(void)
{
        const char *top = getenv("top_srcdir");
        struct cfg_env e = env;
        e.userdata = (void *)with_disklat; /* the built-in disk probe's plugin */
        char dir[] = "/tmp/test_conf_builtin.XXXXXX";
        CHECK(mkdtemp(dir));
        char *confd = str_printf("%s/conf.d", dir);
        char *dropin = str_printf("%s/50-node-exporter.conf", confd);
        char *main_conf = str_printf("%s/benchwatch.conf", dir);
        char *src = str_printf("%s/debian/50-node-exporter.conf", top ? top : TOP_SRCDIR);
        char text[4096] = "";
        FILE *f = fopen(src, "re");
        CHECK(f && fread(text, 1, sizeof(text) - 1, f) > 0);
        fclose(f);
        CHECK(mkdir(confd, 0755) == 0);
        write_file(dropin, text);
        struct config *cfg = NULL;
        char *err = NULL;
        int r = conf_load_builtin_with(&e, main_conf, &cfg, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err);
        CHECK(r == 0 && cfg->n_probes == 5);
        const struct param_set *tf = conf_section(cfg, "textfile");
        CHECK(tf && !strcmp(pv(tf, "path")->s,
                            "/var/lib/prometheus/node-exporter/benchwatch.prom"));
        conf_free(cfg);
        /* and without the drop-in, the built-in path */
        CHECK(unlink(dropin) == 0);
        CHECK(conf_load_builtin_with(&e, main_conf, &cfg, &err) == 0);
        tf = conf_section(cfg, "textfile");
        CHECK(tf && !strcmp(pv(tf, "path")->s, "benchwatch.prom"));
        conf_free(cfg);
        CHECK(rmdir(confd) == 0 && rmdir(dir) == 0);
        free(confd);
        free(dropin);
        free(main_conf);
        free(src);
}

/* conf/benchwatch.conf loads and documents every [daemon] and
 * [regression] option with its default. */
static void test_shipped_conf(void)
{
        const char *top = getenv("top_srcdir");
        char *path = str_printf("%s/conf/benchwatch.conf",
                                top ? top : TOP_SRCDIR);
        struct config *cfg = NULL;
        char *err = NULL;
        int r = conf_load_file(&env, path, &cfg, &err);
        if (r < 0)
                fprintf(stderr, "%s\n", err);
        CHECK(r == 0);
        FILE *f = fopen(path, "re");
        CHECK(f);
        char *text = calloc(1, 1 << 20);
        CHECK(text && fread(text, 1, (1 << 20) - 1, f) > 0);
        fclose(f);
        for (size_t i = 0; conf_daemon_options[i].name; i++) {
                const struct bw_param_def *d = &conf_daemon_options[i];
                /* plugin_dir's, cache_dir's and state_dir's defaults depend
                 * on the configured prefix and localstatedir */
                bool any = i == CFG_D_PLUGIN_DIR || i == CFG_D_CACHE_DIR ||
                           i == CFG_D_STATE_DIR;
                char *line = str_printf("\n#%s = %s%s", d->name,
                                        any ? "" : d->default_value,
                                        any ? "" : "\n");
                bool obsolete = param_obsolete(d);
                if (!obsolete && !strstr(text, line))
                        fprintf(stderr, "%s does not document '%s'\n", path,
                                line + 1);
                CHECK(obsolete || strstr(text, line));
                CHECK(!obsolete || !strstr(text, line)); /* not offered */
                free(line);
                /* the shipped file leaves every default as it is */
                CHECK(!cfg->daemon->values[i].is_set);
        }
        for (size_t i = 0; tracker_options[i].name; i++) {
                const struct bw_param_def *d = &tracker_options[i];
                char *line = str_printf("\n#%s = %s\n", d->name, d->default_value);
                bool obsolete = param_obsolete(d);
                if (!obsolete && !strstr(text, line))
                        fprintf(stderr, "%s does not document '%s'\n", path, line + 1);
                CHECK(obsolete || strstr(text, line));
                CHECK(!obsolete || !strstr(text, line));
                free(line);
        }
        const struct param_set *reg = conf_section(cfg, "regression");
        for (size_t i = 0; reg && tracker_options[i].name; i++)
                CHECK(!reg->values[i].is_set);
        free(text);
        conf_free(cfg);
        free(path);
}

/* A probe whose plugin finds nothing to measure on this host is kept,
 * absent and not enabled, with the plugin's reason; a bad parameter of the
 * same plugin is still an error with file and line. */
static void test_absent(void)
{
        char path[] = "/tmp/bw-absent.XXXXXX", *err = NULL;
        struct cfg_env genv = env;
        struct config *cfg = NULL;
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
        genv.userdata = (void *)with_gpu;
        write_file(path, "[probe c]\nplugin = cpu\n[probe g]\nplugin = gpu\ngpu = absent\n"
                         "[probe h]\nplugin = gpu\ngpu = 0\n");
        CHECK(conf_load_file(&genv, path, &cfg, &err) == 0);
        const struct probe_cfg *g = conf_find_probe(cfg, "g");
        CHECK(g && !g->enabled);
        CHECK_STR_CONTAINS(g->absent, "no NVIDIA driver (libcuda.so.1");
        CHECK(conf_find_probe(cfg, "h")->enabled && !conf_find_probe(cfg, "h")->absent);
        CHECK(conf_find_probe(cfg, "c")->enabled && !conf_find_probe(cfg, "c")->absent);
        conf_free(cfg);
        write_file(path, "[probe g]\nplugin = gpu\ngpu = bad\n");
        CHECK(conf_load_file(&genv, path, &cfg, &err) == -EINVAL);
        CHECK_STR_CONTAINS(err, ":1: [probe g] gpu: 'bad' is neither");
        free(err);
        unlink(path);
}

/* Every fault in one load, in the order of the text: a plugin's check of
 * one probe runs beside another probe's parse error and stands at its
 * probe's line, before it, between, in a drop-in after the main file; a
 * probe whose own values did not read is not checked as well; an error in
 * [daemon] (whose directories the checks use) leaves the checks out. */
static void test_errors_in_order(void)
{
        char dir[] = "/tmp/bw-errorder.XXXXXX", path[96], dropin[128], *err = NULL;
        struct cfg_env genv = env;
        struct config *cfg = NULL;
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/bw.conf", dir);
        snprintf(dropin, sizeof(dropin), "%s/conf.d", dir);
        CHECK(mkdir(dropin, 0755) == 0);
        snprintf(dropin, sizeof(dropin), "%s/conf.d/10-more.conf", dir);
        genv.userdata = (void *)with_gpu;
        write_file(path, "[probe a]\nplugin = gpu\ngpu = bad\n"
                         "[probe b]\nplugin = cpu\nthreads = zz\n"
                         "[probe c]\nplugin = gpu\ngpu = bad\n"
                         "[probe d]\nplugin = gpu\ngpu = bad\nbogus = 1\n");
        write_file(dropin, "[probe e]\nplugin = cpu\nthreads = -1\n");
        CHECK(conf_load_file(&genv, path, &cfg, &err) == -EINVAL && !cfg);
        char *last = strrchr(err, '\n'); /* the drop-in's, after the main file's */
        CHECK(last && !strcmp(strstr(last, "10-more.conf:"),
                              "10-more.conf:3: [probe e] threads: '-1' is out of range 1..1024"));
        *last = 0;
        expect_lines(err, path, "1: [probe a] gpu: 'bad' is neither 'all' nor a GPU index",
                     "6: [probe b] threads: 'zz' is not an integer",
                     "7: [probe c] gpu: 'bad' is neither 'all' nor a GPU index",
                     "13: [probe d] unknown parameter 'bogus' for plugin gpu (see "
                     "`benchwatch plugins`)", NULL);
        free(err);
        err = NULL;
        write_file(path, "[daemon]\ninterval = soon\n[probe a]\nplugin = gpu\ngpu = bad\n");
        CHECK(conf_load_file(&genv, path, &cfg, &err) == -EINVAL && !cfg);
        CHECK_STR_CONTAINS(err, ":2: [daemon] interval: 'soon' is not a duration");
        CHECK(!strstr(err, "[probe a]"));
        free(err);
        err = NULL;
        unlink(dropin);
        /* 20,000 faults, each in a section of its own: the first 100 by
         * line and a count of the rest (conf_errors.h keeps 400, names 256
         * sections, and checks no probe past that) */
        size_t cap = 20000 * 48, len = 0;
        char *big = malloc(cap);
        CHECK(big);
        for (unsigned i = 0; i < 20000; i++)
                len += (size_t)snprintf(big + len, cap - len,
                                        "[probe p%u]\nplugin = gpu\ngpu = bad\n", i);
        write_file(path, big);
        free(big);
        CHECK(conf_load_file(&genv, path, &cfg, &err) == -EINVAL && !cfg);
        CHECK(count_lines(err) == 101);
        CHECK_STR_CONTAINS(err, ":1: [probe p0] gpu: 'bad' is neither");
        CHECK_STR_CONTAINS(err, ":298: [probe p99] gpu: 'bad' is neither");
        /* (past 256 sections with an error the checks stop: 157 more) */
        CHECK_STR_CONTAINS(err, "\n(157 more errors not shown)");
        free(err);
        snprintf(dropin, sizeof(dropin), "%s/conf.d", dir);
        rmdir(dropin);
        unlink(path);
        rmdir(dir);
}

int main(void)
{
        for (size_t i = 0; i < CFG_D_COUNT; i++)
                CHECK(conf_daemon_options[i].name);
        CHECK(!conf_daemon_options[CFG_D_COUNT].name);
        CHECK(param_index(conf_daemon_options, "duty_cycle") ==
              CFG_D_DUTY_CYCLE);
        test_good();
        test_string_forms();
        test_sizes_and_durations();
        test_malformed();
        test_unknown();
        test_values();
        test_probes();
        test_long_line();
        test_missing_file();
        test_dropins();
        test_unreadable_dropins();
        test_builtin();
        test_builtin_dropins();
        test_shipped_conf();
        test_absent();
        test_errors_in_order();
        printf("test_conf: all checks passed\n");
        return 0;
}
