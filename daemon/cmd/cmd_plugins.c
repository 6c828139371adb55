/* cmd_plugins.c — `benchwatch plugins [PLUGIN]`: what can be measured and
 * with which parameters, straight from the plugins' own tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "core/param.h"

static void print_param(const struct bw_param_def *d)
{
        printf("    %-16s %-9s default %s", d->name, param_type_name(d->type),
               d->default_value && *d->default_value ? d->default_value : "(none)");
        char *range = param_range_text(d);
        if (range)
                printf(", range %s", range);
        free(range);
        if (d->unit && *d->unit)
                printf(", unit %s", d->unit);
        if (d->flags & BW_PARAM_LABEL)
                printf(", label");
        if (d->flags & BW_PARAM_MULTI)
                printf(", repeatable");
        printf("\n        %s\n", d->help ? d->help : "");
        if (d->type == BW_PARAM_ENUM && d->choices) {
                printf("        one of:");
                for (size_t i = 0; d->choices[i]; i++)
                        printf(" %s", d->choices[i]);
                printf("\n");
        }
        if (d->applies)
                printf("        applies only with %s (else not a label)\n", d->applies);
}

static void print_plugin(const struct bw_plugin *p)
{
        printf("%s — %s\n", p->name, p->description ? p->description : "");
        if (p->caps & (BW_CAP_NEEDS_ROOT | BW_CAP_WAITS))
                printf("  needs:%s%s%s%s\n", p->caps & BW_CAP_NEEDS_ROOT ? " root" : "",
                       p->caps & BW_CAP_DISK_IO ? " disk-io" : "",
                       p->caps & BW_CAP_NETWORK ? " network" : "",
                       p->caps & BW_CAP_DEVICE ? " device" : "");
        if (p->caps & BW_CAP_CPU_BOUND)
                printf("  cpu-bound: the daemon runs it under [daemon] cpu_policy\n");
        if (p->concurrency_param)
                printf("  sweep: %s, ranked by %s\n", p->concurrency_param,
                       p->throughput_metric ? p->throughput_metric : "?");
        printf("  parameters:\n");
        for (size_t i = 0; p->params && p->params[i].name; i++)
                print_param(&p->params[i]);
        printf("\n");
}

int cmd_plugins(struct app *app, int argc, char **argv)
{
        for (int i = 1; i < argc; i++) {
                if (argv[i][0] != '-')
                        continue;
                bool help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
                if (!help)
                        cli_reject("plugins", argv[i]);
                fprintf(help ? stdout : stderr,
                        "Usage: benchwatch plugins [PLUGIN ...]\n\n"
                        "Lists the plugins found in the plugin directory with their parameters,\n"
                        "types, defaults, ranges, units and help.\n");
                return help ? EXIT_OK : EXIT_USAGE;
        }
        char *why = NULL;
        struct plugin_registry *reg;
        if (loader_open(loader_default_dir(NULL), &reg, &why) < 0) {
                log_error("%s", why);
                free(why);
                return EXIT_ENV;
        }
        if (reg->warnings)
                log_warning("%s", reg->warnings);
        int ex = EXIT_OK;
        printf("Plugins in %s:\n\n", reg->dir);
        for (int i = 1; i < argc; i++)
                if (!loader_find(reg, argv[i])) {
                        log_error("no plugin '%s'", argv[i]);
                        ex = EXIT_USAGE;
                }
        for (size_t i = 0; i < reg->n; i++) {
                bool wanted = argc < 2;
                for (int k = 1; k < argc; k++)
                        wanted |= !strcmp(argv[k], reg->plugins[i]->name);
                if (wanted)
                        print_plugin(reg->plugins[i]);
        }
        loader_free(reg);
        return ex;
}
