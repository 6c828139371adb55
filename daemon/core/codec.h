/* codec.h — the runner's wire format: a run request to the child process
 * and its result back, as protobuf-c messages (proto/run.proto).
 *
 * Decoding treats the bytes as untrusted (a crashed or confused child may
 * send anything): every field is checked and a bad message is an error,
 * never a crash. */
#ifndef BENCHWATCH_CODEC_H
#define BENCHWATCH_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/result.h"

struct run_request {
        char *probe;
        char *plugin;
        char **param_names;  /* explicitly set parameters, as text */
        char **param_values;
        size_t n_params;
        char *plugin_dir;
        char *cache_dir;
        char *state_dir;
        double timeout;
        bool progress;
        bool cleanup;
        int nice;
        int ioprio_class;    /* 0 = leave alone */
        int ioprio_level;
        int cpu_policy;      /* PRIO_CPU_*: 0 = leave alone */
        int log_level;       /* the child logs up to this syslog priority */
};

int codec_encode_request(const struct run_request *req, uint8_t **ret,
                         size_t *ret_size);
int codec_decode_request(const uint8_t *buf, size_t size,
                         struct run_request **ret);
void codec_free_request(struct run_request *req);

int codec_encode_result(const struct result *r, uint8_t **ret,
                        size_t *ret_size);
/* ret_error says what was wrong with the bytes. */
int codec_decode_result(const uint8_t *buf, size_t size, struct result **ret_result,
                        char **ret_error);

#endif
