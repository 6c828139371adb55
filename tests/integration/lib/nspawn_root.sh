# nspawn_root.sh — the minimal Debian root that tests/integration/nspawn.sh
# and tests/faults/faults.sh boot with systemd-nspawn, and its boot and stop
# (sourced after lib.sh, not run).  Built once by debootstrap (about a
# minute, needs the Debian mirror) and cached under
# /var/cache/benchwatch-test/nspawn-root between runs; each user gets a
# private copy of it.
#
#   nspawn_root_copy DEST   DEST: a copy of the cached root, with the
#                           libraries added since it was built (from the
#                           host's apt cache); 1 with a reason on stderr
#                           when it cannot be had (then: skip)
#   nspawn_boot ROOT LOG [ARG...]
#                           ROOT booted by systemd-nspawn (ARGs: its options,
#                           as --bind=), the console in LOG; sets NSPAWN (its
#                           PID) and LEADER (the container's systemd), returns
#                           once the manager runs; 1 with a reason on stderr
#   nspawn_in CMD...        CMD in the container's namespaces, a clean env
#   nspawn_stop             the container stopped (TERM, KILL after 20 s)
NSPAWN= LEADER=
NSPAWN_CACHE=${BENCHWATCH_NSPAWN_ROOT:-/var/cache/benchwatch-test/nspawn-root}
# runtime libraries of the binary and the plugins, kill(1) for ExecReload
NSPAWN_PKGS=systemd,dbus,procps,libinih1,libprotobuf-c1,libcurl4,libaio1,libmariadb3
# Libraries added since: put into each copy of the root from the host's apt
# cache (add_host_debs), so that a root cached before them stays valid and
# needs no mirror.
NSPAWN_LATE_PKGS="libsnappy1v5"
NSPAWN_MIRROR=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
: "${NSPAWN_MIRROR:=http://deb.debian.org/debian}"

nspawn__build() { # LOG
        [ "$(cat "$NSPAWN_CACHE/.benchwatch-root" 2>/dev/null)" = "$NSPAWN_PKGS" ] && return 0
        local tmp=$NSPAWN_CACHE.tmp.$$
        echo "building $NSPAWN_CACHE (debootstrap bookworm from $NSPAWN_MIRROR)"
        rm -rf "$tmp"
        if ! debootstrap --variant=minbase --include="$NSPAWN_PKGS" bookworm "$tmp" \
                "$NSPAWN_MIRROR" > "$1" 2>&1; then
                rm -rf "$tmp"
                tail -n 5 "$1" >&2
                return 1
        fi
        rm -f "$tmp/etc/machine-id"   # each boot makes its own (transient)
        echo "$NSPAWN_PKGS" > "$tmp/.benchwatch-root"
        rm -rf "$NSPAWN_CACHE" && mv "$tmp" "$NSPAWN_CACHE"
}

nspawn_root_copy() { # DEST
        local dest=$1 start p
        mkdir -p "$(dirname "$NSPAWN_CACHE")"
        exec 9> "$NSPAWN_CACHE.lock"
        flock 9 || { echo "cannot lock $NSPAWN_CACHE.lock" >&2; return 1; }
        start=$(date +%s)
        if ! nspawn__build "$dest.debootstrap.log"; then
                flock -u 9
                echo "cannot debootstrap a Debian root from $NSPAWN_MIRROR" >&2
                return 1
        fi
        echo "root ready in $(( $(date +%s) - start ))s"
        cp -a "$NSPAWN_CACHE" "$dest" || { flock -u 9; echo "cannot copy $NSPAWN_CACHE" >&2; return 1; }
        flock -u 9
        rm -f "$dest.debootstrap.log"
        add_host_debs "$dest" $NSPAWN_LATE_PKGS
        for p in $NSPAWN_LATE_PKGS; do
                dpkg --root="$dest" -s "$p" > /dev/null 2>&1 || {
                        echo "$p is neither in the cached root nor in /var/cache/apt/archives" >&2
                        return 1
                }
        done
}

nspawn_in() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nsenter -t "$LEADER" -a "$@"; }

# the manager answers (its bus comes up a moment after PID 1); nsenter
# spelt out, as timeout runs no shell function
nspawn__booted() {
        nspawn__state=$(timeout 30 env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
                nsenter -t "$LEADER" -a systemctl is-system-running --wait 2> /dev/null)
        case $nspawn__state in running|degraded) return 0;; *) return 1;; esac
}

nspawn_boot() { # ROOT LOG [ARG...]
        local root=$1 log=$2
        shift 2
        systemd-nspawn -q -D "$root" --register=no --keep-unit --boot "$@" \
                < /dev/null > "$log" 2>&1 &
        NSPAWN=$!
        # the container's init once it runs systemd: nspawn's short-lived
        # outer child is a child of nspawn too, for a moment, and would be a
        # dead end
        LEADER=
        for _ in $(seq 300); do
                LEADER=$(pgrep -P "$NSPAWN" -x systemd | head -n 1)
                [ -n "$LEADER" ] && break
                kill -0 "$NSPAWN" 2> /dev/null || break # it gave up
                sleep 0.1
        done
        if [ -z "$LEADER" ]; then
                echo "container did not start systemd: $(tail -n 5 "$log")" >&2
                return 1
        fi
        nspawn__state=
        wait_for 60 nspawn__booted && return 0
        echo "container did not boot (${nspawn__state:-no answer} from pid $LEADER, $(
                [ -d "/proc/$LEADER" ] && cat "/proc/$LEADER/comm" || echo gone)): $(
                tail -n 20 "$log")" >&2
        return 1
}

nspawn_stop() {
        [ -n "$NSPAWN" ] || return 0
        kill -TERM "$NSPAWN" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$NSPAWN" 2>/dev/null
        wait "$NSPAWN" 2>/dev/null
        NSPAWN=
}
