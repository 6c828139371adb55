/* gpu_kernels.cu — the gpu plugin's kernels, in CUDA C.
 *
 * The plugin is built without CUDA: it carries these kernels as PTX text
 * (gpu_kernels_ptx.h, generated from this file by tools/gen-gpu-ptx with
 * `nvcc -ptx -arch=compute_80`, and committed) that the driver compiles
 * for the GPU at hand when the module is loaded (cuModuleLoadDataEx).
 * tests/plugins/gpu_ptx.sh checks, where nvcc is installed, that the
 * committed PTX is what this file compiles to now.
 *
 * - stream_init, stream_copy, stream_triad: BabelStream's (5.0) CUDA
 *   kernels on doubles: a grid-stride loop, 1024 threads a block,
 *   array_size / 4 / 1024 blocks (its unroll factor 4), copy c = a and
 *   triad a = b + scalar * c with its start values and scalar 0.4;
 * - gemm_fill: a bf16 matrix from an integer hash of the index (the host
 *   computes the same values to check a product, gpu_gemm.c);
 * - gemm_bf16: C = A B in bf16 with fp32 accumulation on the tensor cores
 *   (WMMA), row-major, m and n multiples of 128, k of 32: the plugin's
 *   own GEMM where cuBLASLt is not installed. */
#include <cuda_bf16.h>
#include <mma.h>

extern "C" __global__ void stream_init(double *a, double *b, double *c, double ia,
                                       double ib, double ic, unsigned long long n)
{
        unsigned long long i = threadIdx.x + (unsigned long long)blockDim.x * blockIdx.x;
        for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
                a[i] = ia;
                b[i] = ib;
                c[i] = ic;
        }
}

extern "C" __global__ void stream_copy(const double *a, double *c, unsigned long long n)
{
        unsigned long long i = threadIdx.x + (unsigned long long)blockDim.x * blockIdx.x;
#pragma unroll 4
        for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
                c[i] = a[i];
}

extern "C" __global__ void stream_triad(double *a, const double *b, const double *c,
                                        double scalar, unsigned long long n)
{
        unsigned long long i = threadIdx.x + (unsigned long long)blockDim.x * blockIdx.x;
#pragma unroll 4
        for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
                a[i] = b[i] + scalar * c[i];
}

/* The same hash and bf16 bits as gpu_gemm.c's gpu_gemm_value_bits(). */
extern "C" __global__ void gemm_fill(unsigned short *p, unsigned long long n, unsigned seed)
{
        unsigned long long i = threadIdx.x + (unsigned long long)blockDim.x * blockIdx.x;
        for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
                unsigned x = (unsigned)i * 0x9e3779b1u ^ (unsigned)(i >> 32) ^ seed;
                x ^= x >> 16;
                x *= 0x85ebca6bu;
                x ^= x >> 13;
                x *= 0xc2b2ae35u;
                x ^= x >> 16;
                /* sign, exponent 126 or 127 (0.5 .. 2), a random mantissa */
                p[i] = (unsigned short)(((x >> 31) << 15) | ((126u + (x & 1u)) << 7) |
                                        ((x >> 1) & 0x7fu));
        }
}

#define GEMM_BM 128
#define GEMM_BN 128
#define GEMM_BK 32
#define GEMM_PAD 8

/* 256 threads, 8 warps in 4 rows x 2 columns, each a 32 x 64 tile of C:
 * 2 x 4 fragments of 16 x 16. */
extern "C" __global__ void __launch_bounds__(256)
gemm_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C,
          int m, int n, int k)
{
        using namespace nvcuda;
        __shared__ __align__(32) __nv_bfloat16 as[GEMM_BM][GEMM_BK + GEMM_PAD];
        __shared__ __align__(32) __nv_bfloat16 bs[GEMM_BK][GEMM_BN + GEMM_PAD];
        __shared__ __align__(32) float out[8][16 * 16];
        int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
        int wr = warp / 2, wc = warp % 2;
        int row0 = blockIdx.y * GEMM_BM, col0 = blockIdx.x * GEMM_BN;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                        wmma::fill_fragment(acc[i][j], 0.0f);
        for (int kt = 0; kt < k; kt += GEMM_BK) {
                /* 128 x 32 of A and 32 x 128 of B: two 16-byte vectors a
                 * thread of each */
                for (int v = tid; v < GEMM_BM * GEMM_BK / 8; v += 256) {
                        int r = v / (GEMM_BK / 8), c = v % (GEMM_BK / 8) * 8;
                        *(uint4 *)&as[r][c] =
                                *(const uint4 *)&A[(size_t)(row0 + r) * k + kt + c];
                }
                for (int v = tid; v < GEMM_BK * GEMM_BN / 8; v += 256) {
                        int r = v / (GEMM_BN / 8), c = v % (GEMM_BN / 8) * 8;
                        *(uint4 *)&bs[r][c] =
                                *(const uint4 *)&B[(size_t)(kt + r) * n + col0 + c];
                }
                __syncthreads();
#pragma unroll
                for (int kk = 0; kk < GEMM_BK; kk += 16) {
                        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16,
                                       wmma::row_major> fa[2];
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16,
                                       wmma::row_major> fb[4];
#pragma unroll
                        for (int i = 0; i < 2; i++)
                                wmma::load_matrix_sync(fa[i], &as[wr * 32 + i * 16][kk],
                                                       GEMM_BK + GEMM_PAD);
#pragma unroll
                        for (int j = 0; j < 4; j++)
                                wmma::load_matrix_sync(fb[j], &bs[kk][wc * 64 + j * 16],
                                                       GEMM_BN + GEMM_PAD);
#pragma unroll
                        for (int i = 0; i < 2; i++)
#pragma unroll
                                for (int j = 0; j < 4; j++)
                                        wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
                }
                __syncthreads();
        }
        /* each fragment through the warp's scratch, rounded to bf16 */
#pragma unroll
        for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) {
                        wmma::store_matrix_sync(out[warp], acc[i][j], 16, wmma::mem_row_major);
                        __syncwarp();
                        int r0 = row0 + wr * 32 + i * 16, c0 = col0 + wc * 64 + j * 16;
                        for (int e = lane; e < 256; e += 32)
                                C[(size_t)(r0 + e / 16) * n + c0 + e % 16] =
                                        __float2bfloat16_rn(out[warp][e]);
                        __syncwarp();
                }
}
