/* test_priority.c — --ionice and --nice are parsed like ionice(1) and
 * nice(1) and bad values refused; what is applied is what is read back
 * (the CPU policy too, in a child, and inherited by its threads); the
 * priority survives a trip through a result. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/priority.h"
#include "core/result.h"
#include "test.h"

static void parse(void)
{
        int c = -1, l = -1, n = 99;
        CHECK(priority_parse_ionice("idle", &c, &l) == 0 && c == PRIO_IO_IDLE && l == 0);
        CHECK(priority_parse_ionice("best-effort", &c, &l) == 0 && c == PRIO_IO_BEST_EFFORT &&
              l == 4);
        CHECK(priority_parse_ionice("best-effort:7", &c, &l) == 0 && l == 7);
        CHECK(priority_parse_ionice("realtime:0", &c, &l) == 0 && c == PRIO_IO_REALTIME && l == 0);
        CHECK(priority_parse_ionice("2:3", &c, &l) == 0 && c == PRIO_IO_BEST_EFFORT && l == 3);
        CHECK(priority_parse_ionice("idle:1", &c, &l) == -EINVAL);
        CHECK(priority_parse_ionice("best-effort:8", &c, &l) == -EINVAL);
        CHECK(priority_parse_ionice("best-effort:", &c, &l) == -EINVAL);
        CHECK(priority_parse_ionice("best", &c, &l) == -EINVAL);
        CHECK(priority_parse_ionice("none", &c, &l) == -EINVAL);
        CHECK(priority_parse_ionice("0", &c, &l) == -EINVAL);
        CHECK(priority_parse_nice("-20", &n) == 0 && n == -20);
        CHECK(priority_parse_nice("19", &n) == 0 && n == 19);
        CHECK(priority_parse_nice("20", &n) == -EINVAL && n == 19);
        CHECK(priority_parse_nice("5x", &n) == -EINVAL);
}

static void apply_and_read(void)
{
        struct priority now, want = { 0 };
        CHECK(priority_current(&now) == 0);
        want.nice = now.nice < 19 ? now.nice + 1 : 19; /* raising needs no privilege */
        want.io_class = PRIO_IO_IDLE;
        CHECK(priority_apply(&want) == 0);
        CHECK(priority_current(&now) == 0);
        CHECK(now.nice == want.nice && now.io_class == PRIO_IO_IDLE && now.io_level == 0);
        want.io_class = PRIO_IO_NONE; /* leaves the I/O priority alone */
        CHECK(priority_apply(&want) == 0 && priority_current(&now) == 0 &&
              now.io_class == PRIO_IO_IDLE);
}

static void *thread_policy(void *arg)
{
        *(int *)arg = sched_getscheduler(0);
        return NULL;
}

/* In a child (a policy cannot always be undone): the policy asked for is
 * the kernel's, read back, and a thread started later inherits it. */
static void cpu_policy(int policy, int kernel)
{
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                struct priority now, want;
                pthread_t t;
                int in_thread = -1;
                if (priority_current(&want) < 0 || want.cpu_policy != PRIO_CPU_OTHER)
                        _exit(1);
                want.io_class = PRIO_IO_NONE;
                want.cpu_policy = policy;
                if (priority_apply(&want) < 0 || priority_current(&now) < 0)
                        _exit(2);
                if (now.cpu_policy != policy || sched_getscheduler(0) != kernel)
                        _exit(3);
                if (pthread_create(&t, NULL, thread_policy, &in_thread) ||
                    pthread_join(t, NULL) || in_thread != kernel)
                        _exit(4);
                _exit(0);
        }
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        if (!WIFEXITED(st) || WEXITSTATUS(st))
                fprintf(stderr, "policy %s: child exit %d\n",
                        priority_cpu_policy_name(policy), WEXITSTATUS(st));
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void through_result(void)
{
        struct result *r = result_new("p", "cpu");
        struct priority p = { 7, PRIO_IO_BEST_EFFORT, 3, PRIO_CPU_IDLE }, back;
        CHECK(r && priority_from_result(r, &back) == -ENOENT);
        CHECK(priority_add_metrics(&p, r) == 0 && priority_from_result(r, &back) == 0);
        CHECK(back.nice == 7 && back.io_class == PRIO_IO_BEST_EFFORT && back.io_level == 3);
        CHECK(back.cpu_policy == PRIO_CPU_IDLE);
        CHECK(!strcmp(priority_io_class_name(back.io_class), "best-effort"));
        CHECK(!strcmp(priority_cpu_policy_name(back.cpu_policy), "idle"));
        result_free(r);
}

int main(void)
{
        parse();
        apply_and_read();
        cpu_policy(PRIO_CPU_IDLE, SCHED_IDLE);
        cpu_policy(PRIO_CPU_BATCH, SCHED_BATCH);
        cpu_policy(PRIO_CPU_OTHER, SCHED_OTHER);
        through_result();
        printf("test_priority: ok\n");
        return 0;
}
