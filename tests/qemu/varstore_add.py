#!/usr/bin/env python3
"""Add a variable to an OVMF variable store file on the host, as the firmware's variable driver would find it after
a SetVariable (for tests that need a variable the firmware did not write).

    varstore_add.py STORE NAME HEX [ATTRIBUTES]
        appends NAME (vendor GUID: EFI_GLOBAL_VARIABLE) with the data HEX and ATTRIBUTES (default 0x7: NV+BS+RT) after
        the last variable of STORE; a variable NAME already there is marked deleted first
    varstore_add.py --load-option DESCRIPTION LIKE-HEX FILE-PATH
        prints, as hex, an EFI_LOAD_OPTION (attributes LOAD_OPTION_ACTIVE) whose file path list is the device path of
        the load option LIKE-HEX up to its first media file path node, then FILE-PATH, then the end node

The store layout is the one tests/qemu/varstore.py reads (UEFI PI spec, Volume 3, "Firmware Volume Header"; EDK2's
authenticated variable format: VARIABLE_STORE_HEADER, then variables 4-byte aligned, each a 60-byte header with
StartId 0x55AA, State, Attributes, MonotonicCount, TimeStamp, PubKeyIndex, NameSize, DataSize, VendorGuid, then the
UTF-16 name with its NUL and the data). State: VAR_ADDED 0x3F; a deleted variable is VAR_ADDED & VAR_DELETED &
VAR_IN_DELETED_TRANSITION = 0x3C. The load option: UEFI spec, "Load Options" (EFI_LOAD_OPTION: UINT32 Attributes,
UINT16 FilePathListLength, the NUL-terminated UTF-16 description, the device path, optional data) and "Device Path
Protocol" (media device path type 4, file path subtype 4; end of path 0x7F 0xFF)."""
import struct
import sys
import uuid

AUTH_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")  # gEfiAuthenticatedVariableGuid
GLOBAL_GUID = uuid.UUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")  # EFI_GLOBAL_VARIABLE
VAR_ADDED, VAR_DELETED_ALL = 0x3F, 0x3C
HDR = 60


def fail(msg):
    raise SystemExit(f"varstore_add: {msg}")


def store_bounds(b):
    if b[0x28:0x2C] != b"_FVH":
        fail("no firmware volume header at offset 0")
    start = struct.unpack_from("<H", b, 0x30)[0]  # HeaderLength
    sig = uuid.UUID(bytes_le=bytes(b[start:start + 16]))
    if sig != AUTH_GUID:
        fail(f"no authenticated variable store header at offset {start:#x} (signature {sig})")
    size = struct.unpack_from("<I", b, start + 16)[0]
    return start + 28, start + size


def add(path, name, data, attr):
    b = bytearray(open(path, "rb").read())
    off, end = store_bounds(b)
    while off + HDR <= end and struct.unpack_from("<H", b, off)[0] == 0x55AA:
        state = b[off + 2]
        ns, ds = struct.unpack_from("<II", b, off + 36)
        guid = uuid.UUID(bytes_le=bytes(b[off + 44:off + HDR]))
        vname = b[off + HDR:off + HDR + ns].decode("utf-16-le").rstrip("\0")
        if state == VAR_ADDED and vname == name and guid == GLOBAL_GUID:
            b[off + 2] = VAR_DELETED_ALL
        off = (off + HDR + ns + ds + 3) & ~3
    encoded = (name + "\0").encode("utf-16-le")
    var = struct.pack("<HBBIQ16sIII", 0x55AA, VAR_ADDED, 0, attr, 0, bytes(16), 0, len(encoded), len(data))
    var += GLOBAL_GUID.bytes_le + encoded + data
    if off + len(var) > end:
        fail(f"{path}: no room for {name} ({len(var)} bytes at offset {off:#x}, the store ends at {end:#x})")
    if any(x != 0xFF for x in b[off:off + len(var)]):
        fail(f"{path}: the space after the last variable (offset {off:#x}) is not erased flash (0xFF)")
    b[off:off + len(var)] = var
    open(path, "r+b").write(b)


def load_option(description, like, file_path):
    attr, fpl = struct.unpack_from("<IH", like, 0)
    i = 6
    while like[i:i + 2] != b"\0\0":  # the description
        i += 2
    dp, i, prefix = like[i + 2:i + 2 + fpl], 0, b""
    while i + 4 <= len(dp):
        t, st, n = dp[i], dp[i + 1], struct.unpack_from("<H", dp, i + 2)[0]
        if (t, st) in ((4, 4), (0x7F, 0xFF)) or n < 4:
            break
        prefix += dp[i:i + n]
        i += n
    else:
        fail("the load option's device path has no end node")
    path16 = (file_path + "\0").encode("utf-16-le")
    path_list = prefix + struct.pack("<BBH", 4, 4, 4 + len(path16)) + path16 + bytes([0x7F, 0xFF, 4, 0])
    return struct.pack("<IH", 1, len(path_list)) + (description + "\0").encode("utf-16-le") + path_list


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "--load-option":
        print(load_option(a[1], bytes.fromhex(a[2]), a[3]).hex())
    elif len(a) in (3, 4) and not a[0].startswith("-"):
        add(a[0], a[1], bytes.fromhex(a[2]), int(a[3], 0) if len(a) == 4 else 0x7)
    else:
        fail("usage: varstore_add.py STORE NAME HEX [ATTRIBUTES] | --load-option DESCRIPTION LIKE-HEX FILE-PATH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
