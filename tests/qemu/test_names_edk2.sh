#!/usr/bin/env bash
# Names on an EDK2 build, end to end: `trace read-file` (the FAT driver reading a file, through DxeCore's services)
# under backend=soft on the EDK2 DEBUG build of OVMF (../shared/ovmf-debug/OVMF.fd), then `build/fwpt flow DIR
# --symbols` with that build's .debug files: symbols only (debug/), full DWARF (debug-full.tar.xz, unpacked once into
# BUILD/ovmf-debug-full), and the same files renamed sym_FILEGUID.debug (matched by the FV file GUID alone).
# tests/qemu/names_edk2.py checks the output against binutils: every function of the profile and the call tree (JSON
# lines and text), every distinct instruction address of the listing, both ends of every edge (--edges) and the
# folded frames in DxeCore, Fat and CpuDxe named as nm names the symbol at (address - recorded base), file:line as addr2line prints it (objdump --dwarf=decodedline the referee
# where binutils 2.40 names another file of a DWARF 5 unit), inlined as addr2line -i; the images matched (the stderr
# names: line) and no mismatch warning; the traced CpuDxe named from its own file, not the other CpuDxe's.
# The app's side: sideband.json's fv_guid, CodeView path and code CRC-32 of those images, and the console's names:
# line as docs/files.md shows it, and the profile docs/symbols.md shows. Without the DEBUG build: NOT RUN, and a failure.
# Prints "qemu-names-edk2: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-names-edk2
need "$B/fwpt.efi" "$B/fwpt"
shared=$(dirname "$OVMF_DEBUG")
for f in "$OVMF_DEBUG" "$shared/MODULES.tsv" "$shared/debug/DxeCore.debug" "$shared/debug-full.tar.xz"; do
    if [ ! -e "$f" ]; then
        bad "NOT RUN: no $f: the EDK2 DEBUG build of OVMF with its symbol files (../shared/ovmf-debug beside the checkout; set FWPT_OVMF_DEBUG to its OVMF.fd)"
        finish
    fi
done

# The full DWARF, unpacked once (about 75 MB) and kept between runs beside the build.
full=$B/ovmf-debug-full
if [ ! -f "$full/.unpacked" ] || [ "$shared/debug-full.tar.xz" -nt "$full/.unpacked" ]; then
    rm -rf "$full" && mkdir -p "$full" && tar -xJf "$shared/debug-full.tar.xz" -C "$full" && touch "$full/.unpacked"
fi
if [ -f "$full/.unpacked" ] && [ -f "$full/DxeCore.debug" ]; then ok; else bad "could not unpack $shared/debug-full.tar.xz into $full"; finish; fi
# The same files named by their module's FILE_GUID alone (sym_FILEGUID.debug): only the FV file GUID matches them.
byguid=$work/byguid
mkdir -p "$byguid"
tail -n +2 "$shared/MODULES.tsv" | while IFS=$'\t' read -r file module guid _; do
    ln "$full/$file" "$byguid/sym_$guid.debug" 2>/dev/null || cp "$full/$file" "$byguid/sym_$guid.debug"
done

fw_label=debug
# 1. The trace: read-file of the app's own option file, the whole call (about 92 000 instructions; steps= bounds it).
boot_fw debug 240 rf max -- trace read-file '\fwpt\fwpt.cfg' backend=soft steps=400000 quiet shutdown
debug_clean rf
d=$work/rf/fwpt
if [ "$rc" = 0 ] && [ -s "$d/sideband.json" ]; then ok; else bad "rf: exit $rc, expected 0 with the files saved"; tail -n 5 "$work/rf.err"; finish; fi
if grep -qE '^target: read-file returned EFI_SUCCESS' "$work/rf.log"; then ok; else bad "rf: the read did not return EFI_SUCCESS"; fi

# 2. What the app recorded: each checked image's fv_guid (the module's FILE_GUID), CodeView path and code CRC-32.
if python3 - "$d" "$shared/MODULES.tsv" <<'PY'; then ok; else bad "rf: sideband.json's image identities (above)"; fi
import json, os, sys, zlib
d, tsv = sys.argv[1], sys.argv[2]
guid = {r.split("\t")[1]: r.split("\t")[2].lower() for r in open(tsv).read().splitlines()[1:] if not r.startswith("CpuDxe_")}
sb = json.load(open(os.path.join(d, "sideband.json")))
seen = set()
for im in sb["images"]:
    n = im["name"]
    if n in ("DxeCore", "Fat", "CpuDxe"):
        seen.add(n)
        assert im["fv_guid"] == guid[n], (n, im["fv_guid"], guid[n])
        assert im["path"] == "FvFile(%s)" % guid[n], (n, im["path"])
        assert im["pdb"].endswith("/DEBUG/%s.dll" % n), (n, im["pdb"])
        assert im["pdb_guid"] is None and im["pdb_age"] is None, (n, "EDK2 writes NB10: no GUID")
    if n == "BOOTX64":
        assert im["fv_guid"] is None and im["pdb"] == "", im
    # the CRC-32 of the executable sections, as zlib computes it over the saved file
    b = open(os.path.join(d, im["file"]), "rb").read()
    pe = int.from_bytes(b[0x3c:0x40], "little")
    nsec, opt = int.from_bytes(b[pe + 6:pe + 8], "little"), int.from_bytes(b[pe + 20:pe + 22], "little")
    crc = size = 0
    for k in range(nsec):
        s = pe + 24 + opt + 40 * k
        vsize, rva, raw = (int.from_bytes(b[s + o:s + o + 4], "little") for o in (8, 12, 16))
        if int.from_bytes(b[s + 36:s + 40], "little") & 0x20000000:
            part = b[rva:rva + (vsize or raw)]
            crc, size = zlib.crc32(part, crc), size + len(part)
    assert im["code_crc32"] == "0x%x" % crc and im["code_bytes"] == size, (n, im["code_crc32"], hex(crc), size)
assert seen >= {"DxeCore", "Fat"}, seen
print("sideband: %d images: fv_guid, path, pdb and code_crc32 as expected (%s)" % (len(sb["images"]), " ".join(sorted(seen))))
PY
# the console's names: line: the directory all CodeView paths share, then each traced image that has one, in the
# order of sideband.json (by base); docs/files.md shows it for such a run (which images a read-file touches varies
# from boot to boot: Metronome's Stall now and then; the command and the directory do not)
got=$(grep -m1 '^names: ' "$work/rf.log")
want=$(python3 - "$d" <<'PY'
import json, os, sys
ims = [im for im in json.load(open(os.path.join(sys.argv[1], "sideband.json")))["images"] if im["pdb"]]
common = os.path.commonprefix([im["pdb"] for im in ims]).rsplit("/", 1)[0]
print("names: build/fwpt report <the copied \\fwpt directory> --symbols %s (CodeView paths: %s)" % (
    common, ", ".join("%s: .../%s" % (im["name"], im["pdb"].rsplit("/", 1)[1]) for im in ims)))
PY
)
if [ "$got" = "$want" ]; then ok; else bad "rf: the console's names: line is not what sideband.json's images give"; printf '    run:      %s\n    expected: %s\n' "$got" "$want"; fi
page=$(grep -m1 '^names: .* --symbols /build/edk2/' "$here/docs/files.md")
if [ -n "$page" ] && [ "${page%% (CodeView paths: *}" = "${got%% (CodeView paths: *}" ] && [[ "$page" =~ \(CodeView\ paths:\ (Fat|DxeCore):\ \.\.\./ ]]; then
    ok
else
    bad "rf: docs/files.md's names: line is not this run's (up to the CodeView paths)"; printf '    run:  %s\n    page: %s\n' "$got" "$page"
fi

# 3. The host: each set of symbol files, every view checked against binutils.
# check NAME SYMDIR CHECKER-OPTIONS...: fwpt flow with --symbols SYMDIR (profile and call tree in JSON lines and text,
# the listing in JSON lines, folded stacks), then names_edk2.py; each of its checks is one pass or failure here.
check() {
    local name=$1 syms=$2 p=$work/$1
    shift 2
    "$B/fwpt" flow "$d" --symbols "$syms" --profile --top 1000 --calls --depth 1000 --format jsonl --folded "$p.folded" \
        >"$p.jsonl" 2>"$p.err"
    local rc1=$?
    "$B/fwpt" flow "$d" --symbols "$syms" --profile --top 1000 --calls --depth 1000 >"$p.txt" 2>/dev/null
    local rc2=$?
    "$B/fwpt" flow "$d" --symbols "$syms" --format jsonl --no-disasm >"$p.listing" 2>/dev/null
    local rc3=$?
    "$B/fwpt" flow "$d" --symbols "$syms" --edges --format jsonl >"$p.edges" 2>/dev/null
    local rc4=$?
    if [ "$rc1$rc2$rc3$rc4" = 0000 ]; then ok; else bad "$name: fwpt flow --symbols $syms: exit $rc1 $rc2 $rc3 $rc4, expected 0"; head -n 5 "$p.err" | sed 's/^/    /'; fi
    python3 "$here/tests/qemu/names_edk2.py" --dir "$d" --symbols "$syms" --modules "$shared/MODULES.tsv" \
        --module DxeCore --module Fat --module CpuDxe --jsonl "$p.jsonl" --text "$p.txt" --listing "$p.listing" \
        --folded "$p.folded" --edges "$p.edges" --stderr "$p.err" "$@" >"$p.check" 2>&1
    local n f
    n=$(sed -n 's/^names-edk2-check: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$p.check")
    f=$(sed -n 's/^names-edk2-check: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$p.check")
    echo "$name: --symbols $syms"
    sed 's/^/    /' "$p.check"
    if [ -z "$n" ]; then bad "$name: names_edk2.py did not finish"; return; fi
    pass=$((pass + n))
    fail=$((fail + f))
}
check symbols-only "$shared/debug" --by "CodeView path"
check full-dwarf "$full" --dwarf --by "CodeView path"
check by-guid "$byguid" --dwarf --by "FV file GUID" --file-pattern 'sym_{guid}.debug'

# docs/symbols.md's example: the top of this run's profile with the full DWARF, as the page shows it
# (the number of functions differs with the app's build: the FAT driver reads the disk image the build made)
want=$(awk '/^<!-- example: names on the EDK2 DEBUG build/ { on = 1; next } on && /^```/ { if (++f == 2) exit; next } on' \
    "$here/docs/symbols.md" | sed 's/(self; top 5 of [0-9]*)/(self; top 5 of N)/')
got=$("$B/fwpt" flow "$d" --symbols "$full" --profile --top 5 2>/dev/null | sed -n '/^instructions per function entry/,$p' |
    sed 's/(self; top 5 of [0-9]*)/(self; top 5 of N)/')
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad "docs/symbols.md's profile example differs from this run:"; diff <(echo "$want") <(echo "$got") | sed 's/^/    /'; fi

# 4. Without --symbols nothing changes: the profile and call tree as before the symbols were asked for.
"$B/fwpt" flow "$d" --profile --top 1000 --calls --depth 1000 >"$work/plain.txt" 2>"$work/plain.err"
if ! grep -q '^names: ' "$work/plain.err" && sed -E 's/^(.*0x[0-9a-f]+  [A-Za-z0-9_]+\+0x[0-9a-f]+)  .*$/\1/' "$work/full-dwarf.txt" | cmp -s - "$work/plain.txt"; then
    ok
else
    bad "without --symbols the profile and call tree are not those with the names cut off (or stderr has a names: line)"
fi
finish
