#!/bin/sh
# man.sh — the man pages benchwatch(8) and benchwatch.conf(5) format without
# a single warning (groff -ww, and man --warnings as a user would see
# them), and do not drift from the program: every command of
# `benchwatch --help` is in benchwatch(8) and every option of the shipped
# conf/benchwatch.conf is in benchwatch.conf(5).
. "${top_srcdir:?}/tests/integration/lib/lib.sh"
command -v groff > /dev/null || skip "groff not installed"
m8="$top_srcdir/man/benchwatch.8"
m5="$top_srcdir/man/benchwatch.conf.5"
for page in "$m8" "$m5"; do
        LC_ALL=C.UTF-8 groff -ww -z -man "$page" 2> "$T/groff.err"
        [ -s "$T/groff.err" ] && { cat "$T/groff.err"; fail "groff warns about $page"; }
        if command -v man > /dev/null; then
                LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" > "$T/man.out" 2> "$T/man.err"
                [ -s "$T/man.err" ] && { cat "$T/man.err"; fail "man --warnings: $page"; }
                [ -s "$T/man.out" ] || fail "man -l $page printed nothing"
        fi
done

# The commands of `benchwatch --help`, in benchwatch(8)'s COMMANDS.
"$BENCHWATCH" --help > "$T/help"
cmds=$(sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' "$T/help" | sort -u)
[ "$(echo "$cmds" | wc -w)" -ge 9 ] || fail "cannot read the commands from --help"
for c in $cmds; do
        grep -q "^\.B[I]* $(echo "$c" | sed 's/-/\\\\-/g')\( \|$\)" "$m8" ||
                fail "command '$c' of --help is not in benchwatch(8)"
done
# Every option of --help too.
for o in config verbose help version; do
        grep -q -- "\\\\-\\\\-$o" "$m8" || fail "option --$o is not in benchwatch(8)"
done

# Every option of the shipped configuration, in benchwatch.conf(5), and
# every section.
# (Keys in the example [probe NAME] sections are plugin parameters, which
# `benchwatch plugins` documents.)
keys=$(awk '/^#?\[probe /{p=1; next} /^#?\[/{p=0}
        !p && match($0, /^#?[a-z_]+ =/) { k=$0; sub(/^#/, "", k); sub(/ =.*/, "", k); print k }' \
        "$top_srcdir/conf/benchwatch.conf" | sort -u)
[ "$(echo "$keys" | wc -w)" -ge 30 ] || fail "cannot read the options of benchwatch.conf"
for k in $keys; do
        grep -q "^\.B[IR]* $k\( \|$\)" "$m5" || fail "option '$k' is not in benchwatch.conf(5)"
done
for s in daemon "probe NAME" pushgateway remote_write journal syslog textfile regression; do
        grep -q "^\.SH \[$s\]" "$m5" || fail "section [$s] is not in benchwatch.conf(5)"
done
echo "man pages: no warnings; $(echo "$cmds" | wc -w) commands, $(echo "$keys" | wc -w) options documented"
