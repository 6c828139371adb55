# bench/lib/neighbours.sh — sourced by the bench scripts: co-located work
# that busies some of the host's CPUs, as a production host's services do,
# started and stopped by PID.
#   busy<N>    N busy loops (`while :; do :; done`, nice 0), each pinned to
#              one of the last N CPUs: the first CPUs stay free (room);
#   full       a busy loop pinned to every CPU: no room for any probe;
#   stream<N>  N STREAM-like memory-bandwidth hogs (stress-ng --stream 1,
#              arrays far beyond the cache), pinned the same way: busy CPUs
#              that also take memory bandwidth.
# neighbour_valid NAME: 0 when NAME is one of these (or none).
neighbour_valid() {
        case $1 in
        none|full) return 0 ;;
        busy[0-9]*|stream[0-9]*)
                local n=${1#busy}
                n=${n#stream}
                [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le "$(nproc)" ] ;;
        *) return 1 ;;
        esac
}
# neighbour_start NAME: starts it; its PIDs in NEIGHBOUR_PIDS, a line for
# people in NEIGHBOUR_TEXT.
neighbour_start() {
        local n cpu last
        NEIGHBOUR_PIDS=""
        last=$(( $(nproc) - 1 ))
        case $1 in
        none) NEIGHBOUR_TEXT="none"; return 0 ;;
        full) n=$(nproc) ;;
        *) n=${1#busy}; n=${n#stream} ;;
        esac
        for cpu in $(seq $(( last - n + 1 )) "$last"); do
                if [[ $1 == stream* ]]; then
                        taskset -c "$cpu" stress-ng --stream 1 --timeout 0 > /dev/null 2>&1 &
                else
                        taskset -c "$cpu" bash -c 'while :; do :; done' &
                fi
                NEIGHBOUR_PIDS="$NEIGHBOUR_PIDS $!"
        done
        NEIGHBOUR_TEXT="$1: $n of $(nproc) CPUs busy (CPUs $(( last - n + 1 ))-$last)"
}
neighbour_stop() {
        local p
        for p in $NEIGHBOUR_PIDS; do
                kill "$p" 2> /dev/null
        done
        for p in $NEIGHBOUR_PIDS; do
                wait "$p" 2> /dev/null
        done
        NEIGHBOUR_PIDS=""
}
