#!/bin/sh
# readme.sh — the README stays what a user reads first, and the docs it
# points to stay true to the tree: README.md is at most 150 lines of at
# most 100 columns (characters: a UTF-8 sequence counts once); every path
# under bench/, lab/, docs/, tests/, conf/, daemon/, plugins/, tools/,
# units/ or man/ that README.md, docs/*.md, docs/reports/*.md or
# lab/README.md names exists, and so does every bench/ or lab/ path the
# code and scripts name; the docs that carry the README's figures open
# with the commands that reproduce them; and .ci/run still finds the
# README's test command (Testing), which CI runs.
top=${top_srcdir:-$(dirname "$0")/../..}
build=${top_builddir:-$top}
readme="$top/README.md"
[ -f "$readme" ] || { echo "SKIP: no README.md in $top"; exit 77; }
rc=0
fail() { echo "FAIL: $*"; rc=1; }
T=$(mktemp -d) || exit 99
trap 'rm -rf "$T"' EXIT

n=$(wc -l < "$readme")
[ "$n" -le 150 ] || fail "README.md has $n lines, more than 150"
LC_ALL=C awk '{ s = $0; gsub(/[\200-\277]/, "", s) }
        length(s) > 100 { print FNR ": " length(s) }' "$readme" > "$T/wide"
while read -r w; do
        fail "README.md line ${w%%:*} is ${w#*: } columns wide, more than 100"
done < "$T/wide"

# Paths named in the README and the docs: a word starting with one of the
# tree's top folders (not inside /usr/share/... or a URL), its trailing
# punctuation dropped, in the source or the build tree (a test program, a
# fixture the build makes); globs and placeholders are not checked.
for f in "$readme" "$top"/docs/*.md "$top"/docs/reports/*.md "$top/lab/README.md"; do
        [ -f "$f" ] || continue
        grep -oE '(^|[^A-Za-z0-9_./<-])(bench|lab|docs|tests|conf|daemon|plugins|tools|units|man)/[A-Za-z0-9_./-]*' "$f" |
                sed 's/^[^a-z]//; s/[.,:;]*$//' | sort -u |
                while read -r p; do
                        case $p in *'*'*|*'<'*) continue ;; esac
                        [ -e "$top/$p" ] || [ -e "$build/$p" ] || echo "$p"
                done > "$T/missing"
        while read -r p; do
                fail "${f#"$top"/} names $p, which is not in the tree"
        done < "$T/missing"
done

# Paths under bench/ and lab/ that the code, scripts, man pages, rules and
# HACKING.md name, comments included: the lab and the fault campaign
# moved out of bench/ once, and a comment that names the old place sends
# a reader nowhere.  A program built from PATH.c counts; NAME is a
# placeholder.
(cd "$top" && grep -rhoIE --include='*.[ch]' --include='*.sh' --include='*.py' \
        --include='*.md' --include='*.[58]' --include='*.yml' --include='*.awk' \
        --exclude-dir=build --exclude-dir=.git \
        '(^|[^A-Za-z0-9_./<-])(bench|lab)/[A-Za-z0-9_./-]*' \
        HACKING.md daemon plugins tests tools bench lab man conf) |
        sed 's/^[^a-z]//; s/[.,:;]*$//' | sort -u |
        while read -r p; do
                case $p in *NAME*) continue ;; esac
                [ -e "$top/$p" ] || [ -e "$top/$p.c" ] || echo "$p"
        done > "$T/stale"
while read -r p; do
        fail "a file of the tree names $p, which is not in the tree (grep -rn '$p')"
done < "$T/stale"

# The README's Layout matches the tree: each folder in its first column
# (several where they share a line) and each sub-folder named after it
# ("util/, core/ (plugin.h)": the words ending in '/', outside brackets).
awk '/^## Layout/ { on = 1; next } /^## / { on = 0 }
     on && /^    [^ ]/ {
             head = substr($0, 5); rest = ""
             if (match(head, /   +/)) { rest = substr(head, RSTART); head = substr(head, 1, RSTART - 1) }
             n = split(head, h, " "); dir = (n == 1) ? h[1] : ""
             for (i = 1; i <= n; i++) print h[i]
             words(rest); next }
     on && /^                     / { words($0) }
     function words(s,   w, k, m) {
             gsub(/\([^)]*\)/, "", s); m = split(s, w, /[ ,;]+/)
             for (k = 1; k <= m; k++)
                     if (dir != "" && w[k] ~ /^[a-z_]+\/$/) print dir w[k] }' "$readme" |
        while read -r p; do [ -e "$top/$p" ] || echo "$p"; done > "$T/layout"
while read -r p; do
        fail "README.md's Layout names $p, which is not in the tree"
done < "$T/layout"

# Each doc with figures opens with its commands: an indented block before
# any other paragraph below its title.
for d in cost detection benchmarks; do
        f="$top/docs/reports/$d.md"
        [ -f "$f" ] || { fail "docs/reports/$d.md is missing (README points to it)"; continue; }
        first=$(sed -n '2,$p' "$f" | grep -v '^$' | head -n 1)
        case $first in
        "    "*) ;;
        *) fail "docs/reports/$d.md does not open with the command that reproduces it: '$first'" ;;
        esac
        grep -q "docs/reports/$d.md" "$readme" ||
                fail "README.md does not point to docs/reports/$d.md"
done

# .ci/run's extraction of the test command, as .ci/run does it.
cmd=$(sed -n 's/^    sudo \(tools\/install-deps.*make -j2 && make check.*\)$/\1/p' "$readme" | head -n 1)
[ -n "$cmd" ] || fail "README.md has no test command .ci/run can find"
case $cmd in
*--build-only*) fail "the first command .ci/run finds is the build-only one: $cmd" ;;
esac

[ "$rc" -eq 0 ] && echo "PASS: README.md $n lines, none over 100 columns; every path named exists"
exit $rc
