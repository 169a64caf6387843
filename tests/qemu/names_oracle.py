"""The oracle the end-to-end names checks share (tests/qemu/names_check.py, names_edk2.py, names_pdb_check.py):
the forms of THE NAMES CONTRACT (docs/symbols.md) the views print, and what binutils say of an ELF file.

- func_name(FUNC, OFF): `FUNC` at the function's entry, else `FUNC+0xOFF` (lower-case hex, no leading zeros).
- named_text / parse_named: a text view's name column, `NAME` and ` (BASENAME:LINE)` when the line is known.
- listing_line: an instruction line of the text listing, its address, name column and the columns after it.
- Elf: one ELF file's function symbols and source positions, at ELF addresses (runtime address - the image's load
  base, the address rule of docs/symbols.md):
  - the functions holding an address: its STT_FUNC symbols (`readelf -sW`; one without a size ends at the next
    symbol's start), each of them listed by `nm` at that address;
  - the source position: `addr2line -a -i`'s first frame (the discriminator cut; `??` or line 0: unknown), inlined
    where it prints more than one frame; asked for in batches;
  - row_says: the line-table row `objdump --dwarf=decodedline` prints for an address, the referee where binutils
    2.40's addr2line names another file of a DWARF 5 unit than the row does."""
import bisect
import json
import os
import re
import subprocess


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def func_name(name, off):
    return name if off == 0 else "%s+0x%x" % (name, off)


def named_text(name, file, line):
    """what a text view prints for a named address: NAME, then ' (BASENAME:LINE)' when the file is known"""
    return name + (" (%s:%d)" % (os.path.basename(file), line) if file else "")


NAMED = re.compile(r"(\S+)(?: \((.*):(\d+)\))?")


def parse_named(text):
    """'NAME' or 'NAME (FILE:LINE)' -> (NAME, FILE, LINE), FILE and LINE None without; None when not that form"""
    m = NAMED.fullmatch(text)
    return (m.group(1), m.group(2), int(m.group(3)) if m.group(3) else None) if m else None


LISTING = re.compile(r"(0x[0-9a-f]{16})  (\S+(?: \([^)]*\))?)( +\d+  .*|\s*\d+)$")


def listing_line(line):
    """an instruction line of the text listing -> (address, its name column, the columns after it); None else"""
    m = LISTING.match(line)
    return (int(m.group(1), 16), m.group(2), m.group(3)) if m else None


def sideband_images(d):
    """the images sideband.json records (d: the saved directory or the file itself)"""
    return json.load(open(os.path.join(d, "sideband.json") if os.path.isdir(d) else d))["images"]


def jsonl(path):
    return [json.loads(l) for l in open(path) if l.strip()]


class Elf:
    """One ELF file: its function symbols, and addr2line/objdump answers asked for in batches."""

    def __init__(self, path):
        self.path = path
        funcs = set()
        for l in run(["readelf", "-sW", path]).splitlines():
            f = l.split()
            if len(f) == 8 and f[3] == "FUNC" and f[6] != "UND":
                funcs.add((int(f[1], 16), int(f[2], 0), f[7]))  # a set: .symtab and .dynsym list some twice
        funcs = sorted(funcs)
        starts = sorted({s for s, _, _ in funcs})
        self.iv = []  # (start, end, name)
        for s, n, name in funcs:
            if not n:
                k = bisect.bisect_right(starts, s)
                n = (starts[k] - s) if k < len(starts) else 0
            if n:
                self.iv.append((s, s + n, name))
        self.nm = set()
        for l in run(["nm", "--defined-only", path]).splitlines():
            f = l.split()
            if len(f) == 3:
                self.nm.add((int(f[0], 16), f[2]))
        self.a2l = {}  # ELF address -> (file or None, line or 0, frames)
        self.rows = None

    def names(self, a):
        """[(name, start)] of the function symbols holding ELF address a, each as nm lists it"""
        return [(n, s) for s, e, n in self.iv if s <= a < e and (s, n) in self.nm]

    def ask(self, addrs):
        """addr2line for the ELF addresses not asked yet, in one run"""
        todo = sorted(set(addrs) - set(self.a2l))
        if not todo:
            return
        out = subprocess.run(["addr2line", "-a", "-i", "-e", self.path], input="".join("0x%x\n" % a for a in todo),
                             check=True, capture_output=True, text=True).stdout.splitlines()
        recs = []
        for l in out:
            if re.fullmatch(r"0x[0-9a-f]+", l):
                recs.append([])
            elif recs:
                recs[-1].append(re.sub(r" \(discriminator \d+\)$", "", l))
        if len(recs) != len(todo):
            raise ValueError("addr2line answered %d of %d addresses of %s" % (len(recs), len(todo), self.path))
        for a, frames in zip(todo, recs):
            f, _, ln = frames[0].rpartition(":") if frames else ("", "", "")
            known = f and f != "??" and ln.isdigit() and ln != "0"
            self.a2l[a] = (f if known else None, int(ln) if known else 0, len(frames))

    def src(self, a):
        """(file or None, line or 0, frames) of ELF address a, as addr2line -i prints them"""
        self.ask([a])
        return self.a2l[a]

    def row_says(self, a, file, line):
        """the line-table row for a (the last of those at the greatest address <= a) names file and line, as
        `objdump --dwarf=decodedline` prints it (a name longer than 35 characters: its last 35)"""
        if self.rows is None:
            self.rows = []
            for l in run(["objdump", "--dwarf=decodedline", self.path]).splitlines():
                f = l.split()
                if len(f) >= 3 and f[2].startswith("0x") and f[1].isdigit():
                    self.rows.append((int(f[2], 16), int(f[1]), f[0]))
            self.rows.sort(key=lambda r: r[0])  # stable: at one address, the order printed
            self.row_addrs = [r[0] for r in self.rows]
        k = bisect.bisect_right(self.row_addrs, a)
        best = self.rows[k - 1] if k else None
        if not best or best[1] != line:
            return False
        k = len(best[2])
        return file.endswith(best[2]) and (k >= 35 or file[len(file) - k - 1] == "/")
