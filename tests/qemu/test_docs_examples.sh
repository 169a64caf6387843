#!/usr/bin/env bash
# The examples of README.md and docs/ against a run of today: `./run-qemu.sh` with no app options (trace
# locate-handle shutdown) under TCG, its console (stdout and stderr) and its saved directory, given to
# tests/docs/check_examples.py, which compares the console blocks and runs the `$ build/fwpt ... out/fwpt`
# blocks on the saved directory (its rules: numbers a build changes may differ, consistently). Then the
# load-image example of docs/user-guide.md as written there: build/hello.efi (built by make) copied into the
# image and traced. Prints "qemu-docs-examples: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-docs-examples
need "$B/fwpt.efi" "$B/fwpt" "$B/hello.efi"

# 1. The default run: the console blocks and the host tool's examples.
t0=$SECONDS
"$here/run-qemu.sh" --no-build --build "$B" --accel tcg --timeout 300 --out "$work/def" >"$work/def.raw" 2>&1
rc=$?
# The page shows the default run on a machine where KVM fails and run-qemu.sh falls back to TCG; the test asks for
# TCG itself (the same guest, no KVM attempt), which run-qemu.sh notes as "(--accel tcg)" on its booting line.
console_clean <"$work/def.raw" | sed 's/^\(run-qemu: booting .* under TCG (-cpu [^)]*)\) (--accel tcg)$/\1/' >"$work/def.log"
echo "boot def (./run-qemu.sh, no app options): exit $rc, $((SECONDS - t0)) s"
if [ "$rc" = 0 ]; then ok; else bad "run-qemu.sh with no app options: exit $rc, expected 0"; tail -n 5 "$work/def.log"; fi
if out=$(python3 "$here/tests/docs/check_examples.py" --saved "$work/def/fwpt" --console "$work/def.log" \
        --build "$B" "$here" 2>&1); then
    ok
else
    bad "the examples of the docs differ from this run:"
fi
printf '%s\n' "$out" | sed 's/^/    /'
if grep -q 'blocks need a run' <<<"$out"; then bad "check_examples.py skipped blocks although it had the run"; else ok; fi

# 2. docs/user-guide.md's load-image example, with build/hello.efi: the app loads and starts it (it returns 0x1234).
line=$(grep -o '`\./run-qemu\.sh --copy build/hello\.efi=[^`]*`' "$here/docs/user-guide.md" | head -n 1 | tr -d '`')
if [ -n "$line" ]; then ok; else bad "docs/user-guide.md has no \`./run-qemu.sh --copy build/hello.efi=...\` example"; finish; fi
read -r -a words <<<"${line#./run-qemu.sh }"
for i in "${!words[@]}"; do words[i]=${words[i]//\'/}; words[i]=${words[i]/#build\//$B/}; done
t0=$SECONDS
"$here/run-qemu.sh" --no-build --build "$B" --accel tcg --timeout 300 --out "$work/load" "${words[@]}" \
    >"$work/load.raw" 2>&1
rc=$?
console_clean <"$work/load.raw" >"$work/load.log"
echo "boot load ($line): exit $rc, $((SECONDS - t0)) s"
if [ "$rc" = 0 ]; then ok; else bad "$line: exit $rc, expected 0"; tail -n 5 "$work/load.log"; fi
if grep -qE '^target: load-image returned EFI_SUCCESS \(0x0\), StartImage EFI status \(0x1234\), image at 0x[0-9a-f]+ size 0x[0-9a-f]+$' "$work/load.log"; then
    ok
else
    bad "$line: no 'target: load-image returned EFI_SUCCESS (0x0), StartImage EFI status (0x1234), ...' line"
fi
finish
