#!/bin/sh
# deb.sh — the Debian packaging works: `dpkg-buildpackage -us -uc -b` on a
# copy of the tree (nothing is built in the source tree) gives benchwatch
# and benchwatch-plugin-mysql; the core does not depend on the MySQL client
# library; installed into a clean Debian root (an overlay on the cached
# root of nspawn.sh, or on a minbase root cached here), the unit is there
# but not enabled, the man pages are there, `benchwatch run cpu` works from
# the chroot and the mysql plugin appears only with its package.  The gpu
# plugin is in the core package, which depends on no CUDA or NVIDIA
# package and whose gpu.so links no NVIDIA library: in the root, which has
# no driver, `benchwatch run gpu` exits 3, "no NVIDIA driver".  The
# package's default configuration (the built-in one and the package's
# conf.d drop-in) writes the textfile into node_exporter's textfile
# directory (Debian: /var/lib/prometheus/node-exporter, the default of the
# host's node_exporter when it is installed): the daemon started in the
# root before that directory exists says so, and writes the file once it
# exists, without a restart.
# Run by `make check-build` (and CI), not `make check`.
# Needs root, dpkg-buildpackage and debhelper; debootstrap (and the Debian
# mirror, once) when no cached root exists. Takes 2-3 minutes, mostly the
# package build.
. "${top_srcdir:?}/tests/integration/lib/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (chroot, overlay mount)"
for c in dpkg-buildpackage dh chroot; do
        command -v $c > /dev/null || skip "$c not installed (debhelper, dpkg-dev)"
done
grep -qw overlay /proc/filesystems || modprobe overlay 2> /dev/null
grep -qw overlay /proc/filesystems || skip "no overlay filesystem"

NSPAWN_ROOT=${BENCHWATCH_NSPAWN_ROOT:-/var/cache/benchwatch-test/nspawn-root}
CACHE=${BENCHWATCH_DEB_ROOT:-/var/cache/benchwatch-test/deb-root}
MIRROR=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
: "${MIRROR:=http://deb.debian.org/debian}"

# ---- the package, built from a copy of the tree ------------------------------
mkdir -p "$T/src"
(cd "$top_srcdir" && tar --exclude=.git --exclude=autom4te.cache \
        --exclude='./tests/fuzz/build' --exclude='./tests/build/clang' -cf - .) | tar -xf - -C "$T/src" || fail "copying the tree"
chmod -R u+w "$T/src" # distcheck's tree is read-only
# A configured source tree (in-tree build) must not leak into the package.
[ -f "$T/src/config.status" ] && (cd "$T/src" && make -s distclean > /dev/null 2>&1)
t0=$(date +%s)
(cd "$T/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
        > "$T/build.log" 2>&1 || { tail -n 40 "$T/build.log"; fail "dpkg-buildpackage"; }
echo "package built in $(( $(date +%s) - t0 ))s"
core=$(ls "$T"/benchwatch_*.deb 2>/dev/null)
my=$(ls "$T"/benchwatch-plugin-mysql_*.deb 2>/dev/null)
[ -f "$core" ] && [ -f "$my" ] || { ls "$T"; fail "expected two packages"; }
dpkg-deb -f "$core" Depends | grep -qi 'mysql\|mariadb' &&
        fail "the core depends on the client library: $(dpkg-deb -f "$core" Depends)"
dpkg-deb -f "$core" Depends | grep -qi 'cuda\|nvidia' &&
        fail "the core depends on CUDA or NVIDIA packages: $(dpkg-deb -f "$core" Depends)"
dpkg-deb -c "$core" > "$T/core.list"
dpkg-deb -c "$my" > "$T/my.list"
for f in ./usr/bin/benchwatch /benchwatch/cpu.so /benchwatch/disk.so /benchwatch/http.so \
         /benchwatch/gpu.so \
         ./lib/systemd/system/benchwatch.service ./lib/systemd/system/benchwatch-verify.service \
         ./usr/share/man/man8/benchwatch.8.gz ./usr/share/man/man5/benchwatch.conf.5.gz; do
        grep -qF -- "$f" "$T/core.list" || fail "$f is not in $(basename "$core")"
done
grep -q 'mysql\.so' "$T/core.list" && fail "mysql.so is in the core package"
grep -q '/benchwatch/mysql\.so' "$T/my.list" || fail "mysql.so is not in $(basename "$my")"
grep -q '\.la$' "$T/core.list" && fail "libtool .la files in the package"
# the gpu plugin opens the driver's libraries at run time, never links them
mkdir "$T/x" && dpkg-deb -x "$core" "$T/x" || fail "unpacking $(basename "$core")"
gpuso=$(find "$T/x" -name gpu.so)
[ -f "$gpuso" ] || fail "no gpu.so in the package"
needed=$(LC_ALL=C readelf -d "$gpuso" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "$needed" | grep -qi 'cuda\|nvidia\|cublas' && fail "gpu.so links $needed"
rm -rf "$T/x"
NE_DIR=/var/lib/prometheus/node-exporter
grep -qF ./etc/benchwatch/conf.d/50-node-exporter.conf "$T/core.list" || fail "no node_exporter drop-in"
dpkg-deb --info "$core" conffiles | grep -qx /etc/benchwatch/conf.d/50-node-exporter.conf ||
        fail "the node_exporter drop-in is not a conffile"
# the directory is the one Debian's node_exporter reads by default
if command -v prometheus-node-exporter > /dev/null; then
        prometheus-node-exporter --help 2>&1 | grep -qF -- "--collector.textfile.directory=\"$NE_DIR\"" ||
                fail "node_exporter's default textfile directory is not $NE_DIR"
fi

# ---- a clean root: an overlay on a cached Debian root ----------------------------
if [ -f "$NSPAWN_ROOT/.benchwatch-root" ]; then
        base=$NSPAWN_ROOT
        # shared: nspawn.sh takes it exclusively to rebuild the root
        exec 8> "$NSPAWN_ROOT.lock"
        flock -s 8 || fail "cannot lock $NSPAWN_ROOT.lock"
elif [ -f "$CACHE/.benchwatch-root" ]; then
        base=$CACHE
else
        command -v debootstrap > /dev/null || skip "no cached root and no debootstrap"
        echo "building $CACHE (debootstrap --variant=minbase bookworm from $MIRROR)"
        mkdir -p "$(dirname "$CACHE")"
        rm -rf "$CACHE.tmp.$$"
        debootstrap --variant=minbase bookworm "$CACHE.tmp.$$" "$MIRROR" > "$T/debootstrap.log" 2>&1 ||
                { rm -rf "$CACHE.tmp.$$"; tail -n 5 "$T/debootstrap.log"; skip "debootstrap failed (mirror?)"; }
        echo minbase > "$CACHE.tmp.$$/.benchwatch-root"
        rm -rf "$CACHE" && mv "$CACHE.tmp.$$" "$CACHE"
        base=$CACHE
fi
R="$T/root"
mkdir -p "$T/upper" "$T/work" "$R"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$T/upper,workdir=$T/work" "$R" ||
        fail "overlay mount"
# lib.sh removes $T on exit: unmount first (lazily, whatever happens).
cleanup_deb() {
        for p in $BW_PIDS; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
        umount "$R/proc" 2> /dev/null
        umount "$R" 2> /dev/null || umount -l "$R" 2> /dev/null
        cleanup_test
}
trap cleanup_deb EXIT
mount -t proc proc "$R/proc" || fail "mounting /proc in the root"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2> /dev/null
cp "$core" "$my" "$R/tmp/"
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# dpkg alone when the root has the dependencies (the nspawn root does, with
# those it lacks taken from the host's apt cache); otherwise apt fetches
# them from the mirror.
add_host_debs "$R" libsnappy1v5
if ! in_root dpkg -i "/tmp/$(basename "$core")" > "$T/install.log" 2>&1; then
        in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq --no-install-recommends' \
                >> "$T/install.log" 2>&1 || { tail -n 20 "$T/install.log"; fail "installing $(basename "$core")"; }
fi
in_root dpkg -s benchwatch | grep -q '^Status: install ok installed' || fail "benchwatch is not installed"

# Installed, not enabled.
[ -f "$R/lib/systemd/system/benchwatch.service" ] || fail "the unit is not installed"
ls "$R"/etc/systemd/system/*.wants/benchwatch*.service 2> /dev/null &&
        fail "the unit was enabled by the package"

# It runs, from the root.
in_root benchwatch run cpu events=10 --format=json > "$T/run.json" 2> "$T/run.err" ||
        { cat "$T/run.err"; fail "benchwatch run cpu in the root"; }
json "$T/run.json" 'r["success"] is True and value("benchwatch_cpu_events_per_second") > 0' ||
        fail "benchwatch run cpu in the root: $(cat "$T/run.json")"
in_root benchwatch plugins > "$T/plugins" 2>&1 || fail "benchwatch plugins"
grep -q '^mysql' "$T/plugins" && fail "mysql plugin present without its package"
grep -q '^gpu ' "$T/plugins" || fail "no gpu plugin in the core package"
# no CUDA, no driver in the root: the environment's failure, exit 3
in_root benchwatch run gpu > "$T/gpu.out" 2> "$T/gpu.err"
rc=$?
[ $rc = 3 ] || fail "run gpu in the root: exit $rc, not 3: $(cat "$T/gpu.out" "$T/gpu.err")"
grep -q "gpu probe 'gpu': no NVIDIA driver (libcuda.so.1: cannot open shared object file" \
        "$T/gpu.err" || fail "run gpu in the root: $(cat "$T/gpu.err")"
echo "run gpu in the root (no CUDA, no driver): exit 3: $(cat "$T/gpu.err")"
# The default configuration's textfile is node_exporter's, and the daemon
# copes with node_exporter not being installed yet.
in_root benchwatch status --format=json > "$T/status.json" 2> "$T/status.err" ||
        fail "status in the root: $(cat "$T/status.err")"
json "$T/status.json" '[s["path"] for s in r["sinks"] if s["name"] == "textfile"] == ["'$NE_DIR'/benchwatch.prom"]' ||
        fail "default textfile: $(cat "$T/status.json")"
rm -rf "$R$NE_DIR"
# chroot execs env, which execs benchwatch: $! is the daemon
chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin benchwatch daemon \
        > "$T/daemon.out" 2> "$T/daemon.err" &
dpid=$!
BW_PIDS="$dpid"
wait_for 20 grep -q "benchwatch.prom': No such file or directory: its directory does not exist" "$T/daemon.err" ||
        fail "no clear message for a missing $NE_DIR: $(cat "$T/daemon.err")"
mkdir -p "$R$NE_DIR"
wait_for 70 grep -qs '^benchwatch_host_info' "$R$NE_DIR/benchwatch.prom" ||
        fail "no textfile in $NE_DIR once it exists: $(tail -n 5 "$T/daemon.err")"
kill "$dpid"
wait "$dpid" || fail "daemon in the root: exit $?: $(tail -n 5 "$T/daemon.err")"
BW_PIDS=""
in_root man -w benchwatch.conf > /dev/null 2>&1 || [ -f "$R/usr/share/man/man5/benchwatch.conf.5.gz" ] ||
        fail "benchwatch.conf(5) not installed"

# The mysql plugin, as its own package.
if ! in_root dpkg -i "/tmp/$(basename "$my")" >> "$T/install.log" 2>&1; then
        in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq --no-install-recommends' \
                >> "$T/install.log" 2>&1 || { tail -n 20 "$T/install.log"; fail "installing $(basename "$my")"; }
fi
in_root benchwatch plugins mysql > "$T/plugins" 2>&1 || { cat "$T/plugins"; fail "benchwatch plugins mysql"; }
grep -q '^mysql' "$T/plugins" || fail "mysql plugin missing after installing its package"
echo "ok: $(basename "$core") $(basename "$my") installed into a clean root ($(basename "$base")); run cpu works"
