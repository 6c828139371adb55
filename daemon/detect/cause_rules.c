/* cause_rules.c — the rules of cause.h, each a threshold on the regressed
 * runs' figures against the reference's spread (cause_rules.h), and the
 * sentence that gives its numbers. */
#include "detect/cause_rules.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/strutil.h"

/* ---- the words -------------------------------------------------------------- */

static const char *pct(double ratio, char *buf, size_t size)
{
        double p = ratio * 100;
        snprintf(buf, size, fabs(p) < 9.95 ? "%.1f%%" : "%.0f%%", p);
        return buf;
}

/* A count as a whole number below 1000 ("14"), else "4.51k". */
static const char *count(double v, char *buf, size_t size)
{
        if (v == floor(v) && fabs(v) < 999.5) {
                snprintf(buf, size, "%.0f", v);
                return buf;
        }
        return format_quantity(v, false, buf, (unsigned)size);
}

/* "in the reference", or that it has none to compare with. */
static const char *ref_pct(const struct cause_ctx *c, int f, char *buf, size_t size)
{
        char p[32];
        if (!cause_in_ref(c, f))
                snprintf(buf, size, "no reference figure to compare");
        else
                snprintf(buf, size, "against %s in the reference",
                         pct(c->ref->median[f], p, sizeof(p)));
        return buf;
}

/* "over the 3 runs" or "in the run". */
static const char *over_runs(const struct cause_ctx *c, char *buf, size_t size)
{
        if (c->in->n_runs == 1)
                snprintf(buf, size, "in the run");
        else
                snprintf(buf, size, "over the %zu runs", c->in->n_runs);
        return buf;
}

/* text + sep + the formatted piece (sep only after some text); NULL
 * when out of memory (text is freed).  Starts from NULL; after a failure
 * a rule goes on only while text is not NULL ("text || nothing before"),
 * so that no sentence loses a piece of its evidence to a failed join. */
static char *join(char *text, const char *sep, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static char *join(char *text, const char *sep, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *piece = str_vprintf(fmt, ap);
        va_end(ap);
        char *t = piece ? str_printf("%s%s%s", text ? text : "", text ? sep : "", piece) : NULL;
        free(piece);
        free(text);
        return t;
}

/* Of a tail's verdict (cause_input.tail), after text: that the median
 * event held, and (unexplained) what else the tail can be. */
static char *tail_note(const struct cause_ctx *c, char *text, bool unexplained)
{
        if (!text || !(c->in->tail > 0))
                return text;
        return join(text, "; ", "the slowest %g%% of the events only, " CAUSE_TAIL_NOTE "%s",
                    c->in->tail * 100,
                    unexplained ? ": held up where no counter shows (an interrupt, the host "
                                  "under a VM) as likely as the part slower" : "");
}

/* "N what" or "N whats" appended to a list. */
static char *join_count(char *text, double n, const char *what)
{
        char q[32];
        return join(text, ", ", "%s %s%s", count(n, q, sizeof(q)), what, n == 1 ? "" : "s");
}

static const char *hz(double v, char *buf, size_t size)
{
        snprintf(buf, size, "%.2f GHz", v / 1e9);
        return buf;
}

static const char *gib(double bytes, char *buf, size_t size)
{
        snprintf(buf, size, "%.1f GiB", bytes / 1073741824.0);
        return buf;
}

/* ---- the rules, in the order of enum cause_kind ------------------------------ */

static int done(char *text, char **ret)
{
        *ret = text;
        return text ? 1 : -ENOMEM;
}

static const char *resource_of(const char *plugin);

/* A gpu probe: its figure is the GPU's, set by the GPU's own clocks. */
static bool of_gpu(const struct cause_ctx *c)
{
        return !strcmp(resource_of(c->in->plugin), "gpu");
}

/* Of a gpu probe, its PCIe link (f: generation or width) during the
 * copies below the reference's: read under load, where a healthy link
 * trains up (idle, it trains down by design).  Levels, so the lower
 * median: lower in half the runs is lower, and it is a level a run had. */
static bool link_lower(const struct cause_ctx *c, int f)
{
        return of_gpu(c) && cause_present(c, f) && cause_in_ref(c, f) &&
               c->a[f].low_median <= c->ref->low[f] - 1;
}

static int rule_inventory(const struct cause_ctx *c, char **ret)
{
        const int cpus = CAUSE_F_CPUS_ONLINE, mem = CAUSE_F_MEM_TOTAL;
        const int gen = CAUSE_F_GPU_LINK_GEN, width = CAUSE_F_GPU_LINK_WIDTH;
        const struct cause_agg *a = c->a;
        bool cpu_moved = cause_present(c, cpus) && cause_in_ref(c, cpus) &&
                         fabs(a[cpus].median - c->ref->median[cpus]) >= 0.5;
        bool mem_moved = cause_present(c, mem) && cause_in_ref(c, mem) &&
                         fabs(a[mem].median / c->ref->median[mem] - 1) > 0.02;
        bool link_down = (link_lower(c, gen) || link_lower(c, width)) &&
                         cause_present(c, gen) && cause_in_ref(c, gen) &&
                         cause_present(c, width) && cause_in_ref(c, width);
        char x[32], y[32];
        char *text = NULL;
        if (!ret || (!cpu_moved && !mem_moved && !link_down))
                return cpu_moved || mem_moved || link_down;
        if (link_down)
                text = join(text, ", ", "the GPU's PCIe link gen %.0f x%.0f during the copies "
                            "against gen %.0f x%.0f in the reference", a[gen].low_median,
                            a[width].low_median, c->ref->median[gen], c->ref->median[width]);
        if (cpu_moved && (text || !link_down))
                text = join(text, ", ", "%s CPUs online against %s in the reference",
                            count(a[cpus].median, x, sizeof(x)),
                            count(c->ref->median[cpus], y, sizeof(y)));
        if (mem_moved && (text || !(cpu_moved || link_down)))
                text = join(text, ", ", "memory %s against %s in the reference",
                            gib(a[mem].median, x, sizeof(x)),
                            gib(c->ref->median[mem], y, sizeof(y)));
        return done(text, ret);
}

static int rule_kernel_log(const struct cause_ctx *c, char **ret)
{
        static const struct { int f; const char *what; } kinds[] = {
                { CAUSE_F_LOG_IO_ERROR, "I/O error" }, { CAUSE_F_LOG_RESET, "reset" },
                { CAUSE_F_LOG_MACHINE_CHECK, "machine check" }, { CAUSE_F_LOG_XID, "GPU Xid" },
        };
        const int xid = CAUSE_F_GPU_XID;
        char *text = NULL, r[32], n[32];
        bool any = false, oom = false;
        bool nvml = of_gpu(c) && cause_more_events(c, xid);
        for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
                if (!cause_more_events(c, kinds[i].f))
                        continue;
                any = true;
                if (ret && !oom)
                        oom = !(text = join_count(text, c->a[kinds[i].f].sum, kinds[i].what));
        }
        if (!ret || !(any || nvml))
                return any || nvml;
        over_runs(c, r, sizeof(r));
        if (any && !oom)
                text = join(text, " ", "in the kernel log %s", r);
        /* the same errors the driver logs as "NVRM: Xid", told for this GPU */
        if (nvml && (text || !any))
                text = join(text, ", ", "NVML reported %s Xid error%s for the GPU %s",
                            count(c->a[xid].sum, n, sizeof(n)), c->a[xid].sum == 1 ? "" : "s",
                            r);
        return done(text, ret);
}

/* Of a gpu probe, the GPU's own memory errors: more ECC errors or rows
 * remapped since the runs before than its reference runs had, or a
 * remapping that waits for a reset or failed where none did. */
static bool gpu_memory_errors(const struct cause_ctx *c)
{
        return of_gpu(c) && (cause_more_events(c, CAUSE_F_GPU_ECC_CE) ||
                             cause_more_events(c, CAUSE_F_GPU_ECC_UE) ||
                             cause_more_events(c, CAUSE_F_GPU_REMAPPED) ||
                             cause_above(c, CAUSE_F_GPU_REMAP_WAIT, 1, 0.5));
}

/* "the GPU's memory: 14 corrected, 2 uncorrected ECC errors, 1 row
 * remapped over the 3 runs, a row remapping waiting ..."; NULL when out
 * of memory. */
static char *gpu_memory_text(const struct cause_ctx *c)
{
        const int ce = CAUSE_F_GPU_ECC_CE, ue = CAUSE_F_GPU_ECC_UE, rows = CAUSE_F_GPU_REMAPPED;
        char x[32], y[32], r[32];
        bool ecc = cause_more_events(c, ce) || cause_more_events(c, ue);
        bool remapped = cause_more_events(c, rows);
        char *text = str_printf("the GPU's memory:");
        if (text && ecc)
                text = join(text, " ", "%s corrected, %s uncorrected ECC errors",
                            count(c->a[ce].sum, x, sizeof(x)),
                            count(c->a[ue].sum, y, sizeof(y)));
        if (text && remapped)
                text = join(text, ecc ? ", " : " ", "%s row%s remapped",
                            count(c->a[rows].sum, x, sizeof(x)), c->a[rows].sum == 1 ? "" : "s");
        if (text && (ecc || remapped))
                text = join(text, " ", "%s", over_runs(c, r, sizeof(r)));
        if (text && cause_above(c, CAUSE_F_GPU_REMAP_WAIT, 1, 0.5))
                text = join(text, ecc || remapped ? ", " : " ", "a row remapping waiting for a "
                            "GPU reset or failed (none in the reference)");
        return text;
}

static int rule_memory_errors(const struct cause_ctx *c, char **ret)
{
        const int hw = CAUSE_F_HW_CORRUPTED;
        bool edac = cause_more_events(c, CAUSE_F_EDAC_CE) || cause_more_events(c, CAUSE_F_EDAC_UE);
        bool logged = cause_more_events(c, CAUSE_F_LOG_EDAC);
        double hw_ref = cause_in_ref(c, hw) ? c->ref->median[hw] : 0;
        bool corrupted = cause_present(c, hw) && c->a[hw].median > hw_ref;
        bool gpu = gpu_memory_errors(c);
        char x[32], y[32], r[32];
        char *text = NULL;
        if (!ret || !(edac || logged || corrupted || gpu))
                return edac || logged || corrupted || gpu;
        if (gpu) {
                text = gpu_memory_text(c);
                if (!text)
                        return -ENOMEM;
        }
        over_runs(c, r, sizeof(r));
        if (edac && (text || !gpu))
                text = join(text, "; ", "EDAC: %s corrected, %s uncorrected errors %s",
                            count(c->a[CAUSE_F_EDAC_CE].sum, x, sizeof(x)),
                            count(c->a[CAUSE_F_EDAC_UE].sum, y, sizeof(y)), r);
        if (logged && (text || !(gpu || edac)))
                text = join(text, ", ", "%s EDAC reports in the kernel log %s",
                            count(c->a[CAUSE_F_LOG_EDAC].sum, x, sizeof(x)), r);
        if (corrupted && (text || !(gpu || edac || logged)))
                text = join(text, ", ", "%s bytes of memory taken out of use (HardwareCorrupted; "
                            "%s in the reference)", count(c->a[hw].median, x, sizeof(x)),
                            count(hw_ref, y, sizeof(y)));
        return done(text, ret);
}

/* " (12% in the reference)", or " (no reference figure)": runs from
 * before a figure was kept have none, which is not none held back. */
static const char *ref_share(const struct cause_ctx *c, int f, char *buf, size_t size)
{
        char v[32];
        if (cause_in_ref(c, f))
                snprintf(buf, size, " (%s in the reference)", pct(c->ref->median[f], v, sizeof(v)));
        else
                snprintf(buf, size, " (no reference figure)");
        return buf;
}

static int rule_gpu_heat(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_GPU_HEAT;
        bool held = cause_above(c, f, CAUSE_MIN_GPU_HELD, CAUSE_MIN_GPU_HELD);
        char p[32], rf[64];
        if (!held || !ret)
                return held;
        return done(str_printf("the GPU's clocks held back for heat (HW and SW thermal "
                               "slowdown) %s of the run%s", pct(c->a[f].median, p, sizeof(p)),
                               ref_share(c, f, rf, sizeof(rf))), ret);
}

static int rule_heat(const struct cause_ctx *c, char **ret)
{
        const int cpu = CAUSE_F_CPU_HEAT, nvme = CAUSE_F_NVME_HEAT;
        if (of_gpu(c))
                return rule_gpu_heat(c, ret);
        bool hot_cpu = cause_more_events(c, cpu), hot_nvme = cause_more_events(c, nvme);
        char x[32], y[32], r[32];
        char *text = NULL;
        if (!ret || !(hot_cpu || hot_nvme))
                return hot_cpu || hot_nvme;
        over_runs(c, r, sizeof(r));
        if (hot_cpu)
                text = join(text, ", ", "the CPUs throttled for heat %s times %s (cores and "
                            "packages; %s a run in the reference)",
                            count(c->a[cpu].sum, x, sizeof(x)), r,
                            count(cause_in_ref(c, cpu) ? c->ref->median[cpu] : 0, y, sizeof(y)));
        if (hot_nvme && (text || !hot_cpu))
                text = join(text, ", ", "the NVMe controller entered thermal management %s "
                            "times %s",
                            count(c->a[nvme].sum, x, sizeof(x)), r);
        return done(text, ret);
}

static int rule_cpu_quota(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_THROTTLED, s = CAUSE_F_THROTTLED_S;
        bool held = cause_above(c, f, CAUSE_MIN_THROTTLED, CAUSE_MIN_THROTTLED);
        char p[32], secs[32], q[48] = "", rf[64];
        if (!held || !ret)
                return held;
        if (cause_present(c, s))
                snprintf(q, sizeof(q), " (%s a run)",
                         format_quantity(c->a[s].median, true, secs, sizeof(secs)));
        return done(str_printf("throttled in %s of its CPU quota periods%s, %s",
                               pct(c->a[f].median, p, sizeof(p)), q,
                               ref_pct(c, f, rf, sizeof(rf))), ret);
}

static int rule_gpu_clock(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_GPU_CLOCK, power = CAUSE_F_GPU_POWER;
        bool lower = cause_present(c, f) && cause_in_ref(c, f) &&
                     c->a[f].median <= c->ref->low[f] * (1 - CAUSE_CLOCK_DROP);
        /* a GPU at its power cap under a GEMM is usual: only more of it
         * than its own reference is a cause */
        bool held = cause_in_ref(c, power) &&
                    cause_above(c, power, CAUSE_MIN_GPU_HELD, CAUSE_MIN_GPU_HELD);
        char x[32], y[32], p[32], rf[64];
        char *text = NULL;
        if (!ret || !(lower || held))
                return lower || held;
        if (lower)
                text = join(text, ", ", "the GPU's SM clock %s against %s in the reference",
                            hz(c->a[f].median, x, sizeof(x)), hz(c->ref->median[f], y, sizeof(y)));
        if (held && (text || !lower))
                text = join(text, ", ", "its clocks held back for power (power brake, SW power "
                            "cap, HW slowdown) %s of the run%s",
                            pct(c->a[power].median, p, sizeof(p)),
                            ref_share(c, power, rf, sizeof(rf)));
        return done(text, ret);
}

static int rule_clock(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_CLOCK, max = CAUSE_F_SCALING_MAX;
        if (of_gpu(c))
                return rule_gpu_clock(c, ret);
        bool held = cause_present(c, f) && cause_in_ref(c, f) &&
                    c->a[f].median <= c->ref->low[f] * (1 - CAUSE_CLOCK_DROP);
        char x[32], y[32];
        if (!held || !ret)
                return held;
        char *text = str_printf("%s against %s in the reference", hz(c->a[f].median, x, sizeof(x)),
                                hz(c->ref->median[f], y, sizeof(y)));
        if (text && cause_present(c, max) && cause_in_ref(c, max) &&
            c->a[max].median < c->ref->median[max] * (1 - CAUSE_CLOCK_DROP))
                text = join(text, ", ", "cpufreq allows %s at most (%s in the reference)",
                            hz(c->a[max].median, x, sizeof(x)),
                            hz(c->ref->median[max], y, sizeof(y)));
        return done(text, ret);
}

static int rule_hypervisor(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_STEAL;
        /* of a tail, the larger of the two waits that held it up */
        bool waited_more = cause_tail_above(c, CAUSE_F_RUN_DELAY) &&
                           c->a[CAUSE_F_RUN_DELAY].median > c->a[f].median;
        bool held = cause_above(c, f, CAUSE_MIN_STEAL, CAUSE_MIN_STEAL) ||
                    (cause_tail_above(c, f) && !waited_more);
        char p[32], rf[64];
        if (!held || !ret)
                return held;
        return done(tail_note(c, str_printf("steal %s of the host's CPU time, %s",
                                            pct(c->a[f].median, p, sizeof(p)),
                                            ref_pct(c, f, rf, sizeof(rf))), false),
                    ret);
}

static int rule_memory_pressure(const struct cause_ctx *c, char **ret)
{
        const int f = CAUSE_F_MEM_PRESSURE, faults = CAUSE_F_MAJOR_FAULTS;
        bool stalled = cause_above(c, f, CAUSE_MIN_PRESSURE, CAUSE_MIN_PRESSURE);
        bool paged = cause_above(c, faults, CAUSE_MIN_MAJOR_FAULTS, CAUSE_MIN_MAJOR_FAULTS);
        char p[32], rf[64], x[32], y[32];
        char *text = NULL;
        if (!ret || !(stalled || paged))
                return stalled || paged;
        if (stalled)
                text = join(text, ", ", "tasks stalled on memory %s of the run (PSI), %s",
                            pct(c->a[f].median, p, sizeof(p)), ref_pct(c, f, rf, sizeof(rf)));
        if (paged && (text || !stalled))
                text = join(text, ", ", "the probe had %s major page faults a run (reads "
                            "from swap or files; %s in the reference)",
                            count(c->a[faults].median, x, sizeof(x)),
                            cause_in_ref(c, faults) ? count(c->ref->median[faults], y, sizeof(y))
                                                    : "no figure");
        return done(text, ret);
}

/* " (0.99 in the reference)", "" when it has none. */
static const char *ref_ratio(const struct cause_ctx *c, int f, bool percent, char *buf, size_t size)
{
        char v[32];
        *buf = 0;
        if (!cause_in_ref(c, f))
                return buf;
        if (percent)
                pct(c->ref->median[f], v, sizeof(v));
        else
                snprintf(v, sizeof(v), "%.2f", c->ref->median[f]);
        snprintf(buf, size, " (%s in the reference)", v);
        return buf;
}

static int rule_neighbour(const struct cause_ctx *c, char **ret)
{
        const int on = CAUSE_F_ON_CPU, delay = CAUSE_F_RUN_DELAY, others = CAUSE_F_OTHERS_CPU;
        double m = c->a[on].median;
        bool waited = cause_above(c, delay, CAUSE_MIN_RUN_DELAY, CAUSE_MIN_RUN_DELAY) ||
                      cause_tail_above(c, delay);
        bool less = cause_present(c, on) && m <= 1 - CAUSE_MIN_ON_CPU_DROP &&
                    (!cause_in_ref(c, on) || m <= c->ref->low[on] - CAUSE_MIN_ON_CPU_DROP);
        char p[32], rf[64];
        char *text = NULL;
        if (!ret || !(waited || less))
                return waited || less;
        if (cause_present(c, on))
                text = join(text, ", ", "on-CPU %.2f%s", m,
                            ref_ratio(c, on, false, rf, sizeof(rf)));
        if (cause_present(c, delay) && (text || !cause_present(c, on)))
                text = join(text, ", ", "run delay %s of the run%s",
                            pct(c->a[delay].median, p, sizeof(p)),
                            ref_ratio(c, delay, true, rf, sizeof(rf)));
        if (cause_above(c, others, CAUSE_MIN_RUN_DELAY, CAUSE_MIN_RUN_DELAY) && text)
                text = join(text, ", ", "other processes used %s of the host's CPU time%s",
                            pct(c->a[others].median, p, sizeof(p)),
                            ref_ratio(c, others, true, rf, sizeof(rf)));
        return done(tail_note(c, text, false), ret);
}

static bool queue_deeper(const struct cause_ctx *c)
{
        const int q = CAUSE_F_DISK_QUEUE;
        double m = c->a[q].median, hi = c->ref->high[q];
        return cause_present(c, q) && cause_in_ref(c, q) && m >= hi * CAUSE_QUEUE_DEEPER &&
               m >= hi + 0.5;
}

static bool others_io_up(const struct cause_ctx *c)
{
        const int f = CAUSE_F_OTHERS_IO;
        double m = c->a[f].median;
        return cause_present(c, f) && m >= 1e6 && (!cause_in_ref(c, f) || m >= 2 * c->ref->high[f]);
}

static int rule_disk_queue(const struct cause_ctx *c, char **ret)
{
        const int q = CAUSE_F_DISK_QUEUE, o = CAUSE_F_OTHERS_IO;
        bool deeper = queue_deeper(c), others = others_io_up(c);
        char x[32], y[32];
        char *text = NULL;
        if (!ret || !(deeper || others))
                return deeper || others;
        if (deeper)
                text = join(text, ", ", "queue depth %.2f against %.2f in the reference",
                            c->a[q].median, c->ref->median[q]);
        if (others && (text || !deeper))
                text = join(text, ", ", "others' I/O %sB/s (%sB/s in the reference)",
                            count(c->a[o].median, x, sizeof(x)),
                            count(cause_in_ref(c, o) ? c->ref->median[o] : 0, y, sizeof(y)));
        return done(text, ret);
}

/* How much slower per I/O than the reference, for read or write (the
 * larger), or 0 when neither is clearly above its spread. */
static double slower_per_io(const struct cause_ctx *c, int *ret_f)
{
        const int ops[] = { CAUSE_F_DISK_READ, CAUSE_F_DISK_WRITE };
        double best = 0;
        for (size_t i = 0; i < 2; i++) {
                int f = ops[i];
                if (!cause_present(c, f) || !cause_in_ref(c, f) || !(c->ref->median[f] > 0) ||
                    c->a[f].median < c->ref->high[f] * (1 + CAUSE_DISK_SLOWER))
                        continue;
                double rel = c->a[f].median / c->ref->median[f] - 1;
                if (rel > best) {
                        best = rel;
                        *ret_f = f;
                }
        }
        return best;
}

static int rule_disk_device(const struct cause_ctx *c, char **ret)
{
        const int q = CAUSE_F_DISK_QUEUE;
        int f = CAUSE_F_DISK_READ;
        double rel = slower_per_io(c, &f);
        bool held = rel > 0 && !queue_deeper(c);
        char x[32], y[32], p[32];
        if (!held || !ret)
                return held;
        char *text = str_printf("device time per %s +%s (%s against %s in the reference)",
                                f == CAUSE_F_DISK_READ ? "read" : "write", pct(rel, p, sizeof(p)),
                                format_quantity(c->a[f].median, true, x, sizeof(x)),
                                format_quantity(c->ref->median[f], true, y, sizeof(y)));
        if (text && cause_present(c, q) && cause_in_ref(c, q))
                text = join(text, ", ", "queue flat (%.2f against %.2f)", c->a[q].median,
                            c->ref->median[q]);
        return done(text, ret);
}

/* What a plugin measures: probes of one resource are not independent
 * (a failing disk slows disk, disklat and seqread alike). */
static const char *resource_of(const char *plugin)
{
        static const char *const map[][2] = {
                { "cpu", "cpu" }, { "threads", "cpu" }, { "memory", "memory" },
                { "disk", "disk" }, { "disklat", "disk" }, { "seqread", "disk" },
                { "http", "service" }, { "mysql", "service" }, { "gpu", "gpu" },
        };
        for (size_t i = 0; plugin && i < sizeof(map) / sizeof(*map); i++)
                if (!strcmp(plugin, map[i][0]))
                        return map[i][1];
        return plugin ? plugin : "";
}

/* names[0..n) as "a, b and c"; NULL when n is 0 (or out of memory:
 * *ret_oom). */
static char *and_list(const char *const *names, size_t n, bool *ret_oom)
{
        char *text = NULL;
        for (size_t i = 0; i < n; i++) {
                const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
                if (!(text = join(text, sep, "%s", names[i]))) {
                        *ret_oom = true;
                        return NULL;
                }
        }
        return text;
}

/* Of the plugins in list (NULL-terminated), those of resources other than
 * this probe's, each resource once, as "memory and disk"; NULL when none
 * (or out of memory: *ret_oom). */
static char *independent_of(const struct cause_ctx *c, const char *const *list, bool *ret_oom)
{
        const char *mine = resource_of(c->in->plugin);
        const char *seen[16];
        size_t n = 0;
        for (const char *const *p = list; p && *p && n < 16; p++) {
                const char *res = resource_of(*p);
                bool dup = !strcmp(res, mine);
                for (size_t i = 0; i < n && !dup; i++)
                        dup = !strcmp(resource_of(seen[i]), res);
                if (!dup)
                        seen[n++] = *p;
        }
        return and_list(seen, n, ret_oom);
}

/* The probe's devices in list (NULL-terminated) as "GPUs 0 and 2"; NULL
 * when none (or out of memory: *ret_oom). */
static char *devices_named(const struct cause_ctx *c, const char *const *list, bool *ret_oom)
{
        size_t n = 0;
        for (const char *const *d = list; d && *d; d++)
                n++;
        char *names = and_list(list, n, ret_oom);
        char *text = names ? str_printf("%s %s", of_gpu(c) ? n > 1 ? "GPUs" : "GPU" :
                                                             n > 1 ? "devices" : "device",
                                        names) : NULL;
        if (names && !text)
                *ret_oom = true;
        free(names);
        return text;
}

static int rule_host(const struct cause_ctx *c, char **ret)
{
        bool oom = false;
        char *others = independent_of(c, c->in->others, &oom);
        char *devices = oom ? NULL : devices_named(c, c->in->devices_regressed, &oom);
        char when[32] = "the same window";
        char *text = NULL;
        bool any = others || devices;
        if (oom || !ret || !any) {
                free(others);
                free(devices);
                return oom ? -ENOMEM : any;
        }
        if (c->in->others_window > 0)
                format_duration(c->in->others_window, when, sizeof(when));
        if (devices)
                text = join(text, ", ", "%s of the same probe regressed in this figure "
                            "from the same time", devices);
        if (others && (text || !devices))
                text = join(text, ", ", "the %s probes regressed within %s too", others, when);
        free(others);
        free(devices);
        return done(text, ret);
}

/* Whether figure f is a wait that rose (cause_wait_rose): run delay
 * (with the on-CPU time, its complement) or steal. */
static bool wait_rose(const struct cause_ctx *c, int f)
{
        bool delay = f == CAUSE_F_RUN_DELAY || f == CAUSE_F_ON_CPU;
        return delay ? cause_wait_rose(c, CAUSE_F_RUN_DELAY) :
                       f == CAUSE_F_STEAL && cause_wait_rose(c, CAUSE_F_STEAL);
}

/* After text, the waits that rose but named no cause (too little for
 * the change): the component's sentence says them rather than "as in
 * the reference". */
static char *waits_too_little(const struct cause_ctx *c, char *text)
{
        static const struct { int f; const char *name, *of; } wait[] = {
                { CAUSE_F_RUN_DELAY, "run delay", "of the run" },
                { CAUSE_F_STEAL, "steal", "of the host's CPU time" },
        };
        char p[32], rf[64];
        for (size_t i = 0; i < sizeof(wait) / sizeof(*wait); i++)
                if (cause_wait_rose(c, wait[i].f))
                        text = join(text, "; ", "%s %s %s%s, too little for the change",
                                    wait[i].name, pct(c->a[wait[i].f].median, p, sizeof(p)),
                                    wait[i].of, ref_share(c, wait[i].f, rf, sizeof(rf)));
        return text;
}

/* The evidence the regressed runs had, as "CPU quota, clock, steal":
 * what the component's verdict was checked against (a wait that rose is
 * said apart). */
static char *checked(const struct cause_ctx *c)
{
        static const struct { int f; const char *name; } what[] = {
                { CAUSE_F_CPUS_ONLINE, "inventory" }, { CAUSE_F_LOG_IO_ERROR, "kernel log" },
                { CAUSE_F_EDAC_CE, "memory errors" }, { CAUSE_F_CPU_HEAT, "heat" },
                { CAUSE_F_THROTTLED, "CPU quota" }, { CAUSE_F_CLOCK, "clock" },
                { CAUSE_F_STEAL, "steal" }, { CAUSE_F_RUN_DELAY, "run delay" },
                { CAUSE_F_ON_CPU, "on-CPU time" }, { CAUSE_F_MEM_PRESSURE, "memory pressure" },
                { CAUSE_F_MAJOR_FAULTS, "page faults" },
                { CAUSE_F_DISK_QUEUE, "disk queue" }, { CAUSE_F_DISK_READ, "device time" },
                { CAUSE_F_GPU_HEAT, "GPU heat" }, { CAUSE_F_GPU_CLOCK, "GPU clock" },
                { CAUSE_F_GPU_ECC_CE, "GPU memory errors" }, { CAUSE_F_GPU_XID, "GPU Xid" },
                { CAUSE_F_GPU_LINK_GEN, "PCIe link" }, { CAUSE_F_GPU_REPLAYS, "PCIe replays" },
        };
        char *text = NULL;
        for (size_t i = 0; i < sizeof(what) / sizeof(*what); i++) {
                /* the CPUs' heat and clock are not a gpu probe's evidence;
                 * replays that rose are said on their own */
                bool cpu_only = what[i].f == CAUSE_F_CPU_HEAT || what[i].f == CAUSE_F_CLOCK;
                bool moved = what[i].f == CAUSE_F_GPU_REPLAYS && cause_more_events(c, what[i].f);
                if (cause_present(c, what[i].f) && !(cpu_only && of_gpu(c)) && !moved &&
                    !wait_rose(c, what[i].f) && !(text = join(text, ", ", "%s", what[i].name)))
                        return NULL;
        }
        return text ? text : strdup("");
}

/* What tells the component from the whole host slowing in a way no
 * counter shows (a VM's host, busier), after text (freed): the probe's
 * other devices (gpu=all's other GPUs) that ran since the regression
 * began in no regression; the probes of other resources that did, or,
 * unless the component's own evidence (shown) or such a device tells it
 * already, that none did (of a probe bound to the CPU, none bound to it
 * too, and those that did but wait on a device or a server named as not
 * telling); nothing of the latter where the daemon cannot say (ran_clean
 * NULL). */
static char *witnesses(const struct cause_ctx *c, char *text, bool shown)
{
        bool oom = false;
        if (!text)
                return text;
        char *devices = devices_named(c, c->in->devices_clean, &oom);
        if (devices)
                text = join(text, "; ", "%s of the same probe ran since, in no regression",
                            devices);
        char *clean = text && !oom ? independent_of(c, c->in->ran_clean, &oom) : NULL;
        bool none = text && !clean && !oom && !shown && !devices && c->in->ran_clean;
        char *waiting = none ? independent_of(c, c->in->ran_clean_waiting, &oom) : NULL;
        if (clean)
                text = join(text, "; ", "the %s probes ran since, in no regression", clean);
        else if (waiting)
                text = join(text, "; ", "no probe of another resource bound to the CPU ran "
                            "since in no regression (the %s probes did, but they wait on a "
                            "device or a server): the whole host slowing is not ruled out",
                            waiting);
        else if (none && !oom)
                text = join(text, "; ", "no probe of another resource ran since in no "
                            "regression: the whole host slowing is not ruled out");
        free(devices);
        free(clean);
        free(waiting);
        if (oom)
                free(text);
        return oom ? NULL : text;
}

static int rule_component(const struct cause_ctx *c, char **ret)
{
        const int replays = CAUSE_F_GPU_REPLAYS;
        /* a link that retransmits is the GPU's (or its slot's) own fault */
        bool replayed = of_gpu(c) && cause_more_events(c, replays);
        char x[32], y[32], r[32];
        char *text = NULL, *list;
        if (!ret)
                return 1;
        if (replayed)
                text = join(text, "; ", "%s PCIe replays %s (transfers the link sent again; "
                            "%s a run in the reference)", count(c->a[replays].sum, x, sizeof(x)),
                            over_runs(c, r, sizeof(r)),
                            count(cause_in_ref(c, replays) ? c->ref->median[replays] : 0, y,
                                  sizeof(y)));
        if (!(list = checked(c))) {
                free(text);
                return -ENOMEM;
        }
        bool rose = cause_wait_rose(c, CAUSE_F_RUN_DELAY) || cause_wait_rose(c, CAUSE_F_STEAL);
        bool listed = *list;
        if (listed && (text || !replayed))
                text = join(text, "; ", "no host counter moved (%s as in the reference)", list);
        else if (!rose && (text || !replayed))
                text = join(text, "; ", "no evidence of the host's recorded for these runs");
        free(list);
        if (rose && (text || !(replayed || listed)))
                text = waits_too_little(c, text);
        return done(witnesses(c, tail_note(c, text, true), replayed), ret);
}

const cause_rule_fn cause_rules[CAUSE_N_KINDS] = {
        rule_inventory, rule_kernel_log, rule_memory_errors, rule_heat, rule_cpu_quota,
        rule_clock, rule_hypervisor, rule_memory_pressure, rule_neighbour, rule_disk_queue,
        rule_disk_device, rule_host, rule_component,
};

