/* sink_pushgateway.h — [pushgateway]: every probe's latest result, PUT to a
 * Prometheus Pushgateway as the group job/benchwatch/instance/<host>/
 * probe/<probe> (plus the configured `labels`), from a worker thread that
 * retries with backoff until the gateway takes it. */
#ifndef BENCHWATCH_SINK_PUSHGATEWAY_H
#define BENCHWATCH_SINK_PUSHGATEWAY_H

#include "sink/sink.h"

extern const struct sink_type sink_pushgateway_type;

/* `benchwatch push --delete`: DELETE this host's groups of the given
 * probes, synchronously.  opts is a parsed [pushgateway] section.  0, or
 * the first -errno with *ret_error (malloc'd) naming the probe, the URL and
 * the gateway's answer; the other probes are still tried. */
int sink_pushgateway_delete(const struct param_set *opts,
                            const char *const *probes, size_t n_probes,
                            char **ret_error);

/* The grouping-key URL of a probe: <url>/metrics/job/benchwatch/
 * instance/<instance>/probe/<probe>[/<label>/<value>...], each value
 * percent-encoded, or as <name>@base64/<base64url> when it is empty or
 * holds a '/'.  Exposed for the unit test. */
int sink_pushgateway_group_url(const struct param_set *opts,
                               const char *probe, char **ret,
                               char **ret_error);

#endif
