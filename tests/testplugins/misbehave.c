/* misbehave.c — a plugin that goes wrong on request, so the runner's tests
 * can show that a crash, a hang, garbage on the result pipe, an error exit
 * or a reported failure each become a failed run with the right reason,
 * and that the daemon survives them; and a run that makes way for other
 * work on its device (-EBUSY, plugin.h) arrives as one that yielded, and
 * one that reads FAULT_PAGES pages of a file back from the disk (major
 * page faults) is said to have; a SIGKILL as the OOM killer's, where the
 * host's count of OOM kills (a fake vmstat, $MISBEHAVE_VMSTAT) rose; a
 * note as long as a test wants makes a request too large to hand over.
 * Test-only; never installed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/plugin.h"

enum { P_ACTION, P_VALUE, P_SLEEP, P_NOTE };
static const char *const actions[] = { "ok", "crash", "hang", "garbage", "fail",
                                       "exit", "sleep", "stuck", "yield", "fault", "oomkill",
                                       NULL };

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
        [P_NOTE] = {
                .name = "note", .type = BW_PARAM_STRING, .default_value = "",
                .help = "free text, unused: makes the run's request that long",
        },
        { .name = NULL },
};

static void nap(double seconds)
{
        struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

#define FAULT_PAGES 256

/* FAULT_PAGES pages of a file in dir, dropped from the page cache, then
 * read through a mapping one page a fault (MADV_RANDOM: no readahead):
 * each a major fault.  0, -EOPNOTSUPP where the pages stay in memory
 * whatever the advice (tmpfs, as /tmp may be), or -errno. */
static int fault_pages(const char *dir)
{
        char path[4096];
        size_t page = (size_t)sysconf(_SC_PAGESIZE), n = FAULT_PAGES * page;
        snprintf(path, sizeof(path), "%s/misbehave-fault.XXXXXX", dir ? dir : "/var/tmp");
        int fd = mkostemp(path, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        unlink(path);
        char *buf = calloc(1, n), *map = MAP_FAILED;
        unsigned char resident[FAULT_PAGES];
        int r = buf && write(fd, buf, n) == (ssize_t)n && fdatasync(fd) == 0 ? 0 : -EIO;
        if (r == 0)
                r = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (r == 0 && (map = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
                r = -errno;
        if (r == 0 && mincore(map, n, resident) < 0)
                r = -errno;
        for (size_t i = 0; r == 0 && i < FAULT_PAGES; i++)
                if (resident[i] & 1)
                        r = -EOPNOTSUPP;
        if (r == 0) {
                const volatile char *v = map; /* each read happens */
                madvise(map, n, MADV_RANDOM);
                for (size_t i = 0; i < n; i += page)
                        (void)v[i];
        }
        if (map != MAP_FAILED)
                munmap(map, n);
        free(buf);
        close(fd);
        return r;
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
        case 9: {
                int r = fault_pages(run->cache_dir);
                if (r < 0)
                        return h->fail(h, r, "cannot fault pages in: %s", strerror(-r));
                break;
        }
        case 10: { /* "oom_kill <value>" in the fake vmstat first (0: as it was) */
                const char *path = getenv("MISBEHAVE_VMSTAT");
                FILE *f;
                if (path && run->values[P_VALUE].d > 0 && (f = fopen(path, "we"))) {
                        fprintf(f, "pgfault 5\noom_kill %.0f\n", run->values[P_VALUE].d);
                        fclose(f);
                }
                raise(SIGKILL);
                break;
        }
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
