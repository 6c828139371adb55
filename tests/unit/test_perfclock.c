/* test_perfclock.c — the effective clock of a child that spins for 300 ms
 * (started after the counters were opened, as the runner's probe is):
 * its on-CPU time is the spin's, and its cycles per second on a CPU a
 * plausible clock.  Where the host has no cycle counter (most VMs) or
 * refuses perf, the refusal is one of the documented errors, and the
 * test says so and is skipped (77). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/perfclock.h"
#include "test.h"
#include "util/timeutil.h"

#define SPIN_NS 300000000ull

static pid_t spinner(int go)
{
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                char c;
                if (read(go, &c, 1) != 1)
                        _exit(1);
                uint64_t end = now_ns() + SPIN_NS;
                while (now_ns() < end)
                        ;
                _exit(0);
        }
        return pid;
}

int main(void)
{
        struct perfclock *p = NULL;
        double cycles = -1, task_ns = -1;
        int go[2];
        CHECK(perfclock_open(2147483647, &p) < 0 && !p); /* no such process */
        perfclock_free(NULL);
        CHECK(pipe(go) == 0);
        pid_t pid = spinner(go[0]);
        int r = perfclock_open(pid, &p);
        CHECK(write(go[1], "x", 1) == 1);
        CHECK(waitpid(pid, NULL, 0) == pid);
        if (r < 0) {
                CHECK(r == -ENOENT || r == -EOPNOTSUPP || r == -EACCES || r == -EPERM ||
                      r == -ENODEV || r == -ENOSYS);
                printf("SKIP: no perf cycle counter for a child here: %s\n", strerror(-r));
                return 77;
        }
        CHECK(perfclock_read(p, &cycles, &task_ns) == 0);
        printf("clock %.3g GHz over %.3g s on a CPU\n", cycles / task_ns, task_ns / 1e9);
        /* the spin's on-CPU time, give or take a loaded host's scheduling */
        CHECK(task_ns > 0.5 * SPIN_NS && task_ns < 1.5 * SPIN_NS);
        CHECK(cycles / task_ns > 0.2 && cycles / task_ns < 10); /* GHz */
        perfclock_free(p);
        return 0;
}
