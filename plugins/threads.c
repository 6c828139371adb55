/* threads.c — the threads plugin: sysbench 1.0's threads test.
 *
 * It measures the scheduler and the mutex implementation under contention,
 * which is what a kernel upgrade or a noisy neighbour changes.  One event is
 * sysbench's: `yields` rounds of lock, sched_yield(), unlock on one of
 * `locks` mutexes, the mutex being chosen as sysbench's threads_next_event()
 * does, from a global fetch-and-add counter modulo `locks` (so consecutive
 * events of all threads walk the mutexes round robin).  The mutexes sit side
 * by side in one array as in sysbench, sharing cache lines the same way.
 * On a host whose system calls flush the TLB (page-table isolation
 * without PCID) a loop's rate depends on the pages it touches between its
 * calls, so the event touches what sysbench's does (threads_rounds()),
 * and the report says the host is one of those. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common/sbloop.h"
#include "core/plugin.h"
#include "util/fdio.h"

enum { P_THREADS, P_YIELDS, P_LOCKS, P_DURATION, P_EVENTS, P_COUNT };

static const struct bw_param_def threads_params[] = {
        [P_THREADS] = SBLOOP_PARAM_THREADS,
        [P_YIELDS] = {
                .name = "yields", .type = BW_PARAM_INT, .default_value = "1000",
                .min = 0, .max = 1000000,
                .help = "Lock/yield/unlock rounds per event "
                        "(sysbench --thread-yields)",
                .flags = BW_PARAM_LABEL,
        },
        [P_LOCKS] = {
                .name = "locks", .type = BW_PARAM_INT, .default_value = "8",
                .min = 1, .max = 65536,
                .help = "Mutexes the events spread over (sysbench --thread-locks)",
                .flags = BW_PARAM_LABEL,
        },
        [P_DURATION] = SBLOOP_PARAM_DURATION,
        [P_EVENTS] = SBLOOP_PARAM_EVENTS,
        [P_COUNT] = { .name = NULL },
};

struct threads_job {
        pthread_mutex_t *mutexes;
        unsigned locks;
        unsigned yields;
        unsigned next;  /* atomic: sysbench's req_performed */
};

/* An event's request, on the worker's stack as sysbench's sb_event_t. */
struct threads_req {
        unsigned lock;
};

/* sysbench's threads_execute_event(), access for access: each round reads
 * the round count, the mutex array and the request's lock again from
 * memory (sysbench's compiler must: they are globals and a pointer, read
 * after calls that might change them), so the loop touches the same pages
 * between its system calls as sysbench's.  On a host whose system calls
 * flush the TLB each such page is a page walk a round; keeping them in
 * registers made this loop 2-3% faster than sysbench there
 * (bench/compare/threads-loop.sh).  volatile: this compiler may not keep
 * them in registers either. */
static void threads_rounds(const volatile struct threads_job *job,
                           const volatile struct threads_req *req)
{
        for (unsigned i = 0; i < job->yields; i++) {
                pthread_mutex_lock(&job->mutexes[req->lock]);
                sched_yield();
                pthread_mutex_unlock(&job->mutexes[req->lock]);
        }
}

static int threads_event(void *arg, unsigned tid)
{
        struct threads_job *job = arg;
        volatile struct threads_req req = { /* in memory, as sysbench's */
                .lock = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED) % job->locks,
        };

        threads_rounds(job, &req);
        return 0;
}

/* Whether a /proc/cpuinfo text says each system call flushes the TLB:
 * the kernel isolates page tables ("pti") and the CPU has no PCID to keep
 * user entries across the switch.  Not static: the unit test checks it. */
bool threads_syscalls_flush_tlb(const char *cpuinfo);

static bool has_flag(const char *flags, const char *eol, const char *flag)
{
        size_t n = strlen(flag);
        for (const char *p = flags; (p = strstr(p, flag)) && (!eol || p < eol); p += n)
                if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || !p[n]))
                        return true;
        return false;
}

bool threads_syscalls_flush_tlb(const char *cpuinfo)
{
        const char *flags = strstr(cpuinfo, "\nflags");
        const char *colon = flags ? strchr(flags, ':') : NULL;
        if (!colon)
                return false;
        const char *eol = strchr(colon, '\n');
        return has_flag(colon, eol, "pti") && !has_flag(colon, eol, "pcid");
}

static void note_tlb_flushes(const struct bw_host *h)
{
        static char cpuinfo[1 << 16];
        if (fdio_read_small("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) >= 0 &&
            threads_syscalls_flush_tlb(cpuinfo))
                h->log(h, LOG_NOTICE, "this host flushes the TLB at every system call "
                       "(page-table isolation without PCID): a loop's rate here depends on "
                       "the memory pages it touches between its calls: this probe's event "
                       "touches what sysbench 1.0's does, but another build of a tool may "
                       "count a few percent more or fewer events (docs/reports/benchmarks.md)");
}

static int threads_run(const struct bw_run *run, const struct bw_host *h)
{
        const struct bw_param_value *v = run->values;
        struct threads_job job = {
                .locks = (unsigned)v[P_LOCKS].i,
                .yields = (unsigned)v[P_YIELDS].i,
        };
        struct sbloop_spec spec = {
                .threads = (unsigned)v[P_THREADS].i,
                .duration = v[P_DURATION].d,
                .max_events = (uint64_t)v[P_EVENTS].i,
                .deadline = run->deadline,
                .event = threads_event, .arg = &job,
        };
        struct sbloop_result res;
        int r;

        job.mutexes = calloc(job.locks, sizeof(*job.mutexes));
        if (!job.mutexes)
                return h->fail(h, -ENOMEM, "cannot allocate %u mutexes", job.locks);
        for (unsigned i = 0; i < job.locks; i++)
                pthread_mutex_init(&job.mutexes[i], NULL);

        r = sbloop_run(&spec, h, &res);

        for (unsigned i = 0; i < job.locks; i++)
                pthread_mutex_destroy(&job.mutexes[i]);
        free(job.mutexes);
        r = sbloop_outcome(h, &spec, r, &res);
        if (r == 0) {
                sbloop_emit(h, &res, "sysbench threads event");
                note_tlb_flushes(h);
        }
        return r;
}

BW_PLUGIN_DEFINE = {
        .abi_version = BW_PLUGIN_ABI_VERSION,
        .name = "threads",
        .caps = BW_CAP_CPU_BOUND,
        .description = "sysbench threads: mutex lock/yield/unlock rounds under "
                       "contention, events/s and event latency",
        .params = threads_params,
        .concurrency_param = "threads",
        .throughput_metric = "events_per_second",
        .run = threads_run,
};
