/* runwatch.c — see runwatch.h. */
#include "core/runwatch.h"

#include <stdlib.h>

#include "core/evidence_window.h"

const char *runwatch_root(void)
{
        const char *r = getenv("BENCHWATCH_EVIDENCE_ROOT");
        return r && *r ? r : "/";
}

void runwatch_start(struct runwatch *w, struct evidence_host *h)
{
        busy_snapshot_take(&w->load);
        if (h)
                evidence_take_start(h, &w->ev);
}

int runwatch_add(const struct runwatch *w, struct evidence_host *h,
                 const struct perfclock *perf, struct result *res)
{
        struct busy_snapshot now;
        struct busy_window bw;
        busy_snapshot_take(&now);
        busy_window_between(&w->load, &now, &bw);
        int r = busy_window_add_metrics(&bw, res);
        if (r < 0 || !h)
                return r;
        struct evidence end;
        struct evidence_window ew;
        const struct sample *info = res->disk_io ?
                result_find_sample(res, "benchwatch_disk_info", NULL) : NULL;
        const char *device = info ? result_sample_label(info, "device") : NULL;
        evidence_take_end(h, &(struct evidence_probe){ perf }, &end);
        evidence_window_between(h, &w->ev, &end, &ew);
        return evidence_window_add_metrics(h, &ew, res->disk_io ? device : "", res);
}
