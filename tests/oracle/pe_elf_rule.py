#!/usr/bin/env python3
"""Check the address rule between ELF files with symbols and the PE/COFF images made from them (docs/symbols.md):
every PE section's RVA equals the address of the ELF section of the same name, and the PE image's bytes there are
the ELF section's bytes. Reads PE headers (PE/COFF spec: "Section Table") with struct, ELF sections with binutils'
objdump -h. Prints one line per image: sections compared, bytes compared, bytes that differ.
Usage: pe_elf_rule.py IMAGE_DIR DEBUG_DIR   (images from ovmf_extract.py, named by the CodeView path's <Name>)
       pe_elf_rule.py --pair IMAGE.efi FILE.so
"""
import os
import re
import struct
import subprocess
import sys


def pe_sections(data):
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe:pe + 4] == b"PE\0\0", "not a PE image"
    nsec, = struct.unpack_from("<H", data, pe + 6)
    optsize, = struct.unpack_from("<H", data, pe + 20)
    image_base, = struct.unpack_from("<Q", data, pe + 24 + 24)
    out = []
    for i in range(nsec):
        off = pe + 24 + optsize + 40 * i
        name = data[off:off + 8].rstrip(b"\0").decode()
        vsize, rva, rawsize, rawptr = struct.unpack_from("<IIII", data, off + 8)
        out.append((name, rva, min(vsize, rawsize), rawptr))
    return image_base, out


def elf_sections(path):
    out = {}
    for line in subprocess.run(["objdump", "-h", path], capture_output=True, text=True, check=True).stdout.splitlines():
        m = re.match(r"\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            out[m.group(1)] = (int(m.group(3), 16), int(m.group(2), 16), int(m.group(4), 16))  # vma, size, offset
    return out


def codeview_name(data):
    # CodeView entry: "NB10" (GenFw) or "RSDS", then the build path of the .dll/.pdb: its <Name>
    m = re.search(rb"(?:NB10.{12}|RSDS.{20})[^\0]*?([^/\\\0]+)\.(?:dll|pdb|so)\0", data, re.S)
    return m.group(1).decode() if m else None


def compare(img_path, elf_path):
    data = open(img_path, "rb").read()
    elf = open(elf_path, "rb").read()
    base, secs = pe_sections(data)
    esecs = elf_sections(elf_path)
    nsec = nbytes = ndiff = 0
    problems = []
    for name, rva, size, rawptr in secs:
        if name not in esecs or name == ".reloc":
            continue
        vma, esize, eoff = esecs[name]
        if rva != vma:
            problems.append(f"{name}: RVA 0x{rva:x}, ELF address 0x{vma:x} (image base 0x{base:x})")
            continue
        n = min(size, esize)
        a, b = data[rawptr:rawptr + n], elf[eoff:eoff + n]
        ndiff += sum(1 for x, y in zip(a, b) if x != y)
        nbytes += n
        nsec += 1
    return base, nsec, nbytes, ndiff, problems


def main():
    if len(sys.argv) != 3 and not (len(sys.argv) == 4 and sys.argv[1] == "--pair"):
        sys.stderr.write(__doc__.split("Usage: ", 1)[1])
        return 2
    if sys.argv[1] == "--pair":
        pairs = [(sys.argv[2], sys.argv[3])]
    else:
        pairs = []
        for f in sorted(os.listdir(sys.argv[1])):
            if not f.endswith(".efi"):
                continue
            p = os.path.join(sys.argv[1], f)
            name = codeview_name(open(p, "rb").read())
            # <Name>.debug, or <Name>_<FILE_GUID>.debug where two modules share a name: the one whose sections agree
            cands = sorted(os.path.join(sys.argv[2], c) for c in os.listdir(sys.argv[2])
                           if name and (c == f"{name}.debug" or c.startswith(f"{name}_")))
            fits = [c for c in cands if not compare(p, c)[4] and compare(p, c)[3] == 0]
            if fits or cands:
                pairs.append((p, (fits or cands)[0]))
                if len(cands) > 1:
                    print(f"{f}: {len(cands)} candidates for {name}, {len(fits)} agree: {[os.path.basename(c) for c in cands]}")
            else:
                print(f"{f}: no .debug for CodeView name {name}")
    bad = 0
    for img, elf in pairs:
        base, nsec, nbytes, ndiff, problems = compare(img, elf)
        bad += bool(problems) or nsec == 0
        print(f"{os.path.basename(elf)}: image base 0x{base:x}, {nsec} sections at RVA = ELF address,"
              f" {nbytes} bytes compared, {ndiff} differ" + "".join(f"; {p}" for p in problems))
    print(f"{len(pairs)} images, {bad} break the rule")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
