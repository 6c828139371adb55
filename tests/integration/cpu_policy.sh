#!/bin/bash
# CPU-bound probes out of the way: the daemon runs a cpu probe's process
# (and every thread of it) under SCHED_IDLE by default and under
# SCHED_BATCH with [daemon] cpu_policy = batch, and says so in its figures
# (benchwatch_probe_cpu_policy{policy}); a disk probe keeps the usual
# policy (its latency would carry the wait for a CPU), and `benchwatch run`
# keeps SCHED_OTHER, the policy sysbench is compared at.  The policy is
# read from the kernel (sched_getscheduler of each task of the child)
# while the run goes on.
. "$top_srcdir/tests/integration/lib/lib.sh"
command -v python3 > /dev/null || skip "no python3"

# policies PARENT (child_policies.py): "tid:policy" for every task of PARENT's
# children that have run for half a second (the child sets its policy
# when it has read its request, a few ms after it starts)
policies() {
        python3 "$top_srcdir/tests/integration/lib/child_policies.py" "$1"
}
# wait until PARENT has a child running for 0.5 s; POLICIES gets its tasks'
child_policies() {
        local i
        for i in $(seq 1 200); do
                POLICIES=$(policies "$1")
                [ -n "$POLICIES" ] && return 0
                sleep 0.1
        done
        return 1
}
# all_are POLICY_NUMBER: every task in $POLICIES has it (and there is one)
all_are() {
        [ -n "$POLICIES" ] || return 1
        for t in $POLICIES; do [ "${t#*:}" = "$1" ] || return 1; done
}
# settled PARENT POLICY_NUMBER TASKS: PARENT's child has TASKS tasks, all
# under the policy; a busy host may start the probe's threads late
settled() {
        POLICIES=$(policies "$1")
        all_are "$2" && [ "$(echo "$POLICIES" | wc -w)" -ge "$3" ]
}

conf() { # CPU_POLICY_LINE
        test_daemon_section "$T"
        cat <<CONF
$1

[probe cpu]
plugin = cpu
threads = 2
duration = 3s
interval = 1s

[journal]
enabled = no

[textfile]
path = $T/bw.prom
CONF
}

# SCHED_IDLE is 5, SCHED_BATCH 3, SCHED_OTHER 0
for case in "idle:5:" "batch:3:cpu_policy = batch" "other:0:cpu_policy = other"; do
        name=${case%%:*}; rest=${case#*:}; want=${rest%%:*}; line=${rest#*:}
        conf "$line" > "$T/bw.conf"
        rm -f "$T/bw.prom"
        "$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/daemon.out" 2> "$T/daemon.err" &
        BW_PIDS=$!
        child_policies "$BW_PIDS" || fail "$name: no probe run within 20 s: $(tail -3 "$T/daemon.err")"
        wait_for 20 settled "$BW_PIDS" "$want" 3
        all_are "$want" || fail "$name: the cpu probe's tasks run under policies '$POLICIES', want $want for all"
        [ "$(echo "$POLICIES" | wc -w)" -ge 3 ] || fail "$name: fewer tasks than the main one and 2 threads: $POLICIES"
        wait_for 20 grep -q "^benchwatch_probe_cpu_policy{.*policy=\"$name\"" "$T/bw.prom" ||
                fail "$name: the textfile does not say so: $(grep cpu_policy "$T/bw.prom")"
        kill "$BW_PIDS"; wait "$BW_PIDS"; BW_PIDS=""
        echo "daemon, cpu_policy $name: tasks $POLICIES"
done

# `run` keeps SCHED_OTHER whatever the daemon's policy
conf "cpu_policy = idle" > "$T/bw.conf"
# long enough for a busy host to start its threads before it ends
"$BENCHWATCH" -c "$T/bw.conf" run cpu threads=2 duration=5s --format=json > "$T/run.json" &
BW_PIDS=$!
child_policies "$BW_PIDS" || fail "run: no child"
wait_for 10 settled "$BW_PIDS" 0 3
all_are 0 || fail "run: the child runs under policies '$POLICIES', want SCHED_OTHER (0)"
wait "$BW_PIDS" || fail "run cpu failed"; BW_PIDS=""
json "$T/run.json" 'r["priority"]["cpu_policy"] == "other"' || fail "run: priority in JSON"
echo "run: tasks $POLICIES"
