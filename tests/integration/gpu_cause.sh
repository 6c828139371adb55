#!/bin/bash
# gpu_cause.sh — a gpu probe's regression is told by the GPU's own faults,
# through the daemon, its detector, its evidence store and its textfile:
# the recording fake driver (tests/gpufake/, through BENCHWATCH_GPU_LIBDIR;
# its figures are its model's, not measurements) runs the probe until the
# reference is learnt, then the daemon restarts on a GPU with a fault and
# slower copies: its PCIe link trained to gen 2 (inventory), uncorrected
# ECC errors and a row remapped (memory_errors), an Xid in every run
# (kernel_log); and two GPUs, both slower from the same time (host: what
# the GPUs share).  Each fault has its own state directory, so each
# starts from a reference of its own.  The cause is the textfile's
# benchwatch_regression_cause and the journal warning's sentence, with
# the fault's numbers.
. "$top_srcdir/tests/integration/lib/lib.sh"

FAKE=$top_builddir/tests/gpufake/.libs/fakegpu.so
[ -f "$FAKE" ] || skip "the fake driver is not built ($FAKE)"
mkdir "$T/fake"
for n in libcuda.so.1 libnvidia-ml.so.1; do ln -s "$FAKE" "$T/fake/$n"; done
export BENCHWATCH_GPU_LIBDIR=$T/fake

# conf DIR: a daemon that learns a reference of 4 runs of the gpu probe
conf() {
        test_daemon_section "$1"
        cat <<CONF
first_splay = 0

[regression]
min_runs = 4
reference_runs = 4
recent_runs = 3
# every run counted, on a loaded test host too: the faults are the GPU's
max_run_delay = 1
max_steal = 1

[probe g]
plugin = gpu
duration = 2s
memory = 64M
copy_size = 1M
stream = no
gemm = no
interval = 1s
timeout = 30s

[journal]
enabled = no

[textfile]
path = $1/bw.prom
CONF
}
# the reference's runs, as the evidence store keeps them ("run <time> 1 ...")
learnt() {
        local n
        n=$(grep -c '^run [^ ]* 1 ' "$1/state/evidence-g.txt" 2> /dev/null)
        [ "${n:-0}" -ge "$2" ]
}
has_cause() { grep -q "^benchwatch_regression_cause{probe=\"g\",cause=\"$2\"} 1$" "$1/bw.prom" 2> /dev/null; }

# fault NAME CAUSE SENTENCE ENV...: learn the reference on a healthy GPU,
# then run on one with ENV until the regression names CAUSE with SENTENCE
fault() {
        local name=$1 cause=$2 sentence=$3 d=$T/$1
        shift 3
        mkdir "$d"
        conf "$d" > "$d/bw.conf"
        daemon_start "$d"
        wait_for 60 learnt "$d" $((4 * ${FAKEGPU_COUNT:-1})) ||
                fail "$name: no reference learnt: $(tail -5 "$d/daemon.err")"
        daemon_stop
        grep -q "regress" "$d/daemon.err" && fail "$name: a verdict on the healthy GPU: $(cat "$d/daemon.err")"
        export "$@"
        daemon_start "$d"
        wait_for 60 has_cause "$d" "$cause" ||
                fail "$name: no cause=$cause: $(grep 'regression_cause{' "$d/bw.prom"; tail -5 "$d/daemon.err")"
        daemon_stop
        unset "${@%%=*}"
        grep -F "warning: probe 'g': gpu host to device bytes/s" "$d/daemon.err" | grep -qF "$sentence" ||
                fail "$name: the warning lacks '$sentence': $(grep warning "$d/daemon.err")"
        echo "$name: $(grep -F "$sentence" "$d/daemon.err" | grep -m1 -o "cause: .*")"
}

# The faults run side by side, each in a subshell of its own (its daemon,
# its state directory, its fake's environment): one after another they
# took 32 s of the suite's 15 minutes.  A subshell stops its daemon
# however it ends; the test's own exit stops the subshells.
names=() pids=()
side_by_side() {
        (
                trap 'exit 143' TERM
                trap 'for p in $BW_PIDS; do kill "$p" 2> /dev/null; wait "$p"; done' EXIT
                fault "$@"
        ) > "$T/$1.log" 2>&1 &
        names+=("$1")
        pids+=($!)
        BW_PIDS="${pids[*]}"
}
side_by_side link inventory "cause: inventory, the GPU's PCIe link gen 2 x16 during the copies against gen 5 x16 in the reference" \
        FAKEGPU_PCIE=2,16 FAKEGPU_H2D_BPS=7e9 FAKEGPU_D2H_BPS=6e9
side_by_side ecc memory_errors "cause: memory errors, the GPU's memory: 0 corrected, 2 uncorrected ECC errors, 1 row remapped over the 3 runs" \
        FAKEGPU_ECC=0,2 FAKEGPU_REMAPPED=0,1,0,0 FAKEGPU_H2D_BPS=30e9
side_by_side xid kernel_log "cause: kernel log, NVML reported 3 Xid errors for the GPU over the 3 runs" \
        FAKEGPU_XID=79 FAKEGPU_H2D_BPS=30e9
# gpu=all takes the GPUs in turn, one a run: both slower, the second to
# enter its regression finds the first's from the same time
FAKEGPU_COUNT=2 side_by_side both host "of the same probe regressed in this figure from the same time" \
        FAKEGPU_H2D_BPS=30e9
failed=
for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed="$failed ${names[$i]}"
        cat "$T/${names[$i]}.log"
done
BW_PIDS=
[ -z "$failed" ] || fail "faults not told:$failed"
exit 0
