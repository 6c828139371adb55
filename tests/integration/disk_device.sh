#!/bin/bash
# The disk and seqread probes on real block devices and a small filesystem.
#
# A loop device over 64 MiB of random data: a write mode on it is refused
# and the data stays bit for bit the same (benchwatch never writes to a
# device); randread with requests=N does exactly N reads; seqread reads it
# like hdparm -Tt.  A 64 MiB ext4 image mounted on a second loop device: a
# test file larger than its free space is a clean error that leaves
# nothing behind, a fitting one works and `cleanup disk path=...` removes
# it (and not a file benchwatch did not make), and a read-only remount is
# a clean error too.
. "$top_srcdir/tests/integration/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for loop devices and mounts"
for c in losetup mkfs.ext4 mount umount sha256sum; do
        command -v $c > /dev/null || skip "no $c"
done

LOOP="" LOOP2="" MNT="$T/mnt"
cleanup_dev() {
        mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
        [ -n "$LOOP2" ] && losetup -d "$LOOP2"
        [ -n "$LOOP" ] && losetup -d "$LOOP"
        cleanup_test
}
trap cleanup_dev EXIT

# expect_fail TEXT ARGS...: the run fails and says TEXT
expect_fail() {
        local want=$1
        shift
        bw run "$@" --format=json > "$T/out" 2>&1 && fail "run $* succeeded"
        grep -q -- "$want" "$T/out" || fail "run $*: no '$want' in: $(cat "$T/out")"
}

head -c 64M /dev/urandom > "$T/dev.img" || fail "cannot write backing file"
LOOP=$(losetup --find --show "$T/dev.img") || skip "no free loop device"
sum=$(sha256sum < "$T/dev.img")

for mode in randwrite randrw write; do
        expect_fail "never writes to a device" disk "path=$LOOP" mode=$mode requests=10
done
[ "$(sha256sum < "$T/dev.img")" = "$sum" ] || fail "the device's data changed"

bw run disk "path=$LOOP" mode=randread block_size=4k iodepth=4 threads=2 \
        requests=500 --format=json > "$T/rr.json" || fail "randread on $LOOP: $(cat "$T/rr.json")"
json "$T/rr.json" 'summary("benchwatch_disk_latency_seconds", op="read")["count"] == 500' ||
        fail "requests=500 on a device did not do 500 reads"
bw run disk "path=$LOOP" mode=read block_size=1M duration=500ms --format=json > "$T/sr.json" ||
        fail "sequential read on $LOOP: $(cat "$T/sr.json")"
json "$T/sr.json" 'value("benchwatch_disk_iops", op="read") > 0' || fail "no sequential read figure"

bw run seqread "path=$LOOP" cache_duration=300ms disk_duration=1s settle=no --format=json > "$T/sq.json" ||
        fail "seqread on $LOOP: $(cat "$T/sq.json")"
json "$T/sq.json" 'value("benchwatch_seqread_bytes_per_second", source="cache") > 0 < value("benchwatch_seqread_bytes_per_second", source="disk")' ||
        fail "seqread figures"
[ "$(sha256sum < "$T/dev.img")" = "$sum" ] || fail "the device's data changed"

truncate -s 64M "$T/fs.img" && mkfs.ext4 -q -F "$T/fs.img" || fail "mkfs.ext4"
LOOP2=$(losetup --find --show "$T/fs.img") || skip "no second free loop device"
mkdir "$MNT" && mount "$LOOP2" "$MNT" || skip "cannot mount ext4"
expect_fail "not enough free space" disk "path=$MNT/t.dat" size=100M
[ "$(ls -A "$MNT")" = "lost+found" ] || fail "left behind: $(ls -A "$MNT")"
bw run disk "path=$MNT/t.dat" size=16M mode=randrw requests=200 --format=json > "$T/fs.json" ||
        fail "disk on a small ext4: $(cat "$T/fs.json")"
json "$T/fs.json" 'sum(summary("benchwatch_disk_latency_seconds", op=o)["count"] for o in ("read", "write")) == 200' ||
        fail "requests=200 on ext4"
# `cleanup disk path=X` removes the file `run disk path=X` made, and no other
echo "not benchwatch's" > "$MNT/foreign.dat"
bw cleanup disk "path=$MNT/t.dat" nosuch=1 > "$T/out" 2>&1; [ $? = 2 ] || fail "cleanup with a bad parameter: exit code"
grep -q "unknown parameter 'nosuch'" "$T/out" || fail "cleanup with a bad parameter: $(cat "$T/out")"
[ -f "$MNT/t.dat" ] || fail "a refused cleanup removed the test file"
bw cleanup disk "path=$MNT/t.dat" disk "path=$MNT/foreign.dat" > "$T/out" 2>&1 ||
        fail "cleanup disk path=...: $(cat "$T/out")"
[ "$(ls -A "$MNT" | tr '\n' ' ')" = "foreign.dat lost+found " ] || fail "after cleanup: $(ls -A "$MNT")"
grep -q "leaving '$MNT/foreign.dat' alone: not a benchwatch test file" "$T/out" ||
        fail "cleanup did not say why it left a file: $(cat "$T/out")"
# and each summary says what it did, not "cleaned up" for a file left alone
grep -qx "disk 'disk': cleaned up, removed 1" "$T/out" ||
        fail "cleanup's summary of a removed file: $(cat "$T/out")"
grep -qx "disk 'disk': nothing of its own to remove; left alone 1 that is not its own (see above)" \
        "$T/out" || fail "cleanup's summary of a file left alone: $(cat "$T/out")"
bw cleanup disk "path=$MNT/t.dat" > "$T/out" 2>&1 || fail "cleanup again: $(cat "$T/out")"
[ "$(cat "$T/out")" = "disk 'disk': nothing of its own to remove" ] ||
        fail "cleanup with nothing there: $(cat "$T/out")"
rm "$MNT/foreign.dat"
mount -o remount,ro "$MNT" || fail "remount ro"
expect_fail "Read-only file system" disk "path=$MNT/new.dat" size=8M
expect_fail "Read-only file system" seqread "path=$MNT/new.dat" size=8M
echo "disk_device: all passed"
