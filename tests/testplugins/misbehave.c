/* misbehave.c — a plugin that goes wrong on request, so the runner's tests
 * can show that a crash, a hang, garbage on the result pipe, an error exit
 * or a reported failure each become a failed run with the right reason,
 * and that the daemon survives them; and a run that makes way for other
 * work on its device (-EBUSY, plugin.h) arrives as one that yielded.
 * Test-only; never installed. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/plugin.h"

enum { P_ACTION, P_VALUE, P_SLEEP };
static const char *const actions[] = { "ok", "crash", "hang", "garbage", "fail",
                                       "exit", "sleep", "stuck", "yield", NULL };

static const struct bw_param_def params[] = {
        [P_ACTION] = {
                .name = "action", .type = BW_PARAM_ENUM,
                .default_value = "ok", .choices = actions,
                .help = "what to do",
                .flags = BW_PARAM_LABEL,
        },
        [P_VALUE] = {
                .name = "value", .type = BW_PARAM_DOUBLE,
                .default_value = "42",
                .help = "the figure emitted when all goes well",
        },
        [P_SLEEP] = {
                .name = "sleep", .type = BW_PARAM_DURATION,
                .default_value = "1s", .min = 0, .max = 3600, .unit = "s",
                .help = "how long action=sleep takes (it honours stopping())",
        },
        { .name = NULL },
};

static void nap(double seconds)
{
        struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int run(const struct bw_run *run, const struct bw_host *h)
{
        switch (run->values[P_ACTION].i) {
        case 1:
                raise(SIGSEGV);
                break;
        case 2:
                signal(SIGTERM, SIG_IGN);
                for (;;)
                        pause();
        case 3: {
                static const char junk[] = "\x0a\xff\xff\xff\xff\x0fnot a protobuf";
                (void)!write(3, junk, sizeof(junk));
                _exit(0);
        }
        case 4:
                return h->fail(h, -ECONNREFUSED, "asked to fail");
        case 5:
                _exit(7);
        case 6:
                for (double t = 0; t < run->values[P_SLEEP].d && !h->stopping(h); t += 0.05)
                        nap(0.05);
                break;
        case 7: /* hung, but SIGTERM still reaches the core's handler */
                for (;;)
                        pause();
        case 8:
                return h->fail(h, -EBUSY, "made way for process 4242 on its device");
        }
        h->gauge(h, "value", "the value parameter", (const char *const[]){ "kind", "test", NULL },
                 run->values[P_VALUE].d);
        return 0;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "misbehave",
        .description = "test plugin that fails in chosen ways",
        .params = params,
        .run = run,
};
