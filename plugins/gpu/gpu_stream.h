/* gpu_stream.h — device memory bandwidth as BabelStream measures it.
 *
 * Three arrays of doubles in device memory, BabelStream's start values
 * (a 0.1, b 0.2, c 0.0) and kernels (gpu_kernels.cu): copy c = a and
 * triad a = b + 0.4 c.  Every kernel is timed on its own, between two
 * CUDA events, and the figure is BabelStream's: bytes moved by one kernel
 * (copy: 2 arrays, triad: 3) over its best time.  The arrays are checked
 * afterwards against what the kernels must have left in them, so a
 * kernel that did nothing cannot pass for a fast one. */
#ifndef BENCHWATCH_GPU_STREAM_H
#define BENCHWATCH_GPU_STREAM_H

#include <stddef.h>

#include "gpu_session.h"

struct gpu_stream_result {
        double copy_bytes_per_second, triad_bytes_per_second;
        double copy_best_s, triad_best_s;  /* one kernel's best time */
        size_t array_bytes;
        unsigned kernels;                   /* timed, of each kind */
};

/* The bytes one copy or triad kernel moves over arrays of array_bytes. */
double gpu_stream_bytes(unsigned arrays, size_t array_bytes);
/* Measures for `seconds` (wall clock, after a warm-up) with three arrays
 * of array_bytes each. */
int gpu_stream_run(struct gpu_session *s, size_t array_bytes, double seconds,
                   struct gpu_stream_result *ret);

#endif
