#!/bin/bash
# bench/compare/all.sh — every probe beside its classic tool, in one command:
# the figure of each as a ratio, benchwatch / classic, with its spread.
#
# Rows: cpu, threads and memory against sysbench; memory latency against an
# independent pointer chase (memlat_chase.c); disk against fio (random 16k
# O_DIRECT reads at queue depth 8 of a 1 GiB file, fio's defaults, on
# benchwatch's test file); diskcap, the same on a device whose pace is
# known: a loop device over that file, its reads capped at CAP a second by
# a cgroup v1 blkio throttle (root), where both tools must report CAP and
# the VM disk's noise is out of the way (fio against itself 0.50-1.53 in
# 3-s runs a few seconds apart on 5 December); disklat against `ioping -D`
# (p50); disklatfix, the same on a device of known latency: a loop device
# over that file as the slowdisk FUSE fixture serves it
# (tests/integration/lib/slowdisk), every read FIX_US later (root, FUSE),
# where both tools' p50 must be that delay and the same fixed path
# (ioping against itself 0.65-1.68 on the bare VM disk on 5 December);
# seqread against `hdparm -T` and `hdparm -t` on a read-only
# direct-io loop device over that file (root); seqdiskfix, `hdparm -t`'s
# figure on disklatfix's device with FIX_SEQ_US a read, slow enough that
# the device, not the CPU that copies what it serves, sets the pace
# (hdparm -t against itself 0.80-1.24 on the bare VM disk on 5
# December); http against `wrk -t1 -c50` (keep-alive, a 612-byte page from
# nginx, one worker); mysql against sysbench oltp_read_write (MariaDB, 4
# threads); the seed's proxy test (`ab -i -c 500` through nginx
# in front of two squids, and benchwatch's HEAD at concurrency 500).
# Each row runs PAIRS pairs of SECONDS runs, benchwatch first in odd pairs
# and second in even ones, so a drift of the machine hits both alike; the
# ratio is the median of the pairs' ratios, the spread their lowest and
# highest.  Both at the niceness all.sh runs at (0; `nice -n -5 all.sh`
# lifts both alike where others share the machine).  A row whose tool or
# server is missing prints "not run" and why; the others still run.  Every
# pair is printed as it ends, with the load average; the table at the end
# is the README's Figures table (`| probe | classic tool | ratio | spread
# | classic's own | pairs |`), where "classic's own" is the classic tool's
# figure against its own in the round before: the noise floor, the
# spread a ratio cannot be judged within.
# The rows with a server (http, mysql, seed) run the servers on the first
# half of the CPUs and both clients on the other half, where there are two
# or more: on CPUs the two share, the requests/s a client gets also depend
# on the client's own CPU per request, which differs from tool to tool (ab
# 57 us a request through the seed's proxies, benchwatch 48-51; sysbench
# oltp 413-471 us a transaction, benchwatch 395-459: bench/compare/
# client-cpu.sh, docs/reports/benchmarks.md), so there the row would
# measure the clients' costs as well as the servers' speed.
# SHARE=1 runs them on the same CPUs instead, to see that difference.
# The rows whose work is all on a CPU (cpu, threads, memory, memlat) run
# both tools on one CPU, the last (PIN_CPU; PIN_CPU= unpinned): unpinned,
# the two tools' single-threaded runs land on whichever CPU is free, and
# on a shared VM one CPU can be 15-20% slower than the other for seconds
# at a time (the memory row's pairs were 0.85-1.23 unpinned at 09:34 on
# 5 December, 1.03-1.09 pinned just after).  The disk rows run unpinned:
# pinned, the tool, its I/O's completions and the virtual disk's work
# share one CPU, and the row measures each tool's CPU an I/O as well as
# the disk (fio's row 1.069, 1.00 .. 1.13, pinned at 10:15; 1.014,
# 0.77 .. 1.22, unpinned at 10:25; ioping's 0.921 and 0.985).
#
# Usage: bench/compare/all.sh [PAIRS, default 7] [SECONDS, default 3]
# Env:   BENCHWATCH (default: benchwatch on PATH; from a build tree also
#        BENCHWATCH_PLUGIN_DIR=plugins/.libs), ROWS ("cpu disk http":
#        those rows only), BENCH_DIR (/var/tmp/benchwatch-bench: the test
#        file), SIZE (1G), HTTP_URL (a running server instead of starting
#        nginx), SEED_REQUESTS (20000), KEEP=1 keeps the test file;
#        BEFORE (another build's benchwatch) and BEFORE_PLUGIN_DIR: its runs
#        join every round, its ratios in a column beside (before / after);
#        SHARE=1: servers and clients on the same CPUs (above); CAP
#        (diskcap's reads a second, 20000: under what the disk does); FIX_US
#        (disklatfix's delay a read, 2000 microseconds); FIX_SEQ_US
#        (seqdiskfix's, 20000: 2000 lets both read the 1 GiB device to
#        its end in under 2 s, as fast as the 2 CPUs copy); PIN_CPU
#        (the last CPU): the CPU rows' CPU, empty: unpinned.
# Run it under `flock -o /tmp/bw-measure.lock` on a quiet machine; not part
# of `make check`.  About 15 minutes at 7 pairs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export BW=${BENCHWATCH:-benchwatch}
export PAIRS=${1:-7} SECS=${2:-3}
export ROWS=${ROWS:-} SIZE=${SIZE:-1G}
export DIR=${BENCH_DIR:-/var/tmp/benchwatch-bench}
command -v python3 > /dev/null || { echo "bench/compare/all.sh: needs python3" >&2; exit 1; }
"$BW" plugins > /dev/null 2>&1 ||
        { echo "bench/compare/all.sh: '$BW' does not run (set BENCHWATCH, BENCHWATCH_PLUGIN_DIR)" >&2; exit 1; }
want() { [ -z "$ROWS" ] || [[ " $ROWS " == *" $1 "* ]]; }

mkdir -p "$DIR" || exit 1
export CONF=$DIR/nice0.conf LOOP= CAP_CGROUP= CAP=${CAP:-20000} CHASE=
export FIX_LOOP= FIX_US=${FIX_US:-2000} FIX_SEQ_US=${FIX_SEQ_US:-20000}
export FIX_CTL=$DIR/fix/delay_us
FIX_PID=
export HTTP_URL=${HTTP_URL:-} SEED_URL= MYSQL_PORT=
# the servers' CPUs and the clients' (empty: shared)
. "$here/../lib/split.sh"
export SERVER_CPUS= CLIENT_CPUS=
[ -n "${SHARE:-}" ] || split_cpus
command -v taskset > /dev/null || PIN_CPU=
export PIN_CPU=${PIN_CPU-$(($(nproc) - 1))}
printf '[daemon]\nnice = 0\nioprio_level = 4\n' > "$CONF"
cleanup() {
        [ -n "$CAP_CGROUP" ] && rmdir "$CAP_CGROUP"
        [ -n "$FIX_LOOP" ] && losetup -d "$FIX_LOOP"
        mountpoint -q "$DIR/fix" && fusermount3 -u "$DIR/fix"
        [ -n "$FIX_PID" ] && kill "$FIX_PID" 2>/dev/null && wait "$FIX_PID" 2>/dev/null
        rm -f "$DIR/slowdisk"
        [ -d "$DIR/fix" ] && rmdir "$DIR/fix"
        [ -n "$LOOP" ] && losetup -d "$LOOP"
        declare -F http_servers_stop > /dev/null && http_servers_stop
        declare -F mariadb_cleanup > /dev/null && mariadb_cleanup
        [ -n "${KEEP:-}" ] || rm -f "$DIR/disk.dat"
        rm -f "$CONF" "$DIR/chase" "$DIR/http.log" "$DIR/mariadb.log"
        rmdir "$DIR" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if want memlat && command -v "${CC:-cc}" > /dev/null &&
   "${CC:-cc}" -O2 -o "$DIR/chase" "$here/memlat_chase.c"; then
        CHASE=$DIR/chase
fi
if want disk || want diskcap || want disklat || want disklatfix || want seqread ||
   want seqdiskfix; then
        "$BW" -c "$CONF" run disk "path=$DIR/disk.dat" size="$SIZE" requests=1 > /dev/null ||
                { echo "bench/compare/all.sh: cannot create $DIR/disk.dat" >&2; exit 1; }
fi
if { want seqread || want diskcap; } && [ "$(id -u)" = 0 ]; then
        LOOP=$(losetup --find --show --read-only --direct-io=on "$DIR/disk.dat" 2>/dev/null)
fi
blkio=/sys/fs/cgroup/blkio
if want diskcap && [ -n "$LOOP" ] && [ -w "$blkio" ] &&
   mkdir "$blkio/benchwatch-bench.$$" 2>/dev/null; then
        CAP_CGROUP=$blkio/benchwatch-bench.$$
        echo "$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ') $CAP" \
                > "$CAP_CGROUP/blkio.throttle.read_iops_device" || exit 1
fi
# disklatfix's and seqdiskfix's device: the slowdisk fixture over the test
# file, a loop device over what it serves
if { want disklatfix || want seqdiskfix; } && [ "$(id -u)" = 0 ] &&
   command -v fusermount3 > /dev/null &&
   "${CC:-cc}" -O2 -o "$DIR/slowdisk" "$here/../../tests/integration/lib/slowdisk/slowdisk.c" \
        $(pkg-config --cflags --libs fuse3 2>/dev/null) 2>/dev/null && mkdir -p "$DIR/fix"; then
        "$DIR/slowdisk" "$DIR/disk.dat" "$DIR/fix" -f --delay-us="$FIX_US" 2> /dev/null &
        FIX_PID=$!
        for _ in $(seq 50); do [ -e "$DIR/fix/disk" ] && break; sleep 0.1; done
        FIX_LOOP=$(losetup --find --show --read-only --direct-io=on "$DIR/fix/disk" 2>/dev/null)
fi
if { want http && [ -z "$HTTP_URL" ]; } || want seed; then
        . "$here/../../tests/integration/lib/http_servers.sh"
        if http_servers_start > "$DIR/http.log" 2>&1; then
                # nginx's default welcome page is 612 bytes: the issue's page
                head -c 612 /dev/zero | tr '\0' x > "$HTTP_DIR/www/page612.html"
                [ -n "$HTTP_URL" ] || HTTP_URL=http://127.0.0.1:$HTTP_FRONT_PORT/page612.html
                SEED_URL=http://127.0.0.1:$HTTP_LB_PORT/index.html
                pin_server $HTTP_PIDS
                ab -q -i -c 50 -n 2000 "$SEED_URL" > /dev/null 2>&1 # the squids' caches
        fi
fi
if want mysql; then
        . "$here/../../tests/integration/lib/mariadb.sh"
        if mariadb_start > "$DIR/mariadb.log" 2>&1 && pin_server "$MARIADB_PID" &&
           "$BW" -c "$CONF" run mysql host=127.0.0.1 port="$MARIADB_PORT" \
                user="$MARIADB_USER" password_file="$MARIADB_PWFILE" database="$MARIADB_DB" \
                tables=4 table_size=10000 transactions=1 > /dev/null 2>&1; then
                export MYSQL_PORT=$MARIADB_PORT MYSQL_USER=$MARIADB_USER \
                        MYSQL_PWFILE=$MARIADB_PWFILE MYSQL_DB=$MARIADB_DB
        fi
fi
trap cleanup EXIT # the servers' helpers set their own
python3 "$here/all.py"
