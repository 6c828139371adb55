#!/bin/bash
# install.sh — `make install` stays inside the prefix configure was given:
# every installed file (binary, plugins, units, man pages, shared data)
# lands under DESTDIR/PREFIX, the units under PREFIX/lib/systemd/system
# unless configure was told otherwise, and the binary's state and cache
# directories follow --localstatedir.  Installs this build into a private
# DESTDIR; nothing outside it is written.
. "$top_srcdir/tests/integration/lib/lib.sh"

mk() { sed -n "s/^$1 = //p" "$top_builddir/Makefile"; }
prefix=$(mk prefix)
localstatedir=$(mk localstatedir)
unitdir=$(mk systemdsystemunitdir)
[ -n "$prefix" ] || fail "no prefix in $top_builddir/Makefile"
localstatedir=${localstatedir//\$\{prefix\}/$prefix}
unitdir=${unitdir//\$\{prefix\}/$prefix}

make -s -C "$top_builddir" install DESTDIR="$T/root" > "$T/log" 2>&1 || fail "make install: $(tail -5 "$T/log")"
outside=$(cd "$T/root" && find . \( -type f -o -type l \) | sed 's|^\.||' | grep -v "^$prefix/")
if [ "$prefix" = /usr ]; then
        # a distribution's prefix: systemd's own unit directory is expected
        outside=$(printf '%s\n' "$outside" | grep -v "^$unitdir/")
fi
[ -z "$outside" ] || fail "installed outside $prefix: $outside"
[ -f "$T/root$unitdir/benchwatch.service" ] || fail "no benchwatch.service in $unitdir"
case $unitdir in "$prefix"/*) ;; *) [ "$prefix" = /usr ] || fail "unit directory $unitdir is not under $prefix" ;; esac
[ -x "$T/root$prefix/bin/benchwatch" ] || fail "no $prefix/bin/benchwatch"
ls "$T/root$prefix"/lib/benchwatch/cpu.so > /dev/null || fail "no cpu plugin under $prefix/lib/benchwatch"
[ -e "$T/root$prefix/lib/benchwatch/skeleton.so" ] && fail "the skeleton plugin was installed"

# the state and cache directories come from --localstatedir, not a
# hard-coded /var (and the built-in textfile is in the state directory)
bin="$T/root$prefix/bin/benchwatch"
for d in "$localstatedir/lib/benchwatch" "$localstatedir/cache/benchwatch"; do
        grep -qaF -- "$d" "$bin" || fail "the binary does not carry '$d'"
done
if [ "$localstatedir" != /var ]; then
        grep -qaF "path = /var/lib/benchwatch" "$bin" && fail "built-in textfile still under /var/lib"
fi
# what the installed binary says, as a user runs it: the built-in
# configuration's directories, and under systemd the unit's
env -u STATE_DIRECTORY -u CACHE_DIRECTORY BENCHWATCH_PLUGIN_DIR="$T/root$prefix/lib/benchwatch" \
        "$bin" check-config > "$T/cc" 2>&1
grep -qF "state_dir $localstatedir/lib/benchwatch, cache_dir $localstatedir/cache/benchwatch" "$T/cc" || fail "check-config does not show the state directory: $(cat "$T/cc")"
STATE_DIRECTORY=/run/x/state:/run/y CACHE_DIRECTORY=/run/x/cache BENCHWATCH_PLUGIN_DIR="$T/root$prefix/lib/benchwatch" \
        "$bin" check-config > "$T/cc" 2>&1
grep -qF "state_dir /run/x/state, cache_dir /run/x/cache" "$T/cc" ||
        fail "STATE_DIRECTORY is not the default state_dir: $(cat "$T/cc")"
echo "install: ok ($prefix, units in $unitdir, state in $localstatedir/lib/benchwatch)"
