/* priority.c — see priority.h. */
#include "core/priority.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/result.h"
#include "util/parse.h"

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1
#define NICE_FAMILY "benchwatch_probe_nice"
#define IOPRIO_FAMILY "benchwatch_probe_io_priority"
#define POLICY_FAMILY "benchwatch_probe_cpu_policy"

const char *const priority_cpu_policy_names[] = { "other", "batch", "idle", NULL };
static const int kernel_policy[] = {
        [PRIO_CPU_OTHER] = SCHED_OTHER, [PRIO_CPU_BATCH] = SCHED_BATCH,
        [PRIO_CPU_IDLE] = SCHED_IDLE,
};

const char *priority_cpu_policy_name(int policy)
{
        return policy >= 0 && policy <= PRIO_CPU_IDLE ? priority_cpu_policy_names[policy] : "?";
}

static int policy_of(const char *name)
{
        for (int p = PRIO_CPU_OTHER; p <= PRIO_CPU_IDLE; p++)
                if (!strcmp(name, priority_cpu_policy_names[p]))
                        return p;
        return -EINVAL;
}

static int apply_policy(int policy)
{
        const struct sched_param sp = { .sched_priority = 0 };
        if (policy == PRIO_CPU_OTHER)
                return 0;
        if (policy < 0 || policy > PRIO_CPU_IDLE)
                return -EINVAL;
        return sched_setscheduler(0, kernel_policy[policy], &sp) < 0 ? -errno : 0;
}

static int current_policy(int *ret)
{
        int k = sched_getscheduler(0);
        if (k < 0)
                return -errno;
        /* SCHED_RESET_ON_FORK may be or'ed in; a real-time policy is
         * reported as other (benchwatch never asks for one) */
        k &= ~SCHED_RESET_ON_FORK;
        *ret = k == SCHED_BATCH ? PRIO_CPU_BATCH : k == SCHED_IDLE ? PRIO_CPU_IDLE :
               PRIO_CPU_OTHER;
        return 0;
}

static const char *const class_names[] = {
        [PRIO_IO_NONE] = "none", [PRIO_IO_REALTIME] = "realtime",
        [PRIO_IO_BEST_EFFORT] = "best-effort", [PRIO_IO_IDLE] = "idle",
};

const char *priority_io_class_name(int io_class)
{
        return io_class >= 0 && io_class <= PRIO_IO_IDLE ? class_names[io_class] : "?";
}

static int class_of(const char *name, size_t len)
{
        for (int c = PRIO_IO_REALTIME; c <= PRIO_IO_IDLE; c++)
                if (strlen(class_names[c]) == len && !strncmp(name, class_names[c], len))
                        return c;
        if (len == 1 && name[0] >= '1' && name[0] <= '3')
                return name[0] - '0';
        return -EINVAL;
}

int priority_parse_ionice(const char *s, int *ret_class, int *ret_level)
{
        const char *colon = strchr(s, ':');
        int c = class_of(s, colon ? (size_t)(colon - s) : strlen(s));
        int64_t level = c == PRIO_IO_IDLE ? 0 : 4;
        if (c < 0)
                return c;
        if (colon && (c == PRIO_IO_IDLE || parse_int64(colon + 1, &level) < 0 ||
                      level < 0 || level > 7))
                return -EINVAL;
        *ret_class = c;
        *ret_level = (int)level;
        return 0;
}

int priority_parse_nice(const char *s, int *ret_nice)
{
        int64_t v;
        if (parse_int64(s, &v) < 0 || v < -20 || v > 19)
                return -EINVAL;
        *ret_nice = (int)v;
        return 0;
}

static int current_nice(int *ret)
{
        errno = 0;
        int n = getpriority(PRIO_PROCESS, 0);
        if (n == -1 && errno)
                return -errno;
        *ret = n;
        return 0;
}

int priority_apply(const struct priority *want)
{
        int nice = 0, r = current_nice(&nice);
        if (r >= 0 && nice != want->nice && setpriority(PRIO_PROCESS, 0, want->nice) < 0)
                r = -errno;
        if (want->io_class != PRIO_IO_NONE) {
                long v = ((long)want->io_class << IOPRIO_CLASS_SHIFT) | want->io_level;
                if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, v) < 0 && r >= 0)
                        r = -errno;
        }
        int rp = apply_policy(want->cpu_policy);
        return r < 0 ? r : rp;
}

int priority_current(struct priority *ret)
{
        struct priority p = { 0 };
        int r = current_nice(&p.nice);
        long v = r >= 0 ? syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0) : -1;
        if (r >= 0 && v < 0)
                r = -errno;
        if (r >= 0)
                r = current_policy(&p.cpu_policy);
        if (r < 0)
                return r;
        p.io_class = (int)(v >> IOPRIO_CLASS_SHIFT);
        p.io_level = (int)(v & ((1 << IOPRIO_CLASS_SHIFT) - 1));
        if (p.io_class == PRIO_IO_NONE) {
                p.io_class = PRIO_IO_BEST_EFFORT;
                p.io_level = (p.nice + 20) / 5;
        }
        if (p.io_class == PRIO_IO_IDLE)
                p.io_level = 0;
        *ret = p;
        return 0;
}

int priority_add_metrics(const struct priority *p, struct result *res)
{
        const char *lv[] = { "class", priority_io_class_name(p->io_class), NULL };
        int r = result_add(res, NICE_FAMILY, "CPU nice value the probe process ran at",
                           METRIC_GAUGE, NULL, p->nice, NULL);
        if (r >= 0)
                r = result_add(res, IOPRIO_FAMILY, "I/O scheduling class (label) and "
                               "level (value, 0 highest .. 7; 0 for idle) the probe "
                               "process ran at", METRIC_GAUGE, lv, p->io_level, NULL);
        const char *pv[] = { "policy", priority_cpu_policy_name(p->cpu_policy), NULL };
        if (r >= 0)
                r = result_add(res, POLICY_FAMILY, "CPU scheduling policy (label: other, "
                               "batch or idle) the probe process ran under",
                               METRIC_GAUGE, pv, 1, NULL);
        return r;
}

int priority_from_result(const struct result *res, struct priority *ret)
{
        const struct sample *n = result_find_sample(res, NICE_FAMILY, NULL);
        const struct sample *io = result_find_sample(res, IOPRIO_FAMILY, NULL);
        const char *cls = io ? result_sample_label(io, "class") : NULL;
        int c = cls ? class_of(cls, strlen(cls)) : -ENOENT;
        if (!n || c < 0)
                return -ENOENT;
        const struct sample *pol = result_find_sample(res, POLICY_FAMILY, NULL);
        const char *pn = pol ? result_sample_label(pol, "policy") : NULL;
        int p = pn ? policy_of(pn) : PRIO_CPU_OTHER; /* older results have none */
        *ret = (struct priority){ (int)n->value, c, (int)io->value, p < 0 ? PRIO_CPU_OTHER : p };
        return 0;
}
