#!/usr/bin/env bash
# Each public header (include/fwpt/*.h) compiles on its own, first in a translation unit, as C11 and as C++11
# (extern "C"), with -Wall -Wextra -Werror -pedantic: a caller needs nothing else before it. One check per header
# and language. Prints "check_headers: N passed, N failed". Usage: tests/api/check_headers.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
for h in "$root"/include/fwpt/*.h; do
    name=fwpt/$(basename "$h")
    for lang in "${CC:-gcc} -x c -std=c11" "${CXX:-g++} -x c++ -std=c++11"; do
        # shellcheck disable=SC2086
        if out=$(printf '#include "%s"\nint fwpt_check_headers_tu;\n' "$name" |
                 $lang -Wall -Wextra -Werror -pedantic -I"$root/include" -fsyntax-only - 2>&1); then
            pass=$((pass + 1))
        else
            echo "check_headers: $name as ${lang%% *} ${lang##* }:"; printf '%s\n' "$out" | head -5
            fail=$((fail + 1))
        fi
    done
done
echo "check_headers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
