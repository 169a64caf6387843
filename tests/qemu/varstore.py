#!/usr/bin/env python3
"""List the variables of an OVMF variable store (an OVMF_VARS*.fd, or a whole OVMF.fd whose first firmware volume
is the store): one line per variable in the VAR_ADDED state, `NAME GUID ATTRIBUTES DATA-HEX` (the first 32 bytes).

    varstore.py FILE [NAME]   with NAME: only that variable's data, as hex (exit 1 when it is absent)
    varstore.py FILE --attr NAME      its attributes (0x7: NV+BS+RT)
    varstore.py FILE --loadopt NAME   the EFI_LOAD_OPTION in it (UEFI spec, "Load Options"), one field a line:
                                      attributes, description, file path (as gnu-efi prints it: PciRoot(0)/...), optional
                                      data (as UTF-16 text up to its NUL, with the byte count)
    varstore.py FILE --add NAME HEX   appends NAME (EFI_GLOBAL_VARIABLE, NV+BS+RT) with these bytes to the store, as
                                      the firmware appends a variable (a test's foreign option)

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


GLOBAL_GUID = uuid.UUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")  # EFI_GLOBAL_VARIABLE


def store_end(b):
    """The offset after the last variable (where the firmware appends), the store's end, and its header size."""
    start = struct.unpack_from("<H", b, 0x30)[0]
    auth = uuid.UUID(bytes_le=bytes(b[start:start + 16])) == AUTH_GUID
    size = struct.unpack_from("<I", b, start + 16)[0]
    hdr = 60 if auth else 32
    off, end = start + 28, start + size
    while off + hdr <= end and struct.unpack_from("<H", b, off)[0] == 0x55AA:
        ns, ds = struct.unpack_from("<II", b, off + (36 if auth else 8))
        off = (off + hdr + ns + ds + 3) & ~3
    return off, end, auth


def add(path, name, data):
    b = bytearray(open(path, "rb").read())
    list(variables(b))  # the headers are checked
    off, end, auth = store_end(b)
    wname = (name + "\0").encode("utf-16-le")
    if auth:  # AUTHENTICATED_VARIABLE_HEADER: MonotonicCount, TimeStamp, PubKeyIndex zero
        head = struct.pack("<HBBIQ16sIII", 0x55AA, VAR_ADDED, 0, 7, 0, bytes(16), 0, len(wname), len(data))
    else:
        head = struct.pack("<HBBIII", 0x55AA, VAR_ADDED, 0, 7, len(wname), len(data))
    rec = head + GLOBAL_GUID.bytes_le + wname + data
    if off + len(rec) > end or any(x != 0xFF for x in b[off:off + len(rec)]):
        raise SystemExit(f"varstore: no erased room for {name} at {off:#x}")
    b[off:off + len(rec)] = rec
    open(path, "wb").write(b)


def devpath_text(p):
    """A device path as gnu-efi's DevicePathToStr prints the nodes fwpt's option holds; others as Path(T,S,HEX)."""
    out, i = [], 0
    while i + 4 <= len(p):
        t, st, ln = p[i], p[i + 1], struct.unpack_from("<H", p, i + 2)[0]
        body = p[i + 4:i + ln]
        if ln < 4:
            return "/".join(out) + f"/(bad node length {ln})"
        if t == 0x7F and st == 0xFF:
            return "/".join(out)
        if t == 2 and st == 1 and ln == 12 and struct.unpack_from("<I", body)[0] == 0x0A0341D0:
            out.append(f"PciRoot({struct.unpack_from('<I', body, 4)[0]:x})")
        elif t == 1 and st == 1 and ln == 6:
            out.append(f"Pci({body[1]:#x},{body[0]:#x})")
        elif t == 3 and st == 5 and ln == 6:  # USB: ParentPortNumber, InterfaceNumber
            out.append(f"Usb({body[0]:#x},{body[1]:#x})")
        elif t == 4 and st == 1 and ln == 42 and body[36] == 2 and body[37] == 2:  # Hard Drive, GPT: number, GUID
            guid = str(uuid.UUID(bytes_le=bytes(body[20:36]))).upper()
            out.append(f"HD({struct.unpack_from('<I', body)[0]},GPT,{guid})")
        elif t == 4 and st == 4:
            out.append(body.decode("utf-16-le").split("\0")[0])
        else:
            out.append(f"Path({t},{st},{body.hex()})")
        i += ln
    return "/".join(out) + "/(no End node)"


def loadopt(data):
    attr, fpl = struct.unpack_from("<IH", data, 0)
    i = 6
    while data[i:i + 2] != b"\0\0":
        i += 2
    desc = data[6:i].decode("utf-16-le")
    i += 2
    path, opt = data[i:i + fpl], data[i + fpl:]
    text = opt.decode("utf-16-le", "replace").split("\0")[0]
    return [f"attributes {attr:#x}", f"description {desc}", f"file path {devpath_text(path)}",
            f"optional data {text} ({len(opt)} bytes)"]


def main():
    if len(sys.argv) == 5 and sys.argv[2] == "--add":
        add(sys.argv[1], sys.argv[3], bytes.fromhex(sys.argv[4]))
        return 0
    b = open(sys.argv[1], "rb").read()
    if len(sys.argv) == 4 and sys.argv[2] in ("--loadopt", "--attr"):
        found = [(a, d) for n, _, a, d in variables(b) if n == sys.argv[3]]
        if not found:
            return 1
        print("\n".join(loadopt(found[-1][1])) if sys.argv[2] == "--loadopt" else f"{found[-1][0]:#x}")
        return 0
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
