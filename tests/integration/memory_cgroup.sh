#!/bin/bash
# memory_cgroup.sh — the memory probe's dram mode inside a cgroup with a
# memory limit (a container, a unit with MemoryMax=) sizes its arrays to
# what the cgroup allows, not to the host's MemAvailable: in a 1 GiB
# cgroup on this 24 GiB host the arrays were 3 x 1976 MiB and the probe
# was killed by the OOM killer at every run.  Checked: the run succeeds,
# says it was sized by the cgroup, and its three arrays fit in the limit.
# Needs root and a writable memory controller (cgroup v1 or v2).
. "$top_srcdir/tests/integration/lib/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to make a cgroup"
LIMIT=$((1024 * 1024 * 1024))
if [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then
        CG=/sys/fs/cgroup/memory/bwtest-memory-$$ LIMIT_FILE=memory.limit_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        CG=/sys/fs/cgroup/bwtest-memory-$$ LIMIT_FILE=memory.max
else
        skip "no writable memory controller"
fi
mkdir "$CG" || skip "cannot make a memory cgroup ($CG)"
trap 'rmdir "$CG" 2>/dev/null; cleanup_test' EXIT
echo "$LIMIT" > "$CG/$LIMIT_FILE" || fail "cannot set $CG/$LIMIT_FILE"

sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
        "$BENCHWATCH" -v run memory mode=dram duration=1s > "$T/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "dram mode in a 1 GiB cgroup: exit $rc: $(tail -3 "$T/out")"
grep -q "this cgroup's memory limit leaves [0-9]* MiB of the host's [0-9]* MiB available: sized by it" "$T/out" ||
        fail "the run does not say the cgroup sized it: $(grep dram "$T/out" | head -3)"
mib=$(sed -n 's/.*dram: 3 arrays of \([0-9]*\) MiB.*/\1/p' "$T/out")
[ -n "$mib" ] || fail "no array size in the report: $(grep dram "$T/out" | head -3)"
[ $((3 * mib * 1024 * 1024)) -le $((LIMIT / 2)) ] ||
        fail "3 arrays of $mib MiB in a cgroup of $((LIMIT >> 20)) MiB"
echo "in a $((LIMIT >> 20)) MiB cgroup: 3 arrays of $mib MiB, $(grep -o 'triad\]: *[0-9.]* MiB/s' "$T/out")"
