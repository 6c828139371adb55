# lib.sh — sourced by the integration tests: a private temporary directory
# removed on exit, processes started by the test stopped by PID on exit, and
# helpers to read benchwatch's JSON output.
set -u
: "${BENCHWATCH:?run through make check}"
T=$(mktemp -d /tmp/bwtest.XXXXXX)
BW_PIDS=""
cleanup_test() {
        for p in $BW_PIDS; do kill "$p" 2>/dev/null; done
        for p in $BW_PIDS; do wait "$p" 2>/dev/null; done
        rm -rf "$T"
}
trap cleanup_test EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# free_port: a TCP port on 127.0.0.1 the kernel says is free now (tests
# and campaigns beside this one do not collide, as they would on fixed ones)
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_for SECONDS COMMAND...: poll until COMMAND succeeds; 1 on time-out.
wait_for() {
        local limit=$1 i=0
        shift
        while ! "$@"; do
                i=$((i + 1))
                [ $i -gt $((limit * 10)) ] && return 1
                sleep 0.1
        done
}
# idle_cpus_between STAT0 STAT1: the CPUs idle between two readings of
# /proc/stat's first line, as the daemon's look counts them: idle and
# iowait over the time the CPUs were given (steal left out)
idle_cpus_between() {
        printf '%s\n%s\n' "$1" "$2" | awk -v n="$(nproc)" '
                { for (i = 2; i <= 9; i++) v[NR, i] = $i }
                END { for (i = 2; i <= 9; i++) d[i] = v[2, i] - v[1, i]
                      given = d[2] + d[3] + d[4] + d[5] + d[6] + d[7] + d[8]
                      printf "%.2f\n", n * (d[5] + d[6]) / given }'
}
# wait_quietly SECONDS COMMAND...: as wait_for, every half second.  Beside
# a daemon whose CPU probes count a run only when their threads hardly
# waited for a CPU (max_run_delay), a poll of a few processes every 0.1 s
# is a neighbour of its own: on 2 CPUs a 1-second probe under SCHED_IDLE
# waited 11-12% of its time beside it, 0.5% without.
wait_quietly() {
        local limit=$1 i=0
        shift
        while ! "$@"; do
                i=$((i + 1))
                [ $i -gt $((limit * 2)) ] && return 1
                sleep 0.5
        done
}
# A [daemon] section for tests that drive the daemon: private directories,
# no splay, no deferral on a busy host, no duty-cycle pause.
test_daemon_section() {
        printf '[daemon]\nstate_dir = %s/state\ncache_dir = %s/cache\nsplay = 0\nnice = 0\n' "$1" "$1"
        printf 'duty_cycle = 1\nmax_load = 0\nmax_psi_cpu = 0\nmax_psi_io = 0\nmax_psi_memory = 0\nyield = no\n'
}
# add_host_debs ROOT PKG...: install into the Debian root ROOT (a copy or an
# overlay, never a cached root itself) those packages it lacks, from this
# host's apt cache: a runtime library the binary gained after a cached root
# was built then needs no mirror.  Missing .debs are left to the caller.
add_host_debs() {
        local root=$1 p deb
        shift
        for p in "$@"; do
                dpkg --root="$root" -s "$p" 2> /dev/null | grep -q '^Status: install ok installed' && continue
                deb=$(ls /var/cache/apt/archives/"$p"_*.deb 2> /dev/null | tail -n 1)
                [ -n "$deb" ] && dpkg --root="$root" -i "$deb" > /dev/null 2>&1
        done
        return 0
}
# daemon_start DIR: the daemon on DIR/bw.conf in the background, printing
# each result, its output added to DIR/daemon.out and DIR/daemon.err;
# daemon_stop: stops it (SIGTERM) and waits for it.
daemon_start() {
        "$BENCHWATCH" -c "$1/bw.conf" daemon --print >> "$1/daemon.out" 2>> "$1/daemon.err" &
        dpid=$!
        BW_PIDS="$dpid"
}
daemon_stop() { kill "$dpid"; wait "$dpid"; BW_PIDS=""; }
# An empty configuration, so tests see only the probes they name; its
# state (notes said once, a GPU's counters between runs) is the test's own,
# not the host's default state_dir, which another run of benchwatch may hold
printf '[daemon]\nstate_dir = %s/state\n' "$T" > "$T/empty.conf"
bw() { "$BENCHWATCH" -c "$T/empty.conf" "$@"; }
# json FILE PYTHON-EXPR: evaluate EXPR with `r` bound to the parsed file and
# helpers value(name, **labels), summary(name, **labels).
json() {
        python3 "$top_srcdir/tests/integration/lib/json_eval.py" "$1" "$2"
}
