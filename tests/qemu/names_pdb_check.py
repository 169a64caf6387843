#!/usr/bin/env python3
"""Checks fwpt flow's names for a PDB-built image against llvm-pdbutil (tests/qemu/test_names_pdb.sh).

usage: names_pdb_check.py PDB EFI DIR OUT

DIR is the saved \\fwpt\\ directory (sideband.json names the image whose CodeView path ends in the PDB's file
name); OUT holds what `fwpt flow DIR --symbols PDB` printed: profile.jsonl, calls.jsonl, listing.jsonl (--format
jsonl with --profile, --calls, none), profile.txt, calls.txt, listing.txt (text). The referee:
- the procedures of `llvm-pdbutil dump --symbols` (S_GPROC32/S_LPROC32: segment:offset in decimal, code size),
  placed at the image's load base + the section's RVA read from the PE file's own section table;
- the line tables of `llvm-pdbutil dump --l`: the row at the greatest offset at or below the address, the block's
  first row before its first row (clang writes no row of the caller over code it inlined: the call's line), any of
  the rows when several share that offset (tests/unit/test_symbols_pdb.c's rule).
The name of an address is PROC at the procedure's start, else PROC+0xOFF (THE NAMES CONTRACT, as
tests/qemu/names_oracle.py writes and reads it); text views print the file's basename, JSON the file as the PDB
gives it. Every function record, call-tree node and distinct listing address
inside the image is checked; outside it nothing may carry a name. Prints one line of counts; exit 1 on a mismatch,
each one said.
"""
import json
import os
import re
import struct
import subprocess
import sys

from names_oracle import func_name, listing_line, parse_named, sideband_images


def pdbutil(*args):
    for tool in ("llvm-pdbutil", "llvm-pdbutil-14"):
        try:
            return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout
        except FileNotFoundError:
            continue
    sys.exit("names_pdb_check: llvm-pdbutil not found (Debian package llvm)")


def pe_sections(path):
    """[(name, rva, virtual size)] of the PE/COFF file (PE/COFF specification: e_lfanew at 0x3c, COFF header,
    optional header, 40-byte section headers)."""
    b = open(path, "rb").read()
    pe = struct.unpack_from("<I", b, 0x3C)[0]
    nsec, optsize = struct.unpack_from("<H", b, pe + 6)[0], struct.unpack_from("<H", b, pe + 20)[0]
    out, sh = [], pe + 24 + optsize
    for i in range(nsec):
        name = b[sh + 40 * i:sh + 40 * i + 8].rstrip(b"\0").decode()
        vsize, rva = struct.unpack_from("<II", b, sh + 40 * i + 8)
        out.append((name, rva, vsize))
    return out


def procedures(pdb, secs):
    procs, name = [], None
    for line in pdbutil("dump", "--symbols", pdb).splitlines():
        m = re.search(r"\| S_[GL]PROC32 \[size = \d+\] `([^`]+)`", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"addr = (\d+):(\d+), code size = (\d+)", line)
        if m and name:
            seg, off, size = map(int, m.groups())
            procs.append((name, secs[seg - 1][1] + off, size))
            name = None
    return procs


def line_blocks(pdb, secs):
    blocks, cur_file = [], None
    for line in pdbutil("dump", "--l", pdb).splitlines():
        m = re.match(r"^(/\S.*|[A-Za-z]:\\.*) \(MD5: ", line)
        if m:
            cur_file = m.group(1)
            continue
        m = re.match(r"^\s+(\d{4}):([0-9A-Fa-f]{8})-([0-9A-Fa-f]{8}), line/addr entries", line)
        if m:
            seg = int(m.group(1))
            rva = secs[seg - 1][1]
            blocks.append({"file": cur_file, "start": rva + int(m.group(2), 16), "end": rva + int(m.group(3), 16),
                           "rows": [], "sec": rva})
            continue
        if blocks and re.match(r"^\s+\d+ [0-9A-Fa-f]{8} !", line):
            for ln, at in re.findall(r"(\d+) ([0-9A-Fa-f]{8}) !", line):
                blocks[-1]["rows"].append((blocks[-1]["sec"] + int(at, 16), int(ln)))
    return blocks


def main():
    pdb, efi, d, out = sys.argv[1:5]
    secs = pe_sections(efi)
    procs = procedures(pdb, secs)
    blocks = line_blocks(pdb, secs)
    if len(procs) < 5 or len(blocks) < 5:
        sys.exit(f"names_pdb_check: llvm-pdbutil listed {len(procs)} procedures and {len(blocks)} line blocks")
    pdbname = os.path.basename(pdb).lower()
    ims = [im for im in sideband_images(d) if re.split(r"[\\/]", im.get("pdb") or "")[-1].lower() == pdbname]
    if len(ims) != 1:
        sys.exit(f"names_pdb_check: {len(ims)} traced images name {pdbname} in their CodeView entry, 1 expected")
    im = ims[0]
    module, base, size = im["name"], int(im["base"], 16), int(im["size"], 16)
    bad = []

    def name_of(addr):
        rva = addr - base
        for name, start, n in procs:
            if start <= rva < start + n:
                return func_name(name, rva - start), name, rva - start
        return None, None, None

    def lines_of(addr):
        rva = addr - base
        for b in blocks:
            if b["start"] <= rva < b["end"] and b["rows"]:
                below = [at for at, _ in b["rows"] if at <= rva]
                if not below:
                    return b["file"], {b["rows"][0][1]}
                best = max(below)
                return b["file"], {ln for at, ln in b["rows"] if at == best}
        return None, None

    def check_json(rec, addr, what, offset_key=False):
        inside = base <= addr < base + size
        full, name, off = name_of(addr) if inside else (None, None, None)
        file, lines = lines_of(addr) if inside else (None, None)
        if offset_key:  # the listing: "function" is the procedure, "function_offset" the offset
            want = name
            if full is not None and rec.get("function_offset") != f"0x{off:x}":
                bad.append(f"{what} 0x{addr:x}: function_offset {rec.get('function_offset')!r}, expected 0x{off:x}")
        else:
            want = full
        if rec.get("function") != want:
            bad.append(f"{what} 0x{addr:x}: function {rec.get('function')!r}, llvm-pdbutil: {want!r}")
        if file is None:
            if "file" in rec or "line" in rec:
                bad.append(f"{what} 0x{addr:x}: file/line {rec.get('file')!r}:{rec.get('line')!r} where "
                           "llvm-pdbutil has no line")
        elif rec.get("file") != file or rec.get("line") not in lines:
            bad.append(f"{what} 0x{addr:x}: {rec.get('file')!r}:{rec.get('line')!r}, llvm-pdbutil: "
                       f"{file}:{sorted(lines)}")
        return inside

    def records(fname, kind):
        tag = f'"module":"{module}"'
        for line in open(os.path.join(out, fname)):
            if tag not in line and '"function"' not in line:
                continue  # not the image's and no name: nothing to check (the listing has millions)
            rec = json.loads(line)
            if rec.get("type") == kind and ("entry" in rec or "ip" in rec):
                yield rec

    nprof = ncalls = 0
    for rec in records("profile.jsonl", "function"):
        nprof += check_json(rec, int(rec["entry"], 16), "profile")
    for rec in records("calls.jsonl", "call"):
        ncalls += check_json(rec, int(rec["entry"], 16), "call tree")
    seen, nlist = set(), 0
    for rec in records("listing.jsonl", "insn"):
        ip = int(rec["ip"], 16)
        if ip in seen:
            continue
        seen.add(ip)
        nlist += check_json(rec, ip, "listing", offset_key=True)

    # text views: "0xENTRY  Module+0xOFF  NAME (FILE:LINE)" (profile, call tree), the listing's module column
    # becomes "NAME (FILE:LINE)"
    def text_name(addr):
        full, _, _ = name_of(addr)
        file, lines = lines_of(addr)
        return full, (os.path.basename(file) if file else None), lines

    ntext = 0
    for fname in ("profile.txt", "calls.txt"):
        for line in open(os.path.join(out, fname)):
            m = re.search(r"0x([0-9a-f]+)  (\S+\+0x[0-9a-f]+)(.*)$", line.rstrip("\n"))
            if not m or not m.group(2).startswith(module + "+"):
                if m and m.group(3):
                    bad.append(f"{fname}: a name outside {module}: {line.strip()}")
                continue
            addr = int(m.group(1), 16)
            full, file, lines = text_name(addr)
            got = parse_named(m.group(3)[2:]) if m.group(3).startswith("  ") else None
            if not got or got[0] != full or got[1] is None or got[1] != file or got[2] not in lines:
                bad.append(f"{fname}: {line.strip()!r}: expected '  {full} ({file}:{sorted(lines or [])})'")
            ntext += 1
    nlisted = 0
    for line in open(os.path.join(out, "listing.txt")):
        m = listing_line(line.rstrip("\n"))
        if not m:
            continue
        addr, (name, nfile, nline) = m[0], parse_named(m[1])
        if not base <= addr < base + size:
            if nfile is not None:
                bad.append(f"listing.txt: a name outside {module}: {line.strip()}")
            continue
        full, file, lines = text_name(addr)
        if name != full or nfile != file or (nline or 0) not in lines:
            bad.append(f"listing.txt: {line.strip()!r}: expected {full} ({file}:{sorted(lines or [])})")
        nlisted += 1
    for b in bad[:40]:
        print("names_pdb_check: " + b)
    print(f"names_pdb_check: {module} at 0x{base:x}: {nprof} profile functions, {ncalls} call-tree nodes, {nlist} "
          f"distinct listing addresses, {ntext} text rows, {nlisted} text listing lines checked against llvm-pdbutil "
          f"({len(procs)} procedures, {len(blocks)} line blocks); {len(bad)} mismatches")
    if not nprof or not ncalls or not nlist or not nlisted:
        print("names_pdb_check: nothing of the image was found in some output")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
