#!/bin/bash
# gpu.sh — the gpu plugin through the real command line and the daemon on
# a host without a GPU: `run gpu` with no NVIDIA driver, its module not
# loaded, or a driver that sees no GPU, exits 3 and says so (NVML failing
# otherwise fails the run); with the recording fake driver
# (tests/gpufake/, through the BENCHWATCH_GPU_LIBDIR test hook: the
# fake's figures are its model's, not measurements) a run goes through
# the child process and the runner with its figures, labels and info
# metric, and a process that appears on the GPU makes the run give way
# (exit 1, the reason); the daemon skips a gpu probe with no driver in
# one log line while its other probes run (check-config says absent, with
# no driver or no GPU), and counts a run that gave way as a deferral, not
# a failure.
. "$top_srcdir/tests/integration/lib/lib.sh"

FAKE=$top_builddir/tests/gpufake/.libs/fakegpu.so
[ -f "$FAKE" ] || skip "the fake driver is not built ($FAKE)"
mkdir "$T/none" "$T/fake"
for n in libcuda.so.1 libnvidia-ml.so.1; do ln -s "$FAKE" "$T/fake/$n"; done
SMALL="duration=2s memory=64M copy_size=1M gemm_m=128 gemm_n=128 gemm_k=128"
export FAKEGPU_COPY_BPS=1e10 FAKEGPU_TRIAD_BPS=1.2e10 FAKEGPU_FLOPS=1e9

# ---- no driver: exit 3, the reason --------------------------------------------
BENCHWATCH_GPU_LIBDIR=$T/none bw run gpu > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "run gpu without a driver: exit $rc, not 3: $(cat "$T/err")"
grep -q "gpu probe 'gpu': no NVIDIA driver ($T/none/libcuda.so.1: cannot open shared object file" \
        "$T/err" || fail "run gpu without a driver: $(cat "$T/err")"
if ! /sbin/ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then
        bw run gpu > "$T/out" 2> "$T/err"
        rc=$?
        [ $rc = 3 ] || fail "run gpu on this host (no driver): exit $rc: $(cat "$T/err")"
        grep -q "gpu probe 'gpu': no NVIDIA driver (libcuda.so.1: cannot open shared object file" \
                "$T/err" || fail "run gpu on this host: $(cat "$T/err")"
        echo "run gpu, no driver here: exit 3: $(cat "$T/err")"
fi

# ---- the driver's libraries but no GPU: exit 3 too, the reason ----------------
# shellcheck disable=SC2086
FAKEGPU_COUNT=0 BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "run gpu with a driver that sees no GPU: exit $rc, not 3: $(cat "$T/err")"
grep -q "gpu probe 'gpu': no usable GPU (the NVIDIA driver sees none)" "$T/err" ||
        fail "run gpu with a driver that sees no GPU: $(cat "$T/err")"
# shellcheck disable=SC2086
FAKEGPU_DRIVER_NOT_LOADED=1 BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "run gpu with the driver's module not loaded: exit $rc, not 3: $(cat "$T/err")"
grep -q "gpu probe 'gpu': no NVIDIA driver loaded (nvmlInit: " "$T/err" ||
        fail "run gpu with the driver's module not loaded: $(cat "$T/err")"
# NVML failing otherwise is a GPU host's fault: the run fails, and shows it
# shellcheck disable=SC2086
FAKEGPU_FAIL=nvmlInit_v2 BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 1 ] || fail "run gpu where NVML fails: exit $rc, not 1: $(cat "$T/err")"
grep -q "nvmlInit: Unknown Error" "$T/out" "$T/err" ||
        fail "run gpu where NVML fails: $(cat "$T/out" "$T/err")"
echo "run gpu, a driver with no GPU: exit 3: $(cat "$T/err")"

# ---- the fake driver ---------------------------------------------------------
# shellcheck disable=SC2086
BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL --format=json > "$T/run.json" 2> "$T/err" ||
        fail "run gpu with the fake driver: $(cat "$T/err")"
json "$T/run.json" 'r["success"]' || fail "not a success: $(cat "$T/run.json")"
json "$T/run.json" 'abs(value("benchwatch_gpu_memory_copy_bytes_per_second", gpu="0") / 1e10 - 1) < 1e-6' ||
        fail "copy figure: $(cat "$T/run.json")"
json "$T/run.json" 'abs(value("benchwatch_gpu_gemm_flop_per_second", gpu="0", engine="wmma", m="128") / 1e9 - 1) < 1e-6' ||
        fail "GEMM figure"
json "$T/run.json" '[(s["labels"]["name"], s["value"]) for s in samples("benchwatch_gpu_info", gpu="0", driver_version="580.65.06")] == [("NVIDIA H200", 1)]' ||
        fail "info metric"
json "$T/run.json" 'value("benchwatch_gpu_pcie_link_generation", gpu="0") == 5' || fail "link generation"
# shellcheck disable=SC2086
BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL stream=no gemm=no --format=prometheus > "$T/run.prom" \
        2> "$T/err" || fail "run gpu --format=prometheus: $(cat "$T/err")"
grep -q '^benchwatch_gpu_host_to_device_bytes_per_second{probe="gpu",gpu="0"} ' "$T/run.prom" ||
        fail "prometheus: $(grep -m3 host_to_device "$T/run.prom")"
grep -q '^benchwatch_gpu_info{probe="gpu",gpu="0",uuid="GPU-fa4e' "$T/run.prom" ||
        fail "prometheus info: $(grep -m1 gpu_info "$T/run.prom")"

# a process starts on the GPU during the run: it gives way at once
start=$(date +%s.%N)
# shellcheck disable=SC2086
FAKEGPU_PROCESS_AFTER=6 BENCHWATCH_GPU_LIBDIR=$T/fake bw run gpu $SMALL duration=10s > "$T/out" 2> "$T/err"
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
[ $rc = 1 ] || fail "run beside a new process: exit $rc: $(cat "$T/err")"
grep -q "FAILED in .*: made way for process 4242, which started on GPU 0 during the run; not counted" \
        "$T/out" || fail "run beside a new process: $(cat "$T/out" "$T/err")"
[ "$(echo "$took < 5" | bc)" = 1 ] || fail "the run took ${took}s to make way (duration=10s)"
echo "run gpu beside a process that appeared: exit 1 after ${took}s: $(tail -1 "$T/out")"

# ---- the daemon --------------------------------------------------------------
daemon_conf() {
        test_daemon_section "$T" > "$T/bw.conf"
        cat >> "$T/bw.conf" <<CONF
first_splay = 0

[probe g]
plugin = gpu
$(echo "$SMALL" | tr ' ' '\n')
interval = 1s
timeout = 30s

[probe c]
plugin = cpu
max_prime = 2000
duration = 0.2s
interval = 1s

[journal]
enabled = no

[textfile]
path = $T/bw.prom
CONF
}
run_daemon() {
        "$BENCHWATCH" -c "$T/bw.conf" daemon --print > "$T/daemon.out" 2> "$T/daemon.err" &
        dpid=$!
        BW_PIDS="$dpid"
}
stop_daemon() { kill "$dpid"; wait "$dpid"; BW_PIDS=""; }

daemon_conf
export BENCHWATCH_GPU_LIBDIR=$T/none
"$BENCHWATCH" -c "$T/bw.conf" check-config > "$T/out" 2>&1 || fail "check-config: $(cat "$T/out")"
grep -q "^  g .*(absent here: no NVIDIA driver ($T/none/libcuda.so.1" "$T/out" ||
        fail "check-config does not say g is absent: $(cat "$T/out")"
FAKEGPU_COUNT=0 BENCHWATCH_GPU_LIBDIR=$T/fake "$BENCHWATCH" -c "$T/bw.conf" check-config > "$T/out" 2>&1 ||
        fail "check-config, no GPU: $(cat "$T/out")"
grep -q "^  g .*(absent here: no usable GPU (the NVIDIA driver sees none))" "$T/out" ||
        fail "check-config does not say g is absent with no GPU: $(cat "$T/out")"
run_daemon
c_ran() { [ "$(grep -c "^cpu 'c': ok" "$T/daemon.out")" -ge 3 ]; }
wait_for 20 c_ran || fail "the cpu probe beside an absent gpu probe did not run: $(cat "$T/daemon.err")"
stop_daemon
n=$(grep -c "gpu probe 'g' skipped on this host: no NVIDIA driver" "$T/daemon.err")
[ "$n" = 1 ] || fail "the absent gpu probe logged $n times, not once: $(cat "$T/daemon.err")"
grep -q "gpu 'g'" "$T/daemon.out" && fail "the absent gpu probe ran: $(cat "$T/daemon.out")"
echo "daemon, no driver: $(grep -m1 'skipped on this host' "$T/daemon.err" | sed 's/.*gpu probe/gpu probe/')"

# with the fake driver and a process that appears in every run: deferrals
export BENCHWATCH_GPU_LIBDIR=$T/fake FAKEGPU_PROCESS_AFTER=4
rm -f "$T/bw.prom"
run_daemon
deferred() {
        local n
        n=$(awk '/^benchwatch_probe_deferred_total\{probe="g",reason="device"\}/ { print $2 }' \
                "$T/bw.prom" 2> /dev/null)
        [ "${n:-0}" -ge 1 ]
}
wait_for 30 deferred || fail "no deferral counted: $(cat "$T/daemon.err")"
stop_daemon
grep -q "gpu probe 'g' deferred, host busy: made way for process 4242" "$T/daemon.err" ||
        fail "the deferral's reason: $(cat "$T/daemon.err")"
grep -q "^gpu 'g': FAILED" "$T/daemon.out" && fail "a run that made way counted as a failure"
grep -q '^benchwatch_gpu_memory_copy_bytes_per_second' "$T/bw.prom" &&
        fail "figures of a run that made way published"
echo "daemon, a process appears: $(grep -m1 "probe 'g' deferred" "$T/daemon.err" | sed 's/.*gpu probe/gpu probe/')"
exit 0
