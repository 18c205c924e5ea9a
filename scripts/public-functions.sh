#!/usr/bin/env bash
# public-functions.sh [CC] - every function the public headers declare, as the compiler
# parses them (gcc -aux-info), not as a pattern guesses: "NAME HEADER LINE" per line, HEADER
# relative to include/. `make install` writes a man page link for each (man objrt_load
# opens the page of its header); tests/suites/67-host.sh checks each is documented there.
set -eu
CC=${1:-gcc}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$ROOT"/include/objrt.h "$ROOT"/include/objrt/*.h; do
    printf '#include "%s"\n' "$h"
done >"$tmp/h.c"
(cd "$ROOT" && "$CC" -std=c11 -Iinclude -aux-info "$tmp/aux" -c "$tmp/h.c" -o "$tmp/h.o")
grep -E "^/\* ($ROOT/)?include/[^:]*:[0-9]+:NC \*/" "$tmp/aux" | grep -v '\*/ typedef' |
    sed -E "s|^/\* ($ROOT/)?include/([^:]*):([0-9]+):NC \*/ *(.*)|\2 \3 \4|" |
    while read -r hdr line decl; do
        name=$(printf '%s' "$decl" | sed -E 's/ *\(.*//; s/.*[ *]//')
        printf '%s %s %s\n' "$name" "$hdr" "$line"
    done | sort -u -k1,1
