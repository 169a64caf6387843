#!/usr/bin/env bash
# libfwpt-decode.a is freestanding, as the EFI application is: it is built -ffreestanding and needs no symbol it
# does not define itself, from libc or anywhere else. GCC may emit calls to memcpy, memmove, memset and memcmp
# even in freestanding code (struct copies, zeroing); the library allows none of those either: it copies and fills
# with fwpt_memcpy and fwpt_memset (base/text.h) and __builtin_memcpy of constant size, so a caller in firmware
# links it with nothing else, and a new call GCC emits shows up here first. One check per symbol it needs.
# Prints "check_libc: N passed, N failed". Usage: tests/api/check_libc.sh [BUILD]  (default $FWPT_BUILD)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${FWPT_BUILD:-$root/build}}
lib=$build/libfwpt-decode.a
pass=0 fail=0
if [ ! -f "$lib" ]; then
    echo "check_libc: $lib: missing (make $lib)"; fail=1
else
    defined=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
    for s in $(nm -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u); do
        if grep -qx "$s" <<<"$defined"; then pass=$((pass + 1)); else
            echo "check_libc: libfwpt-decode.a needs $s, which it does not define (libc or another library)"
            fail=$((fail + 1))
        fi
    done
fi
echo "check_libc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
