#!/usr/bin/env bash
# fwpt flow against libipt's ptxed expectations in ../shared/conformance (tests/conformance/ptxed.py).
# Prints "conformance_ptxed: N passed, N failed"; a missing corpus is a failure (CI always has it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/ptxed.py" "$@"
