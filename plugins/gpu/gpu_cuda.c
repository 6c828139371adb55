/* gpu_cuda.c — see gpu_cuda.h.  Opening libcuda.so.1 and filling the
 * table; nothing here logs. */
#include "gpu_cuda.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

#define LIBCUDA "libcuda.so.1"
#define LIBNVML "libnvidia-ml.so.1"

char *gpu_cuda_lib_path(const char *name)
{
        const char *dir = getenv("BENCHWATCH_GPU_LIBDIR");
        return dir && *dir ? str_printf("%s/%s", dir, name) : strdup(name);
}

/* dlopen() of a library of the driver; NULL with *ret_why. */
static void *open_lib(const char *name, int flags, char **ret_why)
{
        char *path = gpu_cuda_lib_path(name);
        void *dl = path ? dlopen(path, flags) : NULL;
        if (!dl)
                *ret_why = path ? str_printf("no NVIDIA driver (%s)", dlerror())
                                : NULL;
        free(path);
        return dl;
}

int gpu_cuda_present(char **ret_why)
{
        static const char *const libs[] = { LIBCUDA, LIBNVML };
        for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
                /* lazy: only looking; closed at once */
                void *dl = open_lib(libs[i], RTLD_LAZY | RTLD_LOCAL, ret_why);
                if (!dl)
                        return -ENODEV;
                dlclose(dl);
        }
        return 0;
}

#define SYM(field, name) { (void **)&ret->field, name, NULL }
#define SYM2(field, name, old) { (void **)&ret->field, name, old }

int gpu_cuda_open(struct gpu_cuda *ret, char **ret_why)
{
        const struct { void **p; const char *name, *fallback; } syms[] = {
                SYM(init, "cuInit"), SYM(driver_get_version, "cuDriverGetVersion"),
                SYM(device_get_count, "cuDeviceGetCount"), SYM(device_get, "cuDeviceGet"),
                SYM(device_get_attribute, "cuDeviceGetAttribute"),
                SYM(primary_ctx_retain, "cuDevicePrimaryCtxRetain"),
                SYM(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2"),
                SYM(ctx_set_current, "cuCtxSetCurrent"),
                SYM(mem_get_info, "cuMemGetInfo_v2"), SYM(mem_alloc, "cuMemAlloc_v2"),
                SYM(mem_free, "cuMemFree_v2"), SYM(mem_host_alloc, "cuMemHostAlloc"),
                SYM(mem_free_host, "cuMemFreeHost"),
                SYM(memcpy_htod_async, "cuMemcpyHtoDAsync_v2"),
                SYM(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2"),
                SYM(memcpy_dtoh, "cuMemcpyDtoH_v2"),
                SYM(module_load_data_ex, "cuModuleLoadDataEx"),
                SYM(module_get_function, "cuModuleGetFunction"),
                SYM(module_unload, "cuModuleUnload"), SYM(launch_kernel, "cuLaunchKernel"),
                SYM(stream_create, "cuStreamCreate"),
                SYM(stream_destroy, "cuStreamDestroy_v2"),
                SYM(stream_synchronize, "cuStreamSynchronize"),
                SYM(event_create, "cuEventCreate"), SYM(event_record, "cuEventRecord"),
                SYM(event_synchronize, "cuEventSynchronize"),
                SYM(event_query, "cuEventQuery"),
                SYM2(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
                SYM(event_destroy, "cuEventDestroy_v2"),
                SYM(get_error_name, "cuGetErrorName"),
        };
        memset(ret, 0, sizeof(*ret));
        ret->dl = open_lib(LIBCUDA, RTLD_NOW | RTLD_LOCAL, ret_why);
        if (!ret->dl)
                return -ENODEV;
        for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
                *syms[i].p = dlsym(ret->dl, syms[i].name);
                if (!*syms[i].p && syms[i].fallback)
                        *syms[i].p = dlsym(ret->dl, syms[i].fallback);
                if (!*syms[i].p) {
                        *ret_why = str_printf("%s has no %s: a driver too old for "
                                              "benchwatch", LIBCUDA, syms[i].name);
                        dlclose(ret->dl);
                        memset(ret, 0, sizeof(*ret));
                        return -ENOSYS;
                }
        }
        return 0;
}

#undef SYM
#undef SYM2

/* Never dlclose()d once initialised: the driver's own threads live on
 * until the process ends (a run is a process of its own). */
void gpu_cuda_close(struct gpu_cuda *c)
{
        memset(c, 0, sizeof(*c));
}

const char *gpu_cuda_error(const struct gpu_cuda *c, CUresult r, char *buf, size_t size)
{
        const char *name = NULL;
        if (c->get_error_name && c->get_error_name(r, &name) == GPU_CUDA_SUCCESS && name)
                return name;
        snprintf(buf, size, "CUDA error %d", (int)r);
        return buf;
}
