/* cpu.c — the cpu plugin: sysbench 1.0's cpu test, event for event.
 *
 * One event is sysbench's unit of work: for every c from 3 below max_prime,
 * trial division by l = 2..sqrt(c) with the same 64-bit integer and double
 * types, so events/s here and from `sysbench cpu --cpu-max-prime=N` measure
 * the same thing and a host's sysbench history stays comparable.  Threads,
 * the time limit and the event budget behave as sysbench's --threads, --time
 * and --events (common/sbloop.c). */
#include <math.h>
#include <stdint.h>

#include "common/sbloop.h"
#include "core/plugin.h"

enum { P_MAX_PRIME, P_THREADS, P_DURATION, P_EVENTS, P_COUNT };

static const struct bw_param_def cpu_params[] = {
        [P_MAX_PRIME] = {
                .name = "max_prime", .type = BW_PARAM_INT,
                .default_value = "10000", .min = 3, .max = 10000000,
                .help = "Upper limit of the prime search of one event "
                        "(sysbench --cpu-max-prime)",
                .flags = BW_PARAM_LABEL,
        },
        [P_THREADS] = SBLOOP_PARAM_THREADS,
        [P_DURATION] = SBLOOP_PARAM_DURATION,
        [P_EVENTS] = SBLOOP_PARAM_EVENTS,
        [P_COUNT] = { .name = NULL },
};

/* sysbench's cpu_execute_event(): how many odd-and-up primes lie below
 * max_prime. Not static: the unit test checks the count. */
uint64_t cpu_count_primes(uint64_t max_prime);

uint64_t cpu_count_primes(uint64_t max_prime)
{
        uint64_t n = 0;

        for (unsigned long long c = 3; c < max_prime; c++) {
                double t = sqrt((double)c);
                unsigned long long l;

                for (l = 2; l <= t; l++)
                        if (c % l == 0)
                                break;
                if (l > t)
                        n++;
        }
        return n;
}

struct cpu_job {
        uint64_t max_prime;
        uint64_t sink; /* keeps the result alive, like sysbench's TLS */
};

static int cpu_event(void *arg, unsigned tid)
{
        struct cpu_job *job = arg;
        uint64_t n = cpu_count_primes(job->max_prime);

        __atomic_store_n(&job->sink, n, __ATOMIC_RELAXED);
        return 0;
}

static int cpu_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        struct cpu_job job = { .max_prime = (uint64_t)v[P_MAX_PRIME].i };
        struct sbloop_spec spec = {
                .threads = (unsigned)v[P_THREADS].i,
                .duration = v[P_DURATION].d,
                .max_events = (uint64_t)v[P_EVENTS].i,
                .deadline = run->deadline,
                .event = cpu_event, .arg = &job,
        };
        struct sbloop_result res;
        int r = sbloop_outcome(h, &spec, sbloop_run(&spec, h, &res), &res);

        if (r == 0)
                sbloop_emit(h, &res, "sysbench cpu event");
        return r;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "cpu",
        .caps = BW_CAP_CPU_BOUND,
        .description = "sysbench cpu: trial-division prime search, events/s "
                       "and event latency",
        .params = cpu_params,
        .concurrency_param = "threads",
        .throughput_metric = "events_per_second",
        .run = cpu_run,
};
