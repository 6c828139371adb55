/* test_memory.c — the memory plugin against the recording fake host.
 *
 * Block mode: what one event leaves in the block, sysbench's byte and
 * event accounting (total_size split per thread with integer division),
 * the figures per operation, the checks on block_size, and blocks over
 * half of the available memory refused before they are made.  DRAM mode: the
 * cache-size reading from a fake sysfs tree, the array sizing rules
 * (refusing sizes the cache could hold), and a short real run.  Latency
 * mode: the chain is one cycle through every element, its sizing, which
 * parameters are labels in which mode, and real runs in L1 and far beyond
 * the last-level cache, which must differ by a wide margin.  Giving
 * memory back: spread over the time asked, cut short by the deadline and
 * by a stop, and nothing of the mapping left. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fakehost.h"
#include "core/param.h"
#include "memory/memory_cgroup.h"
#include "memory/memory_dram.h"
#include "memory/memory_latency.h"
#include "util/timeutil.h"

extern const struct bw_plugin benchwatch_plugin;
void memory_block_once(unsigned oper, unsigned access, uint64_t *buf,
                       size_t bytes, uint64_t rng[2]);

enum { READ, WRITE, NONE }; /* oper choices, in table order */
enum { SEQ, RND };
#define MIB (UINT64_C(1) << 20)

static void test_block_event(void)
{
        uint64_t buf[128] = { 0 }, rng[2] = { 1, 2 };
        unsigned touched = 0;

        /* sequential write: each word gets its distance to the end */
        memory_block_once(WRITE, SEQ, buf, sizeof(buf), rng);
        for (unsigned i = 0; i < 128; i++)
                CHECK(buf[i] == 128 - i);
        memory_block_once(READ, SEQ, buf, sizeof(buf), rng);
        memory_block_once(NONE, SEQ, buf, sizeof(buf), rng);
        memory_block_once(READ, RND, buf, sizeof(buf), rng);
        memory_block_once(NONE, RND, buf, sizeof(buf), rng);
        for (unsigned i = 0; i < 128; i++)
                CHECK(buf[i] == 128 - i);

        /* random write: 128 stores of byte offsets 0, 8, ... at uniform
         * word positions hit about 1 - 1/e of the words */
        memset(buf, 0xff, sizeof(buf));
        memory_block_once(WRITE, RND, buf, sizeof(buf), rng);
        for (unsigned i = 0; i < 128; i++)
                if (buf[i] != UINT64_MAX) {
                        CHECK(buf[i] % 8 == 0 && buf[i] < sizeof(buf));
                        touched++;
                }
        CHECK(touched > 60 && touched < 105);
}

static void run_ok(struct fakehost *fh, const char *const *params)
{
        fakehost_init(fh);
        CHECK(fakehost_run(fh, &benchwatch_plugin, params) == 0);
        CHECK(fh->error == NULL);
}

static void test_total_size(void)
{
        struct fakehost fh;
        double secs, bytes, rate;

        run_ok(&fh, (const char *const[]){ "block_size=1k", "total_size=64M",
                                            "duration=60s", NULL });
        CHECK(fakehost_value(&fh, "events_total", "") == 65536);
        bytes = fakehost_value(&fh, "bytes_total", "operation=write");
        CHECK(bytes == 64.0 * MIB);
        secs = fakehost_value(&fh, "total_time_seconds", "");
        rate = fakehost_value(&fh, "bytes_per_second", "operation=write");
        CHECK(rate * secs > 0.999 * bytes && rate * secs < 1.001 * bytes);
        CHECK(fakehost_find(&fh, "latency_seconds", "")->hist.count == 65536);
        CHECK(fh.progress == 65536);
        fakehost_done(&fh);

        /* sysbench: each thread does total / block / threads events */
        run_ok(&fh, (const char *const[]){ "block_size=4k", "total_size=1M",
                                            "threads=3", "scope=local",
                                            "duration=60s", NULL });
        CHECK(fakehost_value(&fh, "events_total", "") == 255);
        CHECK(fakehost_value(&fh, "bytes_total", "operation=write") ==
              255.0 * 4096);
        fakehost_done(&fh);
}

static void test_operations(void)
{
        struct fakehost fh;

        run_ok(&fh, (const char *const[]){ "oper=read", "access=rnd",
                                            "duration=100ms", NULL });
        CHECK(fakehost_value(&fh, "bytes_per_second", "operation=read") > 1e6);
        /* the CPU-time twin: the same bytes over the worker's CPU time,
         * which is at most the wall time (one thread) */
        double cpu_s = fakehost_value(&fh, "worker_cpu_seconds", "");
        double bytes = fakehost_value(&fh, "bytes_total", "operation=read");
        double per_cpu = fakehost_value(&fh, "bytes_per_cpu_second", "operation=read");
        CHECK(cpu_s > 0 && cpu_s <= fakehost_value(&fh, "total_time_seconds", "") * 1.001);
        CHECK(fabs(per_cpu * cpu_s - bytes) <= 1e-6 * bytes);
        CHECK(per_cpu >= 0.998 * fakehost_value(&fh, "bytes_per_second", "operation=read"));
        CHECK(fakehost_find(&fh, "bytes_per_second", "operation=write") == NULL);
        fakehost_done(&fh);

        run_ok(&fh, (const char *const[]){ "oper=none", "duration=100ms", NULL });
        CHECK(fakehost_value(&fh, "events_per_second", "") > 1000);
        CHECK(fakehost_find(&fh, "bytes_per_second", NULL) == NULL);
        fakehost_done(&fh);
}

static void refused_by_check(const char *const *params, const char *why)
{
        struct fakehost fh;

        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, &benchwatch_plugin, params) < 0);
        CHECK(fh.error && strstr(fh.error, why));
        CHECK(fakehost_find(&fh, "events_total", NULL) == NULL);
        fakehost_done(&fh);
}

static void bad(const char *param)
{
        fakehost_expect_param_error(&benchwatch_plugin, param);
}

static void test_bad_params(void)
{
        bad("block_size=4");
        bad("block_size=1x");
        bad("oper=copy");
        bad("access=random");
        bad("scope=world");
        bad("mode=cache");
        bad("threads=0");
        refused_by_check((const char *const[]){ "block_size=1000", NULL },
                         "power of two");
        refused_by_check((const char *const[]){ "total_size=1k", "threads=2",
                                                 NULL }, "no event would run");
}

/* Blocks over half of the available memory are refused before they are
 * allocated, as the other modes' arrays are (16 GiB blocks on a 24 GiB
 * host once went straight to posix_memalign and memset). */
static void test_block_room(void)
{
        FILE *f = fopen("/proc/meminfo", "re");
        char line[256], arg[3][48];
        unsigned long long kb = 0;
        CHECK(f);
        while (fgets(line, sizeof(line), f) && sscanf(line, "MemAvailable: %llu", &kb) != 1)
                ;
        fclose(f);
        CHECK(kb > 0);
        uint64_t half = (uint64_t)kb * 1024 / 2, block = 4096;
        while (block <= half && block < (UINT64_C(16) << 30))
                block *= 2;
        uint64_t threads = half / block + 1;
        if (threads > 1024) {
                printf("  block room: skipped, %llu kB available\n", kb);
                return;
        }
        snprintf(arg[0], sizeof(arg[0]), "block_size=%llu", (unsigned long long)block);
        snprintf(arg[1], sizeof(arg[1]), "threads=%llu", (unsigned long long)threads);
        snprintf(arg[2], sizeof(arg[2]), "scope=local");
        struct fakehost fh;
        double t0 = now_mono();
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, &benchwatch_plugin, (const char *const[]){
                "mode=block", arg[0], arg[1], arg[2], "duration=1s", NULL }) == -ENOMEM);
        CHECK(fh.error && strstr(fh.error, "block mode: ") &&
              strstr(fh.error, " are more than half of the "));
        CHECK(now_mono() - t0 < 1); /* nothing was touched */
        fakehost_done(&fh);
}

static void put(const char *dir, const char *name, const char *text)
{
        char path[512];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
}

static void fake_index(const char *base, int k, const char *level,
                       const char *type, const char *size, const char *shared)
{
        char dir[400];

        snprintf(dir, sizeof(dir), "%s/index%d", base, k);
        CHECK(mkdir(dir, 0755) == 0);
        put(dir, "level", level);
        put(dir, "type", type);
        put(dir, "size", size);
        put(dir, "shared_cpu_list", shared);
}

static void test_llc(void)
{
        struct fakehost fh;
        uint64_t v;
        unsigned n;

        CHECK(memory_parse_cache_size("32768K\n", &v) == 0 && v == 32 * MIB);
        CHECK(memory_parse_cache_size("2M", &v) == 0 && v == 2 * MIB);
        CHECK(memory_parse_cache_size("512\n", &v) == 0 && v == 512);
        CHECK(memory_parse_cache_size("big", &v) < 0);
        CHECK(memory_count_cpu_list("0-3,8,10-11\n", &n) == 0 && n == 7);
        CHECK(memory_count_cpu_list("5", &n) == 0 && n == 1);
        CHECK(memory_count_cpu_list("", &n) < 0);
        CHECK(memory_count_cpu_list("3-1", &n) < 0);

        /* 16 CPUs, one 32 MiB L3 per 8 of them: 64 MiB for 2 threads or
         * more, one instance for one thread. */
        fakehost_init(&fh);
        fake_index(fh.cache_dir, 0, "1\n", "Data\n", "32K\n", "0\n");
        fake_index(fh.cache_dir, 1, "1\n", "Instruction\n", "32K\n", "0\n");
        fake_index(fh.cache_dir, 2, "2\n", "Unified\n", "1024K\n", "0\n");
        fake_index(fh.cache_dir, 3, "3\n", "Unified\n", "32768K\n", "0-7\n");
        CHECK(memory_llc_bytes(fh.cache_dir, 16, 0, &v) == 0 && v == 64 * MIB);
        CHECK(memory_llc_bytes(fh.cache_dir, 16, 2, &v) == 0 && v == 64 * MIB);
        CHECK(memory_llc_bytes(fh.cache_dir, 16, 1, &v) == 0 && v == 32 * MIB);
        CHECK(memory_llc_bytes(fh.cache_dir, 8, 0, &v) == 0 && v == 32 * MIB);
        fakehost_done(&fh);
        /* 96 CPUs, 32 MiB per die of 8 (12 dies): a thread uses one die's */
        fakehost_init(&fh);
        fake_index(fh.cache_dir, 0, "2\n", "Unified\n", "1024K\n", "0\n");
        fake_index(fh.cache_dir, 1, "3\n", "Unified\n", "32768K\n", "0-7\n");
        CHECK(memory_llc_bytes(fh.cache_dir, 96, 1, &v) == 0 && v == 32 * MIB);
        CHECK(memory_llc_bytes(fh.cache_dir, 96, 4, &v) == 0 && v == 128 * MIB);
        CHECK(memory_llc_bytes(fh.cache_dir, 96, 96, &v) == 0 && v == 384 * MIB);
        fakehost_done(&fh);
        /* no cache information */
        CHECK(memory_llc_bytes("/nonexistent", 4, 1, &v) < 0);

        /* No topology in sysfs, only CPUID's L3: on AMD one CCX's at most
         * (96 MiB) a thread; the development VM reports its host's 508 MiB */
        CHECK(memory_hidden_llc_bytes(508 * MIB, true, 1) == 96 * MIB);
        CHECK(memory_hidden_llc_bytes(508 * MIB, true, 0) == 508 * MIB);
        CHECK(memory_hidden_llc_bytes(508 * MIB, true, 2) == 192 * MIB);
        CHECK(memory_hidden_llc_bytes(508 * MIB, true, 8) == 508 * MIB);
        CHECK(memory_hidden_llc_bytes(32 * MIB, true, 1) == 32 * MIB);
        /* elsewhere one L3 serves the socket: a thread reaches all of it */
        CHECK(memory_hidden_llc_bytes(504 * MIB, false, 1) == 504 * MIB);
        CHECK(memory_hidden_llc_bytes(0, true, 1) == 0);
}

static void test_sizing(void)
{
        uint64_t v = 0;

        CHECK(memory_dram_array_bytes(32 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 256 * MIB);                       /* 8 x 32 MiB */
        CHECK(memory_dram_array_bytes(64 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 512 * MIB);                       /* 8 x 64 MiB */
        CHECK(memory_dram_array_bytes(4 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 256 * MIB);                       /* the floor */
        CHECK(memory_dram_array_bytes(4 * MIB, 1024 * MIB, &v) == 0);
        CHECK(v == 84 * MIB);                        /* a twelfth of 1 GiB */
        CHECK(memory_dram_array_bytes(1024 * MIB, 1024 * 1024 * MIB, &v) == 0);
        CHECK(v == 8192 * MIB);                      /* the cap */
        /* the development VM (AMD, 508 MiB L3 from CPUID, no topology):
         * one thread's 96 MiB, 23 GiB available */
        CHECK(memory_dram_array_bytes(96 * MIB, 23717 * MIB, &v) == 0);
        CHECK(v == 768 * MIB);                       /* 8 x 96 MiB */
        /* Hosts whose memory holds less than 4x the cache are measured,
         * as far past it as the memory allows (the run says how far):
         * 508 MiB of L3 one thread reaches (an Intel socket's), 23 GiB */
        CHECK(memory_dram_array_bytes(508 * MIB, 23717 * MIB, &v) == 0);
        CHECK(v == 1976 * MIB);                      /* a twelfth: 3.9x */
        /* a stacked-cache part, 1.1 GiB of L3 and 32 GiB */
        CHECK(memory_dram_array_bytes(1126 * MIB, 32768 * MIB, &v) == 0);
        CHECK(v == 2730 * MIB);                      /* 2.4x */
        CHECK(memory_dram_array_bytes(32 * MIB, 1024 * MIB, &v) == 0);
        CHECK(v == 84 * MIB);                        /* a 4 GiB host, busy */
        CHECK(memory_dram_array_bytes(4096 * MIB, 2048 * 1024 * MIB, &v) == 0);
        CHECK(v == 8192 * MIB);                      /* 2 TiB: the cap */
        /* no cache information: the floor */
        CHECK(memory_dram_array_bytes(0, 24576 * MIB, &v) == 0);
        CHECK(v == 256 * MIB);
        /* no memory to spare: refused, and v untouched */
        v = 1;
        CHECK(memory_dram_array_bytes(32 * MIB, 64 * MIB, &v) == -ENOMEM && v == 1);
}

/* A directory under base, with its parents. */
static void mkdirs(const char *base, const char *rel, char *ret, size_t size)
{
        char dir[512];

        snprintf(dir, sizeof(dir), "%s", base);
        for (const char *p = rel; *p;) {
                const char *slash = strchr(p + 1, '/');
                size_t n = slash ? (size_t)(slash - p) : strlen(p);
                snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "%.*s", (int)n, p);
                CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
                p += n;
        }
        snprintf(ret, size, "%s", dir);
}

/* The memory a container's or unit's cgroup still allows, on fixture
 * trees: the arrays must fit under it, not under the host's MemAvailable
 * (in a 1 GiB cgroup on this host, sized by MemAvailable, the probe was
 * killed by the OOM killer; tests/integration/memory_cgroup.sh). */
static void test_cgroup_room(void)
{
        char root[] = "/tmp/test_memory_cg.XXXXXX", dir[512];
        uint64_t v = 0;

        CHECK(mkdtemp(root));
        /* v2, the unit's limit 4 GiB, its parent's 2 GiB: the tighter; its
         * inactive page cache can be given back */
        mkdirs(root, "/system.slice/benchwatch.service", dir, sizeof(dir));
        put(dir, "memory.max", "4294967296\n");
        put(dir, "memory.current", "1073741824\n");
        put(dir, "memory.stat", "anon 536870912\nfile 536870912\n"
            "inactive_file 268435456\nactive_file 268435456\n");
        mkdirs(root, "/system.slice", dir, sizeof(dir));
        put(dir, "memory.max", "2147483648\n");
        put(dir, "memory.current", "1610612736\n");
        put(dir, "memory.stat", "inactive_file 0\n");
        CHECK(memory_cgroup_room("0::/system.slice/benchwatch.service\n", root, &v) == 0);
        CHECK(v == 512 * MIB);                       /* 2 GiB - 1.5 GiB */
        put(dir, "memory.max", "max\n");            /* the parent: no limit */
        CHECK(memory_cgroup_room("0::/system.slice/benchwatch.service\n", root, &v) == 0);
        CHECK(v == 3328 * MIB);                      /* 4 GiB - (1 GiB - 256 MiB) */
        mkdirs(root, "/user.slice", dir, sizeof(dir));
        put(dir, "memory.max", "max\n");
        CHECK(memory_cgroup_room("0::/user.slice\n", root, &v) == -ENOENT);
        /* a container's namespace: its own cgroup is the mount's root */
        put(root, "memory.max", "1073741824\n");
        put(root, "memory.current", "2147483648\n"); /* past it: no room */
        CHECK(memory_cgroup_room("0::/\n", root, &v) == 0 && v == 0);
        /* a container sharing the host's cgroup namespace: its path is
         * not under its mount, whose root is its own cgroup */
        CHECK(memory_cgroup_room("0::/docker/xyz\n", root, &v) == 0 && v == 0);
        /* v1 (or hybrid: the memory controller's line wins); the
         * kernel's PAGE_COUNTER_MAX is no limit */
        mkdirs(root, "/memory/docker/abc", dir, sizeof(dir));
        put(dir, "memory.limit_in_bytes", "1073741824\n");
        put(dir, "memory.usage_in_bytes", "209715200\n");
        put(dir, "memory.stat", "cache 0\ntotal_inactive_file 104857600\n");
        const char *v1 = "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n";
        CHECK(memory_cgroup_room(v1, root, &v) == 0);
        CHECK(v == 924 * MIB);                       /* 1 GiB - (200 - 100 MiB) */
        put(dir, "memory.limit_in_bytes", "9223372036854771712\n");
        CHECK(memory_cgroup_room(v1, root, &v) == -ENOENT);
        /* the parent's limit, its usage holding its children's */
        mkdirs(root, "/memory/docker", dir, sizeof(dir));
        put(dir, "memory.limit_in_bytes", "536870912\n");
        put(dir, "memory.usage_in_bytes", "314572800\n");
        CHECK(memory_cgroup_room(v1, root, &v) == 0 && v == 212 * MIB);
        /* no cgroup at all, or an unreadable tree */
        CHECK(memory_cgroup_room("", root, &v) == -ENOENT);
        CHECK(memory_cgroup_room("0::/nowhere\n", "/nonexistent", &v) == -ENOENT);
        CHECK(test_rm_tree(root) == 0);
}

/* The CPU-time twin of a dram figure: all passes' bytes over the workers'
 * CPU time in them, which is at most threads (at most the CPUs) x the
 * run's wall time. */
static void dram_cpu_twin(struct fakehost *fh, const char *op, long cpus)
{
        double per_cpu = fakehost_value(fh, "bytes_per_cpu_second", op);
        double total = fakehost_value(fh, "bytes_total", op);

        CHECK(per_cpu > 1e8 && per_cpu < 1e13);
        CHECK(total / per_cpu <= (cpus > 0 ? (double)cpus : 1) *
              fakehost_value(fh, "total_time_seconds", "") * 1.001);
}

/* The LLC the plugin sizes by for `threads`. */
static uint64_t host_llc(unsigned threads)
{
        uint64_t llc = 0, reported;

        memory_host_llc(threads, &llc, &reported);
        return llc;
}

static void test_dram_run(void)
{
        struct fakehost fh;
        double copy, triad, ws;
        uint64_t llc;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        fakehost_init(&fh);
        /* whatever this host's cache and memory, the run measures */
        CHECK(fakehost_run(&fh, &benchwatch_plugin, (const char *const[]){
                        "mode=dram", "duration=300ms", NULL }) == 0);
        copy = fakehost_value(&fh, "bytes_per_second", "operation=copy");
        triad = fakehost_value(&fh, "bytes_per_second", "operation=triad");
        ws = fakehost_value(&fh, "working_set_bytes", "");
        fprintf(stderr, "dram: copy %.0f MB/s, triad %.0f MB/s, %.0f MiB\n",
                copy / 1e6, triad / 1e6, ws / MIB);
        CHECK(copy > 1e8 && copy < 1e13);
        CHECK(triad > 1e8 && triad < 1e13);
        /* STREAM counting: per pass copy moves 2 arrays, triad 3 */
        CHECK(fakehost_value(&fh, "bytes_total", "operation=copy") * 3 ==
              fakehost_value(&fh, "bytes_total", "operation=triad") * 2);
        CHECK(fakehost_value(&fh, "bytes_total", "operation=copy") >= 2 * 2 * ws / 3);
        dram_cpu_twin(&fh, "operation=copy", cpus);
        dram_cpu_twin(&fh, "operation=triad", cpus);
        llc = host_llc(1);
        if (llc) /* how far past the cache: each array over the LLC */
                CHECK(fabs(fakehost_value(&fh, "working_set_llc_ratio", "") -
                           ws / 3 / (double)llc) < 1e-9 * ws);
        else
                CHECK(!fakehost_find(&fh, "working_set_llc_ratio", ""));
        fakehost_done(&fh);
}

/* The chain visits every element once and comes back: one cycle of n. */
static void check_cycle(size_t n, size_t stride)
{
        char *buf = calloc(n, stride);
        unsigned char *seen = calloc(n, 1);
        void *p = buf;

        CHECK(buf && seen);
        CHECK(memory_latency_chain(buf, n, stride, 42, NULL) == 0);
        for (size_t k = 0; k < n; k++) {
                size_t i = (size_t)((char *)p - buf) / stride;
                CHECK((char *)p >= buf && (size_t)((char *)p - buf) % stride == 0);
                CHECK(i < n && !seen[i]);
                seen[i] = 1;
                p = *(void **)p;
        }
        CHECK(p == buf);
        free(seen);
        free(buf);
}

static void test_latency_chain(void)
{
        size_t n = 4096, next_door = 0;
        char *buf = calloc(n, 64);
        void *p = buf, *q;

        check_cycle(2, 8);
        check_cycle(1000, 24);
        check_cycle(n, 64);
        CHECK(memory_latency_chain(buf, 1, 64, 1, NULL) < 0);
        CHECK(memory_latency_chain(buf, n, 12, 1, NULL) < 0);
        /* random, not a walk a prefetcher follows: few steps to a neighbour */
        CHECK(memory_latency_chain(buf, n, 64, 7, NULL) == 0);
        for (size_t k = 0; k < n; k++) {
                q = *(void **)p;
                long d = ((char *)q - (char *)p) / 64;
                next_door += d == 1 || d == -1;
                p = q;
        }
        CHECK(next_door < 16);
        /* the chase follows the chain, 16 loads at a time */
        p = buf;
        for (int k = 0; k < 48; k++)
                p = *(void **)p;
        CHECK(memory_latency_chase(buf, 48) == p);
        free(buf);
}

static void test_latency_sizing(void)
{
        uint64_t v = 0;

        CHECK(memory_latency_bytes(32 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 256 * MIB);                       /* 8 x 32 MiB */
        CHECK(memory_latency_bytes(4 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 64 * MIB);                        /* the floor */
        CHECK(memory_latency_bytes(3 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 64 * MIB);
        CHECK(memory_latency_bytes(5 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 64 * MIB);                        /* 40M < floor */
        CHECK(memory_latency_bytes(12 * MIB, 24576 * MIB, &v) == 0);
        CHECK(v == 96 * MIB);
        CHECK(memory_latency_bytes(16 * MIB, 700 * MIB, &v) == 0);
        CHECK(v == 128 * MIB);                       /* 175M: power of 2 */
        CHECK(memory_latency_bytes(2048 * MIB, 1024 * 1024 * MIB, &v) == 0);
        CHECK(v == 8192 * MIB);                      /* the cap */
        /* memory short of 4x the cache: as much as it allows */
        CHECK(memory_latency_bytes(32 * MIB, 400 * MIB, &v) == 0);
        CHECK(v == 64 * MIB);                        /* 2x, said by the run */
        CHECK(memory_latency_bytes(1126 * MIB, 32768 * MIB, &v) == 0);
        CHECK(v == 8192 * MIB);                      /* 7.3x */
        /* the development VM: one AMD thread's 96 MiB, 23 GiB available */
        CHECK(memory_latency_bytes(96 * MIB, 23717 * MIB, &v) == 0);
        CHECK(v == 768 * MIB);                       /* 8 x 96 MiB */
        CHECK(memory_latency_bytes(0, 24576 * MIB, &v) == 0);
        CHECK(v == 64 * MIB);                        /* cache unknown: the floor */
        v = 1;
        CHECK(memory_latency_bytes(32 * MIB, 16 * MIB, &v) == -ENOMEM && v == 1);
}

/* The run's parameter labels, as the core adds them: flagged and applying. */
static char *param_labels(const char *const *params)
{
        struct param_set *ps;
        char *why = NULL, *out = calloc(1, 512);
        size_t at = 0;

        CHECK(out && param_set_new(benchwatch_plugin.params, &ps, &why) == 0);
        for (size_t i = 0; params[i]; i++)
                CHECK(param_set_assign_kv(ps, params[i], &why) == 0);
        for (size_t i = 0; i < ps->n; i++)
                if ((ps->defs[i].flags & BW_PARAM_LABEL) && param_applies(ps, i))
                        at += (size_t)snprintf(out + at, 512 - at, "%s%s=%s",
                                               at ? "," : "", ps->defs[i].name,
                                               param_text(ps, i));
        param_set_free(ps);
        return out;
}

static void expect_labels(const char *const *params, const char *want)
{
        char *got = param_labels(params);

        if (strcmp(got, want)) {
                fprintf(stderr, "labels: got '%s', want '%s'\n", got, want);
                exit(1);
        }
        free(got);
}

static void test_latency_labels(void)
{
        expect_labels((const char *const[]){ "mode=latency", NULL },
                      "mode=latency,size=0,stride=64");
        expect_labels((const char *const[]){ "mode=latency", "size=16k",
                                             "threads=4", "block_size=4k",
                                             "oper=read", NULL },
                      "mode=latency,size=16k,stride=64");
        /* block mode as it always was; size and stride are not labels */
        expect_labels((const char *const[]){ "size=1M", "stride=128", NULL },
                      "mode=block,block_size=1k,oper=write,access=seq,"
                      "scope=global,threads=1");
        expect_labels((const char *const[]){ "mode=dram", "stride=128", NULL },
                      "mode=dram,threads=1");
        bad("stride=4");
        bad("size=65G");
        refused_by_check((const char *const[]){ "mode=latency", "stride=12",
                                                 NULL }, "not a multiple of 8");
        refused_by_check((const char *const[]){ "mode=latency", "size=512",
                                                 NULL }, "fewer than 16");
}

/* One latency run (whatever the host's shape, it measures): its ns per
 * load; *ret_ws the buffer's bytes. */
static double latency_ns(const char *size, double *ret_ws)
{
        struct fakehost fh;
        const struct fake_metric *m;
        double ns, ws;
        uint64_t llc = host_llc(1);
        char arg[64];

        snprintf(arg, sizeof(arg), "size=%s", size);
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, &benchwatch_plugin, (const char *const[]){
                        "mode=latency", arg, "duration=300ms", NULL }) == 0);
        if (llc) /* how far past the cache the buffer is */
                CHECK(fabs(fakehost_value(&fh, "working_set_llc_ratio", "") *
                           (double)llc - fakehost_value(&fh, "working_set_bytes", "")) <
                      1e-6 * (double)llc);
        m = fakehost_find(&fh, "load_latency_seconds", "");
        CHECK(m && m->kind == FAKE_GAUGE);
        ns = m->value * 1e9;
        ws = fakehost_value(&fh, "working_set_bytes", "");
        /* ten windows of at least one 16384-load chunk, after the warm-up */
        CHECK(fakehost_value(&fh, "loads_total", "") >= 11 * 16384);
        CHECK(fh.progress == (uint64_t)fakehost_value(&fh, "loads_total", ""));
        CHECK(fakehost_value(&fh, "total_time_seconds", "") >= 0.3);
        /* loads per second of wall time and of the thread's CPU time over
         * the windows: CPU time is at most the wall time, and its mean per
         * load is near the median of the windows (load_latency_seconds) */
        double wall_rate = fakehost_value(&fh, "loads_per_second", "");
        double cpu_rate = fakehost_value(&fh, "loads_per_cpu_second", "");
        CHECK(wall_rate > 0 && cpu_rate >= 0.998 * wall_rate);
        CHECK(1e9 / cpu_rate > 0.5 * ns && 1e9 / cpu_rate < 2 * ns);
        m = fakehost_find(&fh, "huge_page_ratio", "");
        CHECK(!m || (m->value >= 0 && m->value <= 1));
        /* only latency-mode figures, with no labels of the plugin's own */
        CHECK(fakehost_find(&fh, "bytes_per_second", NULL) == NULL);
        CHECK(fakehost_find(&fh, "load_latency_seconds", NULL) ==
              fakehost_find(&fh, "load_latency_seconds", ""));
        fprintf(stderr, "latency size=%s: %.2f ns per load, %.0f KiB, huge "
                "pages %.0f%%\n", size, ns, ws / 1024, m ? 100 * m->value : -1);
        *ret_ws = ws;
        fakehost_done(&fh);
        return ns;
}

static void test_latency_run(void)
{
        double ws = 0, l1 = latency_ns("16k", &ws), far;
        uint64_t v = 0, llc = host_llc(1);

        CHECK(ws == 16384);
        CHECK(l1 > 0.3 && l1 < 20);
        far = latency_ns("0", &ws);
        /* the default buffer is what memory_latency_bytes gives */
        CHECK(memory_latency_bytes(llc, UINT64_C(1) << 50, &v) == 0 && ws <= (double)v);
        CHECK(ws >= 64.0 * MIB);
        CHECK(far < 2000);
        /* DRAM is several times slower than L1 everywhere (lat_mem_rd:
         * ~1 ns against 60-120 ns); 4x leaves room for a noisy host */
        CHECK(far > 4 * l1);
}

/* memory_release over `seconds`, with its deadline `deadline_in` seconds
 * after the buffer was touched (0: none; taken after the touching, whose
 * page faults take as long as the host makes them): the time it took, and
 * the mapping must be gone. */
static double release_took(struct fakehost *fh, double seconds, double deadline_in)
{
        size_t len = 64 * MIB + 4096; /* 3 steps, the last one a page */
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        double t;

        CHECK(p != MAP_FAILED);
        memset(p, 1, len);
        t = now_mono();
        memory_release(p, len, seconds, deadline_in > 0 ? t + deadline_in : 0, &fh->host);
        t = now_mono() - t;
        for (size_t off = 0; off < len; off += 16 * MIB) /* unmapped: ENOMEM */
                CHECK(msync(p + off, 4096, MS_ASYNC) < 0 && errno == ENOMEM);
        CHECK(msync(p + len - 4096, 4096, MS_ASYNC) < 0 && errno == ENOMEM);
        return t;
}

static void *spin(void *arg)
{
        while (!__atomic_load_n((bool *)arg, __ATOMIC_RELAXED))
                ;
        return NULL;
}

/* The latency is CPU time; when others had the chasing thread's CPU for
 * more than 5% of the time the report says what a wall-clock chase would
 * time, and only then.  A spinning thread on the same single CPU takes
 * about half of it. */
static void test_latency_shared(void)
{
        cpu_set_t old, one;
        bool stop = false;
        pthread_t t;
        struct fakehost fh;
        int cpu = 0;

        CHECK(sched_getaffinity(0, sizeof(old), &old) == 0);
        while (!CPU_ISSET(cpu, &old))
                cpu++;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
        CHECK(pthread_create(&t, NULL, spin, &stop) == 0);
        fakehost_init(&fh);
        CHECK(fakehost_run(&fh, &benchwatch_plugin, (const char *const[]){
                "mode=latency", "size=16k", "duration=300ms", NULL }) == 0);
        __atomic_store_n(&stop, true, __ATOMIC_RELAXED);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(sched_setaffinity(0, sizeof(old), &old) == 0);
        double wall = fakehost_value(&fh, "loads_per_second", "");
        double per_cpu = fakehost_value(&fh, "loads_per_cpu_second", "");
        CHECK(per_cpu > 1.05 * wall);
        /* the run's line, the cache-size note, and this one (and on a host
         * that hides its cache topology, the line saying so) */
        CHECK(fh.n_logs == 3 + (strstr(fh.logs, "no cache topology") != NULL));
        fakehost_done(&fh);
}

static void test_release(void)
{
        struct fakehost fh;
        double t;

        fakehost_init(&fh);
        t = release_took(&fh, 0, 0);
        CHECK(t < 0.1);                              /* at once */
        t = release_took(&fh, 0.4, 0);
        CHECK(t >= 0.35 && t < 2);                   /* spread over 0.4 s */
        t = release_took(&fh, 5, 0.8);
        CHECK(t >= 0.2 && t < 0.6);                  /* ends 0.5 s before the deadline */
        fh.stop = true;
        t = release_took(&fh, 5, 0);
        CHECK(t < 0.1);                              /* stopping: at once */
        fakehost_done(&fh);
}

int main(void)
{
        CHECK(strcmp(benchwatch_plugin.name, "memory") == 0);
        test_block_event();
        test_bad_params();
        test_block_room();
        test_llc();
        test_sizing();
        test_cgroup_room();
        test_total_size();
        test_operations();
        test_dram_run();
        test_latency_chain();
        test_latency_sizing();
        test_latency_labels();
        test_latency_run();
        test_latency_shared();
        test_release();
        printf("test_memory: all passed\n");
        return 0;
}
