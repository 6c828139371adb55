# nspawn_root.sh — the minimal Debian root that tests/integration/nspawn.sh
# and tests/faults/faults.sh boot with systemd-nspawn (sourced after lib.sh, not
# run).  Built once by debootstrap (about a minute, needs the Debian
# mirror) and cached under /var/cache/benchwatch-test/nspawn-root between
# runs; each user gets a private copy of it.
#
#   nspawn_root_copy DEST   DEST: a copy of the cached root, with the
#                           libraries added since it was built (from the
#                           host's apt cache); 1 with a reason on stderr
#                           when it cannot be had (then: skip)
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
