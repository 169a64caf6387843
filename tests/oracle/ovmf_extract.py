#!/usr/bin/env python3
"""Extract the PE32/TE images of a UEFI flash image (e.g. OVMF.fd) into a directory.

Walks firmware volumes (_FVH at offset 0x28, PI spec Vol. 3 "Firmware Volume"), FFS files,
and file sections: GUID-defined sections (LZMA GUID EE4E5898-... decompressed, others read as
nested sections), FV image sections (0x17, recursed), PE32 (0x10) and TE (0x12) images (written).
Standard library only. Usage: ovmf_extract.py FLASH.fd OUTDIR
"""
import hashlib
import lzma
import os
import struct
import sys
import uuid

LZMA_GUID = uuid.UUID("EE4E5898-3914-4259-9D6E-DC7BD79403CF")
SEC_COMPRESSION, SEC_GUID_DEFINED, SEC_PE32, SEC_TE, SEC_FV_IMAGE = 0x01, 0x02, 0x10, 0x12, 0x17

images = {}
file_guids = {}  # image digest -> the GUID of the FFS file holding it (lower case)
current_file = [None]


def align(x, a):
    return (x + a - 1) & ~(a - 1)


def walk_sections(data, depth):
    off = 0
    while off + 4 <= len(data):
        size = int.from_bytes(data[off:off + 3], "little")
        typ = data[off + 3]
        hdr = 4
        if size == 0xFFFFFF:
            if off + 8 > len(data):
                return
            size = struct.unpack_from("<I", data, off + 4)[0]
            hdr = 8
        if size < hdr or off + size > len(data):
            return
        body = data[off + hdr:off + size]
        if typ in (SEC_PE32, SEC_TE):
            digest = hashlib.sha1(body).hexdigest()
            images.setdefault(digest, (typ, body))
            file_guids.setdefault(digest, current_file[0])
        elif typ == SEC_FV_IMAGE:
            walk_fv(body, 0, depth + 1)
        elif typ == SEC_GUID_DEFINED and len(body) >= 20:
            guid = uuid.UUID(bytes_le=bytes(body[:16]))
            data_off = struct.unpack_from("<H", body, 16)[0] - hdr
            inner = body[data_off:]
            if guid == LZMA_GUID:
                try:
                    inner = lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(bytes(inner))
                except lzma.LZMAError:
                    inner = b""
            if depth < 8:
                walk_sections(inner, depth + 1)
        elif typ == SEC_COMPRESSION and len(body) >= 5 and body[4] == 0 and depth < 8:
            walk_sections(body[5:], depth + 1)  # uncompressed EFI_COMPRESSION_SECTION
        off = align(off + size, 4)


def walk_fv(buf, start, depth):
    """Walk the FV at buf[start:]; returns its length (0 if not an FV)."""
    if start + 0x38 > len(buf) or buf[start + 0x28:start + 0x2C] != b"_FVH":
        return 0
    fv_len = struct.unpack_from("<Q", buf, start + 0x20)[0]
    hdr_len = struct.unpack_from("<H", buf, start + 0x30)[0]
    ext_off = struct.unpack_from("<H", buf, start + 0x34)[0]
    if fv_len < hdr_len or start + fv_len > len(buf) or depth > 8:
        return 0
    fv = buf[start:start + fv_len]
    off = hdr_len
    if ext_off:
        off = ext_off + struct.unpack_from("<I", fv, ext_off + 16)[0]
    off = align(off, 8)
    while off + 24 <= fv_len:
        if fv[off:off + 16] == b"\xff" * 16:
            break  # free space
        attrs = fv[off + 19]
        size = int.from_bytes(fv[off + 20:off + 23], "little")
        hdr = 24
        if attrs & 0x01:  # FFS_ATTRIB_LARGE_FILE
            size = struct.unpack_from("<Q", fv, off + 24)[0]
            hdr = 32
        if size < hdr or off + size > fv_len:
            break
        ftype = fv[off + 18]
        if ftype != 0xF0:  # not a pad file
            outer = current_file[0]
            current_file[0] = str(uuid.UUID(bytes_le=bytes(fv[off:off + 16])))
            walk_sections(fv[off + hdr:off + size], depth)
            current_file[0] = outer
        off = align(off + size, 8)
    return fv_len


def walk_flash(flash):
    """Every image of the flash image into images (and file_guids)."""
    with open(flash, "rb") as f:
        buf = memoryview(f.read())
    raw = bytes(buf)
    pos = raw.find(b"_FVH")
    while pos >= 0:
        start = pos - 0x28
        n = walk_fv(buf, start, 0) if start >= 0 else 0
        pos = raw.find(b"_FVH", max(pos + 4, start + n))


def main():
    flash, outdir = sys.argv[1], sys.argv[2]
    walk_flash(flash)
    os.makedirs(outdir, exist_ok=True)
    for name in os.listdir(outdir):
        if name.endswith((".efi", ".te")):
            os.unlink(os.path.join(outdir, name))
    for digest, (typ, body) in sorted(images.items()):
        ext = ".efi" if typ == SEC_PE32 else ".te"
        with open(os.path.join(outdir, digest[:16] + ext), "wb") as f:
            f.write(body)
    print(f"{len(images)} images written to {outdir}")
    return 0 if images else 1


if __name__ == "__main__":
    sys.exit(main())
