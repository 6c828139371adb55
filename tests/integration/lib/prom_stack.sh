# prom_stack.sh — the monitoring side of a host, on 127.0.0.1, for
# alerts.sh (sourced after lib.sh, not run).
#
# Starts, from Debian's packages, what an operator runs to turn benchwatch's
# textfile into alerts: node_exporter reading a textfile directory,
# Prometheus scraping it with rule files loaded and sending to Alertmanager,
# and Alertmanager routing every alert to a webhook (webhook.py, which
# appends each notification it receives to a file).  Each server gets a
# port the kernel says is free, a private data directory under $T and a
# log $T/<name>.log, and runs at its shipped defaults except where a
# comment below says why; their PIDs go to lib.sh's BW_PIDS, so the test's
# exit stops them.
#
#   stack_start TEXTFILE_DIR RULE_FILE...   start all four, wait until ready
#   stack_server NAME CMD...; stack_wait NAME URL
#                                           the same for another server
#   (ports from lib.sh's free_port)
#
# After stack_start: NE_PORT, PROM_PORT, AM_PORT, HOOK_PORT, PROM (the
# Prometheus URL), HOOK_LOG (one JSON line per notification), NE_TARGET
# (the scrape target, so the `instance` label of everything benchwatch
# writes) and SCRAPE_JOB.

SCRAPE_JOB=node
# Short cycles so the test takes minutes: Prometheus scrapes and evaluates
# every second, Alertmanager waits a second before the first notification
# of an alert and two between updates; a firing alert is not repeated
# during the test (repeat_interval), so each episode notifies once.
STACK_SCRAPE_INTERVAL=1s
STACK_EVAL_INTERVAL=1s
STACK_GROUP_WAIT=1s
STACK_GROUP_INTERVAL=2s
STACK_REPEAT_INTERVAL=1h

# stack_server NAME CMD...: start in the background, log to $T/NAME.log
stack_server() {
        local name=$1
        shift
        "$@" > "$T/$name.log" 2>&1 < /dev/null &
        BW_PIDS="$BW_PIDS $!"
        eval "STACK_PID_$name=$!"
}

# stack_wait NAME URL: until URL answers 200, while NAME still runs
stack_wait() {
        local i pid
        eval "pid=\$STACK_PID_$1"
        for i in $(seq 150); do
                curl -fs -o /dev/null "$2" && return 0
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        echo "$1 did not come up at $2:" >&2
        tail -n 15 "$T/$1.log" >&2
        return 1
}

stack__configs() { # TEXTFILE_DIR RULE_FILE...
        local f
        shift
        {
                printf 'global:\n  scrape_interval: %s\n  evaluation_interval: %s\n' \
                        $STACK_SCRAPE_INTERVAL $STACK_EVAL_INTERVAL
                printf 'rule_files:\n'
                for f in "$@"; do
                        printf '  - %s\n' "$f"
                done
                printf 'alerting:\n  alertmanagers:\n    - static_configs:\n'
                printf '        - targets: ["127.0.0.1:%s"]\n' "$AM_PORT"
                printf 'scrape_configs:\n  - job_name: %s\n    static_configs:\n' $SCRAPE_JOB
                printf '      - targets: ["%s"]\n' "$NE_TARGET"
        } > "$T/prometheus.yml"
        # group_by '...': every alert is a group of its own, so each
        # notification is about one alert and says when that one changed.
        cat > "$T/alertmanager.yml" <<EOF
route:
  receiver: webhook
  group_by: ['...']
  group_wait: $STACK_GROUP_WAIT
  group_interval: $STACK_GROUP_INTERVAL
  repeat_interval: $STACK_REPEAT_INTERVAL
receivers:
  - name: webhook
    webhook_configs:
      - url: http://127.0.0.1:$HOOK_PORT/
        send_resolved: true
EOF
}

stack_start() { # TEXTFILE_DIR RULE_FILE...
        HOOK_LOG=$T/webhook.jsonl
        : > "$HOOK_LOG"
        stack_server webhook python3 "$top_srcdir/tests/integration/lib/webhook.py" \
                "$T/webhook.port" "$HOOK_LOG"
        wait_for 10 test -s "$T/webhook.port" || { echo "webhook.py did not start" >&2; return 1; }
        HOOK_PORT=$(cat "$T/webhook.port")
        NE_PORT=$(free_port) && AM_PORT=$(free_port) &&
                PROM_PORT=$(free_port) || return 1
        NE_TARGET=127.0.0.1:$NE_PORT
        PROM=http://127.0.0.1:$PROM_PORT
        stack__configs "$@"
        promtool check config "$T/prometheus.yml" > "$T/promtool.log" 2>&1 ||
                { cat "$T/promtool.log" >&2; return 1; }
        # --cluster.listen-address= : one Alertmanager, no gossip with peers
        # (the default listens on 0.0.0.0:9094 and looks for them).
        stack_server alertmanager prometheus-alertmanager \
                --config.file="$T/alertmanager.yml" --storage.path="$T/alertmanager" \
                --web.listen-address=127.0.0.1:$AM_PORT --cluster.listen-address=
        stack_server node_exporter prometheus-node-exporter \
                --web.listen-address=$NE_TARGET --collector.textfile.directory="$1"
        stack_server prometheus prometheus --config.file="$T/prometheus.yml" \
                --storage.tsdb.path="$T/prometheus" --web.listen-address=127.0.0.1:$PROM_PORT
        stack_wait alertmanager "http://127.0.0.1:$AM_PORT/-/ready" &&
                stack_wait node_exporter "http://$NE_TARGET/metrics" &&
                stack_wait prometheus "$PROM/-/ready" || return 1
        # Prometheus has found its Alertmanager and scraped node_exporter once
        wait_for 15 sh -c "curl -fs '$PROM/api/v1/alertmanagers' | grep -q '$AM_PORT'" ||
                { echo "Prometheus did not find its Alertmanager" >&2; return 1; }
        wait_for 15 sh -c "curl -fs '$PROM/api/v1/query?query=up' | grep -q '\"1\"'" ||
                { echo "Prometheus did not scrape node_exporter" >&2; return 1; }
}
