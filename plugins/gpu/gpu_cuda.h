/* gpu_cuda.h — the CUDA driver API, opened at run time.
 *
 * benchwatch builds and installs without CUDA: the gpu plugin dlopen()s
 * libcuda.so.1, which the NVIDIA driver ships, and looks up the few entry
 * points it uses.  The types and signatures below are the driver's own
 * (cuda.h, CUDA 13.0), declared here so that no CUDA header is needed to
 * build; where cuda.h #defines a name to a versioned entry point
 * (cuMemAlloc -> cuMemAlloc_v2) the versioned one is looked up.
 * tests/plugins/gpu_abi.c checks every declaration against cuda.h where
 * CUDA is installed.  With GPU_CUDA_REAL_HEADERS defined (that test) the
 * types come from cuda.h itself.
 *
 * BENCHWATCH_GPU_LIBDIR (a test hook, like BENCHWATCH_PROC_DIR): the
 * directory to load libcuda.so.1, libnvidia-ml.so.1 and libcublasLt from
 * instead of the system's (tests/gpufake/ builds recording fakes). */
#ifndef BENCHWATCH_GPU_CUDA_H
#define BENCHWATCH_GPU_CUDA_H

#include <stddef.h>

#ifndef GPU_CUDA_REAL_HEADERS
typedef int CUresult;                     /* enum cudaError_enum */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;   /* 64-bit hosts */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUdevice_attribute;           /* enum CUdevice_attribute_enum */
typedef int CUjit_option;                 /* enum CUjit_option_enum */
#endif

/* The values of cuda.h the plugin uses. */
#define GPU_CUDA_SUCCESS 0
#define GPU_CUDA_ERROR_NOT_READY 600
#define GPU_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define GPU_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define GPU_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define GPU_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38
#define GPU_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define GPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define GPU_CU_STREAM_NON_BLOCKING 0x1
#define GPU_CU_EVENT_DEFAULT 0x0
#define GPU_CU_EVENT_BLOCKING_SYNC 0x1
#define GPU_CU_MEMHOSTALLOC_PORTABLE 0x01
#define GPU_CU_JIT_ERROR_LOG_BUFFER 5
#define GPU_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

struct gpu_cuda {
        void *dl;
        CUresult (*init)(unsigned int flags);
        CUresult (*driver_get_version)(int *version);
        CUresult (*device_get_count)(int *count);
        CUresult (*device_get)(CUdevice *device, int ordinal);
        CUresult (*device_get_attribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
        CUresult (*primary_ctx_retain)(CUcontext *pctx, CUdevice dev);
        CUresult (*primary_ctx_release)(CUdevice dev);
        CUresult (*ctx_set_current)(CUcontext ctx);
        CUresult (*mem_get_info)(size_t *free, size_t *total);
        CUresult (*mem_alloc)(CUdeviceptr *dptr, size_t bytesize);
        CUresult (*mem_free)(CUdeviceptr dptr);
        CUresult (*mem_host_alloc)(void **pp, size_t bytesize, unsigned int flags);
        CUresult (*mem_free_host)(void *p);
        CUresult (*memcpy_htod_async)(CUdeviceptr dst, const void *src, size_t bytes,
                                      CUstream stream);
        CUresult (*memcpy_dtoh_async)(void *dst, CUdeviceptr src, size_t bytes,
                                      CUstream stream);
        CUresult (*memcpy_dtoh)(void *dst, CUdeviceptr src, size_t bytes);
        CUresult (*module_load_data_ex)(CUmodule *module, const void *image,
                                        unsigned int n_options, CUjit_option *options,
                                        void **values);
        CUresult (*module_get_function)(CUfunction *f, CUmodule mod, const char *name);
        CUresult (*module_unload)(CUmodule mod);
        CUresult (*launch_kernel)(CUfunction f, unsigned int gx, unsigned int gy,
                                  unsigned int gz, unsigned int bx, unsigned int by,
                                  unsigned int bz, unsigned int shared_bytes,
                                  CUstream stream, void **params, void **extra);
        CUresult (*stream_create)(CUstream *stream, unsigned int flags);
        CUresult (*stream_destroy)(CUstream stream);
        CUresult (*stream_synchronize)(CUstream stream);
        CUresult (*event_create)(CUevent *event, unsigned int flags);
        CUresult (*event_record)(CUevent event, CUstream stream);
        CUresult (*event_synchronize)(CUevent event);
        CUresult (*event_query)(CUevent event);
        /* cuEventElapsedTime_v2, or the first version on older drivers */
        CUresult (*event_elapsed_time)(float *ms, CUevent start, CUevent end);
        CUresult (*event_destroy)(CUevent event);
        CUresult (*get_error_name)(CUresult error, const char **str);
};

/* BENCHWATCH_GPU_LIBDIR/name, or name (the system's search); malloc'd. */
char *gpu_cuda_lib_path(const char *name);
/* Whether libcuda.so.1 and libnvidia-ml.so.1 can be opened (opened and
 * closed again: what `check` looks at); -ENODEV with *ret_why, malloc'd:
 * "no NVIDIA driver (libcuda.so.1: cannot open shared object file...)". */
int gpu_cuda_present(char **ret_why);
/* Opens libcuda.so.1 and looks up every entry point; -ENODEV or -ENOSYS
 * with *ret_why (malloc'd). */
int gpu_cuda_open(struct gpu_cuda *ret, char **ret_why);
void gpu_cuda_close(struct gpu_cuda *c);
/* "CUDA_ERROR_OUT_OF_MEMORY", or "CUDA error 2"; static or in buf. */
const char *gpu_cuda_error(const struct gpu_cuda *c, CUresult r, char *buf, size_t size);

#endif
