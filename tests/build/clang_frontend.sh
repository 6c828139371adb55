#!/bin/sh
# clang_frontend.sh — the compiler and libtool of clang_werror.sh's build:
# every file through clang's front end, where all the warnings the tree
# turns on (-Wall -Wextra -Wformat=2 -Wshadow ...) are found, without the
# code generation and links that took most of that build's time (a gcc
# build beside it links the same tree).
#   as CC ($CLANG set): `$CLANG -fsyntax-only` with make's flags, which
#     writes the dependency file make moves; an empty object for the rules
#     that wait on it;
#   as LIBTOOL (first argument --libtool): compile mode runs its command
#     (this script as CC), any other mode leaves an empty output.
set -u
out=
prev=
if [ "${1:-}" = --libtool ]; then
        while [ $# -gt 0 ]; do
                case $1 in
                --mode=compile) shift; exec "$@" ;;
                --mode=*) shift; break ;;
                *) shift ;;
                esac
        done
else
        compile=no
        for a in "$@"; do
                [ "$a" = -c ] && compile=yes
        done
        if [ $compile = yes ]; then
                "${CLANG:?}" -fsyntax-only "$@" || exit
        fi
fi
for a in "$@"; do
        [ "$prev" = -o ] && out=$a
        prev=$a
done
[ -z "$out" ] || : > "$out"
