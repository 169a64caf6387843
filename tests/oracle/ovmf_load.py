#!/usr/bin/env python3
"""Load the PE32 images of a UEFI flash image (e.g. OVMF.fd) as a PE loader would, into a saved-trace directory.

Each image (found by ovmf_extract.py's walk) is placed at its own load base from BASE up (each base 64 KiB aligned,
in the order of their CodeView names): its headers and sections copied to their RVAs (PE/COFF spec "Section
Table"), the rest zero, and its base relocations applied (PE/COFF spec "The .reloc Section": IMAGE_REL_BASED_DIR64
adds base - ImageBase to the 8 bytes at the RVA; IMAGE_REL_BASED_ABSOLUTE is padding). Writes OUTDIR/img-BASE.bin
per image and OUTDIR/sideband.json's "images" list as the app writes it: name (the CodeView path's <Name>), base,
size, file, pdb (the CodeView path), path (FvFile(<FFS file GUID>)). No trace.pt. Standard library only.
Usage: ovmf_load.py FLASH.fd OUTDIR BASE
"""
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ovmf_extract  # noqa: E402


def codeview(data):
    m = re.search(rb"(?:NB10.{12}|RSDS.{20})([^\0]+\.(?:dll|pdb|so))\0", data, re.S)
    return m.group(1).decode() if m else ""


def load(data, base):
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("not a PE image")
    nsec, optsize = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    opt = pe + 24
    if struct.unpack_from("<H", data, opt)[0] != 0x20B:
        raise ValueError("not PE32+")
    image_base = struct.unpack_from("<Q", data, opt + 24)[0]
    size_of_image, size_of_headers = struct.unpack_from("<II", data, opt + 56)
    nrva = struct.unpack_from("<I", data, opt + 108)[0]
    reloc_rva, reloc_size = struct.unpack_from("<II", data, opt + 112 + 5 * 8) if nrva > 5 else (0, 0)
    img = bytearray(size_of_image)
    img[:size_of_headers] = data[:size_of_headers]
    for i in range(nsec):
        off = opt + optsize + 40 * i
        vsize, rva, rawsize, rawptr = struct.unpack_from("<IIII", data, off + 8)
        n = min(vsize or rawsize, rawsize)
        img[rva:rva + n] = data[rawptr:rawptr + n]
    delta = (base - image_base) & (2**64 - 1)
    pos, end, fixed = reloc_rva, reloc_rva + reloc_size, 0
    while pos + 8 <= end:
        page, block = struct.unpack_from("<II", img, pos)
        if block < 8:
            break
        for k in range(pos + 8, pos + block, 2):
            e = struct.unpack_from("<H", img, k)[0]
            typ, at = e >> 12, page + (e & 0xFFF)
            if typ == 10:  # IMAGE_REL_BASED_DIR64
                v = struct.unpack_from("<Q", img, at)[0]
                struct.pack_into("<Q", img, at, (v + delta) & (2**64 - 1))
                fixed += 1
            elif typ != 0:
                raise ValueError(f"relocation type {typ} at 0x{at:x}")
        pos += block
    return bytes(img), fixed


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__.split("Usage: ", 1)[1])
        return 2
    flash, outdir, base = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    ovmf_extract.walk_flash(flash)
    os.makedirs(outdir, exist_ok=True)
    pes = sorted((codeview(body), digest, body) for digest, (typ, body) in ovmf_extract.images.items()
                 if typ == ovmf_extract.SEC_PE32)
    out, fixed_all = [], 0
    for cv, digest, body in pes:
        try:
            img, fixed = load(body, base)
        except (ValueError, struct.error) as e:
            print(f"{cv or digest}: skipped: {e}", file=sys.stderr)
            continue
        name = re.sub(r"\.[^.]*$", "", re.split(r"[/\\]", cv)[-1]) if cv else digest[:8]
        fn = f"img-{base:x}.bin"
        with open(os.path.join(outdir, fn), "wb") as f:
            f.write(img)
        guid = ovmf_extract.file_guids.get(digest)
        out.append({"name": name, "base": f"0x{base:x}", "size": f"0x{len(img):x}", "file": fn, "pdb": cv,
                    "path": f"FvFile({guid})" if guid else ""})
        fixed_all += fixed
        base += (len(img) + 0xFFFF) & ~0xFFFF
    with open(os.path.join(outdir, "sideband.json"), "w") as f:
        json.dump({"images": out}, f, indent=1)
    print(f"{len(out)} images loaded into {outdir}, {fixed_all} DIR64 relocations applied")
    return 0 if out else 1


if __name__ == "__main__":
    sys.exit(main())
