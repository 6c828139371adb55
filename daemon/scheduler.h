/* scheduler.h — decides which probe runs next, and runs it.
 *
 * Each enabled probe runs on its own interval with random splay, so a fleet
 * started together does not measure in lockstep; never two runs at once
 * (a probe that is due while another runs waits its turn).  It lives on
 * the daemon's sd-event loop and sleeps on one timer until the next probe
 * is due, so an idle daemon costs nothing.  A new configuration (reload)
 * keeps the schedule of probes that did not change. */
#ifndef BENCHWATCH_SCHED_H
#define BENCHWATCH_SCHED_H

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "app.h"
#include "result.h"

struct sched;
/* Called with each finished run's result (owned by the callee). */
typedef void (*sched_result_fn)(struct result *res, void *userdata);

int sched_new(sd_event *e, const struct app *app, sched_result_fn fn,
              void *userdata, struct sched **ret);
/* Re-read app->cfg (after a reload): new probes are scheduled with splay,
 * removed ones dropped, unchanged ones keep their next time. */
int sched_reload(struct sched *s);
/* Stop: the running child (if any) is asked to stop; `idle` is called when
 * nothing runs any more. */
void sched_stop(struct sched *s, void (*idle)(void *userdata), void *userdata);
bool sched_busy(const struct sched *s);
/* One-line state for STATUS=: "3 probes, last cpu ok 12s ago, 0 failed" */
char *sched_status(const struct sched *s);
void sched_free(struct sched *s);

#endif
