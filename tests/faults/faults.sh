#!/bin/bash
# tests/faults/faults.sh — a fault campaign against `benchwatch daemon` under a
# real systemd, with invariants checked all along and at the end.
#
# Each fault benchwatch handles is tested alone elsewhere; the daemons
# people trust most are also run under many faults together for a long time.
# This boots the Debian root tests/integration/nspawn.sh boots (cached by
# it: tests/integration/lib/nspawn_root.sh), installs this build in it, and runs
# the installed benchwatch.service there with four probes at short intervals
# (cpu; disk; http against a host nginx; mysql against a host MariaDB) and
# every sink on (textfile; remote write to a host Prometheus with its
# receiver on; Pushgateway; journal), state and cache directories on a small
# loop-mounted ext4.  The container shares the host's network, so the
# servers are plain host processes on private 127.0.0.1 ports.
#
# Faults come at random moments from a seeded generator and are logged
# (faults.log: seconds since the start, kind, detail), so a failure is
# replayed with the same SEED and length:
#   kill_child   kill -9 of a running probe process
#   kill_daemon  kill -9 of the daemon (systemd restarts it: RestartSec=1s)
#   stop_child   SIGSTOP of a probe process (its deadline must end it)
#   enospc       state and cache file system filled to ENOSPC, freed later
#   rw_down      the remote-write receiver (Prometheus) away for a while
#   pgw_down     the Pushgateway away for a while
#   nginx_down, mariadb_down   the probed servers away for a while
#   reload_good, reload_bad    systemctl reload with a good / broken config
#   clock_jump   the daemon's wall clock (tests/faults/walljump.c, LD_PRELOAD for
#                the unit alone; never the machine's) jumps ahead, and back
#   garbage      bytes of garbage written into a probe's result pipe
# In a short campaign each kind comes once (in a seeded order) before any
# repeats; "for a while" is a quarter of the campaign, at most 3 minutes.
#
# Checked (tests/faults/faults.py, which also writes the report):
#   - continuously (faults.py monitor, 10 times a second, from the host's
#     /proc): no probe process outlives its daemon by more than 1 s, none
#     outlives its deadline by more than 1 s; the daemon's RssAnon;
#   - every 2 s: the unit is active or restarting (never failed);
#   - after every fault and every repair: every baseline, history and spool
#     file parses (faults.py files);
#   - at the end, with every server back: every completed run (history) in
#     Prometheus at its own timestamp, runs lost unless counted dropped; the
#     runs a fault hit are failures; no regression verdict; no watchdog
#     timeout; after a stop and `benchwatch cleanup`, nothing left behind.
#
# Usage: tests/faults/faults.sh [SECONDS [SEED]]    (default 3600 s, seed: random)
#   as root; FAULTS_KEEP=DIR keeps the logs, journal and report in DIR;
#   FAULTS_KINDS="kind ..." injects those kinds alone (to chase one case).
# Exit: 0 every invariant held, 1 one broke (the report says which), 77 the
# campaign cannot run here (the reason is printed).
set -u
DURATION=${1:-3600}
SEED=${2:-$(( $(od -An -N2 -tu2 /dev/urandom) % 32768 ))}
HERE=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$HERE/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PY="$HERE/faults.py"
skip() { echo "SKIP: $*" >&2; exit 77; }
die() { echo "faults: $*" >&2; exit 1; }
WALLJUMP=/usr/lib/benchwatch-walljump.so

[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn, a loop mount)"
for c in debootstrap systemd-nspawn nsenter flock losetup mkfs.ext4 nginx mariadbd \
        prometheus prometheus-pushgateway python3 curl cc; do
        command -v $c > /dev/null || PATH=$PATH:/usr/sbin command -v $c > /dev/null ||
                skip "$c not installed (tools/install-deps)"
done
PATH=$PATH:/usr/sbin
[ -x "$top_builddir/benchwatch" ] || die "no $top_builddir/benchwatch: build first"
case $DURATION in ''|*[!0-9]*) die "usage: faults.sh [SECONDS [SEED]]" ;; esac

# ---- private directory ($T, from lib.sh), removed (or kept) on exit ------
LOOP="" MONITOR=""
BENCHWATCH=$top_builddir/benchwatch
. "$top_srcdir/tests/integration/lib/lib.sh" # T, BW_PIDS, wait_for, add_host_debs
. "$top_srcdir/tests/integration/lib/nspawn_root.sh" # NSPAWN, LEADER, nspawn_boot, nspawn_stop
cleanup_all() {
        [ -n "$MONITOR" ] && kill "$MONITOR" 2>/dev/null && wait "$MONITOR" 2>/dev/null
        nspawn_stop
        for p in $BW_PIDS ${NGINX_PID:-} ${PROM_PID:-} ${PGW_PID:-}; do kill "$p" 2>/dev/null; done
        for p in $BW_PIDS ${NGINX_PID:-} ${PROM_PID:-} ${PGW_PID:-}; do wait "$p" 2>/dev/null; done
        mariadb_cleanup
        if [ -n "${FAULTS_KEEP:-}" ]; then
                mkdir -p "$FAULTS_KEEP" && cp -a "$T/fs/state" "$FAULTS_KEEP/" 2>/dev/null
                cp -a "$T"/*.log "$T"/*.txt "$T/root${confdir:-/none}/benchwatch.conf" "$T"/*.json* "$FAULTS_KEEP"/ 2>/dev/null
        fi
        [ -n "$LOOP" ] && { umount "$T/fs" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; }
        rm -rf "$T"
}
trap cleanup_all EXIT
. "$top_srcdir/tests/integration/lib/mariadb.sh"
START=$(date +%s.%N)
now() { python3 -c "import time; print('%.1f' % (time.time() - $START))"; }
# a fault's line carries the time it was injected at (AT, taken before)
log() { echo "$(now) ${AT:-$(date +%s.%N)} $*" >> "$T/faults.log"; AT=; }
say() { echo "faults: $*"; }

# ---- the servers, on the host, private ports -----------------------------
# ports the kernel says are free now (lib.sh's free_port)
NGINX_PORT=$(free_port) PROM_PORT=$(free_port) PGW_PORT=$(free_port)
export MARIADB_PORT=$(free_port)
mkdir -p "$T/www" "$T/nginx" "$T/prom"
chmod 755 "$T" "$T/www" # nginx's worker runs as nobody
head -c 4096 /dev/urandom | base64 > "$T/www/index.html"
cat > "$T/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 256; }
http {
        access_log off;
        client_body_temp_path $T/nginx; proxy_temp_path $T/nginx;
        fastcgi_temp_path $T/nginx; uwsgi_temp_path $T/nginx; scgi_temp_path $T/nginx;
        server { listen 127.0.0.1:$NGINX_PORT; root $T/www; }
}
EOF
# out_of_order_time_window: the daemon's clock jumps back (clock_jump), and
# its runs then carry earlier timestamps than the ones before, as after a
# real clock step; Prometheus refuses those by default
cat > "$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1m
storage:
  tsdb:
    out_of_order_time_window: 1h
scrape_configs: []
EOF
NGINX_PID="" PROM_PID="" PGW_PID=""
start_nginx() {
        nginx -c "$T/nginx/nginx.conf" -g 'daemon off;' >> "$T/nginx.log" 2>&1 < /dev/null &
        NGINX_PID=$!
        wait_for 10 curl -fs -o /dev/null "http://127.0.0.1:$NGINX_PORT/" || die "nginx did not start: $(tail -3 "$T/nginx.log")"
}
start_prom() {
        prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
                --web.listen-address=127.0.0.1:$PROM_PORT --web.enable-remote-write-receiver \
                >> "$T/prometheus.log" 2>&1 < /dev/null &
        PROM_PID=$!
        wait_for 30 curl -fs -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready" || die "prometheus did not start: $(tail -3 "$T/prometheus.log")"
}
start_pgw() {
        prometheus-pushgateway --web.listen-address=127.0.0.1:$PGW_PORT >> "$T/pushgateway.log" 2>&1 < /dev/null &
        PGW_PID=$!
        wait_for 10 curl -fs -o /dev/null "http://127.0.0.1:$PGW_PORT/-/ready" || die "pushgateway did not start: $(tail -3 "$T/pushgateway.log")"
}
stop_pid() { [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; return 0; }
start_db() { mariadb_launch > /dev/null || die "mariadbd did not restart: $(tail -3 "$MARIADB_DIR/error.log")"; }
stop_db() { stop_pid "$MARIADB_PID"; MARIADB_PID=""; }
start_nginx; start_prom; start_pgw
mariadb_start > "$T/mariadb-start.log" 2>&1
case $? in
0) ;;
1) skip "$(cat "$T/mariadb-start.log")" ;;
*) die "mariadb did not start: $(tail -5 "$T/mariadb-start.log")" ;;
esac
trap cleanup_all EXIT # mariadb_start set its own
say "servers up: nginx :$NGINX_PORT, MariaDB :$MARIADB_PORT, Prometheus :$PROM_PORT, Pushgateway :$PGW_PORT"

# ---- the root, benchwatch installed, state and cache on a small fs -------
ROOT=$T/root
out=$(nspawn_root_copy "$ROOT" 2>&1) || skip "$out"
make -s -C "$top_builddir" install DESTDIR="$ROOT" > "$T/install.log" 2>&1 ||
        die "make install: $(tail -5 "$T/install.log")"
bin=$(cd "$ROOT" && find . -path '*/bin/benchwatch' -type f | head -n 1 | cut -c2-)
case $bin in
""|/tmp/*|/var/tmp/*) skip "this build's prefix ($bin) lies under a temporary directory (make distcheck)" ;;
esac
path=$(cd "$ROOT" && find . -name benchwatch.service -type f | head -n 1 | cut -c2-)
case $path in
/lib/systemd/system/*|/usr/lib/systemd/system/*|/etc/systemd/system/*) ;;
*) ln -s "$path" "$ROOT/etc/systemd/system/benchwatch.service" ;;
esac
confdir=$("$ROOT$bin" --help | sed -n 's/.*(default \(.*\)\/benchwatch.conf.*$/\1/p')
[ -n "$confdir" ] || die "cannot tell the config path from benchwatch --help"
mkdir -p "$ROOT$confdir"
cc -O2 -Wall -Wextra -shared -fPIC -o "$ROOT$WALLJUMP" "$HERE/walljump.c" -ldl ||
        die "cannot build walljump.c"
cp "$MARIADB_PWFILE" "$ROOT$confdir/mysql-password"
echo "+0" > "$ROOT/etc/bw-walljump"
mkdir -p "$ROOT/etc/systemd/system/benchwatch.service.d"
# restarts within the campaign's pace; a watchdog short enough to matter;
# the wall clock of the daemon (and its probe processes) offset by a file
# the campaign changes (walljump.c), monotonic clocks left alone
cat > "$ROOT/etc/systemd/system/benchwatch.service.d/faults.conf" <<EOF
[Service]
RestartSec=1s
WatchdogSec=5s
Environment=LD_PRELOAD=$WALLJUMP WALLJUMP_FILE=/etc/bw-walljump
EOF
truncate -s 96M "$T/fs.img" && mkfs.ext4 -q -m 0 "$T/fs.img" || die "mkfs.ext4"
LOOP=$(losetup -f --show "$T/fs.img") || skip "no loop device"
mkdir -p "$T/fs" && mount "$LOOP" "$T/fs" || skip "cannot mount a loop device"
mkdir -p "$T/fs/state" "$T/fs/cache"
STATE=$T/fs/state CACHE=$T/fs/cache

conf() { # [BROKEN]: the campaign's configuration; with an argument, a broken one
        local cpu_interval=${CPU_INTERVAL:-4s}
        cat <<EOF
[daemon]
splay = 0
duty_cycle = 1
max_load = 0
max_psi_cpu = 0
max_psi_io = 0
max_psi_memory = 0
yield = no
[probe cpu]
plugin = cpu
duration = 1s
interval = $cpu_interval
timeout = 15s
${1:+nonsense = 1}
[probe disk]
plugin = disk
size = 8M
duration = 1s
interval = 11s
timeout = 20s
[probe web]
plugin = http
url = http://127.0.0.1:$NGINX_PORT/
concurrency = 2
duration = 1s
timeout = 2s
interval = 6s
run_timeout = 15s
[probe db]
plugin = mysql
host = 127.0.0.1
port = $MARIADB_PORT
user = $MARIADB_USER
password_file = $confdir/mysql-password
database = $MARIADB_DB
table_size = 1000
duration = 1s
connect_timeout = 2s
interval = 9s
timeout = 30s
[textfile]
path = /var/lib/benchwatch/benchwatch.prom
[remote_write]
url = http://127.0.0.1:$PROM_PORT/api/v1/write
instance = faults
timeout = 3s
retry_min = 200ms
retry_max = 2s
[pushgateway]
url = http://127.0.0.1:$PGW_PORT
instance = faults
timeout = 3s
retry_min = 200ms
retry_max = 2s
[journal]
enabled = yes
EOF
}
put_conf() { conf "$@" > "$ROOT$confdir/benchwatch.conf.tmp" && mv "$ROOT$confdir/benchwatch.conf.tmp" "$ROOT$confdir/benchwatch.conf"; }
put_conf

# ---- boot -------------------------------------------------------------------
nspawn_boot "$ROOT" "$T/console.log" --bind="$STATE:/var/lib/benchwatch" \
        --bind="$CACHE:/var/cache/benchwatch" || die "the container did not boot (above)"
c() { nspawn_in "$@"; }
prop() { c systemctl show -P "$1" benchwatch.service; }
c systemctl start benchwatch.service || die "start: $(c journalctl -q --no-pager -o cat -u benchwatch | tail)"
say "container booted (leader $LEADER), benchwatch.service active; seed $SEED, ${DURATION}s"
python3 "$PY" monitor "$LEADER" "$T/monitor.jsonl" "$STATE" &
MONITOR=$!
: > "$T/files.log"
check_files() { # WHEN
        python3 "$PY" files "$STATE" "$1" >> "$T/files.log" 2>&1
}

# ---- the faults ---------------------------------------------------------------
RANDOM=$SEED
KINDS="kill_child kill_daemon stop_child enospc rw_down pgw_down nginx_down mariadb_down reload_good reload_bad clock_jump garbage"
# first each kind once, in a seeded order; then at random, reloads weighted
# so that there are several a minute
RANDOM_KINDS="$KINDS reload_good reload_bad reload_good reload_bad kill_child stop_child garbage"
if [ -n "${FAULTS_KINDS:-}" ]; then
        for k in $FAULTS_KINDS; do
                case " $KINDS " in *" $k "*) ;; *) die "FAULTS_KINDS: no kind '$k'" ;; esac
        done
        KINDS=$FAULTS_KINDS RANDOM_KINDS=$FAULTS_KINDS
fi
set -- $KINDS
NKINDS=$#
ORDER=$(for k in $KINDS; do echo "$RANDOM $k"; done | sort -n | cut -d' ' -f2)
pick() {
        if [ -n "$ORDER" ]; then
                KIND=$(echo "$ORDER" | head -n 1)
                ORDER=$(echo "$ORDER" | tail -n +2)
                return
        fi
        set -- $RANDOM_KINDS
        shift $(( RANDOM % $# ))
        KIND=$1
}
AWAY=$(( DURATION / 4 )); [ $AWAY -gt 180 ] && AWAY=180; [ $AWAY -lt 5 ] && AWAY=5
# when (date +%s) each repair is due; 0: not away
RW_BACK=0 PGW_BACK=0 NGINX_BACK=0 DB_BACK=0 FS_BACK=0 CLOCK_BACK=0
away_for() { echo $(( AWAY / 2 + RANDOM % (AWAY / 2 + 1) )); }
until_() { echo $(( $(date +%s) + $1 )); }
child_pid() { # a running probe process (container pid), waiting up to 10 s
        local i p
        for i in $(seq 50); do
                p=$(c pgrep -f '^benchwatch __child' | head -n 1)
                [ -n "$p" ] && { echo "$p"; return; }
                sleep 0.2
        done
}
child_age() { # PID: seconds since the probe process started; "Z" if a zombie
        c cat "/proc/$1/stat" /proc/uptime 2> /dev/null | awk -v hz="$(getconf CLK_TCK)" '
                NR == 1 { sub(/^.*\) /, ""); state = $1; start = $20 }
                NR == 2 { if (state == "Z" || state == "X") print "Z"; else printf "%.3f\n", $1 - start / hz }'
}
journal_wait() { # SECONDS PATTERN: wait for a new journal line since $JMARK
        wait_for "$1" bash -c "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nsenter -t $LEADER -a \
                journalctl -q --no-pager -o cat -u benchwatch --since '@$JMARK' | grep -q -- \"$2\""
}
fill() {
        # the disk full for everyone, root too (-m 0): files until ENOSPC
        local i=0
        while dd if=/dev/zero of="$T/fs/fill.$i" bs=1M count=64 status=none 2>/dev/null; do i=$((i + 1)); done
        sync -f "$T/fs" 2>/dev/null
}
fault() { # KIND
        local pid d
        case $1 in
        kill_child|stop_child|garbage)
                pid=$(child_pid)
                [ -n "$pid" ] || { log "$1 skipped: no probe running"; return; }
                # how long the process has run (so the judge knows which
                # run it was), and whether it has ended (a zombie takes a
                # signal but there is no run left to hit)
                age=$(child_age "$pid")
                case $age in
                "") log "$1 skipped: pid $pid gone before the fault"; return ;;
                Z*) log "$1 skipped: pid $pid ended (a zombie) before the fault"; return ;;
                esac
                AT=$(date +%s.%N)
                case $1 in
                kill_child) c kill -KILL "$pid" ;;
                stop_child) c kill -STOP "$pid" ;;
                garbage) c sh -c "printf 'garbage\\377\\000\\001 not a result' > /proc/$pid/fd/3" ;;
                esac || { log "$1 skipped: pid $pid gone before the fault"; return; }
                log "$1 pid=$pid age=$age" ;;
        kill_daemon)
                pid=$(prop MainPID)
                [ "$pid" != 0 ] || { log "$1 skipped: not running"; return; }
                AT=$(date +%s.%N)
                c kill -KILL "$pid"
                log "$1 pid=$pid" ;;
        enospc)
                [ $FS_BACK = 0 ] || { log "$1 skipped: already full"; return; }
                fill; d=$(away_for); FS_BACK=$(until_ $d)
                log "$1 for=${d}s free=$(df -P -k "$T/fs" | awk 'NR == 2 { print $4 }')k" ;;
        rw_down)
                [ $RW_BACK = 0 ] || { log "$1 skipped: already down"; return; }
                stop_pid "$PROM_PID"; d=$(away_for); RW_BACK=$(until_ $d); log "$1 for=${d}s" ;;
        pgw_down)
                [ $PGW_BACK = 0 ] || { log "$1 skipped: already down"; return; }
                stop_pid "$PGW_PID"; d=$(away_for); PGW_BACK=$(until_ $d); log "$1 for=${d}s" ;;
        nginx_down)
                [ $NGINX_BACK = 0 ] || { log "$1 skipped: already down"; return; }
                stop_pid "$NGINX_PID"; d=$(away_for); NGINX_BACK=$(until_ $d); log "$1 for=${d}s" ;;
        mariadb_down)
                [ $DB_BACK = 0 ] || { log "$1 skipped: already down"; return; }
                stop_db; d=$(away_for); DB_BACK=$(until_ $d); log "$1 for=${d}s" ;;
        reload_good|reload_bad)
                [ "$(prop ActiveState)" = active ] || { log "$1 skipped: unit not active"; return; } ;;&
        reload_good)
                if [ $(( RANDOM % 2 )) = 0 ]; then CPU_INTERVAL=4s; else CPU_INTERVAL=5s; fi
                put_conf
                JMARK=$(date +%s)
                c systemctl reload benchwatch.service
                log "$1 cpu_interval=$CPU_INTERVAL" ;;
        reload_bad)
                put_conf broken
                JMARK=$(date +%s)
                c systemctl reload benchwatch.service
                # the daemon reads the file after SIGHUP: keep it broken
                # until it said so (a restart meanwhile would refuse it)
                journal_wait 5 "reload failed" || log "$1: no 'reload failed' within 5 s"
                put_conf
                log "$1" ;;
        clock_jump)
                [ $CLOCK_BACK = 0 ] || { log "$1 skipped: already jumped"; return; }
                d=$(( 60 * (5 + RANDOM % 10) ))
                echo "+$d" > "$ROOT/etc/bw-walljump"
                CLOCK_BACK=$(until_ $(away_for)); log "$1 ahead=${d}s until=$CLOCK_BACK" ;;
        esac
}
# a server's line carries the time it was started, not the time it
# answered: a probe's run in between may succeed, after that line
back() { AT=$(date +%s.%N); $1; log "$2"; }
repairs() { # what is due comes back (with an argument: everything)
        local t=${1:-$(date +%s)}
        [ $RW_BACK != 0 ] && [ $RW_BACK -le $t ] && { RW_BACK=0; back start_prom rw_up; check_files rw_up; }
        [ $PGW_BACK != 0 ] && [ $PGW_BACK -le $t ] && { PGW_BACK=0; back start_pgw pgw_up; }
        [ $NGINX_BACK != 0 ] && [ $NGINX_BACK -le $t ] && { NGINX_BACK=0; back start_nginx nginx_up; }
        [ $DB_BACK != 0 ] && [ $DB_BACK -le $t ] && { DB_BACK=0; back start_db mariadb_up; }
        [ $FS_BACK != 0 ] && [ $FS_BACK -le $t ] && { FS_BACK=0; rm -f "$T"/fs/fill.*; log "enospc_freed"; check_files enospc_freed; }
        [ $CLOCK_BACK != 0 ] && [ $CLOCK_BACK -le $t ] && { CLOCK_BACK=0; echo "+0" > "$ROOT/etc/bw-walljump"; log "clock_back"; }
        return 0
}
unit_state() { # the unit active or on its way back, never failed
        local s
        s=$(prop ActiveState)/$(prop SubState)
        case $s in
        active/running|activating/*|deactivating/*|active/reloading|reloading/*) ;;
        *) log "unit_state $s" ;;
        esac
}

: > "$T/faults.log"
log "start seed=$SEED duration=$DURATION"
QUIET=$(( DURATION / 6 )); [ $QUIET -lt 10 ] && QUIET=10  # no new fault at the end
T0=$(date +%s)
next=$(( 3 + RANDOM % 4 )) elapsed=0
# spread the first round of kinds over the campaign when it is short
gap_max=$(( (DURATION - QUIET) / (NKINDS + 1) )); [ $gap_max -gt 20 ] && gap_max=20; [ $gap_max -lt 2 ] && gap_max=2
while [ $elapsed -lt "$DURATION" ]; do
        sleep 1
        elapsed=$(( $(date +%s) - T0 ))
        repairs
        unit_state
        if [ $elapsed -ge $next ] && [ $elapsed -lt $(( DURATION - QUIET )) ]; then
                pick
                fault "$KIND"
                check_files "$KIND"
                next=$(( elapsed + 1 + RANDOM % gap_max ))
        fi
done
# everything back, then time for the spool to drain
repairs 9999999999
for p in $(c pgrep -f '^benchwatch __child'); do c kill -CONT "$p" 2>/dev/null; done
log "end of faults"
drained() { [ -z "$(ls "$STATE/remote-write" 2>/dev/null | grep '\.rw$')" ]; }
wait_for 60 drained || log "spool not drained 60 s after the end: $(ls "$STATE/remote-write" | grep -c '\.rw$') files"
check_files end
kill "$MONITOR" 2>/dev/null; wait "$MONITOR" 2>/dev/null; MONITOR=""
# the unit's own figures, the journal, the textfile, then a stop and a cleanup
{
        echo "NRestarts $(prop NRestarts)"
        echo "ActiveState $(prop ActiveState)"
} > "$T/unit.txt"
c journalctl -q --no-pager -o json -u benchwatch > "$T/journal.json"
cp "$STATE/benchwatch.prom" "$T/textfile.txt" 2>/dev/null
c systemctl stop benchwatch.service
{
        echo "after_stop_processes $(c pgrep -f benchwatch | wc -l)"
        # where the unit's files are: its StateDirectory= and CacheDirectory=
        c env STATE_DIRECTORY=/var/lib/benchwatch CACHE_DIRECTORY=/var/cache/benchwatch \
                "$bin" -v cleanup > "$T/cleanup.log" 2>&1
        echo "cleanup_status $?"
        echo "cache_left $(ls -A "$CACHE" | tr '\n' ' ')"
        # a write's temporary file (NAME.tmp-XXXXXX) a kill -9 left, which
        # the next start removes
        echo "state_temps_left $(ls -A "$STATE" | grep -E '\.tmp-.{6}$' | tr '\n' ' ')"
        echo "tables_left $(mariadb_sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '$MARIADB_DB'")"
} >> "$T/unit.txt"
BENCHWATCH=$BENCHWATCH BENCHWATCH_PLUGIN_DIR=${BENCHWATCH_PLUGIN_DIR:-$top_builddir/plugins/.libs} \
        python3 "$PY" report "$T" "$STATE" "http://127.0.0.1:$PROM_PORT" "$SEED" "$DURATION" | tee "$T/report.txt"
rc=${PIPESTATUS[0]}
# "each kind once" is a promise of the campaign, a short one's too
if [ -n "$ORDER" ]; then
        echo "faults: the campaign ended before every kind came once; never injected:" $ORDER
        rc=1
fi
exit "$rc"
