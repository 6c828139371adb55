# bench/lib/testfile.sh — sourced by the disk bench scripts that read
# benchwatch's test file beside a classic tool: the same start for each,
# so each leaves nothing behind in the same way.
# bench_testfile SCRIPT TAG TOOL...: exits naming SCRIPT if a TOOL is
# missing; makes the scratch folder $work (/tmp/bw-TAG.*) with $work/conf
# (nice 0, best-effort I/O level 4: a classic tool's priority) and the
# test file $FILE of $SIZE in $DIR; at exit removes both (KEEP=1 keeps
# the file).  Needs BENCHWATCH, DIR, FILE and SIZE set.
bench_testfile() {
        local script=$1 tag=$2 t
        shift 2
        for t in "$@"; do
                command -v "$t" > /dev/null || { echo "$script: needs $t" >&2; exit 1; }
        done
        work=$(mktemp -d "/tmp/bw-$tag.XXXXXX") || exit 1
        mkdir -p "$DIR" || exit 1
        trap 'rm -rf "$work"; [ -n "${KEEP:-}" ] || rm -f "$FILE"; rmdir "$DIR" 2> /dev/null' EXIT
        printf '[daemon]\nnice = 0\nioprio_level = 4\n' > "$work/conf"
        "$BENCHWATCH" -c "$work/conf" run disk "path=$FILE" size="$SIZE" requests=1 > /dev/null ||
                { echo "$script: cannot make the test file $FILE" >&2; exit 1; }
}
