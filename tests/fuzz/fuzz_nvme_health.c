/* fuzz_nvme_health.c — libFuzzer target for an NVMe controller's SMART /
 * Health log page (core/nvme_health.c), the bytes a controller returns.
 *
 * Input: the page.  A page of 512 bytes or more is always read; each
 * field lies in what its bytes can hold (a byte's percentage at most
 * 2.55, a 32-bit count below 2^32, a 128-bit one finite and >= 0, a
 * temperature above absolute zero or NAN). */
#include <math.h>
#include <stdlib.h>

#include "core/nvme_health.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return 0;
}

static void in_range(double v, double max)
{
        if (!isfinite(v) || v < 0 || v > max)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct nvme_health h;
        int r = nvme_health_parse(data, size, &h);
        if ((r < 0) != (size < NVME_HEALTH_LOG_SIZE))
                abort();
        if (r < 0)
                return 0;
        if (h.critical_warning > 255 || (!isnan(h.temperature_celsius) &&
                                         !(h.temperature_celsius > -273.15)))
                abort();
        in_range(h.available_spare, 2.55);
        in_range(h.percentage_used, 2.55);
        in_range(h.media_errors, 3.5e38);
        in_range(h.error_log_entries, 3.5e38);
        in_range(h.warning_temp_seconds, 4294967295.0 * 60);
        in_range(h.critical_temp_seconds, 4294967295.0 * 60);
        for (int t = 0; t < 2; t++) {
                in_range(h.thermal_transitions[t], 4294967295.0);
                in_range(h.thermal_seconds[t], 4294967295.0);
        }
        return 0;
}
