#!/bin/sh
# gpu_abi.sh — compiles tests/plugins/gpu_abi.c (never runs it) against the
# real cuda.h, and nvml.h and cublasLt.h where found, so that the gpu
# plugin's own declarations of the driver's libraries (it builds without
# CUDA) are checked against NVIDIA's: every entry point's type, every
# struct's size and field offsets, every constant.  Skipped (77) without
# cuda.h.  CUDA_HOME (default /usr/local/cuda), NVML_INCLUDE: where else
# to look for nvml.h (the CUDA toolkit has it; the driver does not).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cuda=${CUDA_HOME:-/usr/local/cuda}/include
if [ ! -f "$cuda/cuda.h" ]; then
        echo "SKIP: no $cuda/cuda.h (set CUDA_HOME to where CUDA is)"
        exit 77
fi
inc="-I$cuda"
nvml=
for d in ${NVML_INCLUDE:-} "$cuda" /usr/include /usr/local/include; do
        if [ -f "$d/nvml.h" ]; then
                nvml=$d
                inc="$inc -I$d"
                break
        fi
done
[ -n "$nvml" ] || echo "note: no nvml.h found: NVML's declarations are not checked (NVML_INCLUDE)"
[ -f "$cuda/cublasLt.h" ] || echo "note: no cublasLt.h in $cuda: cuBLASLt's are not checked"
CC=${CC:-cc}
for mode in ABI_SIGNATURES ABI_LAYOUTS; do
        # shellcheck disable=SC2086
        if ! $CC -std=gnu11 -fsyntax-only -Wno-deprecated-declarations -D$mode $inc -I"$srcdir/daemon" \
                -I"$srcdir/plugins" "$srcdir/tests/plugins/gpu_abi.c"; then
                echo "FAIL: the gpu plugin's declarations differ from $cuda's headers ($mode)"
                exit 1
        fi
done
echo "OK: the gpu plugin's declarations match $cuda/cuda.h${nvml:+, $nvml/nvml.h}" \
        "and cublasLt.h"
