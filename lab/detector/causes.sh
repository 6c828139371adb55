#!/bin/bash
# lab/detector/causes.sh — the causes benchwatch names, measured by
# injecting them: each injection starts a real daemon (1-second intervals,
# a reference of 10 runs), lets it learn, injects a real cause, waits for
# the regression, then prints beside each other the cause injected, the
# verdict, the cause the run carried (benchwatch_regression_cause) and the
# evidence sentence of the daemon's verdict line.  The probes run at nice
# 0 under SCHED_OTHER (cpu_policy = other), as `benchwatch run` measures:
# on a shared host, other work at nice 0 leaves few runs at the shipped
# nice 10 and SCHED_IDLE counted, and the references would take long.
#
# Injections (all by default, in this order):
#   quota      a CPU quota (cfs_quota_us 40000/100000) on the daemon's cgroup,
#              a cpu probe: cpu_quota
#   neighbour  busy loops at the probe's priority (nice 0, SCHED_OTHER), two
#              pinned to every CPU, runs counted whatever they waited
#              (max_run_delay = 1): neighbour
#   interrupts a cpu probe counted by the shipped rule (max_run_delay 10%);
#              then a 0.3-ms burst at nice -10 every 20 ms on every CPU at
#              once (causes/bursts.py, one pinned to each), as a service
#              of higher priority waking often: the probe's slowest 1%
#              of events are held up, its median one is not, and its runs
#              wait about 1% of their time: neighbour (a p99 verdict; 0.5
#              ms bursts, 2%, once lowered the rate 5% too)
#   slowdisk   a disklat probe on a loop device over the slowdisk FUSE
#              fixture (tests/integration/lib/slowdisk), each read made twice
#              as long: disk_device or component (the disk itself); a cpu
#              probe runs beside it, which the component's evidence names
#              as having run since in no regression (blkio's probe runs
#              alone: "no probe of another resource ran since")
#   blkio      a disk probe (randread 16k, iodepth 4) with a blkio throttle
#              of half its reference IOPS on the disk under its file, runs
#              counted whatever they waited (max_run_delay = 1: on a busy
#              host its many wake-ups wait for a CPU): the disk
#              (disk_device, disk_queue or component), not the host
#   memory     a memory-latency probe over 256 MiB with swap (zram); its
#              cgroup's memory limit lowered to 240 MiB once each run has
#              begun and lifted when it ends, as when another process of
#              the cgroup grows mid-run (the probe looks at its room when
#              it starts, and since b5f5198 refuses a buffer the room does
#              not allow: a limit set for good leaves no run); runs counted
#              whatever they waited (max_run_delay = 1: on a busy host the
#              paging probe's wake-ups wait for a CPU, and few of its runs
#              would count): memory_pressure
#   host       the built-in probes (cpu, threads, memory dram, memory
#              latency; 256 MiB working sets) under one CPU quota: every
#              regressed probe named host, none ever component
#   heat, clock, edac, inventory, kmsg
#              fixtures: the counters read under BENCHWATCH_EVIDENCE_ROOT (a
#              copy of tests/data/evidence/metal) moved after the injection
#              point (thermal throttle counts rising; scaling_cur_freq and
#              scaling_max_freq capped; EDAC ce_count rising; MemTotal 8 GiB
#              less; NVMe I/O errors in the kernel log), beside a real
#              slowdown that makes the figure worse (disklat on the slow
#              disk, reads 2x): heat, clock, memory_errors, inventory,
#              kernel_log
#   nvme       NVMe media errors: not producible here (said why)
#
# Usage: lab/detector/causes.sh [--keep] [INJECTION ...]
#   env: BENCHWATCH (./benchwatch of the tree), BENCHWATCH_PLUGIN_DIR
#   (plugins/.libs of the tree), BENCH_DIR (/var/tmp: test files, the swap
#   file; ext4 or another file system with O_DIRECT and swap files),
#   SLOWDISK (the fixture's binary: make tests/integration/lib/slowdisk/slowdisk),
#   SWAP (zram; file: a swap file), SQUEEZE_MIB and SQUEEZE_AT_MIB (the
#   memory injection's limit, 240, and when it is set, 160), KEEP=1 keeps
#   the work directory.
# Needs root (cgroup v1 cpu, blkio and memory, loop devices, swapon, FUSE).
# One daemon at a time; 15 to 30 minutes in all (a busy host leaves fewer
# runs of the CPU-bound probes counted, and their references take longer).
# A verdict's runs are counted from the first run begun after the
# injection (one under way then is not counted, though it may already add
# evidence).  Exit 0 when the table meets its targets (table.py), 1 when
# not, 2 on bad usage.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCHWATCH=${BENCHWATCH:-$TOP/benchwatch}
[ -z "${BENCHWATCH_PLUGIN_DIR:-}" ] && [ -d "$TOP/plugins/.libs" ] &&
        export BENCHWATCH_PLUGIN_DIR=$TOP/plugins/.libs
SLOWDISK=${SLOWDISK:-$TOP/tests/integration/lib/slowdisk/slowdisk}
PYDIR=$TOP/lab/detector/causes
ALL="quota neighbour interrupts slowdisk blkio memory host heat clock edac inventory kmsg nvme"
usage() { sed -n '/^# Usage:/,/^# Needs root/s/^# \{0,1\}//p' "$0"; }
LIST=""
while [ $# -gt 0 ]; do
        case $1 in
        --keep) KEEP=1 ;;
        -h|--help) usage; exit 0 ;;
        *)
                [[ " $ALL " == *" $1 "* ]] ||
                        { echo "bench: unknown injection '$1' ($ALL)" >&2; usage >&2; exit 2; }
                LIST="$LIST $1" ;;
        esac
        shift
done
LIST=${LIST:-$ALL}
[ "$(id -u)" = 0 ] || { echo "bench: needs root (cgroups, loop devices, swap)" >&2; exit 1; }
for c in python3 taskset losetup mkswap swapon "$BENCHWATCH"; do
        command -v "$c" > /dev/null || { echo "bench: $c not found" >&2; exit 1; }
done
mount_of() { awk -v c="$1" '$3 == "cgroup" && $4 ~ "(^|,)" c "(,|$)" { print $2; exit }' /proc/mounts; }
CPUCG=$(mount_of cpu) BLKIO=$(mount_of blkio) MEMCG=$(mount_of memory)
[ -n "$CPUCG" ] || { echo "bench: needs the cgroup v1 cpu controller" >&2; exit 1; }
WORK=$(mktemp -d "${BENCH_DIR:-/var/tmp}/bw-causes.XXXXXX") || exit 1
ROWS=$WORK/rows

DPID=""       # the daemon
CGROUPS=""    # cgroups made here
PIDS=""       # busy loops and fixture movers
SLOW_LOOP="" SLOW_PID="" SLOW_MNT=""
SWAPFILE="" ZRAM=""
cleanup() {
        stop_daemon
        stop_pids
        slow_down
        local g p i
        for g in $CGROUPS; do
                [ -f "$g/cpu.cfs_quota_us" ] && echo -1 > "$g/cpu.cfs_quota_us"
                [ -f "$g/memory.limit_in_bytes" ] && echo -1 > "$g/memory.limit_in_bytes"
                # left-overs can only be the daemon's probe children
                for p in $(cat "$g/cgroup.procs" 2> /dev/null); do kill "$p" 2> /dev/null; done
                for i in $(seq 20); do
                        [ -z "$(cat "$g/cgroup.procs" 2> /dev/null)" ] && break
                        sleep 0.2
                done
                rmdir "$g" 2> /dev/null || echo "bench: cannot remove cgroup $g" >&2
        done
        CGROUPS=""
        swap_down
        if [ -n "${KEEP:-}" ]; then echo "bench: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- the daemon -------------------------------------------------------------------

# conf DIR [DAEMON-LINES] [REGRESSION-LINES] PROBE-SECTIONS: DIR/bw.conf
conf() {
        cat > "$1/bw.conf" <<CONF
[daemon]
state_dir = $1/state
cache_dir = $1/cache
interval = 1s
timeout = 90s
splay = 0
first_splay = 0
duty_cycle = 1
yield = no
max_load = 0
max_psi_cpu = 0
max_psi_io = 0
max_psi_memory = 0
nice = 0
cpu_policy = other
$2

[regression]
reference_runs = 10
min_runs = 10
$3

[journal]
enabled = no

[textfile]
path = $1/bw.prom

$4
CONF
}
# probe NAME PLUGIN DURATION [LINES]: a section, its interval a second more
probe() {
        printf '[probe %s]\nplugin = %s\nduration = %ss\ninterval = %ss\n%s\n\n' "$1" "$2" "$3" \
                "$(awk -v d="$3" 'BEGIN { print d + 1 }')" "${4:-}"
}
# start_daemon DIR CGROUP...: the daemon inside the cgroups from its start
# (evidence finds its cgroup then); ROOT: BENCHWATCH_EVIDENCE_ROOT
start_daemon() {
        local dir=$1 g
        shift
        (
                for g in "$@"; do echo "$BASHPID" > "$g/cgroup.procs" || exit 3; done
                [ -n "${ROOT:-}" ] && export BENCHWATCH_EVIDENCE_ROOT=$ROOT
                exec "$BENCHWATCH" -c "$dir/bw.conf" daemon
        ) > "$dir/daemon.out" 2> "$dir/daemon.err" &
        DPID=$!
}
stop_daemon() {
        [ -n "$DPID" ] || return 0
        kill "$DPID" 2> /dev/null
        wait "$DPID" 2> /dev/null
        DPID=""
}
stop_pids() {
        local p
        for p in $PIDS; do kill "$p" 2> /dev/null; done
        for p in $PIDS; do wait "$p" 2> /dev/null; done
        PIDS=""
}
make_cgroup() { # HIERARCHY NAME: a new cgroup, its path in G (not in a
        # subshell: CGROUPS must keep it for the cleanup)
        G=$1/bw-causes-$$-$2
        mkdir "$G" || return 1
        CGROUPS="$CGROUPS $G"
}

# ---- one injection --------------------------------------------------------------------

# inject NAME KIND EXPECTED HOST LEARN-TIMEOUT MAXRUNS APPLY LIFT PROBE...:
# the daemon (started by the caller in $DIR) learns, APPLY injects, the runs
# are followed until each probe regressed for 3 runs (or MAXRUNS without),
# LIFT lifts it; the row goes to $ROWS
inject() {
        local name=$1 kind=$2 expected=$3 host=$4 tmo=$5 maxruns=$6 apply=$7 lift=$8 since offset
        shift 8
        if ! python3 "$PYDIR/follow.py" learn "$DIR/bw.prom" "$tmo" "$@"; then
                tail -n 3 "$DIR/daemon.err" | sed 's/^/   daemon: /'
                printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$expected" "$host" "$DIR/none" >> "$ROWS"
                return 1
        fi
        $apply || { echo "   cannot inject"; return 1; }
        since=$EPOCHREALTIME
        offset=$(stat -c %s "$DIR/daemon.err")
        python3 "$PYDIR/follow.py" regress "$DIR/bw.prom" "$since" "$maxruns" 3 \
                "$DIR/daemon.err" "$offset" "$DIR/result.json" "$@"
        $lift
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$expected" "$host" "$DIR/result.json" >> "$ROWS"
        python3 -c '
import json, sys
for p in json.load(open(sys.argv[1])):
    print("   %s: %d runs after the injection, regression %s; cause %s" % (p["probe"], p["runs"],
          "entered at run %d" % p["entered"] if p["entered"] else "not entered",
          " -> ".join(p["labels"][:1] + p["labels"][-1:]) or "-"))' "$DIR/result.json"
}
begin() { # NAME TEXT...
        local name=$1
        shift
        DIR=$WORK/$name
        mkdir -p "$DIR"
        echo
        echo "== $name: $* ($(date +%T))"
}
end() { stop_daemon; stop_pids; }
absent() { # NAME EXPECTED REASON
        printf '%s\tabsent\t%s\t0\t%s\n' "$1" "$2" "$3" >> "$ROWS"
        echo "   not producible here: $3"
}

# A cpu probe and its cgroup with a quota to set: $G
quota_on() { echo "${QUOTA:-40000}" > "$G/cpu.cfs_quota_us" && echo "   quota: ${QUOTA:-40000}/100000 us"; }
quota_off() { echo -1 > "$G/cpu.cfs_quota_us"; }
cpu_cgroup() { # NAME
        make_cgroup "$CPUCG" "$1" || return 1
        echo 100000 > "$G/cpu.cfs_period_us"
}

inj_quota() {
        begin quota "a cpu probe (0.5 s runs); then cpu.cfs_quota_us 40000/100000 on its cgroup"
        cpu_cgroup quota || return 1
        conf "$DIR" "" "" "$(probe cpu cpu 0.5)"
        start_daemon "$DIR" "$G"
        inject quota real cpu_quota 0 300 20 quota_on quota_off cpu
        end
}

busy_on() {
        local cpu k
        for cpu in $(seq 0 $(($(nproc) - 1))); do
                for k in 1 2; do
                        taskset -c "$cpu" nice -n 0 bash -c 'while :; do :; done' &
                        PIDS="$PIDS $!"
                done
        done
        echo "   neighbour: 2 busy loops at nice 0 pinned to each of $(nproc) CPUs (pids$PIDS)"
}
inj_neighbour() {
        begin neighbour "a cpu probe, every run counted; then busy loops at its priority"
        conf "$DIR" "" "max_run_delay = 1" "$(probe cpu cpu 0.5)"
        start_daemon "$DIR"
        inject neighbour real neighbour 0 300 20 busy_on stop_pids cpu
        end
}

bursts_on() {
        local cpu
        for cpu in $(seq 0 $(($(nproc) - 1))); do
                taskset -c "$cpu" nice -n -10 python3 "$PYDIR/bursts.py" 0.0003 0.02 &
                PIDS="$PIDS $!"
        done
        echo "   interrupts: a 0.3-ms burst at nice -10 every 20 ms on each of $(nproc) CPUs" \
             "at once (pids$PIDS)"
}
inj_interrupts() {
        begin interrupts "a cpu probe, the shipped counting rule; then short bursts on every CPU"
        conf "$DIR" "" "" "$(probe cpu cpu 0.5)"
        start_daemon "$DIR"
        inject interrupts real neighbour 0 300 20 bursts_on stop_pids cpu
        end
}

# the slowdisk fixture on DIR/mnt over a 64 MiB file, 1 ms a request, and a
# loop device with direct I/O over it (as detector-real.sh's)
slow_up() {
        [ -x "$SLOWDISK" ] || { SLOW_WHY="no $SLOWDISK (make tests/integration/lib/slowdisk/slowdisk)"; return 1; }
        SLOW_MNT=$DIR/mnt
        mkdir -p "$SLOW_MNT"
        head -c 64M /dev/urandom > "$DIR/backing" || return 1
        "$SLOWDISK" "$DIR/backing" "$SLOW_MNT" -f --delay-us=1000 2> "$DIR/slowdisk.err" &
        SLOW_PID=$!
        local i
        for i in $(seq 50); do [ -e "$SLOW_MNT/disk" ] && break; sleep 0.1; done
        [ -e "$SLOW_MNT/disk" ] || { SLOW_WHY="cannot mount: $(cat "$DIR/slowdisk.err")"; return 1; }
        SLOW_LOOP=$(losetup --direct-io=on -f --show "$SLOW_MNT/disk") ||
                { SLOW_WHY="losetup failed"; return 1; }
}
slow_down() {
        [ -n "$SLOW_LOOP" ] && losetup -d "$SLOW_LOOP"
        [ -n "$SLOW_MNT" ] && mountpoint -q "$SLOW_MNT" && fusermount3 -u "$SLOW_MNT"
        [ -n "$SLOW_PID" ] && { kill "$SLOW_PID" 2> /dev/null; wait "$SLOW_PID" 2> /dev/null; }
        SLOW_LOOP="" SLOW_PID="" SLOW_MNT=""
}
slow_2x() {
        local ref delay
        ref=$(python3 "$PYDIR/follow.py" ref "$DIR/bw.prom" lat benchwatch_disklat_latency_seconds) ||
                return 1
        delay=$(awk -v r="$ref" 'BEGIN { printf "%d", 1000 + r * 1e6 }')
        echo "$delay" > "$SLOW_MNT/delay_us" && echo "   delay: $delay us a request (was 1000; reference p50 $ref s)"
}
slow_1x() { echo 1000 > "$SLOW_MNT/delay_us"; }
inj_slowdisk() {
        begin slowdisk "disklat (4k O_DIRECT reads, 50/s, 2 s runs) on a loop device over" \
                "the slow FUSE disk, a cpu probe beside it; then reads 2x"
        if ! slow_up; then absent slowdisk disk_device,component "$SLOW_WHY"; slow_down; return 0; fi
        conf "$DIR" "" "" "$(probe lat disklat 2 "path = $SLOW_LOOP"$'\nrate = 50')
$(probe cpu cpu 0.5)"
        start_daemon "$DIR"
        # the cpu probe's runs tell the disk from the host once it is judged
        python3 "$PYDIR/follow.py" learn "$DIR/bw.prom" 300 cpu ||
                echo "   the cpu probe learnt no reference: the disk's verdict has no witness"
        inject slowdisk real disk_device,component 0 300 20 slow_2x slow_1x lat
        end
        slow_down
}

iops_half() {
        local ref
        ref=$(python3 "$PYDIR/follow.py" ref "$DIR/bw.prom" disk benchwatch_disk_iops) || return 1
        IOPS=$(awk -v r="$ref" 'BEGIN { printf "%d", r / 2 }')
        echo "$DEV $IOPS" > "$G/blkio.throttle.read_iops_device" &&
                echo "   blkio: $DEV read_iops $IOPS (half the reference $ref)"
}
iops_free() { echo "$DEV 0" > "$G/blkio.throttle.read_iops_device"; }
inj_blkio() {
        begin blkio "a disk probe (randread 16k, iodepth 4, 2 s runs); then read IOPS throttled to half (blkio)"
        [ -n "$BLKIO" ] || { absent blkio disk_device,disk_queue,component "no cgroup v1 blkio"; return 0; }
        DEV=$(stat -c '%Hd:%Ld' "$DIR")
        [ -e "/sys/dev/block/$DEV/partition" ] && DEV=$(cat "/sys/dev/block/$DEV/../dev")
        make_cgroup "$BLKIO" blkio || return 1
        # every run counts: each of the probe's thousands of completions a
        # second wakes its thread, which waits for a CPU on a busy host
        # (27-51% of the run on this shared VM: 2 runs of 92 counted)
        conf "$DIR" "" "max_run_delay = 1" \
                "$(probe disk disk 2 "path = $DIR/disk.dat"$'\nsize = 64M\nmode = randread\nblock_size = 16k\niodepth = 4')"
        start_daemon "$DIR" "$G"
        inject blkio real disk_device,disk_queue,component 0 300 20 iops_half iops_free disk
        end
}

# squeeze: while a probe run (a child of the daemon, in G) is under way,
# G's memory limit is SQUEEZE_MIB (240 MiB), from when the run has faulted
# in SQUEEZE_AT_MIB (160 MiB) of its buffer (its room looked at before it
# allocated) until it ends; between runs, none.  A v1 limit under the
# usage is refused (EBUSY) when the pages reclaim frees are faulted back
# first, as a probe's hot buffer is (the limit reached only as the run
# freed its buffer, 5 December): set while the usage is under it, it
# holds, and the rest of the buffer goes to swap as it is filled.  The
# loops use builtins only, every 2 ms: a fork or a 50-ms sleep is as slow
# as 200 MiB of faults in huge pages.  A working set over its limit, hot
# all over, is also what the cgroup's OOM killer ends: some runs fail,
# "killed, most likely by the kernel's OOM killer" (2-15 of about 20 on
# 5 December, at every SQUEEZE_AT_MIB tried, with THP and without).
# squeeze.log: when each run's limit was set, at what usage, and when the
# run ended
running() {
        local p
        while read -r p; do [ "$p" != "$DPID" ] && return 0; done < "$G/cgroup.procs"
        return 1
}
squeeze() {
        local lim=$G/memory.limit_in_bytes use=$G/memory.usage_in_bytes start now nap
        exec {nap}<> <(:) # read -t on it: a sleep without a fork
        while :; do
                if running; then
                        read -r start < "$use"
                        now=$start
                        while [ "$now" -lt $((start + (${SQUEEZE_AT_MIB:-160} << 20))) ] &&
                              running; do
                                read -rt 0.002 -u "$nap"
                                read -r now < "$use"
                        done
                        running || continue
                        echo $((${SQUEEZE_MIB:-240} << 20)) > "$lim" &&
                                echo "$EPOCHREALTIME limit set at $now bytes"
                        while running; do read -rt 0.05 -u "$nap"; done
                        echo -1 > "$lim"
                        echo "$EPOCHREALTIME run ended"
                fi
                read -rt 0.002 -u "$nap"
        done
}
mem_limit() {
        squeeze > "$DIR/squeeze.log" 2>&1 &
        PIDS="$PIDS $!"
        echo "   memory limit: ${SQUEEZE_MIB:-240} MiB (the buffer is 256 MiB) while each run is" \
             "under way, from ${SQUEEZE_AT_MIB:-160} MiB in (pid $!)"
}
mem_free() { stop_pids; echo -1 > "$G/memory.limit_in_bytes"; }
# swap_up: 1 GiB of swap, compressed in memory (zram, a device of its own)
# where the kernel has it (SWAP=file: a file in DIR instead); what it is in
# SWAP_WHAT, or why none in SWAP_WHAT and 1.  A file on this VM's disk
# turns the paging into disk I/O, which the VM shows as steal: the cause
# named was the hypervisor's in 1 of 3 runs with one (5 December).
swap_up() {
        if [ "${SWAP:-zram}" = zram ] && [ -e /sys/class/zram-control/hot_add ]; then
                ZRAM=$(cat /sys/class/zram-control/hot_add)
                if [ -n "$ZRAM" ] && echo 1G > "/sys/block/zram$ZRAM/disksize" &&
                   mkswap -q "/dev/zram$ZRAM" && swapon "/dev/zram$ZRAM"; then
                        SWAP_WHAT="1 GiB zram /dev/zram$ZRAM"
                        return 0
                fi
                swap_down
        fi
        SWAPFILE=$DIR/swap
        if ! SWAP_WHAT=$( (fallocate -l 1G "$SWAPFILE" && chmod 600 "$SWAPFILE" &&
                           mkswap -q "$SWAPFILE" && swapon "$SWAPFILE") 2>&1); then
                rm -f "$SWAPFILE"
                SWAPFILE=""
                SWAP_WHAT="no swap file: $SWAP_WHAT"
                return 1
        fi
        SWAP_WHAT="1 GiB file $SWAPFILE"
}
swap_down() {
        if [ -n "$ZRAM" ]; then
                if ! grep -q "^/dev/zram$ZRAM " /proc/swaps || swapoff "/dev/zram$ZRAM"; then
                        echo 1 > "/sys/block/zram$ZRAM/reset" &&
                                echo "$ZRAM" > /sys/class/zram-control/hot_remove &&
                                ZRAM=""
                fi
                [ -z "$ZRAM" ] || echo "bench: cannot remove /dev/zram$ZRAM (swapoff, reset)" >&2
                ZRAM=""
        fi
        if [ -n "$SWAPFILE" ]; then
                swapoff "$SWAPFILE" 2> /dev/null
                rm -f "$SWAPFILE"
                SWAPFILE=""
        fi
}
inj_memory() {
        local what="a memory-latency probe (256 MiB, 1 s runs) with swap"
        begin memory "$what; then a 240 MiB memory limit mid-run"
        [ -n "$MEMCG" ] || { absent memory memory_pressure "no cgroup v1 memory controller"; return 0; }
        swap_up || { absent memory memory_pressure "$SWAP_WHAT"; return 0; }
        echo "   swap: $SWAP_WHAT"
        make_cgroup "$MEMCG" memory || return 1
        conf "$DIR" "" "max_run_delay = 1" "$(probe memory-latency memory 1 $'mode = latency\nsize = 256M')"
        start_daemon "$DIR" "$G"
        inject memory real memory_pressure 0 300 20 mem_limit mem_free memory-latency
        end
        swap_down
}

inj_host() {
        begin host "the built-in probes (cpu, threads, memory dram, memory latency) under one CPU quota"
        cpu_cgroup host || return 1
        conf "$DIR" "" "" "$(probe cpu cpu 1; probe threads threads 1
                              probe memory memory 2 $'mode = dram\narray_size = 256M'
                              probe memory-latency memory 1 $'mode = latency\nsize = 256M')"
        start_daemon "$DIR" "$G"
        inject host real host 1 600 15 quota_on quota_off cpu threads memory memory-latency
        end
}

# ---- fixtures: the counters a VM has not, moved after the injection point ----------

# fixture NAME EXPECTED TEXT MOVE: a disklat probe on the slow disk whose
# evidence is read under a copy of tests/data/evidence/metal; the injection
# makes its reads twice as long (a real slowdown: the figure must get worse
# for a verdict) and MOVE changes the copy's counters (a background loop in
# PIDS, or once).  Not a CPU quota: the copy's cgroup would not show it,
# and the time it holds the probe runnable would exclude the runs
fixture() {
        local name=$1 expected=$2 move=$4
        begin "$name" "fixture: disklat on the slow disk, reads 2x, beside a tree where $3"
        if ! slow_up; then absent "$name" "$expected" "$SLOW_WHY"; slow_down; return 0; fi
        ROOT=$DIR/root
        cp -a "$TOP/tests/data/evidence/metal" "$ROOT" || return 1
        conf "$DIR" "" "" "$(probe lat disklat 2 "path = $SLOW_LOOP"$'\nrate = 50')"
        start_daemon "$DIR"
        fixture_on() { slow_2x && $move; }
        fixture_off() { slow_1x; stop_pids; }
        inject "$name" fixture "$expected" 0 300 20 fixture_on fixture_off lat
        end
        slow_down
        ROOT=""
}
# mover FILE...: each file's number goes up by one every 0.2 s, written in
# place (the daemon keeps its counter files open, as sysfs' are never
# replaced: a new file under the name would not be read)
mover() {
        (
                while :; do
                        for f in "$@"; do echo $(($(cat "$f") + 1)) > "$f"; done
                        sleep 0.2
                done
        ) &
        PIDS="$PIDS $!"
}
move_heat() {
        local c=$ROOT/sys/devices/system/cpu/cpu0/thermal_throttle
        mover "$c/core_throttle_count" "$c/package_throttle_count"
        echo "   cpu0's core and package thermal throttle counts rise by 5 a second"
}
move_clock() {
        local f
        for f in "$ROOT"/sys/devices/system/cpu/cpu*/cpufreq; do
                echo 1400000 > "$f/scaling_cur_freq"
                echo 1500000 > "$f/scaling_max_freq"
        done
        echo "   scaling_cur_freq 2.9 -> 1.4 GHz, scaling_max_freq 3.5 -> 1.5 GHz on every CPU"
}
move_edac() {
        mover "$ROOT/sys/devices/system/edac/mc/mc0/ce_count"
        echo "   mc0's corrected error count rises by 5 a second"
}
move_inventory() {
        local m
        m=$(sed 's/^MemTotal: .*/MemTotal:       24379392 kB/' "$ROOT/proc/meminfo")
        printf '%s\n' "$m" > "$ROOT/proc/meminfo" # in place, as mover's
        echo "   MemTotal 31.2 -> 23.2 GiB (a DIMM gone)"
}
move_kmsg() {
        (
                local seq=2000 us=9000000
                while :; do
                        printf '3,%d,%d,-;nvme0n1: I/O Cmd(0x2) @ LBA 2048, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR\n' \
                                "$seq" "$us" >> "$ROOT/dev/kmsg"
                        printf '3,%d,%d,-;critical medium error, dev nvme0n1, sector 2048 op 0x0:(READ)\n' \
                                $((seq + 1)) $((us + 10)) >> "$ROOT/dev/kmsg"
                        seq=$((seq + 2)) us=$((us + 500000))
                        sleep 0.5
                done
        ) &
        PIDS="$PIDS $!"
        echo "   the kernel log gets an NVMe read error and a medium error every 0.5 s"
}
inj_heat() { fixture heat heat "thermal throttle counts rise" move_heat; }
inj_clock() { fixture clock clock "the clock is capped" move_clock; }
inj_edac() { fixture edac memory_errors "EDAC corrected errors rise" move_edac; }
inj_inventory() { fixture inventory inventory "MemTotal drops" move_inventory; }
inj_kmsg() { fixture kmsg kernel_log "the kernel log reports NVMe I/O errors" move_kmsg; }
inj_nvme() {
        begin nvme "NVMe media errors (the SMART log)"
        absent nvme "media errors" "the health log is an NVMe admin ioctl on ROOT/dev/nvmeN, which a file cannot answer (ENOTTY) and this kernel has no CUSE to fake; the figure is kept only for a disk probe on that NVMe namespace (this VM's disk is virtio, vda); and no cause rule reads it (cause_rules.c): shown instead through the kernel log (kmsg)"
}

echo "benchwatch causes by injection: $("$BENCHWATCH" --version 2>&1 | head -n 1); $(nproc) CPUs;" \
     "$(uname -r); work dir $WORK"
: > "$ROWS"
for inj in $LIST; do
        "inj_$inj" || echo "   $inj: stopped early (see above)"
        end
        for g in $CGROUPS; do rmdir "$g" 2> /dev/null; done
        CGROUPS=$(for g in $CGROUPS; do [ -d "$g" ] && echo "$g"; done)
done
echo
python3 "$PYDIR/table.py" "$ROWS"
