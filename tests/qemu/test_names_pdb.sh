#!/bin/bash
# test_names_pdb: names through a PDB on a real trace. build/pdbdemo.efi (clang -gcodeview, lld-link /debug:
# tests/pdb.mk) is traced with the app's load-image target under backend=soft on Debian's OVMF (TCG; LoadImage and
# StartImage whole, about 1.55 M instructions, the app's own listing off), then on the host
# `fwpt flow DIR --symbols build/pdbdemo.pdb` with --profile, --calls and the listing, in text and JSON lines:
# tests/qemu/names_pdb_check.py checks every profile function, call-tree node and distinct listing address inside
# pdbdemo against llvm-pdbutil (procedure names from dump --symbols, file:line from dump --l) and that nothing
# outside it is named; the stderr of each run is exactly the names line (matched by the CodeView path). The PDB of
# the build with one function changed, under the name the image's CodeView entry gives, is refused with the warning
# naming both GUID/ages, and the output is then byte for byte the output without --symbols.
# Prints "qemu-names-pdb: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-names-pdb
need "$B/fwpt.efi" "$B/fwpt" "$B/pdbdemo.efi" "$B/pdbdemo.pdb" "$B/pdbdemo-changed.pdb"
for t in llvm-pdbutil llvm-symbolizer; do
    command -v $t >/dev/null || command -v $t-14 >/dev/null || { bad "$t is not installed (Debian package llvm)"; finish; }
done

OVMF=$OVMF_RELEASE boot_tcg 300 pdb max --copy "$B/pdbdemo.efi=/fwpt/pdbdemo.efi" -- \
    trace load-image '\fwpt\pdbdemo.efi' backend=soft size=4M listing=0 quiet shutdown
if [ "$rc" = 0 ]; then ok; else bad "pdb: exit $rc, expected 0"; tail -n 3 "$work/pdb.err"; finish; fi
if grep -qE '^target: load-image returned EFI_SUCCESS \(0x0\), StartImage EFI_SUCCESS \(0x0\), image at 0x[0-9a-f]+ size 0x4000$' "$work/pdb.log"; then ok; else
    bad "pdb: no 'target: load-image returned EFI_SUCCESS (0x0), StartImage EFI_SUCCESS (0x0), image at ... size 0x4000'"; fi
dir=$work/pdb/fwpt
nimages=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["images"]))' "$dir/sideband.json")
names="names: 1 of $nimages traced images matched (1 by CodeView path; $((nimages - 1)) without a symbol file)"

# flow NAME ARGS...: fwpt flow DIR ARGS into $out/NAME, stderr into $out/NAME.err; exit 0 expected
out=$work/out
mkdir -p "$out"
flow() {
    local name=$1
    shift
    "$B/fwpt" flow "$dir" "$@" >"$out/$name" 2>"$out/$name.err"
    local st=$?
    if [ $st = 0 ]; then ok; else bad "fwpt flow $* exited $st: $(head -n 2 "$out/$name.err")"; fi
}
sym=(--symbols "$B/pdbdemo.pdb")
flow profile.jsonl --profile --top 100000 --format jsonl "${sym[@]}"
flow calls.jsonl --calls --format jsonl "${sym[@]}"
flow listing.jsonl --format jsonl "${sym[@]}"
flow profile.txt --profile --top 100000 "${sym[@]}"
flow calls.txt --calls "${sym[@]}"
flow listing.txt "${sym[@]}"
for f in profile.jsonl calls.jsonl listing.jsonl profile.txt calls.txt listing.txt; do
    if [ "$(cat "$out/$f.err")" = "$names" ]; then ok; else bad "$f: stderr is not '$names': $(head -n 3 "$out/$f.err")"; fi
done
if python3 "$here/tests/qemu/names_pdb_check.py" "$B/pdbdemo.pdb" "$B/pdbdemo.efi" "$dir" "$out"; then ok; else
    bad "names_pdb_check: the names differ from llvm-pdbutil's (above)"; fi
rm -f "$out"/listing.*

# Another build's PDB where the CodeView path points: the warning, and the output as without --symbols
mkdir -p "$work/stale"
cp "$B/pdbdemo-changed.pdb" "$work/stale/pdbdemo.pdb"
sig() { (llvm-pdbutil dump --summary "$1" 2>/dev/null || llvm-pdbutil-14 dump --summary "$1") |
        awk '$1 == "GUID:" { g = $2 } $1 == "Age:" { a = $2 } END { print g "/" a }'; }
want="fwpt flow: symbols for pdbdemo do not match the traced image: the PDB's GUID/age $(sig "$B/pdbdemo-changed.pdb") differs from the image's $(sig "$B/pdbdemo.pdb") (stale build?): $work/stale/pdbdemo.pdb
names: 0 of $nimages traced images matched ($nimages without a symbol file)"
flow stale.txt --profile --calls --symbols "$work/stale"
flow plain.txt --profile --calls
if [ "$(cat "$out/stale.txt.err")" = "$want" ]; then ok; else
    bad "stale PDB: stderr is not the warning: $(cat "$out/stale.txt.err")"; echo "  expected: $want"; fi
if cmp -s "$out/stale.txt" "$out/plain.txt" && [ -s "$out/plain.txt" ]; then ok; else
    bad "stale PDB: the output differs from the output without --symbols"; fi
finish
