#!/bin/sh
# gpu_ptx.sh — the gpu plugin's committed PTX (plugins/gpu/gpu_kernels_ptx.h)
# is what plugins/gpu/gpu_kernels.cu makes: the header names the sha256 of
# the source it was made from (checked everywhere), and where nvcc of the
# same release is installed, tools/gen-gpu-ptx must write the same header
# byte for byte.  After a change to gpu_kernels.cu: `make gpu-ptx`.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cu=$srcdir/plugins/gpu/gpu_kernels.cu
hdr=$srcdir/plugins/gpu/gpu_kernels_ptx.h
want=$(sed -n 's/^ *"\([0-9a-f]\{64\}\)"$/\1/p' "$hdr")
have=$(sha256sum "$cu" | cut -c1-64)
if [ "$want" != "$have" ]; then
        echo "FAIL: $hdr was made from another gpu_kernels.cu (sha256 $want, the source's"
        echo "      is $have): run 'make gpu-ptx' (needs nvcc) and commit both"
        exit 1
fi
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
if ! [ -x "$(command -v "$NVCC" 2>/dev/null)" ]; then
        echo "SKIP: nvcc not found (the PTX's source hash matched)"
        exit 77
fi
release=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
made=$(sed -n 's/^#define GPU_KERNELS_PTX_NVCC "\(.*\)"$/\1/p' "$hdr")
if [ "$release" != "$made" ]; then
        echo "SKIP: the PTX was made with nvcc $made, this is nvcc $release (the source"
        echo "      hash matched; regenerate with 'make gpu-ptx' to move to $release)"
        exit 77
fi
out=$(mktemp /tmp/gpu-ptx.XXXXXX)
trap 'rm -f "$out"' EXIT
NVCC=$NVCC sh "$srcdir/tools/gen-gpu-ptx" --stdout "$srcdir" > "$out" || exit 1
if ! cmp -s "$out" "$hdr"; then
        echo "FAIL: nvcc $release makes another PTX from gpu_kernels.cu than the committed"
        diff "$hdr" "$out" | head -20
        exit 1
fi
echo "OK: $hdr is what nvcc $release makes of gpu_kernels.cu"
