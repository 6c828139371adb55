/* nvme_health.h — an NVMe controller's own account of its health.
 *
 * The SMART / Health Information log page (NVMe base specification, Get
 * Log Page, log identifier 02h, 512 bytes) says what no host counter
 * does: that the controller throttled itself for heat (the thermal
 * management transitions T1 and T2 and the time spent there), that media
 * errors grew, how worn the flash is, and any critical warning.  Reading
 * it takes an admin command (NVME_IOCTL_ADMIN_CMD), which the kernel
 * allows only with CAP_SYS_ADMIN: without it the page is "not available"
 * (docs/operating.md has the drop-in that grants it).  The parse of the
 * page is its own function so that a test feeds it bytes and a fuzzer
 * anything (tests/fuzz/fuzz_nvme_health.c).  Nothing here logs. */
#ifndef BENCHWATCH_NVME_HEALTH_H
#define BENCHWATCH_NVME_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#define NVME_HEALTH_LOG_SIZE 512

/* Counters as doubles (the 128-bit ones exactly up to 2^53); NAN where
 * the controller reports nothing (a temperature of 0 K). */
struct nvme_health {
        unsigned critical_warning;      /* byte 0: bit field */
        double temperature_celsius;     /* bytes 1-2: composite, kelvin - 273.15 */
        double available_spare;         /* byte 3: 0..1 */
        double percentage_used;         /* byte 5: 0..2.55 (100% = 1) */
        double media_errors;            /* bytes 160-175 */
        double error_log_entries;       /* bytes 176-191 */
        double warning_temp_seconds;    /* bytes 192-195, minutes there */
        double critical_temp_seconds;   /* bytes 196-199 */
        double thermal_transitions[2];  /* bytes 216-219, 220-223: T1, T2 */
        double thermal_seconds[2];      /* bytes 224-227, 228-231 */
};

/* The page's first NVME_HEALTH_LOG_SIZE bytes; -EINVAL when shorter. */
int nvme_health_parse(const uint8_t *page, size_t len, struct nvme_health *ret);

/* The page of the controller at path ("/dev/nvme0"), read with the admin
 * command.  0, or -errno: -EACCES/-EPERM without CAP_SYS_ADMIN, -ENOTTY
 * when path is not an NVMe controller. */
int nvme_health_read(const char *path, struct nvme_health *ret);

#endif
