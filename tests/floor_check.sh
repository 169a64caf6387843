#!/usr/bin/env bash
# The floors of the house (docs/architecture.md): a folder includes headers of its own folder or of a folder on
# a lower floor, never one above nor one beside it on the same floor:
#
#   efi/  tools/     5   firmware glue; the host tool
#   render/          4   text, JSON lines, SVG, HTML: what a person reads
#   analyze/  sim/   3   totals of a decoded flow (summaries, profile, edges, the parallel walk); the software
#                        tracer (output model, encoder, single-step CPU)
#   topa/  decode/   2   output plans and readback; bytes and code -> packets, instructions, events, time
#   arch/            1   CPU interface, RTIT MSRs, capabilities, errata, trace sequence
#   base/            0   status, text, JSON
#
#   include/fwpt/        the public API (docs/api.md): any floor may include its headers ("fwpt/x.h"); they
#                        include only each other and <stdint.h>, <stddef.h>, <stdbool.h>
#
# Besides, only efi/ includes gnu-efi's headers (<efi.h>, <efilib.h>): only efi/ talks to firmware.
# tests/ may include anything and is not checked. Each source file checked is one pass; each include
# that breaks a rule is one failure, printed as "FILE:LINE: #include ... (why)".
# Usage: tests/floor_check.sh [ROOT]   (ROOT: the checkout, default the one holding this script)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
floors="base:0 arch:1 topa:2 decode:2 analyze:3 sim:3 render:4 efi:5 tools:5"
files=$(find include base arch topa decode analyze sim render efi tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) 2>/dev/null | sort)
[ -n "$files" ] || { echo "floor_check: no source files under $root"; echo "floor_check: 0 passed, 1 failed"; exit 1; }
# shellcheck disable=SC2086
awk -v floors="$floors" '
BEGIN {
    n = split(floors, f, " ")
    for (i = 1; i <= n; i++) { split(f[i], kv, ":"); rank[kv[1]] = kv[2] }
}
FNR == 1 {
    if (file != "") { if (bad_here) failed_files++; else passed++ }
    file = FILENAME; bad_here = 0
    split(file, p, "/"); own = p[1]
}
own == "include" && /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    hdr = line; sub(/^[<"]/, "", hdr); sub(/[>"].*/, "", hdr)
    if (line ~ /^</ ? (hdr != "stdint.h" && hdr != "stddef.h" && hdr != "stdbool.h") : hdr !~ /^fwpt\//) {
        printf "%s:%d: #include %s (a public header includes only public headers and <stdint.h>, <stddef.h>, <stdbool.h>)\n", file, FNR, line
        violations++; bad_here = 1
    }
    next
}
/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    if (line ~ /^</) {
        hdr = line; sub(/^</, "", hdr); sub(/>.*/, "", hdr)
        if ((hdr == "efi.h" || hdr == "efilib.h" || hdr ~ /^efi\//) && own != "efi") {
            printf "%s:%d: #include <%s> (only efi/ includes gnu-efi: only efi/ talks to firmware)\n", file, FNR, hdr
            violations++; bad_here = 1
        }
        next
    }
    hdr = line; sub(/^"/, "", hdr); sub(/".*/, "", hdr)
    if (hdr !~ /\//) next                           # a header beside the file: its own folder
    if (hdr ~ /^fwpt\//) next                       # the public API: below every floor
    split(hdr, q, "/"); to = q[1]
    if (to == own) next
    if (!(to in rank)) {
        printf "%s:%d: #include \"%s\" (%s/ is not a floor of the house: %s/ may not include it)\n", file, FNR, hdr, to, own
        violations++; bad_here = 1
    } else if (rank[to] > rank[own]) {
        printf "%s:%d: #include \"%s\" (%s/ is on floor %d, above %s/ on floor %d)\n", file, FNR, hdr, to, rank[to], own, rank[own]
        violations++; bad_here = 1
    } else if (rank[to] == rank[own]) {
        printf "%s:%d: #include \"%s\" (%s/ and %s/ share floor %d: neither includes the other)\n", file, FNR, hdr, to, own, rank[own]
        violations++; bad_here = 1
    }
}
END {
    if (file != "") { if (bad_here) failed_files++; else passed++ }
    printf "floor_check: %d files on their floors, %d files with %d includes that break a floor\n", passed, failed_files, violations
    printf "floor_check: %d passed, %d failed\n", passed, violations
    exit violations ? 1 : 0
}' $files
