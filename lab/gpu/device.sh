#!/bin/bash
# device.sh — the gpu plugin on a real NVIDIA GPU, beside the classic
# figures measured the same way with PyTorch (lab/gpu/classic.py), and
# beside another process's kernels.  Run on the GPU host, from the root
# of a built tree (./benchwatch, plugins/.libs; no CUDA needed, python3
# with torch for the classic side); everything lands in $OUT:
#   1. PAIRS pairs (default 7) of `benchwatch run gpu --format=json` and
#      classic.py on the same GPU, bytes and GEMM shape, the plugin first
#      in odd pairs and second in even ones; device.py prints each
#      figure's ratio plugin / classic: median, spread, within 5%?
#   2. a neighbour: a torch process's bf16 matmuls on the same GPU started
#      while a plugin run measures: the run makes way (exit 1, "made way
#      for process N ... not counted", how long after the neighbour's
#      context appeared), and a run started beside it waits ("busy");
#   3. the daemon with a gpu probe (every 15 s): DAEMON_RUNS runs (default
#      12) learn a reference with no verdict on the unchanged GPU, then a
#      neighbour for 45 s: its runs are deferrals, not failures; then
#      `benchwatch status` and `baseline show`.
# The build host's libraries that the GPU host lacks (libinih, protobuf-c,
# snappy on a bare Ubuntu) come from .device-libs/, made on the build host
# by `lab/gpu/device.sh --collect-libs` and carried with the tree.
# Usage: lab/gpu/device.sh [PAIRS]      GPU=N (NVML index, default 0)
#        lab/gpu/device.sh --collect-libs
set -u
top=$(pwd)
[ -x "$top/benchwatch" ] && [ -f "$top/plugins/.libs/gpu.so" ] ||
        { echo "device.sh: run from the root of a built tree" >&2; exit 2; }
if [ "${1:-}" = --collect-libs ]; then
        mkdir -p "$top/.device-libs"
        ldd "$top/benchwatch" "$top/plugins/.libs/gpu.so" | awk '/=> \// { print $3 }' | sort -u |
                grep -Ev '/(libc|libm|libdl|librt|libpthread|libresolv|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
                while read -r lib; do cp -L "$lib" "$top/.device-libs/"; done
        ls "$top/.device-libs"
        exit 0
fi
PAIRS=${1:-7}
GPU=${GPU:-0}
DAEMON_RUNS=${DAEMON_RUNS:-12}
OUT=${OUT:-$top/gpu-device-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/device.log") 2>&1

# only the libraries this host lacks, from .device-libs
mkdir -p "$OUT/libs"
for lib in $(ldd "$top/benchwatch" | awk '/not found/ { print $1 }'); do
        [ -f "$top/.device-libs/$lib" ] || { echo "missing $lib (no .device-libs/$lib)"; exit 2; }
        ln -sf "$top/.device-libs/$lib" "$OUT/libs/$lib"
done
# the gpu plugin alone: the others may need libraries this host lacks
mkdir -p "$OUT/plugins"
ln -sf "$top/plugins/.libs/gpu.so" "$OUT/plugins/gpu.so"
export BENCHWATCH_PLUGIN_DIR=$OUT/plugins
conf=$OUT/bw.conf
printf '[daemon]\nstate_dir = %s/state\ncache_dir = %s/cache\n' "$OUT" "$OUT" > "$conf"
bw() { LD_LIBRARY_PATH=$OUT/libs "$top/benchwatch" -c "$conf" "$@"; }
classic() { python3 "$top/lab/gpu/classic.py" --gpu "$GPU" "$@"; }

echo "== $(date -u +%FT%TZ) $(hostname): GPU $GPU, $PAIRS pairs"
nvidia-smi -i "$GPU" -q > "$OUT/nvidia-smi-q.txt" 2>&1
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 && head -n 15 "$OUT/nvidia-smi.txt"
python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)'
bw plugins gpu > "$OUT/plugins.txt" 2>&1 || { cat "$OUT/plugins.txt"; exit 1; }

# ---- 0. one run at the terminal (and the driver's JIT cache warmed) --------
bw run gpu gpu="$GPU" | tee "$OUT/first.txt"
bw run gpu gpu="$GPU" --format=json > "$OUT/args.json" ||
        { echo "the plugin does not run here: $(head -c 400 "$OUT/args.json")"; exit 1; }
args=$(python3 "$top/lab/gpu/device.py" args "$OUT/args.json") || exit 1
echo "classic.py $args"

# ---- 1. pairs, alternating which goes first -----------------------------------
for i in $(seq 1 "$PAIRS"); do
        d=$OUT/pair-$i
        mkdir -p "$d"
        # shellcheck disable=SC2086
        if [ $((i % 2)) = 1 ]; then
                bw run gpu gpu="$GPU" --format=json > "$d/plugin.json"
                classic $args > "$d/classic.json"
        else
                classic $args > "$d/classic.json"
                bw run gpu gpu="$GPU" --format=json > "$d/plugin.json"
        fi
        echo "pair $i: plugin $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("ok" if r["success"] else r["error"])' "$d/plugin.json")"
done
python3 "$top/lab/gpu/device.py" pairs "$OUT"
pairs_rc=$?

# ---- 2. a neighbour ----------------------------------------------------------
# mid-run: the run starts, the neighbour a second later (torch takes a few
# seconds to put its context on the GPU, well within duration=10s)
bw run gpu gpu="$GPU" duration=10s --format=json > "$OUT/neighbour-1.json" &
run=$!
sleep 1
classic --neighbour 20 > "$OUT/neighbour-1.ready" &
nb=$!
wait "$run"
echo "run beside a neighbour that appeared mid-run: exit $?"
# a run that starts while the neighbour works
sleep 2
bw run gpu gpu="$GPU" --format=json > "$OUT/neighbour-2.json"
echo "run started beside the neighbour: exit $?"
cp "$OUT/neighbour-1.ready" "$OUT/neighbour-2.ready"
wait "$nb"
python3 "$top/lab/gpu/device.py" neighbour "$OUT"
neighbour_rc=$?

# ---- 3. the daemon -------------------------------------------------------------
dd=$OUT/daemon
mkdir -p "$dd"
cat > "$dd/bw.conf" <<CONF
[daemon]
state_dir = $dd/state
cache_dir = $dd/cache
splay = 0
first_splay = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
max_psi_io = 0
max_psi_memory = 0
yield = no

[regression]
reference_runs = 10

[probe gpu]
plugin = gpu
gpu = $GPU
interval = 15s
timeout = 60s

[journal]
enabled = no

[textfile]
path = $dd/bw.prom
CONF
LD_LIBRARY_PATH=$OUT/libs "$top/benchwatch" -c "$dd/bw.conf" daemon --print \
        > "$dd/daemon.out" 2> "$dd/daemon.err" &
dpid=$!
ok_runs() { grep -c "^gpu 'gpu': ok" "$dd/daemon.out"; }
for _ in $(seq 1 $((DAEMON_RUNS * 20 + 60))); do
        [ "$(ok_runs)" -ge "$DAEMON_RUNS" ] && break
        sleep 1
done
echo "daemon: $(ok_runs) runs counted before the neighbour"
classic --neighbour 45 > "$dd/neighbour.ready"
sleep 20
kill "$dpid"
wait "$dpid"
echo "daemon: $(ok_runs) runs in all; failed: $(grep -c "^gpu 'gpu': FAILED" "$dd/daemon.out")"
grep "gpu probe 'gpu' deferred" "$dd/daemon.err" | head -n 5
grep -E '^benchwatch_probe_deferred_total\{probe="gpu"' "$dd/bw.prom"
grep -E '^benchwatch_regression\{' "$dd/bw.prom" | head -n 10
LD_LIBRARY_PATH=$OUT/libs "$top/benchwatch" -c "$dd/bw.conf" status | tee "$dd/status.txt"
LD_LIBRARY_PATH=$OUT/libs "$top/benchwatch" -c "$dd/bw.conf" baseline show gpu | tee "$dd/baseline.txt"
deferred=$(grep -c "gpu probe 'gpu' deferred" "$dd/daemon.err")
regressed=$(grep -cE '^benchwatch_regression\{.*\} 1$' "$dd/bw.prom")
echo "== pairs: exit $pairs_rc; neighbour: exit $neighbour_rc; daemon: $deferred deferral(s)," \
        "$regressed figure(s) in regression"
[ "$pairs_rc" = 0 ] && [ "$neighbour_rc" = 0 ] && [ "$deferred" -ge 1 ] && [ "$regressed" = 0 ]
