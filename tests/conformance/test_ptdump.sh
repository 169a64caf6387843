#!/usr/bin/env bash
# fwpt dump against libipt's ptdump expectations in ../shared/conformance (tests/conformance/ptdump.py).
# Prints "conformance_ptdump: N passed, N failed"; a missing corpus is a failure (CI always has it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/ptdump.py" "$@"
