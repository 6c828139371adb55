/* test_loader.c — plugins are found in a directory; a plugin built for
 * another ABI, a shared object without the symbol and descriptors naming
 * parameters they do not have are refused with a message saying what to
 * do, and the good ones still load; a plugin that needs root is refused
 * before it runs unless benchwatch is root. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/loader.h"
#include "core/precheck.h"
#include "test.h"

static int run_nothing(const struct bw_run *run, const struct bw_host *h)
{
        (void)run, (void)h;
        return 0;
}

static void test_needs_root(void)
{
        const struct bw_plugin p = {
                .abi_version = BW_PLUGIN_ABI_VERSION, .name = "rooty",
                .caps = BW_CAP_NEEDS_ROOT, .run = run_nothing,
        };
        char *why = NULL;
        int r = precheck_run(&p, "rooty", NULL, "/tmp", "/tmp", &why);
        if (geteuid() == 0) {
                CHECK(r == 0);
        } else {
                CHECK(r == -EPERM);
                CHECK_STR_CONTAINS(why, "plugin rooty needs root");
        }
        free(why);
}

int main(void)
{
        const char *dir = getenv("TESTPLUGIN_DIR");
        struct plugin_registry *reg;
        char *why = NULL;
        CHECK(dir);
        CHECK(loader_open(dir, &reg, &why) == 0);
        CHECK(loader_find(reg, "misbehave"));
        CHECK(!loader_find(reg, "badabi"));
        char want[128];
        snprintf(want, sizeof(want),
                 "badabi.so: built for plugin ABI %d, this benchwatch needs ABI %d",
                 BW_PLUGIN_ABI_VERSION + 1, BW_PLUGIN_ABI_VERSION);
        CHECK_STR_CONTAINS(reg->warnings, want);
        CHECK_STR_CONTAINS(reg->warnings, "rebuild the plugin");
        CHECK_STR_CONTAINS(reg->warnings, "nosym.so: no symbol 'benchwatch_plugin': not a "
                                          "benchwatch plugin");
        CHECK(!loader_find(reg, "badparam"));
        CHECK_STR_CONTAINS(reg->warnings, "badparam.so: plugin 'badparam': concurrency_param "
                           "'thread' is not one of its parameters");
        CHECK(!loader_find(reg, "badreport"));
        CHECK_STR_CONTAINS(reg->warnings, "badreport.so: plugin 'badreport': report line "
                           "'Server' shows parameter 'host', which it does not have");
        const char **names = loader_names(reg);
        CHECK(names && names[0] && !names[reg->n]);
        free(names);
        loader_free(reg);

        /* on demand: nothing loaded until looked up, then only that one */
        CHECK(loader_open_on_demand(dir, &reg, &why) == 0);
        CHECK(reg->n == 0 && !reg->warnings);
        bool listed = false;
        for (size_t i = 0; loader_name(reg, i); i++)
                listed |= !strcmp(loader_name(reg, i), "misbehave");
        CHECK(listed);
        CHECK(loader_find(reg, "misbehave") && reg->n == 1);
        CHECK(loader_find(reg, "misbehave") && reg->n == 1);
        CHECK(!loader_find(reg, "badabi") && reg->n == 1);
        CHECK_STR_CONTAINS(reg->warnings, "badabi.so: built for plugin ABI");
        CHECK(!loader_find(reg, "nosuchplugin") && reg->n == 1);
        loader_free(reg);

        CHECK(loader_open("/nonexistent/plugins", &reg, &why) == -ENOENT);
        CHECK_STR_CONTAINS(why, "cannot read plugin directory '/nonexistent/plugins'");
        free(why);

        const struct bw_plugin *p;
        void *h;
        CHECK(loader_load_file("/nonexistent/x.so", &p, &h, &why) == -ELIBBAD);
        CHECK_STR_CONTAINS(why, "cannot load plugin");
        free(why);
        test_needs_root();
        printf("test_loader: ok\n");
        return 0;
}
