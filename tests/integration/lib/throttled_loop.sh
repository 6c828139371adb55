# throttled_loop.sh — sourced by tests that need a slow disk: a loop device
# over 64 MiB of random data ($LOOP, major:minor $DEV) and a cgroup v1 blkio
# directory for it ($CG, not created yet: the test creates it and sets its
# throttle when it wants the device slow), removed with the loop device on
# exit.  Skips (77) without root, losetup, a blkio controller with
# throttling or a free loop device.  Source it after lib.sh.
[ "$(id -u)" = 0 ] || skip "needs root for a loop device and a cgroup"
command -v losetup > /dev/null || skip "no losetup"
BLKIO=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$BLKIO" ] && [ -w "$BLKIO/blkio.throttle.read_iops_device" ] ||
        skip "no cgroup v1 blkio controller with throttling"

LOOP=""
CG="$BLKIO/benchwatch-test-$$"
cleanup_disk() {
        [ -d "$CG" ] && rmdir "$CG"
        [ -n "$LOOP" ] && losetup -d "$LOOP"
        cleanup_test
}
trap cleanup_disk EXIT

head -c 64M /dev/urandom > "$T/backing.img" || fail "cannot write backing file"
LOOP=$(losetup --find --show --direct-io=on "$T/backing.img" 2>/dev/null ||
       losetup --find --show "$T/backing.img") || skip "no free loop device"
DEV=$(cat "/sys/block/${LOOP#/dev/}/dev")
