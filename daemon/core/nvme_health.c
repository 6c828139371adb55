/* nvme_health.c — see nvme_health.h. */
#include "core/nvme_health.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_LOG_SMART 0x02
#define NVME_NSID_ALL 0xffffffffu
#define NVME_ADMIN_TIMEOUT_MS 1000 /* not the kernel's default minute */

/* Little-endian unsigned of n bytes (n <= 8) at p. */
static double le(const uint8_t *p, int n)
{
        uint64_t v = 0;
        for (int i = n - 1; i >= 0; i--)
                v = v << 8 | p[i];
        return (double)v;
}

/* A 128-bit little-endian counter, as the nearest double. */
static double le128(const uint8_t *p)
{
        return le(p + 8, 8) * 18446744073709551616.0 + le(p, 8);
}

int nvme_health_parse(const uint8_t *page, size_t len, struct nvme_health *ret)
{
        if (len < NVME_HEALTH_LOG_SIZE)
                return -EINVAL;
        double kelvin = le(page + 1, 2);
        *ret = (struct nvme_health){
                .critical_warning = page[0],
                .temperature_celsius = kelvin > 0 ? kelvin - 273.15 : NAN,
                .available_spare = page[3] / 100.0,
                .percentage_used = page[5] / 100.0,
                .media_errors = le128(page + 160),
                .error_log_entries = le128(page + 176),
                .warning_temp_seconds = le(page + 192, 4) * 60,
                .critical_temp_seconds = le(page + 196, 4) * 60,
                .thermal_transitions = { le(page + 216, 4), le(page + 220, 4) },
                .thermal_seconds = { le(page + 224, 4), le(page + 228, 4) },
        };
        return 0;
}

int nvme_health_read(const char *path, struct nvme_health *ret)
{
        uint8_t page[NVME_HEALTH_LOG_SIZE];
        struct nvme_admin_cmd cmd;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        memset(page, 0, sizeof(page));
        memset(&cmd, 0, sizeof(cmd));
        cmd.opcode = NVME_ADMIN_GET_LOG_PAGE;
        cmd.nsid = NVME_NSID_ALL;
        cmd.addr = (uint64_t)(uintptr_t)page;
        cmd.data_len = sizeof(page);
        /* NUMDL (dwords, 0's based) in bits 31:16, the log identifier below */
        cmd.cdw10 = (uint32_t)(sizeof(page) / 4 - 1) << 16 | NVME_LOG_SMART;
        cmd.timeout_ms = NVME_ADMIN_TIMEOUT_MS;
        int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
        if (r < 0)
                r = -errno;
        else if (r > 0)
                r = -EIO; /* the controller's status: the command failed */
        close(fd);
        return r < 0 ? r : nvme_health_parse(page, sizeof(page), ret);
}
