#!/bin/sh
# clang_werror.sh — the tree compiled by clang with -Werror, beside the gcc
# build `make check` runs in.  HACKING.md promises warnings clean under gcc
# and clang; a clang warning fails `make check-build` (CI runs it).
#
# Every file of the daemon, the plugins and the test programs (make all
# check TESTS=) goes through clang's front end, which is where the
# warnings the tree turns on are found: clang_frontend.sh stands in for
# the compiler and libtool, so nothing is generated or linked (the gcc
# build does that).  It runs in $top_builddir/tests/build/clang, configured
# with CC=clang --enable-werror.  An in-tree build leaves config.status in
# the source and configure then refuses to build it elsewhere, so the
# source is copied there first (make distdir, as tools/sanitize does); the
# copy keeps the files' times, so a second run compiles only what changed.
# About 1 minute on 2 cores the first time.  Skipped (77) without clang.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?}"
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CLANG" ]; then
        echo "SKIP: clang not installed (Debian: clang)"
        exit 77
fi
dir=$top_builddir/tests/build/clang
src=$(cd "$top_srcdir" && pwd)
# a clean environment for the inner makes: the outer one's variables
# (make check CFLAGS=...) must not reach this build
inner() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"; }
mkdir -p "$dir" || exit 1
if [ -f "$src/config.status" ]; then
        # (distdir copies with cp -p: a file keeps its time, so make
        # rebuilds only what changed since the last run)
        rm -rf "$dir/src"
        if ! (cd "$top_builddir" && inner make -s distdir distdir="$dir/src") \
                > "$dir/distdir.log" 2>&1; then
                cat "$dir/distdir.log"
                echo "FAIL: cannot copy the source tree (make distdir) to $dir"
                exit 1
        fi
        src=$dir/src
fi
mkdir -p "$dir/build" && cd "$dir/build" || exit 1
if [ ! -f Makefile ] || [ "$(sed -n 's/^CC = //p' Makefile)" != "$CLANG" ]; then
        if ! inner "$src/configure" -q CC="$CLANG" --enable-werror > configure.log 2>&1; then
                tail -n 30 configure.log
                echo "FAIL: configure with CC=$CLANG"
                exit 1
        fi
fi
start=$(date +%s)
front=$(cd "$top_srcdir" && pwd)/tests/build/clang_frontend.sh
export CLANG
set -- CC="$front" LIBTOOL="$front --libtool"
if ! { inner make -j2 all "$@" && inner make -j2 check TESTS= "$@"; } > build.log 2>&1; then
        grep -B 2 -A 6 'error:\|\*\*\*' build.log | head -n 80
        echo "FAIL: the tree does not compile with $CLANG -Werror (log: $dir/build/build.log)"
        exit 1
fi
if grep -n 'warning:' build.log; then
        echo "FAIL: $CLANG warns (above), though the build passed"
        exit 1
fi
echo "ok: $($CLANG --version | head -n 1): compiled warning-free with -Werror" \
        "($(( $(date +%s) - start ))s)"
