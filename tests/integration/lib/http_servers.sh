# http_servers.sh — real HTTP servers on 127.0.0.1 for the http plugin's
# tests and bench (sourced, not run).
#
# The seed measured nginx and haproxy balancing two squids; this starts the
# same shape from Debian's packages, each with a config written to a fresh
# temporary directory and a pid file, and kills every process it started, by
# PID, when the sourcing shell exits:
#   front  nginx  :18080  /index.html (static), /big.bin, /404, /500,
#                         /slow -> the slow backend, /private (basic auth
#                         bw:pa55word)
#   origin nginx  :18087  the same static files, behind the squids
#   b1, b2 squid  :18081, :18082  two squids: reverse proxies
#                         (accelerators) in front of origin, memory cache
#   slow   python :18083  answers every request after HTTP_SLOW_DELAY s
#   silent python :18084  accepts connections, never answers
#   haproxy       :18085  round robin over the two squids
#   front  nginx  :18086  https (self-signed $HTTP_DIR/cert.pem), same files
#   lb     nginx  :18088  round robin over the two squids
#   lbh    nginx  :18090  through haproxy to the two squids
#   refused       :18089  nothing listens there
# The three topologies are lb, haproxy and lbh (HTTP_TOPOLOGIES).
# Each nginx and squid has its own access log ($HTTP_DIR/<name>.access.log,
# one line per request).  Servers run at their shipped defaults but for
# ports, paths and what the topology needs; where a default had to change,
# a comment says why.
#
# Usage:  . "$top_srcdir/tests/integration/lib/http_servers.sh"
#         http_servers_start || exit 77
#         ... http_stop_server b1 ...
# Caller's EXIT trap: call http_servers_stop (installed here by default).

# the slow and silent servers, beside this file
HTTP_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HTTP_FRONT_PORT=18080
HTTP_B1_PORT=18081
HTTP_B2_PORT=18082
HTTP_SLOW_PORT=18083
HTTP_SILENT_PORT=18084
HTTP_HAPROXY_PORT=18085
HTTP_TLS_PORT=18086
HTTP_ORIGIN_PORT=18087
HTTP_LB_PORT=18088
HTTP_REFUSED_PORT=18089
HTTP_LBH_PORT=18090
# name:port of each topology
HTTP_TOPOLOGIES="nginx:$HTTP_LB_PORT haproxy:$HTTP_HAPROXY_PORT nginx-haproxy:$HTTP_LBH_PORT"
HTTP_SLOW_DELAY=${HTTP_SLOW_DELAY:-0.2}
HTTP_NGINX_WORKERS=${HTTP_NGINX_WORKERS:-1}
HTTP_DIR=
HTTP_PIDS=

http_servers_stop() {
        for p in $HTTP_PIDS; do
                kill "$p" 2>/dev/null
        done
        for p in $HTTP_PIDS; do
                wait "$p" 2>/dev/null
        done
        HTTP_PIDS=
        if [ -n "$HTTP_DIR" ]; then
                rm -rf "$HTTP_DIR" 2>/dev/null || { sleep 0.2; rm -rf "$HTTP_DIR"; }
        fi
        HTTP_DIR=
}

http__skip() {
        echo "SKIP: $*" >&2
        return 77
}

# http__nginx_conf NAME PORT EXTRA_LOCATIONS
http__nginx_conf() {
        cat > "$HTTP_DIR/$1.conf" <<EOF
worker_processes $HTTP_NGINX_WORKERS;
daemon off;
master_process on;
pid $HTTP_DIR/$1.pid;
error_log $HTTP_DIR/$1.error.log warn;
# 512 connections a worker by default: 500 concurrent clients
# need 1000 through a proxying nginx (one to the client, one upstream)
events { worker_connections 16384; }
http {
    access_log $HTTP_DIR/$1.access.log;
    client_body_temp_path $HTTP_DIR/tmp-$1/body;
    proxy_temp_path $HTTP_DIR/tmp-$1/proxy;
    fastcgi_temp_path $HTTP_DIR/tmp-$1/fastcgi;
    uwsgi_temp_path $HTTP_DIR/tmp-$1/uwsgi;
    scgi_temp_path $HTTP_DIR/tmp-$1/scgi;
    default_type application/octet-stream;
    server {
        # a listen backlog of 511 by default: 500 clients connecting at once
        # (ab -c 500) overflow it on a loaded host and see resets
        listen 127.0.0.1:$2 backlog=4096;
        root $HTTP_DIR/www;
        location = /404 { return 404 "not here\n"; }
        location = /500 { return 500 "broken\n"; }
${3:-}
    }
${4:-}
}
EOF
        mkdir -p "$HTTP_DIR/tmp-$1"
}

# http__start NAME CMD... : start in the background, remember the PID
http__start() {
        name=$1
        shift
        "$@" > "$HTTP_DIR/$name.out" 2>&1 9<&- &
        HTTP_PIDS="$HTTP_PIDS $!"
        eval "HTTP_PID_$name=$!"
}

http__wait_port() {
        i=0
        while [ $i -lt 100 ]; do
                if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
                        return 0
                fi
                sleep 0.05
                i=$((i + 1))
        done
        echo "server on port $1 did not come up" >&2
        return 1
}

# http__squid_conf NAME PORT: a reverse proxy (accelerator) in front of
# origin, with its own pid, logs and memory-only cache.
http__squid_conf() {
        cat > "$HTTP_DIR/$1.squid.conf" <<EOF
http_port 127.0.0.1:$2 accel defaultsite=origin no-vhost
cache_peer 127.0.0.1 parent $HTTP_ORIGIN_PORT 0 no-query no-digest originserver name=origin
cache_peer_access origin allow all
# an accelerator answers everyone who reaches it (here: 127.0.0.1 only)
http_access allow all
pid_filename $HTTP_DIR/$1.pid
access_log stdio:$HTTP_DIR/$1.access.log
cache_log $HTTP_DIR/$1.cache.log
coredump_dir $HTTP_DIR
# 30 s by default: a stopped squid would hold the test that long
shutdown_lifetime 0 seconds
# on by default: its ICMP helper measures the way to origin servers (one,
# on 127.0.0.1, here) and outlives a squid stopped mid-test
pinger_enable off
EOF
}

http__haproxy_conf() {
        cat > "$HTTP_DIR/haproxy.cfg" <<EOF
global
    maxconn 8000
    pidfile $HTTP_DIR/haproxy.pid
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 0
frontend fe
    bind 127.0.0.1:$HTTP_HAPROXY_PORT
    default_backend squids
backend squids
    balance roundrobin
    server b1 127.0.0.1:$HTTP_B1_PORT maxconn 4000
    server b2 127.0.0.1:$HTTP_B2_PORT maxconn 4000
EOF
}

http_servers_start() {
        command -v nginx >/dev/null || PATH=$PATH:/usr/sbin
        command -v nginx >/dev/null || { http__skip "nginx not installed"; return; }
        command -v haproxy >/dev/null || { http__skip "haproxy not installed"; return; }
        command -v squid >/dev/null || { http__skip "squid not installed"; return; }
        command -v python3 >/dev/null || { http__skip "python3 not installed"; return; }
        command -v openssl >/dev/null || { http__skip "openssl not installed"; return; }
        command -v flock >/dev/null || { http__skip "flock not installed"; return; }
        # one user of these ports at a time (make -j check runs tests in
        # parallel): a lock on this very file, released when the shell exits
        exec 9<"${BASH_SOURCE[0]}"
        flock -w 300 9 || { http__skip "ports 18080-18090 stayed busy (lock)"; return; }
        for p in $HTTP_FRONT_PORT $HTTP_B1_PORT $HTTP_B2_PORT $HTTP_SLOW_PORT \
            $HTTP_SILENT_PORT $HTTP_HAPROXY_PORT $HTTP_TLS_PORT $HTTP_REFUSED_PORT \
            $HTTP_ORIGIN_PORT $HTTP_LB_PORT $HTTP_LBH_PORT; do
                if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
                        http__skip "port $p on 127.0.0.1 is already in use"
                        return
                fi
        done
        HTTP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bw-http.XXXXXX") || return 1
        trap http_servers_stop EXIT
        # squid drops to its own user (proxy) and writes its logs there
        chmod 777 "$HTTP_DIR"
        mkdir "$HTTP_DIR/www"
        printf '<html><body>benchwatch test page</body></html>\n' > "$HTTP_DIR/www/index.html"
        head -c 100000 /dev/zero > "$HTTP_DIR/www/big.bin"
        # https on :18086 with a self-signed certificate for 127.0.0.1
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
            -addext subjectAltName=IP:127.0.0.1 -keyout "$HTTP_DIR/key.pem" \
            -out "$HTTP_DIR/cert.pem" >/dev/null 2>&1 || return 1
        # /private: basic authentication, user bw, password pa55word
        printf 'bw:%s\n' "$(openssl passwd -apr1 pa55word)" > "$HTTP_DIR/htpasswd" || return 1
        http__nginx_conf front $HTTP_FRONT_PORT "
        location = /slow { proxy_pass http://127.0.0.1:$HTTP_SLOW_PORT; proxy_read_timeout 60s; }
        location = /private { auth_basic bw; auth_basic_user_file $HTTP_DIR/htpasswd; try_files /index.html =404; }" "
    server {
        listen 127.0.0.1:$HTTP_TLS_PORT ssl;
        ssl_certificate $HTTP_DIR/cert.pem;
        ssl_certificate_key $HTTP_DIR/key.pem;
        root $HTTP_DIR/www;
        location = /404 { return 404 \"not here\n\"; }
    }"
        http__nginx_conf origin $HTTP_ORIGIN_PORT ""
        http__nginx_conf lb $HTTP_LB_PORT "
        location / { proxy_pass http://squids; }" "
    upstream squids { server 127.0.0.1:$HTTP_B1_PORT; server 127.0.0.1:$HTTP_B2_PORT; }"
        http__nginx_conf lbh $HTTP_LBH_PORT "
        location / { proxy_pass http://127.0.0.1:$HTTP_HAPROXY_PORT; }"
        http__squid_conf b1 $HTTP_B1_PORT
        http__squid_conf b2 $HTTP_B2_PORT
        http__haproxy_conf
        for n in b1 b2; do
                squid -k parse -f "$HTTP_DIR/$n.squid.conf" >"$HTTP_DIR/$n.parse" 2>&1 || {
                        cat "$HTTP_DIR/$n.parse"; return 1; }
                http__start $n squid -N -f "$HTTP_DIR/$n.squid.conf"
        done
        for n in front origin lb lbh; do
                nginx -q -p "$HTTP_DIR" -c "$HTTP_DIR/$n.conf" -t >/dev/null 2>&1 || {
                        nginx -p "$HTTP_DIR" -c "$HTTP_DIR/$n.conf" -t; return 1; }
                http__start $n nginx -p "$HTTP_DIR" -c "$HTTP_DIR/$n.conf"
        done
        http__start py python3 "$HTTP_LIB/slow_silent_http.py" $HTTP_SLOW_PORT $HTTP_SILENT_PORT "$HTTP_SLOW_DELAY"
        http__start haproxy haproxy -db -f "$HTTP_DIR/haproxy.cfg"
        for p in $HTTP_FRONT_PORT $HTTP_B1_PORT $HTTP_B2_PORT $HTTP_SLOW_PORT \
            $HTTP_SILENT_PORT $HTTP_HAPROXY_PORT $HTTP_TLS_PORT $HTTP_ORIGIN_PORT \
            $HTTP_LB_PORT $HTTP_LBH_PORT; do
                http__wait_port $p || return 1
        done
        for n in front origin lb lbh b1 b2; do
                : > "$HTTP_DIR/$n.access.log"
        done
}

# Stop one server (front, origin, lb, lbh, b1, b2) at once (SIGTERM: nginx's
# fast shutdown; squid with shutdown_lifetime 0).
http_stop_server() {
        eval "pid=\$HTTP_PID_$1"
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
}

# Requests an nginx logged so far.
http_access_count() {
        wc -l < "$HTTP_DIR/$1.access.log"
}

# Requests logged, once the log holds at least WANT lines or 2 s have
# passed (nginx and squid log a request just after they sent the answer).
http_settled_count() {
        i=0
        while [ "$(http_access_count "$1")" -lt "$2" ] && [ $i -lt 100 ]; do
                sleep 0.02
                i=$((i + 1))
        done
        http_access_count "$1"
}
