#!/bin/bash
# The CLI end to end with the three probes that need no server: figures are
# consistent (events = rate x time, an event cap is exact, two threads do
# more work than one on two cores), output formats agree, and bad input is
# a clear error with the documented exit code.
. "$top_srcdir/tests/integration/lib/lib.sh"

bw plugins > "$T/plugins" || fail "plugins"
for p in cpu threads memory; do grep -q "^$p — " "$T/plugins" || fail "plugins lists no $p"; done
grep -q "max_prime .*default 10000" "$T/plugins" || fail "cpu max_prime default missing"

bw run cpu duration=1s --format=json > "$T/cpu1.json" 2> "$T/err" || fail "run cpu: $(cat "$T/err")"
[ -s "$T/err" ] && fail "progress or noise on stderr when not a terminal: $(cat "$T/err")"
json "$T/cpu1.json" 'r["success"] and r["params"]["max_prime"] == "10000"' || fail "cpu result"
json "$T/cpu1.json" 'abs(value("benchwatch_cpu_events_total") - value("benchwatch_cpu_events_per_second") * value("benchwatch_cpu_total_time_seconds")) <= 1.0' \
        || fail "events != rate x time"
json "$T/cpu1.json" 'summary("benchwatch_cpu_latency_seconds")["count"] == value("benchwatch_cpu_events_total")' \
        || fail "latency count != events"
json "$T/cpu1.json" 'value("benchwatch_probe_success") == 1 and 0.9 < value("benchwatch_probe_duration_seconds") < 5' \
        || fail "probe families"

bw run cpu events=150 duration=60s --format=json > "$T/cpu150.json" || fail "run cpu events=150"
json "$T/cpu150.json" 'value("benchwatch_cpu_events_total") == 150' || fail "events=150 not exact"

# two threads do nearly twice the work of one on two cores; outside load
# on a shared machine can spoil one comparison, so the best of three counts
scales() {
        bw run cpu threads=2 duration=2s --format=json > "$T/cpu2.json" || fail "run cpu threads=2"
        bw run cpu threads=1 duration=2s --format=json > "$T/cpu1b.json" || fail "run cpu threads=1"
        r2=$(json "$T/cpu2.json" 'value("benchwatch_cpu_events_per_second", threads="2")')
        r1=$(json "$T/cpu1b.json" 'value("benchwatch_cpu_events_per_second", threads="1")')
        python3 -c "import sys; sys.exit(0 if $r2 > 1.3 * $r1 else 1)"
}
scales || scales || scales || fail "2 threads ($r2/s) not faster than 1 ($r1/s)"

bw run threads duration=1s threads=2 --format=json > "$T/thr.json" || fail "run threads"
json "$T/thr.json" 'value("benchwatch_threads_events_total") > 0' || fail "threads events"
# total_size=64M in 1 KiB blocks is exactly 65536 events and 64 MiB, and
# the rate is those bytes over the run's time (as sysbench computes it)
bw run memory total_size=64M block_size=1k --format=json > "$T/mem.json" || fail "run memory"
json "$T/mem.json" 'value("benchwatch_memory_events_total") == 65536 and value("benchwatch_memory_bytes_total") == 64 * 1048576' \
        || fail "memory total_size=64M block_size=1k: $(json "$T/mem.json" '(value("benchwatch_memory_events_total"), value("benchwatch_memory_bytes_total"))') events, bytes; want 65536, 67108864"
json "$T/mem.json" 'abs(value("benchwatch_memory_bytes_per_second") * value("benchwatch_memory_total_time_seconds") / value("benchwatch_memory_bytes_total") - 1) < 0.01' \
        || fail "memory bytes_per_second x total_time_seconds != bytes_total"


# Under systemd (JOURNAL_STREAM set) a probe's own lines carry their
# syslog priority as the daemon's do: a notice is a notice in the journal,
# not the unit's default; no line goes without one
JOURNAL_STREAM=0:0 bw run memory mode=latency size=16M duration=0.2s > /dev/null 2> "$T/jerr" ||
        fail "run memory latency: $(cat "$T/jerr")"
grep -q "^<6>memory probe 'memory': latency: 16M buffer" "$T/jerr" || fail "no info line with <6>: $(cat "$T/jerr")"
grep -q "^<5>memory probe 'memory': latency mode: " "$T/jerr" || fail "no notice with <5>: $(cat "$T/jerr")"
grep -qv '^<[0-7]>' "$T/jerr" && fail "a line without a priority: $(grep -v '^<[0-7]>' "$T/jerr")"
# the same run in the text exposition format carries the probe and param labels
bw run cpu events=20 --format=prometheus > "$T/cpu.prom" || fail "prometheus format"
grep -q '^benchwatch_cpu_events_total{probe="cpu",.*max_prime="10000"' "$T/cpu.prom" || fail "prometheus labels: $(head -5 "$T/cpu.prom")"
grep -q '^benchwatch_cpu_latency_seconds{.*quantile="0.99"' "$T/cpu.prom" || fail "latency quantiles missing"

# table format reads like sysbench
bw run cpu events=20 > "$T/table" || fail "table format"
grep -q "events_per_second:" "$T/table" && grep -q "95th percentile:" "$T/table" || fail "table: $(cat "$T/table")"

# the priority a run measured at is reported, and is the true one: a
# plugin run by hand measures as a classic tool run by hand would (nice 0,
# the I/O priority left alone: best-effort 4 at nice 0), a configured probe
# at the daemon's (nice 10, best-effort 7 by default); --nice/--ionice
# change it for one run, as read from /proc and ioprio_get of the probe
# process while it runs
[ "$(nice)" = 0 ] || skip "this test runs at nice $(nice); a one-off run's default is nice 0"
json "$T/cpu1.json" 'r["priority"] == {"nice": 0, "io_class": "best-effort", "io_level": 4, "cpu_policy": "other", "from": "one-off"}' ||
        fail "default priority of a plugin: $(json "$T/cpu1.json" 'r.get("priority")')"
json "$T/cpu1.json" 'value("benchwatch_probe_nice") == 0 and value("benchwatch_probe_io_priority", **{"class": "best-effort"}) == 4' ||
        fail "priority metrics"
grep -q "^priority: *nice 0, I/O best-effort level 4 (a one-off run's" "$T/table" || fail "no priority in the table: $(cat "$T/table")"
printf '[probe c]\nplugin = cpu\nevents = 5\n' > "$T/probe.conf"
"$BENCHWATCH" -c "$T/probe.conf" run c --format=json > "$T/c.json" || fail "run c (configured)"
json "$T/c.json" 'r["priority"] == {"nice": 10, "io_class": "best-effort", "io_level": 7, "cpu_policy": "other", "from": "daemon"}' ||
        fail "default priority of a configured probe: $(json "$T/c.json" 'r.get("priority")')"
"$BENCHWATCH" -c "$T/probe.conf" run c > "$T/c.table" || fail "run c (configured), table"
grep -q "^priority: *nice 10, I/O best-effort level 7 (the daemon's" "$T/c.table" || fail "configured probe's priority: $(cat "$T/c.table")"
"$BENCHWATCH" -c "$T/empty.conf" sweep cpu threads=1 duration=0.2s --format=json > "$T/sweep0.json" ||
        fail "sweep"
json "$T/sweep0.json" 'r["priority"]["nice"] == 0 and r["priority"]["from"] == "one-off"' || fail "sweep default priority: $(cat "$T/sweep0.json")"
"$BENCHWATCH" -c "$T/empty.conf" run cpu duration=3s --nice=5 --ionice=idle --format=json > "$T/nice.json" &
runpid=$!
BW_PIDS="$runpid"
wait_for 5 pgrep -P "$runpid" -f __child > /dev/null || fail "no probe process"
child=$(pgrep -P "$runpid" -f __child)
# the child sets its priority when it has read its request
niced() { [ "$(awk '{ print $19 }' "/proc/$child/stat")" = 5 ]; }
wait_for 5 niced
real_nice=$(awk '{ print $19 }' "/proc/$child/stat")
real_io=$(python3 -c 'import ctypes, sys; print(ctypes.CDLL(None, use_errno=True).syscall(252, 1, int(sys.argv[1])))' "$child")
wait "$runpid" || fail "run --nice=5 --ionice=idle"
BW_PIDS=""
[ "$real_nice" = 5 ] || fail "--nice=5: the probe process ran at nice $real_nice"
[ "$((real_io >> 13))" = 3 ] || fail "--ionice=idle: the probe process had I/O priority $real_io"
json "$T/nice.json" 'r["priority"] == {"nice": 5, "io_class": "idle", "io_level": 0, "cpu_policy": "other", "from": "command line"}' ||
        fail "--nice=5 --ionice=idle reported as $(json "$T/nice.json" 'r.get("priority")')"
bw run cpu events=5 --ionice=best-effort:2 --nice 0 --format=json > "$T/be2.json" || fail "run --ionice=best-effort:2"
json "$T/be2.json" 'r["priority"] == {"nice": 0, "io_class": "best-effort", "io_level": 2, "cpu_policy": "other", "from": "command line"}' ||
        fail "--ionice=best-effort:2 reported as $(json "$T/be2.json" 'r.get("priority")')"
"$BENCHWATCH" -c "$T/empty.conf" sweep cpu threads=1 duration=0.2s --nice=3 --format=json > "$T/sweep.json" ||
        fail "sweep --nice=3"
json "$T/sweep.json" 'r["priority"]["nice"] == 3' || fail "sweep priority: $(cat "$T/sweep.json")"
for bad in --nice=20 --nice=x --ionice=idle:3 --ionice=fast --ionice=best-effort:8; do
        bw run cpu events=1 "$bad" 2> "$T/err"; [ $? = 2 ] || fail "run $bad: exit code"
        grep -q "invalid --" "$T/err" || fail "run $bad: $(cat "$T/err")"
done

# bad input: clear errors, documented exit codes
bw run cpu threads=0 2> "$T/err"; [ $? = 2 ] || fail "threads=0 exit code"
grep -q "threads: '0' is out of range" "$T/err" || fail "threads=0 message: $(cat "$T/err")"
bw run cpu max_prime=abc 2> "$T/err"; [ $? = 2 ] || fail "max_prime=abc exit code"
bw run cpu nosuch=1 2> "$T/err"; [ $? = 2 ] && grep -q "unknown parameter 'nosuch'" "$T/err" || fail "unknown parameter"
bw run nosuchprobe 2> "$T/err"; [ $? = 2 ] && grep -q "unknown probe or plugin 'nosuchprobe'" "$T/err" || fail "unknown probe"
bw run cpu --format=xml 2> "$T/err"; [ $? = 2 ] || fail "bad --format"
"$BENCHWATCH" nosuchcommand 2> /dev/null; [ $? = 2 ] || fail "unknown command exit code"
"$BENCHWATCH" --help | grep -q "Exit status" || fail "--help"
for c in run plugins check-config daemon sweep cleanup; do
        "$BENCHWATCH" $c --help > /dev/null || fail "$c --help"
done
BENCHWATCH_PLUGIN_DIR=/nonexistent "$BENCHWATCH" plugins 2> "$T/err"; [ $? = 3 ] || fail "missing plugin dir exit code"

# a configured probe is run by name with its configured parameters
cat > "$T/bw.conf" <<CONF
[probe fastcpu]
plugin = cpu
max_prime = 2000
events = 30
CONF
"$BENCHWATCH" -c "$T/bw.conf" run fastcpu --format=json > "$T/fast.json" || fail "configured probe"
json "$T/fast.json" 'r["probe"] == "fastcpu" and value("benchwatch_cpu_events_total", max_prime="2000") == 30' || fail "configured params"
printf '[probe broken]\nplugin = cpu\nmax_prime = lots\n' > "$T/bad.conf"
"$BENCHWATCH" -c "$T/bad.conf" check-config 2> "$T/err"; [ $? = 2 ] || fail "bad config exit code"
grep -q "$T/bad.conf:3: \[probe broken\] max_prime" "$T/err" || fail "bad config message: $(cat "$T/err")"
# common options also after the command, for every command
"$BENCHWATCH" check-config --config "$T/bad.conf" 2> "$T/err"; [ $? = 2 ] || fail "check-config --config exit code"
grep -q "$T/bad.conf:3: \[probe broken\] max_prime" "$T/err" || fail "check-config --config: $(cat "$T/err")"
"$BENCHWATCH" check-config -c "$T/bw.conf" > "$T/out" || fail "check-config -c: $(cat "$T/out")"
grep -q "fastcpu .*plugin cpu" "$T/out" || fail "check-config -c did not read the file: $(cat "$T/out")"
"$BENCHWATCH" run fastcpu --config="$T/bw.conf" --format=json > "$T/fast2.json" || fail "run --config after the command"
json "$T/fast2.json" 'value("benchwatch_cpu_events_total", max_prime="2000") == 30' || fail "run --config= params"
# verify with no probe to check: an error, and no PASS beside it
printf '[daemon]\nstate_dir = %s/state\n' "$T" > "$T/none.conf"
"$BENCHWATCH" -c "$T/none.conf" verify > "$T/out" 2> "$T/err"; r=$?
[ $r = 2 ] && grep -q "no enabled probe" "$T/err" && ! grep -q PASS "$T/out" ||
        fail "verify without probes: exit $r: $(cat "$T/out" "$T/err")"
"$BENCHWATCH" -c "$T/none.conf" verify --format=json > "$T/out" 2> /dev/null
json "$T/out" 'r["status"] == "error"' || fail "verify --format=json without probes: $(cat "$T/out")"
# README's `benchwatch run disk threads=40` on a host without a
# configuration file: no built-in probe takes a plugin's name, so the word
# is the disk plugin's (the built-in disk latency probe was named "disk",
# and refused threads=)
if "$BENCHWATCH" check-config 2> /dev/null | grep -q '^<built-in>:'; then
        # and check-config says which file it did not find
        "$BENCHWATCH" check-config 2> /dev/null | grep -q '^  (no /.*/benchwatch/benchwatch.conf: the built-in' ||
                fail "check-config on the built-in configuration: $("$BENCHWATCH" check-config 2>&1 | head -3)"
        "$BENCHWATCH" run disk "path=$T/readme.dat" size=16M threads=2 duration=0.2s \
                --format=json > "$T/readme.json" 2> "$T/err" ||
                fail "run disk threads=2 on the built-in configuration: $(cat "$T/err")"
        json "$T/readme.json" 'r["plugin"] == "disk" and value("benchwatch_disk_iops", op="read") > 0' ||
                fail "run disk on the built-in configuration ran: $(head -c 300 "$T/readme.json")"
fi
for c in "check-config" "run cpu" "verify" "daemon" "sweep cpu threads=1,2" "plugins" "cleanup" "history x" "replay x"; do
        # plugins reads no configuration
        "$BENCHWATCH" $c --config "$T/bad.conf" > /dev/null 2> "$T/err"; r=$?
        [ "$c" = plugins ] || { [ $r = 2 ] && grep -q "bad.conf:3:" "$T/err"; } || fail "$c --config: exit $r: $(cat "$T/err")"
        "$BENCHWATCH" $c --frob > /dev/null 2> "$T/err"; [ $? = 2 ] || fail "$c --frob: exit code"
        grep -q "^benchwatch: error: ${c%% *}: unknown option '--frob'" "$T/err" && grep -q "Usage:" "$T/err" \
                || fail "$c --frob: $(cat "$T/err")"
done
# a plugin parameter named like a core key (http's per-request timeout) is
# the plugin's; the run deadline is then run_timeout
printf '[probe web]\nplugin = http\nurl = http://127.0.0.1:9/\ntimeout = 2s\nrun_timeout = 1min\n' > "$T/web.conf"
"$BENCHWATCH" -c "$T/web.conf" check-config > "$T/out" || fail "run_timeout config: $(cat "$T/out")"
grep -q "web .*plugin http .*timeout 1min" "$T/out" || fail "run_timeout not the deadline: $(cat "$T/out")"
# figures in the units people read: 64.5 µs, not 6.45e-05; columns stay put
# whatever the length of a series key (the key is the last column)
bw run cpu events=50 > "$T/table" || fail "table"
grep -Eq "95th percentile: +[0-9.]+ (µs|ms)$" "$T/table" || fail "latency not in µs/ms: $(cat "$T/table")"
grep -q "e-0[0-9]" "$T/table" && fail "raw %g in the run table: $(cat "$T/table")"
printf '[daemon]\nstate_dir = %s/state\n[probe cpu]\nplugin = cpu\n[probe a-probe]\nplugin = disk\n' "$T" > "$T/st.conf"
mkdir -p "$T/state"
for i in $(seq 120); do echo "0.0000645"; done > "$T/lat.txt"
"$BENCHWATCH" -c "$T/st.conf" baseline import cpu "$T/lat.txt" \
        --metric 'benchwatch_cpu_latency_seconds{max_prime="10000",quantile="0.95",threads="1"}' > /dev/null || fail "import cpu"
"$BENCHWATCH" -c "$T/st.conf" baseline import a-probe "$T/lat.txt" \
        --metric 'benchwatch_disk_latency_seconds{block_size="16k",direct="yes",fsync="0",iodepth="1",mode="randread",op="read",quantile="0.95",rwmix_read="50",threads="1"}' > /dev/null \
        || fail "import disk"
"$BENCHWATCH" -c "$T/st.conf" baseline show > "$T/show" || fail "baseline show"
[ "$(grep -c '64.5 µs' "$T/show")" = 2 ] || fail "baseline show: reference not 64.5 µs: $(cat "$T/show")"
grep -q "e-0[0-9]" "$T/show" && fail "raw %g in baseline show: $(cat "$T/show")"
python3 - "$T/show" <<'PY' || fail "baseline show columns: $(cat "$T/show")"
import sys
rows = open(sys.argv[1], encoding="utf-8").read().splitlines()
ends = {r.index("64.5 µs") + 7 for r in rows[1:]}
hdr = rows[0].index("reference") + len("reference")
sys.exit(0 if ends == {hdr} and all(r.rstrip().endswith("}") for r in rows[1:]) else 1)
PY
echo "cli_basic: ok"
