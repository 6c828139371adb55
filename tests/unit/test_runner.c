/* test_runner.c — every way a probe process can go wrong is a failed run
 * with a reason, and the caller always gets control back: a crash, a hang
 * past the deadline, garbage on the result pipe, an exit without a result,
 * a reported failure; a good run returns its figures, and how many of its
 * pages it had to read back (major faults); a SIGKILL while the host's
 * OOM kill count rose is said to be the OOM killer's; a stop request ends
 * a run within its grace period; a probe process whose runner is killed
 * (SIGKILL: no chance to stop it) goes too, even a hung one; a request
 * too large to hand over fails and leaves nothing open. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/loader.h"
#include "core/runner.h"
#include "test.h"
#include "util/timeutil.h"

static struct plugin_registry *reg;
static char cache_dir[] = "/tmp/bwtest-runner.XXXXXX";

static struct result *run(const char *action, double timeout, const char *extra)
{
        const struct bw_plugin *p = loader_find(reg, "misbehave");
        struct param_set *ps;
        char *why = NULL, kv[64];
        CHECK(p && param_set_new(p->params, &ps, &why) == 0);
        snprintf(kv, sizeof(kv), "action=%s", action);
        CHECK(param_set_assign_kv(ps, kv, &why) == 0);
        if (extra)
                CHECK(param_set_assign_kv(ps, extra, &why) == 0);
        struct run_spec spec = {
                .probe = "t", .plugin = p, .params = ps, .plugin_dir = reg->dir,
                .cache_dir = cache_dir, .state_dir = cache_dir, .timeout = timeout,
        };
        struct result *r = runner_run_sync(&spec);
        param_set_free(ps);
        CHECK(r);
        if (!r->success)
                printf("  action=%s: %s\n", action, r->error);
        return r;
}

static void expect_failure(const char *action, double timeout, const char *reason)
{
        double t0 = now_mono();
        struct result *r = run(action, timeout, NULL);
        CHECK(!r->success);
        CHECK_STR_CONTAINS(r->error, reason);
        CHECK(result_find_sample(r, "benchwatch_probe_success", NULL)->value == 0);
        CHECK(now_mono() - t0 < timeout + 5);
        result_free(r);
}

/* A hung run is killed at its timeout, give or take the time to start
 * and reap it.  The timeout falls between two ticks of the run-delay
 * watch (100 ms apart, each up to 15 ms late), whose timer also wakes the
 * loop where the kernel has schedstat: with sd-event's default 250-ms
 * slack on the deadline, the next tick killed it 0.08 s late; with no
 * tick, up to 0.25 s.  Now 0.002-0.007 s, and 0.02 s under valgrind
 * (tools/sanitize). */
static void killed_on_time(void)
{
        double late = 0;
        for (int i = 0; i < 4; i++) {
                struct result *r = run("hang", 0.33, NULL);
                CHECK(!r->success && r->duration >= 0.33);
                late = fmax(late, r->duration - 0.33);
                result_free(r);
        }
        printf("  a hung run killed %.3f s after its timeout at most\n", late);
        CHECK(late < 0.05);
}

/* The OOM killer's SIGKILL (the host's count rose meanwhile: a fake
 * vmstat the test plugin moves, as the kernel would) and another's. */
static void oom_killed(void)
{
        char dir[] = "/tmp/bwtest-proc.XXXXXX", path[64];
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/vmstat", dir);
        FILE *f = fopen(path, "w");
        CHECK(f && fputs("pgfault 5\noom_kill 7\n", f) >= 0 && fclose(f) == 0);
        setenv("MISBEHAVE_VMSTAT", path, 1); /* the plugin's, inherited */
        runner_set_vmstat(path);
        struct result *r = run("oomkill", 30, "value=8");
        CHECK(!r->success);
        CHECK_STR_CONTAINS(r->error, "killed, most likely by the kernel's OOM killer (SIGKILL "
                           "while oom_kill in /tmp/bwtest-proc.");
        CHECK_STR_CONTAINS(r->error, "/vmstat rose from 7 to 8): its memory cgroup or the host");
        result_free(r);
        r = run("oomkill", 30, "value=0");
        CHECK(!r->success);
        CHECK(!strcmp(r->error, "the probe process was killed by signal KILL"));
        result_free(r);
        unsetenv("MISBEHAVE_VMSTAT");
        runner_set_vmstat("/proc/vmstat");
        unlink(path);
        rmdir(dir);
}

static void *stopper(void *arg)
{
        struct timespec ts = { 0, 300 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        kill(getpid(), SIGTERM);
        return NULL;
}

/* The pid of a process whose parent is ppid, or 0. */
static pid_t child_of(pid_t ppid)
{
        DIR *d = opendir("/proc");
        struct dirent *e;
        pid_t found = 0;
        while (d && !found && (e = readdir(d))) {
                char path[300], comm[64], state;
                int pid, pp;
                snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
                FILE *f = fopen(path, "re");
                if (f && fscanf(f, "%d %63s %c %d", &pid, comm, &state, &pp) == 4 && pp == ppid)
                        found = pid;
                if (f)
                        fclose(f);
        }
        if (d)
                closedir(d);
        return found;
}

/* Running: not gone, and not a zombie waiting for init. */
static int alive(pid_t pid)
{
        char path[64], comm[64], state = 'Z';
        int p;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "re");
        if (f && fscanf(f, "%d %63s %c", &p, comm, &state) != 3)
                state = 'Z';
        if (f)
                fclose(f);
        return state != 'Z';
}

/* A runner killed by SIGKILL mid-run: its probe process (hung: it never
 * looks at stopping()) is gone within the child's orphan grace. */
static void orphan_goes(void)
{
        pid_t runner = fork();
        CHECK(runner >= 0);
        if (runner == 0) {
                result_free(run("stuck", 600, NULL));
                _exit(0);
        }
        pid_t probe = 0;
        for (int i = 0; i < 100 && !probe; i++) {
                struct timespec ts = { 0, 50 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                probe = child_of(runner);
        }
        CHECK(probe > 0);
        struct timespec settle = { 0, 300 * 1000 * 1000 };
        nanosleep(&settle, NULL); /* into the plugin's hang */
        CHECK(alive(probe));
        double t0 = now_mono();
        kill(runner, SIGKILL);
        waitpid(runner, NULL, 0);
        while (alive(probe) && now_mono() - t0 < 5) {
                struct timespec ts = { 0, 20 * 1000 * 1000 };
                nanosleep(&ts, NULL);
        }
        printf("  orphaned hung probe gone %.2f s after its runner\n", now_mono() - t0);
        CHECK(!alive(probe) && now_mono() - t0 < 2.5);
}

static int open_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        int n = 0;
        CHECK(d);
        for (struct dirent *e; (e = readdir(d));)
                n += e->d_name[0] != '.';
        closedir(d);
        return n;
}

/* A request too large to hand to the probe process (parameters over 64
 * KiB): a failed run that says so, and nothing of it left open (its pipe
 * once leaked, one a try, until the daemon ran out of descriptors). */
static void request_too_large(void)
{
        size_t size = 70 * 1024;
        char *kv = malloc(size + 8);
        CHECK(kv);
        memcpy(kv, "note=", 5);
        memset(kv + 5, 'x', size);
        kv[5 + size] = 0;
        int before = open_fds();
        for (int i = 0; i < 3; i++) {
                struct result *r = run("ok", 30, kv);
                CHECK(!r->success);
                CHECK_STR_CONTAINS(r->error, "its parameters are over the 64 KiB");
                CHECK(result_find_sample(r, "benchwatch_probe_success", NULL)->value == 0);
                result_free(r);
        }
        CHECK(open_fds() == before);
        free(kv);
}

int main(void)
{
        char *why = NULL;
        const char *exe = getenv("BENCHWATCH");
        CHECK(exe && getenv("TESTPLUGIN_DIR"));
        CHECK(mkdtemp(cache_dir));
        runner_set_executable(exe);
        CHECK(loader_open(getenv("TESTPLUGIN_DIR"), &reg, &why) == 0);

        struct result *r = run("ok", 30, "value=12.5");
        CHECK(r->success && !r->error);
        const struct sample *s = result_find_sample(r, "benchwatch_misbehave_value",
                                                    (const char *const[]){ "kind", "test", NULL });
        CHECK(s && s->value == 12.5);
        CHECK(!strcmp(result_sample_label(s, "action"), "ok")); /* a LABEL parameter */
        CHECK(result_find_sample(r, "benchwatch_probe_success", NULL)->value == 1);
        CHECK(r->duration >= 0 && r->duration < 10 && r->started > 1.7e9);
        const struct sample *faults = result_find_sample(r, "benchwatch_probe_major_page_faults",
                                                         NULL);
        CHECK(faults && faults->value >= 0 && faults->value < 64);
        result_free(r);
        /* 256 pages of a file read back from the disk, one a fault; where
         * the cache directory keeps its pages in memory (tmpfs), not run */
        r = run("fault", 30, NULL);
        faults = result_find_sample(r, "benchwatch_probe_major_page_faults", NULL);
        if (!r->success && strstr(r->error, strerror(EOPNOTSUPP))) {
                printf("  action=fault: skipped, %s keeps its pages in memory\n", cache_dir);
        } else {
                CHECK(r->success && faults && faults->value >= 256 && faults->value < 256 + 64);
                printf("  action=fault: %.0f major page faults\n", faults->value);
        }
        result_free(r);

        expect_failure("crash", 30, "killed by signal SEGV");
        expect_failure("hang", 1.5, "timed out after 1.5s");
        killed_on_time();
        expect_failure("garbage", 30, "unreadable result");
        expect_failure("exit", 30, "exited with status 7 without a result");
        expect_failure("fail", 30, "asked to fail");
        request_too_large();
        oom_killed();
        struct result *y = run("yield", 30, NULL);
        CHECK(!y->success && y->yielded && !strcmp(y->yielded, RESULT_YIELDED_DEVICE));
        CHECK_STR_CONTAINS(y->error, "made way for process 4242 on its device");
        result_free(y);
        y = run("fail", 30, NULL);
        CHECK(!y->yielded);
        result_free(y);

        /* SIGTERM to the caller: the child is told to stop and the run ends
         * long before its 20 s sleep */
        pthread_t t;
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL); /* inherited by the thread */
        double t0 = now_mono();
        pthread_create(&t, NULL, stopper, NULL);
        r = run("sleep", 60, "sleep=20s");
        pthread_join(t, NULL);
        CHECK(!r->success && now_mono() - t0 < 5);
        CHECK_STR_CONTAINS(r->error, "stopped");
        result_free(r);

        orphan_goes();

        /* no child is left behind */
        CHECK(waitpid(-1, NULL, WNOHANG) == -1);
        loader_free(reg);
        rmdir(cache_dir);
        printf("test_runner: ok\n");
        return 0;
}
