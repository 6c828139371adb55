#!/usr/bin/env python3
"""classic.py — the classic figures the gpu plugin's stand beside, measured
with PyTorch on the same GPU and the same bytes and shape, each the same
way the plugin measures its own (CUDA events, the same statistic):

  copy   a device-to-device copy, b.copy_(a), of arrays of --array-bytes:
         2 x the array's bytes over the best time of one copy (the plugin:
         BabelStream's copy kernel c = a)
  triad  torch.add(b, c, alpha=0.4, out=a): 3 x the bytes over the best time
         (BabelStream's triad)
  gemm   torch.matmul(A, B, out=C) in bf16 of --m x --k times --k x --n:
         2 m n k over the median time of one (batches between events); the
         inputs as the plugin's: random signs, magnitudes 0.5 to 2, random
         mantissas
  h2d    pinned host tensor .to(device, non_blocking=True) of --copy-bytes,
         16 a sample: bytes x 16 over its time, the median sample
  d2h    device tensor copied into a pinned host tensor (copy_, non
         blocking), the same way

Prints one JSON object.  --neighbour SECONDS instead keeps the GPU busy
with bf16 matmuls for that long, printing its pid first: another
process's kernels on the same GPU.

GPUs are numbered as NVML numbers them (CUDA_DEVICE_ORDER=PCI_BUS_ID).
Usage: classic.py --gpu 0 --array-bytes N --copy-bytes N --m M --n N --k K
       classic.py --gpu 0 --neighbour 30
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
import torch  # noqa: E402

BATCH = 0.05  # seconds of GPU work between two events, as the plugin's


def events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def timed(fn, n):
    """Seconds of n calls of fn on the current stream, between events."""
    a, b = events()
    a.record()
    for _ in range(n):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / 1e3


def best_each(fn, seconds):
    """The best time of one call, each timed between its own events."""
    fn()
    torch.cuda.synchronize()
    best, end = None, time.monotonic() + seconds
    while best is None or time.monotonic() < end:
        t = timed(fn, 1)
        best = t if best is None or t < best else best
    return best


def median_batched(fn, seconds, samples_min=3):
    """The median time of one call over batches of about BATCH seconds."""
    one = timed(fn, 1)  # warm-up, and how many fit a batch
    n = max(1, min(256, int(BATCH / one))) if one > 0 else 256
    times, end = [], time.monotonic() + seconds
    while len(times) < samples_min or time.monotonic() < end:
        times.append(timed(fn, n) / n)
    return statistics.median(times)


def like_plugin(rows, cols, dev):
    """bf16 values as gpu_gemm.c's: random sign, magnitude in [0.5, 2)."""
    mag = torch.empty(rows, cols, device=dev).uniform_(0.5, 2.0)
    sign = torch.randint(0, 2, (rows, cols), device=dev) * 2 - 1
    return (mag * sign).to(torch.bfloat16)


def bandwidth(dev, array_bytes, seconds):
    n = array_bytes // 8
    a = torch.full((n,), 0.1, dtype=torch.float64, device=dev)
    b = torch.full((n,), 0.2, dtype=torch.float64, device=dev)
    c = torch.zeros(n, dtype=torch.float64, device=dev)
    copy = best_each(lambda: c.copy_(a), seconds / 2)
    triad = best_each(lambda: torch.add(b, c, alpha=0.4, out=a), seconds / 2)
    return 2 * n * 8 / copy, 3 * n * 8 / triad


def gemm(dev, m, n, k, seconds):
    A, B = like_plugin(m, k, dev), like_plugin(k, n, dev)
    C = torch.empty(m, n, dtype=torch.bfloat16, device=dev)
    t = median_batched(lambda: torch.matmul(A, B, out=C), seconds)
    return 2.0 * m * n * k / t


def copies(dev, nbytes, seconds, loops=16):
    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    back = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dbuf = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    out = {}
    for name, fn in (("h2d", lambda: host.to(dev, non_blocking=True)),
                     ("d2h", lambda: back.copy_(dbuf, non_blocking=True))):
        fn()
        torch.cuda.synchronize()
        rates, end = [], time.monotonic() + seconds / 2
        while len(rates) < 3 or time.monotonic() < end:
            rates.append(nbytes * loops / timed(fn, loops))
        out[name] = statistics.median(rates)
    return out["h2d"], out["d2h"]


def neighbour(dev, seconds):
    A = torch.randn(4096, 4096, dtype=torch.bfloat16, device=dev)
    torch.cuda.synchronize()
    # its context is on the GPU now: what the plugin's watch can see
    print(json.dumps({"neighbour_pid": os.getpid(), "ready": time.time()}), flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(50):
            A @ A
        torch.cuda.synchronize()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gpu", type=int, default=0)
    p.add_argument("--array-bytes", type=int, default=512 << 20)
    p.add_argument("--copy-bytes", type=int, default=256 << 20)
    p.add_argument("--m", type=int, default=8192)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--k", type=int, default=8192)
    p.add_argument("--seconds", type=float, default=1.5, help="per figure")
    p.add_argument("--neighbour", type=float, default=0)
    a = p.parse_args()
    dev = torch.device("cuda", a.gpu)
    torch.cuda.set_device(dev)
    if a.neighbour:
        neighbour(dev, a.neighbour)
        return 0
    cp, tr = bandwidth(dev, a.array_bytes, a.seconds)
    gf = gemm(dev, a.m, a.n, a.k, a.seconds)
    h2d, d2h = copies(dev, a.copy_bytes, a.seconds)
    print(json.dumps({
        "gpu": a.gpu, "name": torch.cuda.get_device_name(dev), "torch": torch.__version__,
        "cuda": torch.version.cuda, "array_bytes": a.array_bytes, "copy_bytes": a.copy_bytes,
        "m": a.m, "n": a.n, "k": a.k,
        "copy_bytes_per_second": cp, "triad_bytes_per_second": tr,
        "gemm_flop_per_second": gf, "h2d_bytes_per_second": h2d, "d2h_bytes_per_second": d2h,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
