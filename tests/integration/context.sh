#!/bin/bash
# What a figure was measured on, and what changed since its reference.
#
# A figure's labels are the parameters that apply to its run: no
# rwmix_read or fsync on a randread.
# benchwatch_disk_info names the physical device behind a probe's path as
# lsblk and node_exporter name it (node_disk_info{device} joins with it):
# a file on the root filesystem, a file in an ext4 image mounted on a loop
# device (the device holding the image, not loopN), and tmpfs said plainly
# to have none.  The daemon's textfile carries benchwatch_build_info and
# benchwatch_host_info (no probe label; values as the test reads them from
# /proc, /sys and os-release).  A reference learnt on another kernel and
# I/O scheduler (its baseline file rewritten as an older daemon would have
# left it) gives one journal event with the items before and after as
# fields, and `baseline show` says what differs.
. "$top_srcdir/tests/integration/lib/journald.sh"
. "$top_srcdir/tests/integration/lib/lib.sh"
LOOP="" MNT="$T/mnt"
trap 'mountpoint -q "$MNT" && umount "$MNT"; [ -n "$LOOP" ] && losetup -d "$LOOP"; cleanup_test
      [ -n "$JPID" ] && kill "$JPID" 2>/dev/null && wait "$JPID" 2>/dev/null' EXIT
[ "$(id -u)" = 0 ] || skip "needs root for loop devices and mounts"
for c in losetup mkfs.ext4 lsblk prometheus-node-exporter curl; do
        command -v $c > /dev/null || skip "no $c"
done

# The whole disk lsblk says holds the filesystem of $1.
disk_of() {
        local mm name pk
        mm=$(stat -c '%Hd:%Ld' "$1")
        read -r name pk < <(lsblk -rno MAJ:MIN,NAME,PKNAME | awk -v m="$mm" '$1 == m {print $2, $3}')
        echo "${pk:-$name}"
}
info_of() { # the benchwatch_disk_info line of a run on path $1
        bw run disk path="$1" size=16M duration=0.2s direct="${2:-yes}" --format=prometheus |
                grep '^benchwatch_disk_info{'
}
label() { sed -n "s/.*[{,]$1=\"\([^\"]*\)\".*/\1/p"; }

root_disk=$(disk_of "$T")
[ -n "$root_disk" ] || skip "lsblk does not know the device of $T"
line=$(info_of "$T/f.dat") || fail "no benchwatch_disk_info on $T"
# the figures' labels: only parameters that apply to the mode
bw run disk path="$T/f.dat" size=16M duration=0.2s --format=prometheus | grep '^benchwatch_disk_iops{' > "$T/iops"
grep -q 'mode="randread"' "$T/iops" && ! grep -qE 'rwmix_read=|fsync=' "$T/iops" || fail "randread labels: $(cat "$T/iops")"
bw run disk path="$T/f.dat" size=16M duration=0.2s mode=randrw --format=prometheus | grep '^benchwatch_disk_iops{' > "$T/iops"
grep -q 'rwmix_read="50",fsync="0"' "$T/iops" || fail "randrw labels: $(cat "$T/iops")"
[ "$(label device <<< "$line")" = "$root_disk" ] || fail "device: $line, lsblk says $root_disk"
q=/sys/block/$root_disk/queue
[ "$(label rotational <<< "$line")" = "$(cat $q/rotational)" ] || fail "rotational: $line"
[ "$(label scheduler <<< "$line")" = "$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler)" ] || fail "scheduler: $line"

# through a loop device to the disk holding its image
truncate -s 64M "$T/img"
mkfs.ext4 -q -F "$T/img" || fail "mkfs"
LOOP=$(losetup --find --show "$T/img") || skip "no free loop device"
mkdir -p "$MNT" && mount "$LOOP" "$MNT" || fail "mount $LOOP"
line=$(info_of "$MNT/f.dat") || fail "no benchwatch_disk_info on the loop mount"
[ "$(label device <<< "$line")" = "$root_disk" ] || fail "through $LOOP: $line, want $root_disk"
bw cleanup disk path="$MNT/f.dat" > /dev/null
umount "$MNT"

# tmpfs: said plainly
shm=$(mktemp -d /dev/shm/bwctx.XXXXXX)
line=$(info_of "$shm/f.dat" no); rm -rf "$shm"
[ "$(label device <<< "$line")" = unresolved ] && label reason <<< "$line" | grep -q tmpfs ||
        fail "tmpfs: $line"

# The daemon: info metrics, the reference's context
test_daemon_section "$T" > "$T/bw.conf"
cat >> "$T/bw.conf" <<CONF
[regression]
reference_runs = 4
# a shared test machine's steal must not keep the reference from pinning
max_steal = 1

[journal]
enabled = no

[textfile]
path = $T/textfile/bw.prom

[probe d]
plugin = disk
size = 16M
duration = 0.2s
interval = 1s
CONF
mkdir -p "$T/textfile"
start_daemon() {
        JOURNAL_STREAM=0:0 "$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/daemon.out" 2>> "$T/daemon.err" &
        dpid=$!
        BW_PIDS="$dpid"
}
stop_daemon() { kill "$dpid"; wait "$dpid"; BW_PIDS=""; }
prom() { grep "^$1" "$T/textfile/bw.prom" 2>/dev/null; }
start_daemon
wait_for 60 sh -c "grep -qs '^benchwatch_baseline{probe=\"d\"' '$T/textfile/bw.prom'" ||
        fail "no reference: $(tail -3 "$T/daemon.err")"
[ "$(prom benchwatch_build_info | wc -l)" = 1 ] || fail "build_info: $(prom benchwatch_build_info)"
prom benchwatch_build_info | grep -q "^benchwatch_build_info{version=\"$("$BENCHWATCH" --version | awk '{print $2}')\",revision=\"[0-9a-z]*\"} 1$" ||
        fail "build_info: $(prom benchwatch_build_info)"
prom 'benchwatch_host_info{' > "$T/host"
python3 - "$T/host" <<'PY' || fail "host_info: $(cat "$T/host")"
import os, re, sys
line = open(sys.argv[1]).read()
assert line.count("\n") == 1 and "probe=" not in line, line
got = dict(re.findall(r'(\w+)="([^"]*)"', line))
cpu = open("/proc/cpuinfo").read()
def field(k):
    m = re.search(r"^%s\s*: ?(.*)$" % k, cpu, re.M)
    return m.group(1) if m else ""
def sysattr(n):
    try: return open("/sys/class/dmi/id/" + n).read().strip()
    except OSError: return ""
osr = dict(l.split("=", 1) for l in open("/etc/os-release").read().split("\n") if "=" in l)
want = {"cpu_model": field("model name"), "microcode": field("microcode"),
        "kernel_release": os.uname().release, "os_version_id": osr.get("VERSION_ID", "").strip('"'),
        "product_name": sysattr("product_name"), "bios_version": sysattr("bios_version")}
assert got == want, (got, want)
PY
prom 'benchwatch_disk_info{probe="d"' | grep -q "device=\"$root_disk\"" || fail "disk_info: $(prom benchwatch_disk_info)"

# node_exporter's node_disk_info names the same device: the PromQL join holds
prometheus-node-exporter --web.listen-address=127.0.0.1:19111 --collector.disable-defaults \
        --collector.diskstats --collector.textfile --collector.textfile.directory="$T/textfile" \
        > "$T/ne.log" 2>&1 &
ne=$!
BW_PIDS="$BW_PIDS $ne"
wait_for 20 sh -c "curl -sf http://127.0.0.1:19111/metrics > '$T/ne.txt'" || fail "node_exporter: $(cat "$T/ne.log")"
grep -q "^node_disk_info{.*device=\"$root_disk\"" "$T/ne.txt" || fail "node_exporter has no node_disk_info for $root_disk"
grep -q "^benchwatch_disk_info{.*device=\"$root_disk\"" "$T/ne.txt" || fail "node_exporter does not serve benchwatch_disk_info"
grep -q '^benchwatch_host_info{' "$T/ne.txt" || fail "node_exporter does not serve benchwatch_host_info"
kill "$ne"; wait "$ne" 2>/dev/null
stop_daemon
BW_PIDS=""

# A reference learnt on another kernel and scheduler, as an older daemon
# would have left the file (checksum and all)
python3 - "$T/state/baseline-d.txt" <<'PY' || fail "cannot rewrite the baseline"
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
out = []
for l in lines:
    w = l.split(" ", 2)
    if len(w) == 3 and w[0] in ("context", "seen") and w[1] == "kernel_release":
        l = "%s kernel_release 5.10.0-old-amd64" % w[0]
    if len(w) == 3 and w[0] in ("context", "seen") and w[1] == "disk_scheduler":
        l = "%s disk_scheduler bfq" % w[0]
    out.append(l)
body = "\n".join(out[:-2]) + "\n"
h = 0xcbf29ce484222325
for b in body.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
n = out[-2].split()[1]
open(p, "w").write(body + "end %s %016x\n" % (n, h))
PY
"$BENCHWATCH" -c "$T/bw.conf" baseline show d > "$T/show" 2>&1 || fail "baseline show: $(cat "$T/show")"
grep -q "measured on another context" "$T/show" && fail "a context change before any run: $(cat "$T/show")"
ev() { journalctl --no-pager -o export BENCHWATCH_EVENT=context-change BENCHWATCH_PROBE=d 2>/dev/null; }
start_daemon
wait_for 30 sh -c "journalctl --no-pager -o export BENCHWATCH_EVENT=context-change 2>/dev/null | grep -q ^MESSAGE=" ||
        fail "no journal event: $(tail -3 "$T/daemon.err")"
sleep 3 # a few more runs: the change is said once
stop_daemon
ev > "$T/ev"
[ "$(grep -c '^MESSAGE=' "$T/ev")" = 1 ] || fail "logged more than once: $(grep ^MESSAGE= "$T/ev")"
kernel=$(uname -r)
for f in "BENCHWATCH_KERNEL_RELEASE_BEFORE=5.10.0-old-amd64" "BENCHWATCH_KERNEL_RELEASE_AFTER=$kernel" \
         "BENCHWATCH_DISK_SCHEDULER_BEFORE=bfq" "MESSAGE_ID=8d868cd2b3f64028a42c1320bee7683f"; do
        grep -qxF "$f" "$T/ev" || fail "journal event has no $f: $(cat "$T/ev")"
done
grep -q "^MESSAGE=probe 'd': measured on another context than its last run: kernel 5.10.0-old-amd64 → $kernel; $root_disk scheduler bfq → " "$T/ev" ||
        fail "message: $(grep ^MESSAGE= "$T/ev")"
"$BENCHWATCH" -c "$T/bw.conf" baseline show d > "$T/show" 2>&1 || fail "baseline show"
grep -q "the last run was measured on another context than the reference: kernel 5.10.0-old-amd64 → $kernel" "$T/show" ||
        fail "baseline show: $(cat "$T/show")"
echo "context: ok (device $root_disk${JPID:+, private journald})"
