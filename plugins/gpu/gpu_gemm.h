/* gpu_gemm.h — the dense bf16 matrix-multiply rate.
 *
 * C = A B of a stated shape (m x k times k x n, row-major as torch.matmul
 * sees them), bf16 in and out with fp32 accumulation, by cuBLASLt where it
 * is installed (libcublasLt.so.13, .12 or .11, opened at run time; the
 * same layout and types torch.matmul hands it: the column-major product
 * B^T A^T) or else by the plugin's own tensor-core kernel (WMMA,
 * gpu_kernels.cu), which the `engine` label says.  The figure is
 * 2 m n k floating-point operations over the median time of one GEMM,
 * each time the mean of a batch of GEMMs between two CUDA events.  The
 * inputs are bf16 values from a hash of their index (magnitudes 0.5 to
 * 2, random signs and mantissas), so a few elements of the product are
 * checked against the host's own sum: a GEMM that computed nothing fails
 * the run. */
#ifndef BENCHWATCH_GPU_GEMM_H
#define BENCHWATCH_GPU_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_session.h"

enum gpu_gemm_engine { GPU_GEMM_AUTO, GPU_GEMM_CUBLASLT, GPU_GEMM_WMMA };
extern const char *const gpu_gemm_engine_names[]; /* "auto", "cublaslt", "wmma" */

#define GPU_GEMM_WORKSPACE (32u << 20)  /* cuBLASLt's, as torch's on Hopper */

struct gpu_gemm_spec {
        uint64_t m, n, k;
        enum gpu_gemm_engine engine;
        double seconds;          /* wall clock for the batches, after a warm-up */
};

struct gpu_gemm_result {
        enum gpu_gemm_engine engine;  /* the one used */
        double flop_per_second;
        double median_s;              /* one GEMM */
        unsigned gemms;               /* timed */
};

/* 2 m n k: the floating-point operations of one GEMM. */
double gpu_gemm_flop(uint64_t m, uint64_t n, uint64_t k);
/* Device memory a GEMM of that shape needs (A, B, C and the workspace). */
uint64_t gpu_gemm_bytes(uint64_t m, uint64_t n, uint64_t k);
/* The bf16 bits of element i of the matrix with hash seed `seed`: the
 * same as gpu_kernels.cu's gemm_fill. */
uint16_t gpu_gemm_value_bits(uint64_t i, uint32_t seed);
double gpu_gemm_value(uint64_t i, uint32_t seed);
/* The one shape the own kernel takes: NULL, or why not. */
const char *gpu_gemm_wmma_shape_error(uint64_t m, uint64_t n, uint64_t k);
int gpu_gemm_run(struct gpu_session *s, const struct gpu_gemm_spec *spec,
                 struct gpu_gemm_result *ret);

#endif
