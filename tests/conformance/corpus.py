"""Intel's decoder conformance corpus (../shared/conformance/libipt, see its README.md): where it and
fwpt's build are, its manifest, and the family of a case. Shared by ptdump.py and ptxed.py."""
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def corpus_root():
    """The corpus: $FWPT_CONFORMANCE/libipt (the Makefile exports it), else ../shared/conformance/libipt beside the
    repository."""
    top = os.environ.get("FWPT_CONFORMANCE") or os.path.join(os.path.dirname(REPO), "shared", "conformance")
    return os.path.join(top, "libipt")


def build_path(*parts):
    """A file of this build: $FWPT_BUILD (the Makefile exports it), else build/."""
    return os.path.join(os.environ.get("FWPT_BUILD") or os.path.join(REPO, "build"), *parts)


def read_manifest(corpus):
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def family(name):
    """The case's family: its name up to the first '-' or '@' (bdm70, ovf, psb, ...)."""
    return re.split(r"[-@]", name, maxsplit=1)[0]


def case_cpu(row):
    """The case's processor for --cpu ("F/M"), or None."""
    cpu = row.get("cpu", "-")
    return None if cpu in ("-", "") else cpu
