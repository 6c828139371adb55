/* sink_remote_write.h — [remote_write]: every run, as a Prometheus
 * remote-write 1.0 request (prom_remote_write.h) with the run's own
 * timestamp, POSTed to Prometheus, Mimir, Thanos or VictoriaMetrics from a
 * worker thread.
 * Runs wait in an on-disk spool (spool.h) until the receiver has them, so
 * an outage of hours or a restart of the daemon loses none. */
#ifndef BENCHWATCH_SINK_REMOTE_WRITE_H
#define BENCHWATCH_SINK_REMOTE_WRITE_H

#include "sink/sink.h"

extern const struct sink_type sink_remote_write_type;

/* The daemon's own figures this sink keeps (selfstats.h). */
#define RW_SENT_TOTAL "benchwatch_remote_write_sent_total"
#define RW_FAILED_TOTAL "benchwatch_remote_write_failed_total"
#define RW_DROPPED_TOTAL "benchwatch_remote_write_dropped_total"
#define RW_SPOOL_BYTES "benchwatch_remote_write_spool_bytes"
#define RW_SPOOL_RUNS "benchwatch_remote_write_spool_runs"

#endif
