#!/usr/bin/env python3
"""List the variables of an OVMF variable store (an OVMF_VARS*.fd, or a whole OVMF.fd whose first firmware volume
is the store): one line per variable in the VAR_ADDED state, `NAME GUID ATTRIBUTES DATA-HEX` (the first 32 bytes).

    varstore.py FILE [NAME]   with NAME: only that variable's data, as hex (exit 1 when it is absent)

The layout is EDK2's (UEFI PI spec, Volume 3, "Firmware Volume Header"; MdeModulePkg VariableFormat.h): the FV
header, then VARIABLE_STORE_HEADER, then variables 4-byte aligned, each a header (StartId 0x55AA) + name + data."""
import struct
import sys
import uuid

AUTH_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")  # gEfiAuthenticatedVariableGuid
PLAIN_GUID = uuid.UUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")  # gEfiVariableGuid
VAR_ADDED, VAR_IN_DELETED_TRANSITION = 0x3F, 0xFE


def variables(b):
    if b[0x28:0x2C] != b"_FVH":
        raise SystemExit("varstore: no firmware volume header at offset 0")
    start = struct.unpack_from("<H", b, 0x30)[0]  # HeaderLength
    sig = uuid.UUID(bytes_le=bytes(b[start:start + 16]))
    if sig not in (AUTH_GUID, PLAIN_GUID):
        raise SystemExit(f"varstore: no variable store header at offset {start:#x} (signature {sig})")
    size = struct.unpack_from("<I", b, start + 16)[0]
    auth = sig == AUTH_GUID
    hdr = 60 if auth else 32
    off, end = start + 28, start + size
    while off + hdr <= end and struct.unpack_from("<H", b, off)[0] == 0x55AA:
        state, attr = b[off + 2], struct.unpack_from("<I", b, off + 4)[0]
        ns, ds = struct.unpack_from("<II", b, off + (36 if auth else 8))
        guid = uuid.UUID(bytes_le=bytes(b[off + hdr - 16:off + hdr]))
        name = b[off + hdr:off + hdr + ns].decode("utf-16-le").rstrip("\0")
        data = b[off + hdr + ns:off + hdr + ns + ds]
        if state in (VAR_ADDED, VAR_ADDED & VAR_IN_DELETED_TRANSITION):
            yield name, guid, attr, data
        off = (off + hdr + ns + ds + 3) & ~3


def main():
    b = open(sys.argv[1], "rb").read()
    if len(sys.argv) > 2:
        found = [d for n, _, _, d in variables(b) if n == sys.argv[2]]
        if not found:
            return 1
        print(found[-1].hex())
        return 0
    for name, guid, attr, data in variables(b):
        shown = data.hex() if len(data) <= 32 else data[:32].hex() + f"... ({len(data)} bytes)"
        print(name, guid, f"{attr:#x}", shown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
