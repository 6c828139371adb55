# bench/lib/split.sh — sourced by the bench scripts that start servers:
# the servers on the first half of the CPUs, their clients on the other
# half, so that a client's own CPU a request is not taken from its server
# (docs/reports/benchmarks.md, "Server rows").
# split_cpus: sets SERVER_CPUS and CLIENT_CPUS (taskset lists, "0" and
#   "1" on 2 CPUs); returns 1, both empty, with fewer than 2 CPUs or no
#   taskset.
# pin_server PID...: each process, its threads and (recursively) its
#   children onto SERVER_CPUS; nothing when that is empty.
split_cpus() {
        local n
        n=$(nproc)
        SERVER_CPUS= CLIENT_CPUS=
        [ "$n" -ge 2 ] && command -v taskset > /dev/null || return 1
        SERVER_CPUS=0 CLIENT_CPUS=$((n / 2))
        [ "$n" -lt 4 ] || SERVER_CPUS=0-$((n / 2 - 1))
        [ "$n" -lt 3 ] || CLIENT_CPUS=$CLIENT_CPUS-$((n - 1))
}
pin_server() {
        local p
        [ -n "${SERVER_CPUS:-}" ] || return 0
        for p in "$@"; do
                taskset -a -p -c "$SERVER_CPUS" "$p" > /dev/null 2>&1
                pin_server $(pgrep -P "$p")
        done
}
