#!/bin/bash
# lab/cost/oltp-room.sh — how much of the host bench/cost/impact.sh's OLTP
# workload takes at a given rate, so that its rate leaves the daemon room.
#
# The daemon defers a run while others use more than [daemon] yield_cpu
# (50%) of the host's CPU or the CPU pressure is above max_psi_cpu (25%),
# and a run yields when that happens during it.  A workload that keeps the
# host past those limits is a host too busy to measure: no run finishes, and
# impact.sh has no steady state to judge.  This starts impact.sh's server
# (tests/integration/lib/mariadb.sh's MariaDB, datadir under /var/tmp, the
# same tables), measures its closed-loop capacity (OLTP_THREADS clients,
# 10 s), then drives it as impact.sh does (sysbench oltp_read_write --rate,
# back-to-back slices of 1 s) at each FRACTION of that capacity for SECONDS,
# and prints the transactions/s achieved, the workload's own share of the
# host's CPU (mariadbd's utime + stime and the reaped sysbench clients'), the
# host's busy share (/proc/stat, all CPUs; other tenants included, as the
# daemon sees it) and the CPU pressure (PSI some, avg10 at the end).
#
# Usage: lab/cost/oltp-room.sh [SECONDS, default 20]
#                              [FRACTION ...; default 0.05 0.1 0.25]
# Env:   OLTP_THREADS (8), OLTP_TABLES (4), OLTP_TABLE_SIZE (100000), OLTP_PORT (13317).
# Not part of `make check`: the figures are for people.
set -u
secs=${1:-20}
shift $(( $# ? 1 : 0 ))
fractions=${*:-0.05 0.1 0.25}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v sysbench >/dev/null || { echo "oltp-room.sh: needs sysbench" >&2; exit 2; }
OLTP_THREADS=${OLTP_THREADS:-8}
W=$(mktemp -d /tmp/bw-oltp-room.XXXXXX)
MARIADB_PORT=${OLTP_PORT:-13317}
# shellcheck disable=SC1091
. "$HERE/../../tests/integration/lib/mariadb.sh"
TMPDIR=/var/tmp mariadb_start || exit 2
trap 'mariadb_cleanup; rm -rf "$W"' EXIT
OPTS=(oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1
      --mysql-port="$MARIADB_PORT" --mysql-user="$MARIADB_USER"
      --mysql-password="$(cat "$MARIADB_PWFILE")" --mysql-db="$MARIADB_DB"
      --tables="${OLTP_TABLES:-4}" --table-size="${OLTP_TABLE_SIZE:-100000}")
sysbench "${OPTS[@]}" --threads=2 prepare > "$W/prepare" 2>&1 ||
        { tail "$W/prepare" >&2; exit 1; }
sysbench "${OPTS[@]}" --threads="$OLTP_THREADS" --time=10 run > "$W/capacity" 2>&1 ||
        { tail "$W/capacity" >&2; exit 1; }
cap=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' "$W/capacity")
echo "capacity ${cap%.*} transactions/s (closed loop, $OLTP_THREADS clients, 10 s)"
busy() { # busy and all jiffies of all CPUs (steal counted busy, as the daemon's look)
        awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6 }' /proc/stat
}
# CPU ticks of the server and of this script's reaped children (sysbench)
ticks() {
        awk '{ print $14 + $15 }' "/proc/$MARIADB_PID/stat"
        awk '{ print $16 + $17 }' "/proc/$$/stat"
}
hz=$(getconf CLK_TCK)
printf '%-9s %6s %9s %13s %13s %9s\n' fraction rate "tx/s" "workload" "host busy" "psi cpu"
for f in $fractions; do
        rate=$(awk -v c="$cap" -v f="$f" 'BEGIN { printf "%d", c * f }')
        read -r b0 t0 < <(busy)
        w0=$(ticks | paste -sd+ | bc)
        start=$EPOCHREALTIME end=$((SECONDS + secs)) n=0
        while [ "$SECONDS" -lt "$end" ]; do
                sysbench "${OPTS[@]}" --threads="$OLTP_THREADS" --rate="$rate" --time=1 run \
                        > "$W/s" 2>&1
                n=$(awk -v n="$n" '/transactions:/ { print n + $2; exit }' "$W/s")
        done
        read -r b1 t1 < <(busy)
        w1=$(ticks | paste -sd+ | bc)
        psi=$(awk -F'[= ]' '/^some/ { print $3 }' /proc/pressure/cpu)
        tps=$(awk -v n="$n" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print n / (b - a) }')
        share=$(awk -v a="$((b1 - b0))" -v b="$((t1 - t0))" 'BEGIN { print 100 * a / b }')
        own=$(awk -v w="$((w1 - w0))" -v hz="$hz" -v a="$start" -v b="$EPOCHREALTIME" \
                -v n="$(nproc)" 'BEGIN { print 100 * w / hz / (b - a) / n }')
        printf '%-9s %6s %9.1f %12.1f%% %12.1f%% %8s%%\n' "$f" "$rate" "$tps" "$own" "$share" "$psi"
done
