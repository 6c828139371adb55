/* prom_proto.h — a result as delimited protobuf io.prometheus.client.MetricFamily
 * messages, the Pushgateway's preferred input format.
 *
 * Same content as the text exposition (prom_text.h): probe="<result->probe>"
 * first on every sample, latency histograms as summaries in seconds with the
 * result_quantiles plus sum and count, no timestamps.  Each family is one
 * message preceded by its length as a varint ("encoding=delimited").
 * Nothing here logs. */
#ifndef BENCHWATCH_PROM_PROTO_H
#define BENCHWATCH_PROM_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "core/result.h"

#define PROM_PROTO_CONTENT_TYPE \
        "application/vnd.google.protobuf; " \
        "proto=io.prometheus.client.MetricFamily; encoding=delimited"

/* Encode r into a malloc'd buffer. 0 or -ENOMEM. */
int prom_proto_encode(const struct result *r, uint8_t **ret, size_t *ret_len);

#endif
