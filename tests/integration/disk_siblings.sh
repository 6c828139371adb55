#!/bin/bash
# A disk slower than its sibling disks is flagged by the shipped rules,
# evaluated by a real Prometheus on what a real daemon sends.
#
# Two loop devices over files on the same filesystem stand in for two disks
# of one model (a loop device has no model: both are model "", one group).
# The daemon runs a disk probe on each, every second, with the same
# parameters, and remote-writes its runs to Prometheus
# (--web.enable-remote-write-receiver), which evaluates
# conf/benchwatch.rules.yml every second.  The daemon runs in a cgroup v1
# blkio directory that caps reads of the second device at 100 per second
# (throttled_loop.sh); the first is left alone.  Then
# benchwatch:disk_throughput:sibling_log_ratio must be below ln(0.85) for
# the throttled probe only, and positive for the other; and
# BenchwatchDiskBelowSiblings must be pending (its `for` is 30 minutes) for
# the throttled probe and nothing else.
. "$top_srcdir/tests/integration/lib/lib.sh"
for c in prometheus curl python3; do
        command -v $c > /dev/null || skip "$c not installed"
done
. "$top_srcdir/tests/integration/lib/throttled_loop.sh"
. "$top_srcdir/tests/integration/lib/prom_stack.sh"

LOOP2=""
cleanup_siblings() {
        # the daemon first: its cgroup cannot be removed while it is in it
        for p in $BW_PIDS; do kill "$p" 2> /dev/null; done
        for p in $BW_PIDS; do wait "$p" 2> /dev/null; done
        [ -n "$LOOP2" ] && losetup -d "$LOOP2"
        cleanup_disk
}
trap cleanup_siblings EXIT
head -c 64M /dev/urandom > "$T/backing2.img" || fail "cannot write backing file"
LOOP2=$(losetup --find --show --direct-io=on "$T/backing2.img" 2>/dev/null ||
        losetup --find --show "$T/backing2.img") || skip "no second free loop device"
DEV2=$(cat "/sys/block/${LOOP2#/dev/}/dev")

PROM_PORT=$(free_port)
PROM=http://127.0.0.1:$PROM_PORT
printf 'global:\n  evaluation_interval: 1s\nrule_files: [%s]\nscrape_configs: []\n' \
        "$top_srcdir/conf/benchwatch.rules.yml" > "$T/prometheus.yml"
stack_server prom prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
        --web.listen-address=127.0.0.1:$PROM_PORT --web.enable-remote-write-receiver
stack_wait prom "$PROM/-/ready" || fail "prometheus did not start"

{
        test_daemon_section "$T"
        for p in "d1 $LOOP" "d2 $LOOP2"; do
                set -- $p
                printf '[probe %s]\nplugin = disk\npath = %s\nmode = randread\n' "$1" "$2"
                printf 'block_size = 4k\niodepth = 1\nthreads = 1\nduration = 1s\ninterval = 1s\n'
        done
        printf '[remote_write]\nurl = %s/api/v1/write\ninstance = siblings\n' "$PROM"
        printf 'spool_dir = %s/spool\nretry_min = 200ms\nretry_max = 1s\n' "$T"
} > "$T/bw.conf"
mkdir -p "$T/state" "$T/cache"
mkdir "$CG" || fail "cannot create cgroup $CG"
echo "$DEV2 100" > "$CG/blkio.throttle.read_iops_device" || fail "cannot set throttle"
bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$CG" \
        "$BENCHWATCH" -c "$T/bw.conf" daemon > "$T/daemon.log" 2>&1 < /dev/null &
BW_PIDS="$BW_PIDS $!"

# query EXPR: the instant vector as "probe value" lines
query() {
        curl -fsG "$PROM/api/v1/query" --data-urlencode "query=$1" |
                python3 -c 'import json, sys
for s in json.load(sys.stdin)["data"]["result"]:
    print(s["metric"].get("probe", "-"), s["metric"].get("alertstate", ""), s["value"][1])'
}
both_ratios() {
        query 'benchwatch:disk_throughput:sibling_log_ratio{instance="siblings",figure="disk_iops"}' > "$T/ratios"
        [ "$(wc -l < "$T/ratios")" = 2 ]
}
wait_for 45 both_ratios || { tail -5 "$T/daemon.log"; fail "no sibling ratio for both probes: $(cat "$T/ratios")"; }
# one more run of each after the first pair
sleep 4
both_ratios || fail "the sibling ratios went away: $(cat "$T/ratios")"
query 'benchwatch_disk_iops{instance="siblings"}' | sed 's/^/IOPS /'
sed 's/^/ln(own \/ siblings) /' "$T/ratios"
awk '$1 == "d2" && $2 < -0.1625 { ok = 1 } END { exit !ok }' "$T/ratios" ||
        fail "the throttled probe d2 is not flagged"
awk '$1 == "d1" && $2 > 0 { ok = 1 } END { exit !ok }' "$T/ratios" ||
        fail "the free probe d1 is not above its sibling"
query 'ALERTS{alertname="BenchwatchDiskBelowSiblings"}' > "$T/alerts"
cat "$T/alerts"
[ "$(awk '{ print $1, $2 }' "$T/alerts")" = "d2 pending" ] ||
        fail "BenchwatchDiskBelowSiblings should be pending for d2 alone: $(cat "$T/alerts")"
echo "ok: only the throttled disk is below its sibling"
