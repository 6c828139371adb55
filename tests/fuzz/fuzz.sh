#!/bin/sh
# fuzz.sh — the libFuzzer targets of tests/fuzz/ (one per parser of outside
# input), built with clang by fuzz.mk into $top_builddir/tests/fuzz/build.
#
# In `make check`: every kept regression input (tests/fuzz/regressions/
# TARGET/) is replayed, then each target runs FUZZ_RUNS (2000) fixed-seed
# executions from its seed corpus (tests/fuzz/corpus/TARGET/).  `make fuzz`
# sets FUZZ_SECONDS=N instead: each target fuzzes for N seconds with a
# random seed.  A crash is copied to $top_builddir/tests/fuzz/crashes/; fix
# the bug and move the input to regressions/TARGET/ under a telling name.
# Skipped (77) when clang or its libFuzzer runtime is missing.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?}"
RUNS=${FUZZ_RUNS:-2000}
SECONDS_EACH=${FUZZ_SECONDS:-}
TARGETS=${FUZZ_TARGETS:-config param codec http pushgateway series_file sysparse kmsg nvme_health evidence_store baseline history status}

CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$CLANG" ]; then
        echo "SKIP: clang not installed (Debian: clang-14 libclang-rt-14-dev)"
        exit 77
fi
T=$(mktemp -d /tmp/bwfuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' > "$T/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" 2> "$T/probe.err"; then
        echo "SKIP: $CLANG cannot link -fsanitize=fuzzer (Debian: libclang-rt-14-dev)"
        exit 77
fi

O="$top_builddir/tests/fuzz/build"
# A clean environment for the inner make: variables given to the outer one
# (make check CFLAGS=...) must not reach the fuzz build.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 \
        -f "$top_srcdir/tests/fuzz/fuzz.mk" S="$top_srcdir" B="$top_builddir" \
        O="$O" CLANG="$CLANG" > "$T/build.log" 2>&1; then
        cat "$T/build.log"
        echo "FAIL: building the fuzz targets"
        exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TMPDIR="$T"
status=0
keep_crashes() {
        mkdir -p "$top_builddir/tests/fuzz/crashes"
        for c in "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$T"/oom-*; do
                [ -e "$c" ] && cp "$c" "$top_builddir/tests/fuzz/crashes/" &&
                        echo "  kept: $top_builddir/tests/fuzz/crashes/$(basename "$c")"
        done
}
for t in $TARGETS; do
        bin="$O/fuzz_$t"
        regs=$(ls -d "$top_srcdir/tests/fuzz/regressions/$t"/* 2>/dev/null)
        if [ -n "$regs" ]; then
                # shellcheck disable=SC2086  # one argument per file
                if ! "$bin" $regs > "$T/$t-regress.log" 2>&1; then
                        tail -n 40 "$T/$t-regress.log"
                        echo "FAIL: $t: a kept regression input fails again"
                        status=1
                        continue
                fi
                echo "$t: $(echo "$regs" | wc -l) regression inputs pass"
        fi
        mkdir -p "$T/corpus-$t"
        if [ -n "$SECONDS_EACH" ]; then
                how="-max_total_time=$SECONDS_EACH"
        else
                how="-runs=$RUNS -seed=1"
        fi
        start=$(date +%s)
        # shellcheck disable=SC2086
        if ! "$bin" $how -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
                -artifact_prefix="$T/" -print_final_stats=1 \
                "$T/corpus-$t" "$top_srcdir/tests/fuzz/corpus/$t" > "$T/$t.log" 2>&1; then
                grep -v '^#[0-9]' "$T/$t.log" | tail -n 60
                echo "FAIL: fuzz_$t found a crash"
                keep_crashes
                status=1
                continue
        fi
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$t.log")
        echo "$t: ${execs:-?} executions, no crash ($(( $(date +%s) - start ))s)"
done
exit $status
