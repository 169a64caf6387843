#!/usr/bin/env bash
# The public API as a caller meets it: `make install` into a temporary DESTDIR, then docs/example/profile.c built
# against the INSTALLED headers and library with `pkg-config --cflags --libs fwpt` (nothing of the checkout on its
# include path), run on the conformance corpus' traces ($FWPT_CONFORMANCE/libipt: every case with code.bin at its
# org and no processor named), and its output compared exactly with what `build/fwpt flow` says for the same
# input: the instruction count and the decode errors (fwpt flow --format jsonl: its "insn" and "error" lines), the
# instructions and calls per function entry in the same order (fwpt flow --profile --format jsonl: "function"
# lines), and the exit status (0 clean, 1 errors or nothing decoded, 3 cut). One check per case, plus the install,
# the build and the uninstall. Prints "test_example: N passed, N failed".
# Usage: tests/api/test_example.sh   (make test runs it after building build/fwpt and build/libfwpt-decode.a)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FWPT_BUILD:-$root/build}
corpus=${FWPT_CONFORMANCE:-$root/../shared/conformance}/libipt
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "test_example: $*"; fail=$((fail + 1)); }
done_() { echo "test_example: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix=/usr/local

if out=$(make -s -C "$root" install DESTDIR="$tmp/root" PREFIX=$prefix 2>&1); then ok; else
    bad "make install failed:"; printf '%s\n' "$out" | tail -5; done_; fi
export PKG_CONFIG_PATH=$tmp/root$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/root PKG_CONFIG_LIBDIR=
flags=$(pkg-config --cflags --libs fwpt) || { bad "pkg-config --cflags --libs fwpt failed"; done_; }
version=$(sed -n 's/^#define FWPT_VERSION_\(MAJOR\|MINOR\) \([0-9]*\)$/\2/p' "$root/include/fwpt/version.h" | paste -sd.)
if [ "$(pkg-config --modversion fwpt)" = "$version" ]; then ok; else
    bad "pkg-config --modversion fwpt: $(pkg-config --modversion fwpt), include/fwpt/version.h: $version"; fi
# shellcheck disable=SC2086
if out=$(cd "$tmp" && ${CC:-gcc} -std=c11 -Wall -Wextra -Werror -pedantic "$root/docs/example/profile.c" $flags \
         -o "$tmp/profile" 2>&1); then ok; else
    bad "docs/example/profile.c does not build against the installed API ($flags):"; printf '%s\n' "$out" | head -10; done_; fi

[ -f "$corpus/manifest.tsv" ] || { bad "no conformance corpus at $corpus"; done_; }
cases=0
# manifest.tsv: name, cpu, org, ptxed_opts, ptdump_opts, files (empty fields: read by awk, not by read's IFS)
while read -r name org; do
    d=$corpus/$name
    at=${org#0x}
    cases=$((cases + 1))
    got=$("$tmp/profile" "$d/trace.pt" "$d/code.bin@$at" 2>/dev/null)
    got_rc=$?
    flow=$("$build/fwpt" flow "$d/trace.pt" --image "$d/code.bin@$at" --cpu none --format jsonl --no-disasm -q 2>/dev/null)
    want_rc=$?
    prof=$("$build/fwpt" flow "$d/trace.pt" --image "$d/code.bin@$at" --cpu none --format jsonl --profile --top 1000000 \
           -q 2>/dev/null)
    want=$(printf 'instructions %d\nerrors %d\n' "$(grep -c '^{"type":"insn"' <<<"$flow")" \
                                                "$(grep -c '^{"type":"error"' <<<"$flow")"
           sed -n 's/^{"type":"function","entry":"\([^"]*\)".*"self":\([0-9]*\),"calls":\([0-9]*\)}$/function \1 self \2 calls \3/p' \
               <<<"$prof")
    if [ "$got" = "$want" ] && [ "$got_rc" -eq "$want_rc" ]; then ok; else
        bad "$name: the example (exit $got_rc) and fwpt flow (exit $want_rc) differ:"
        diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6
    fi
done < <(awk -F'\t' 'NR > 1 && $2 == "-" && $6 ~ /code\.bin/ && $4 !~ /--raw/ { print $1, $3 }' "$corpus/manifest.tsv")
[ "$cases" -gt 0 ] || bad "no case of $corpus/manifest.tsv fits (code.bin, no processor)"
# a file that is no trace: exit 1 and the status named, nothing on stdout (as fwpt flow: exit 1)
head -c 4096 /dev/zero >"$tmp/zero.pt"
printf '\x90\xc3' >"$tmp/code.bin"
got=$("$tmp/profile" "$tmp/zero.pt" "$tmp/code.bin@100000" 2>"$tmp/err")
got_rc=$?
if [ "$got_rc" -eq 1 ] && [ -z "$got" ] && grep -q "E_NOSYNC" "$tmp/err"; then ok; else
    bad "no trace: exit $got_rc, stdout '$got', stderr '$(cat "$tmp/err")' (want 1, nothing, E_NOSYNC)"; fi

make -s -C "$root" uninstall DESTDIR="$tmp/root" PREFIX=$prefix >/dev/null 2>&1
left=$(find "$tmp/root" -type f)
if [ -z "$left" ]; then ok; else bad "make uninstall left:" $left; fi
done_
