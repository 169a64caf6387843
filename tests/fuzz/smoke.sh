#!/usr/bin/env bash
# Runs each built libFuzzer target in $FWPT_BUILD/fuzz for FUZZ_SMOKE_SECONDS (default 20) seconds,
# starting from its corpus if `make fuzz` left one and its seeds in tests/fuzz/seeds/NAME (new inputs go to a scratch
# dir).
# Prints "fuzz-smoke: N passed, N failed". Built by `make test` (tests/fuzz.mk).
set -u
build=${FWPT_BUILD:-build}
secs=${FUZZ_SMOKE_SECONDS:-20}
pass=0
fail=0
shopt -s nullglob
for f in "$build"/fuzz/fuzz_*; do
    if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
    name=$(basename "$f")
    scratch=$(mktemp -d)
    corpus=()
    [ -d "$build/fuzz/corpus-$name" ] && corpus=("$build/fuzz/corpus-$name")
    seeds=$(dirname "$0")/seeds/${name#fuzz_} # committed seeds (tests/fuzz/seeds/NAME for fuzz_NAME)
    [ -d "$seeds" ] && corpus+=("$seeds")
    dict=()
    [ -f "$seeds.dict" ] && dict=(-dict="$seeds.dict") # its words (keys the readers look for)
    if out=$("$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" "$scratch" "${corpus[@]}" 2>&1); then
        echo "$name: ok ($(printf '%s\n' "$out" | grep -Eo 'Done [0-9]+ runs in [0-9]+ second' | tail -n 1))"
        pass=$((pass + 1))
    else
        echo "$name: FAILED"
        printf '%s\n' "$out" | tail -n 30
        fail=$((fail + 1))
    fi
    rm -rf "$scratch"
done
echo "fuzz-smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
