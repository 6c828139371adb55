/* test_nvme_health.c — the SMART / Health log page is read at the
 * offsets of the NVMe specification (pages built in tests/data/evidence/
 * nvme/ with every field set), a short page is refused, and a path that
 * is not a controller is "not available". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/nvme_health.h"
#include "test.h"
#include "util/fdio.h"
#include "util/strutil.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static int page(const char *name, struct nvme_health *ret)
{
        const char *top = getenv("top_srcdir");
        char *path = str_printf("%s/tests/data/evidence/nvme/%s", top ? top : TOP_SRCDIR, name);
        char *bytes = NULL;
        size_t len = 0;
        CHECK(path && fdio_read_file(path, 4096, &bytes, &len, NULL) == 0);
        int r = nvme_health_parse((const uint8_t *)bytes, len, ret);
        free(bytes);
        free(path);
        return r;
}

static void test_healthy(void)
{
        struct nvme_health h;
        CHECK(page("healthy.bin", &h) == 0);
        CHECK(h.critical_warning == 0);
        CHECK_NEAR(h.temperature_celsius, 318 - 273.15, 1e-9);
        CHECK_NEAR(h.available_spare, 1.0, 1e-9);
        CHECK_NEAR(h.percentage_used, 0.03, 1e-9);
        CHECK(h.media_errors == 0 && h.error_log_entries == 0);
        CHECK(h.thermal_transitions[0] == 12 && h.thermal_transitions[1] == 2);
        CHECK(h.thermal_seconds[0] == 340 && h.thermal_seconds[1] == 15);
}

static void test_hot(void)
{
        struct nvme_health h;
        CHECK(page("hot.bin", &h) == 0);
        CHECK(h.critical_warning == 0x02); /* temperature above a threshold */
        CHECK_NEAR(h.temperature_celsius, 358 - 273.15, 1e-9);
        CHECK_NEAR(h.percentage_used, 1.04, 1e-9); /* past its rated life */
        CHECK(h.media_errors == 5 && h.error_log_entries == 9);
        CHECK(h.warning_temp_seconds == 7 * 60 && h.critical_temp_seconds == 60);
        CHECK(h.thermal_transitions[0] == 4096 && h.thermal_transitions[1] == 77);
        CHECK(h.thermal_seconds[0] == 86400 && h.thermal_seconds[1] == 600);
}

static void test_edges(void)
{
        struct nvme_health h = { .media_errors = -1 };
        /* a 128-bit counter past 2^64, and no temperature reported */
        CHECK(page("huge-media.bin", &h) == 0);
        CHECK_NEAR(h.media_errors, 18446744073709551616.0 + 1, 1e-15);
        CHECK(isnan(h.temperature_celsius));
        h.media_errors = -1;
        CHECK(page("short.bin", &h) == -EINVAL);
        CHECK(h.media_errors == -1);
        uint8_t zero[NVME_HEALTH_LOG_SIZE] = { 0 };
        CHECK(nvme_health_parse(zero, sizeof(zero) - 1, &h) == -EINVAL);
        CHECK(nvme_health_parse(zero, sizeof(zero), &h) == 0 && h.media_errors == 0);
}

static void test_read_refused(void)
{
        struct nvme_health h = { .media_errors = -1 };
        CHECK(nvme_health_read("/nonexistent/nvme0", &h) == -ENOENT);
        /* a regular file is no controller: the ioctl is refused */
        CHECK(nvme_health_read("/proc/self/status", &h) == -ENOTTY);
        CHECK(h.media_errors == -1);
}

int main(void)
{
        test_healthy();
        test_hot();
        test_edges();
        test_read_refused();
        return 0;
}
