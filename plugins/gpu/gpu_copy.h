/* gpu_copy.h — host to device and device to host copy bandwidth, as
 * nvbandwidth's host_to_device_memcpy_ce and device_to_host_memcpy_ce
 * measure it, and the PCIe link the copies ran on.
 *
 * A buffer of pinned host memory (cuMemHostAlloc, portable) and one of
 * device memory; a sample is `loops` cuMemcpyHtoDAsync (or DtoH) of the
 * whole buffer on a stream between two CUDA events, its bandwidth bytes x
 * loops over the time between them; the figure is the median sample
 * (nvbandwidth's default, over at least 3).  nvbandwidth also pins its
 * thread to the GPU's NUMA node and holds the stream back with a spin
 * kernel until every copy is queued; here the copies are queued faster
 * than they run, and the thread runs where the scheduler puts it.
 *
 * The link trains down when idle by design, so its generation and width
 * are read while a sample's copies run (halfway through), the highest
 * seen kept, beside the link's maximum. */
#ifndef BENCHWATCH_GPU_COPY_H
#define BENCHWATCH_GPU_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "gpu_session.h"

struct gpu_copy_result {
        double h2d_bytes_per_second, d2h_bytes_per_second;
        unsigned samples;            /* of each direction */
        bool has_link, has_max_link;
        unsigned link_gen, link_width;          /* during the copies */
        unsigned max_link_gen, max_link_width;  /* what the link can do */
};

/* The bandwidth of a sample: bytes x loops / seconds. */
double gpu_copy_rate(size_t bytes, unsigned loops, double seconds);
/* Both directions, `seconds` between them, with buffers of `bytes`. */
int gpu_copy_run(struct gpu_session *s, size_t bytes, double seconds,
                 struct gpu_copy_result *ret);

#endif
