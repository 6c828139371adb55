/* test_loader.c — plugins are found in a directory; a plugin built for
 * another ABI and a shared object without the symbol are refused with a
 * message saying what to do, and the good ones still load. */
#include <errno.h>
#include <stdlib.h>

#include "loader.h"
#include "test.h"

int main(void)
{
        const char *dir = getenv("TESTPLUGIN_DIR");
        struct plugin_registry *reg;
        char *why = NULL;
        CHECK(dir);
        CHECK(loader_open(dir, &reg, &why) == 0);
        CHECK(registry_find(reg, "misbehave"));
        CHECK(!registry_find(reg, "badabi"));
        char want[128];
        snprintf(want, sizeof(want), "badabi.so: built for plugin ABI %d, this benchwatch needs ABI %d",
                 BW_PLUGIN_ABI_VERSION + 1, BW_PLUGIN_ABI_VERSION);
        CHECK_STR_CONTAINS(reg->warnings, want);
        CHECK_STR_CONTAINS(reg->warnings, "rebuild the plugin");
        CHECK_STR_CONTAINS(reg->warnings, "nosym.so: no symbol 'benchwatch_plugin': not a benchwatch plugin");
        const char **names = registry_names(reg);
        CHECK(names && names[0] && !names[reg->n]);
        free(names);
        registry_free(reg);

        CHECK(loader_open("/nonexistent/plugins", &reg, &why) == -ENOENT);
        CHECK_STR_CONTAINS(why, "cannot read plugin directory '/nonexistent/plugins'");
        free(why);

        const struct bw_plugin *p;
        void *h;
        CHECK(loader_load_file("/nonexistent/x.so", &p, &h, &why) == -ELIBBAD);
        CHECK_STR_CONTAINS(why, "cannot load plugin");
        free(why);
        printf("test_loader: ok\n");
        return 0;
}
