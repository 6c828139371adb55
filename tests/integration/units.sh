#!/bin/bash
# The systemd units as built: `systemd-analyze verify` finds nothing to say
# about either, and `systemd-analyze security --offline=true` rates the
# service's exposure 3.0 or lower. Works without systemd as PID 1.
. "$top_srcdir/tests/integration/lib/lib.sh"

command -v systemd-analyze > /dev/null || skip "systemd-analyze not installed"
for u in benchwatch.service benchwatch-verify.service; do
        [ -f "$top_builddir/units/$u" ] || fail "units/$u was not built"
        grep -q '@[a-z]*@' "$top_builddir/units/$u" && fail "units/$u: unsubstituted: $(grep '@[a-z]*@' "$top_builddir/units/$u")"
        # verify checks that ExecStart= is executable: point it at this build
        # (the installed path is checked inside a container by nspawn.sh)
        sed -E "s|^(ExecStart=)[^ ]*/benchwatch |\1$BENCHWATCH |" "$top_builddir/units/$u" > "$T/$u"
        grep -q "^ExecStart=$BENCHWATCH " "$T/$u" || fail "$u: no ExecStart= running benchwatch"
done
grep -q '^Type=notify$' "$T/benchwatch.service" || fail "benchwatch.service is not Type=notify"
grep -q '^WatchdogSec=' "$T/benchwatch.service" || fail "benchwatch.service has no WatchdogSec="
grep -q '^Type=oneshot$' "$T/benchwatch-verify.service" || fail "verify unit is not oneshot"
grep -q '^ExecStart=.* verify$' "$T/benchwatch-verify.service" || fail "verify unit does not run verify"

# Documentation= names man pages that ship (dist_man_MANS): each unit
# names one, the tree has it, and `systemd-analyze verify` finds it with
# man(1) when MANPATH holds only the pages of this tree (not installed ones).
shipped=$(sed -n 's/^dist_man_MANS *+*= *//p' "$top_srcdir/Makefile.am")
[ -n "$shipped" ] || fail "no dist_man_MANS in Makefile.am: which man pages ship?"
mkdir -p "$T/man"
for u in benchwatch.service benchwatch-verify.service; do
        docs=$(sed -n 's/^Documentation=//p' "$T/$u")
        [ -n "$docs" ] || fail "$u has no Documentation="
        for d in $docs; do
                case $d in
                man:*\(*\)) page=${d#man:}; sec=${page#*(}; sec=${sec%)}; page=${page%(*}.$sec ;;
                *) continue ;;
                esac
                case " $shipped " in *" man/$page "*) ;; *) fail "$u: $d is not a shipped man page ($shipped)" ;; esac
                [ -f "$top_srcdir/man/$page" ] || fail "$u: $d: no $top_srcdir/man/$page"
                mkdir -p "$T/man/man$sec" && cp "$top_srcdir/man/$page" "$T/man/man$sec/"
        done
done
man_check=--man=no
command -v man > /dev/null && man_check=--man=yes
out=$(cd "$T" && MANPATH="$T/man" systemd-analyze verify $man_check ./benchwatch.service ./benchwatch-verify.service 2>&1)
rc=$?
[ $rc = 0 ] && [ -z "$out" ] || fail "systemd-analyze verify $man_check (exit $rc): $out"

systemd-analyze security --offline=true --no-pager "$T/benchwatch.service" > "$T/security" 2>&1 \
        || fail "systemd-analyze security: $(tail -5 "$T/security")"
score=$(sed -n 's/^.*Overall exposure level for benchwatch.service: \([0-9.]*\).*$/\1/p' "$T/security")
[ -n "$score" ] || fail "no exposure score in: $(tail -3 "$T/security")"
echo "benchwatch.service exposure: $score"
python3 -c "import sys; sys.exit(0 if $score <= 3.0 else 1)" || fail "exposure $score > 3.0"
exit 0
