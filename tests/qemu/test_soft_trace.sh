#!/usr/bin/env bash
# The software trace backend end to end under QEMU/TCG (backend=soft).
#  1. OVMF boots soft-selftest.efi (efi/soft_selftest.c): for each case — profile (broadwell: single-
#     entry ToPA; skylake: multi-entry ring that wraps, IP filter; tremont: timing packets;
#     alderlake-p: TraceStop) x target (internal code, LocateHandleBuffer, GetMemoryMap,
#     AllocatePages) — the plan, ToPA tables, MSR sequence over the soft CPU, the single-stepped call,
#     readback, the flow decoder over live memory, and verify against the ground truth: each case
#     must print "verified" and PASS.
#  2. The TCG plugin tests/qemu/plugin/insn_trace.c records what the guest really executed during
#     each traced call (outside witness).
#  3. On the host, for each case saved in \fwpt-soft\CASE\: libipt (pt_insn_*) decodes trace.pt over
#     the saved code pages to exactly the ground truth, and the witness equals the ground truth but
#     for interrupt handlers (inserted runs ending in IRETQ), REP iterations and the trampoline.
#  4. The real fwpt.efi (efi/session.c) runs `trace TARGET
#     backend=soft profile=P verify` for three profiles and four targets; each must print "verified", and
#     on the host `fwpt flow` and libipt must decode the saved \fwpt\ files to the same sequence;
#     for the whole, unfiltered call the witness plugin must agree with that decoded flow too.
set -u
. "$(dirname "$0")/lib.sh" test_soft_trace
ok() { pass=$((pass + 1)); echo "ok: $*"; } # this one names each check
export PATH="$PATH:/usr/sbin:/sbin" MTOOLS_SKIP_CHECK=1
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
cases="bdw-internal bdw-locate skl-ring-memmap skl-filter-locate tremont-timing-alloc adl-tracestop-internal"

need "$B/soft-selftest.efi" "$B/tests/soft_ptxed" "$B/tests/insn_trace.so" "$B/fwpt.efi" "$B/fwpt"
# Steps 1-3 run on both firmwares (lib.sh firmwares); on the EDK2 DEBUG build (q35, as it is built for) the debug log
# must hold no ASSERT and no FATAL ERROR.
firmwares
for fw in $FIRMWARES; do
tmp=$work/$fw
mkdir -p "$tmp"
fw_label=$fw fw_bios=$OVMF_RELEASE fw_args=()
[ "$fw" = debug ] && fw_bios=$OVMF_DEBUG fw_args=(-machine q35 -debugcon "file:$tmp/st.debug" -global isa-debugcon.iobase=0x402)
echo "--- firmware: $fw"
"$here/tools/mkimage.sh" fat "$tmp/st.img" "$B/soft-selftest.efi" >/dev/null 2>&1 || { bad "mkimage"; finish; }
start=$(date +%s.%N)
timeout 600 qemu-system-x86_64 "${fw_args[@]}" -bios "$fw_bios" -drive format=raw,file="$tmp/st.img" -display none \
    -serial stdio -net none -m 512 -no-reboot -plugin "$B/tests/insn_trace.so,out=$tmp/w" </dev/null 2>&1 |
    console_clean >"$tmp/log"
end=$(date +%s.%N)
echo "qemu (TCG + witness plugin): $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
grep -E '^(=== |soft: |readback: |verif|flow: |soft-selftest)' "$tmp/log"
grep -q '!!!! X64 Exception' "$tmp/log" && bad "CPU exception in the guest: $(grep -m1 '!!!!' "$tmp/log")"
[ "$fw" = debug ] && debug_clean "$fw/st"

for c in $cases record-twice; do
    if grep -q "^soft-selftest $c: PASS" "$tmp/log"; then ok "$c: in-guest verify"; else bad "$c: in-guest verify"; fi
done
mkdir -p "$tmp/out"
mcopy -s -i "$tmp/st.img" ::/fwpt-soft "$tmp/out/" 2>/dev/null || bad "no \\fwpt-soft on the image"
i=0
for c in $cases; do
    i=$((i + 1))
    if [ ! -d "$tmp/out/fwpt-soft/$c" ] || [ ! -f "$tmp/w.$i" ]; then
        bad "$c: saved files or witness run $i missing"
        continue
    fi
    out=$("$B/tests/soft_ptxed" "$tmp/out/fwpt-soft/$c" "$tmp/w.$i")
    rc=$?
    echo "$out"
    if [ $rc -eq 0 ]; then ok "$c: libipt decode = ground truth, witness = ground truth + interrupts"; else bad "$c: host check"; fi
    # the timer is stopped while stepping (efi/soft.c): the emulator ran no interrupt handler inside the call
    if echo "$out" | grep -q ' + 0 in 0 inserted runs '; then ok "$c: no interrupt handler ran inside the stepped call"; else bad "$c: interrupt handlers ran inside the stepped call (the timer was not stopped)"; fi
done

done
fw_label=""
tmp=$work

# The real fwpt.efi (efi/session.c) with backend=soft: three profiles, four targets, single-entry
# ToPA, a wrapping ring, an IP filter, buffers that stop. In the guest each must print "verified"; on the host
# `fwpt flow` over the saved \fwpt\ files and libipt over trace.pt + img-BASE.bin give the same
# instruction sequence, as long as the in-guest decode (the whole flow when the ring did not wrap).
session_run() { # N WITNESS(0|1) OPTIONS...
    local r=$1 wit=$2
    shift 2
    local opts="$*" d="$tmp/sess$r"
    mkdir -p "$d"
    echo "$opts" >"$d/fwpt.cfg"
    "$here/tools/mkimage.sh" fat "$d/img" "$B/fwpt.efi" "$d/fwpt.cfg" >/dev/null 2>&1 || { bad "mkimage ($opts)"; return; }
    local plugin=()
    [ "$wit" = 1 ] && plugin=(-plugin "$B/tests/insn_trace.so,out=$d/w")
    local sout
    sout=$(timeout 300 qemu-system-x86_64 -bios "$OVMF" -drive format=raw,file="$d/img" -display none \
        -serial stdio -net none -m 512 -no-reboot "${plugin[@]}" </dev/null 2>&1 | console_clean)
    echo "$sout" >"$d/log"
    echo "$sout" | grep -E '^(soft:|verif|flow:|trace: backend)' | head -6
    local nver
    nver=$(echo "$sout" | sed -n 's/^verified: \([0-9]*\) instructions.*/\1/p' | head -1)
    if [ -n "$nver" ]; then ok "fwpt.efi $opts: verified $nver"; else bad "fwpt.efi $opts: no 'verified'"; return; fi
    mcopy -s -i "$d/img" ::/fwpt "$d/" 2>/dev/null || { bad "no \\fwpt on the image ($opts)"; return; }
    # verify's verdict in the same words: the console's "verify:" line, sideband.json's "text", the host's report page
    local vcon vsb vpage rrc
    vcon=$(sed -n 's/^verify: //p' "$d/log" | tail -n 1)
    vsb=$(grep -o '"verify":{[^}]*}' "$d/fwpt/sideband.json" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
    "$B/fwpt" report "$d/fwpt" -o "$d/report.html" 2>"$d/report.err"
    rrc=$?
    vpage=$(grep -o 'id="fwpt-verify" class="[a-z]*">[^<]*' "$d/report.html" | sed 's/.*">//')
    # fwpt report's exit status: 0, or 3 (incomplete) where the run recorded that the output stopped before the call
    # ended, said on stderr
    # (or 1 where the output stopped inside a packet: the decode error of the packet cut in two, as on the console)
    local want_rc=0
    if grep -q '^trace: ended because: the output stopped' "$d/log"; then
        want_rc=3
        if grep -qE '^flow: error at trace offset 0x[0-9a-f]+, ip .*: packet truncated by the end of the trace$' "$d/log"; then
            want_rc=1
            grep -q 'packet truncated by the end of the trace (E_TRUNCATED)' "$d/report.err" || rrc="$rrc without the error line"
        else
            grep -q 'the trace ends with tracing on (the output stopped, as the run recorded (ToPA STOP / TraceStop): the rest of the call was not traced)' \
                "$d/report.err" || rrc="$rrc without the stderr line"
        fi
    fi
    if [ -n "$vcon" ] && [ "$vcon" = "$vsb" ] && [ "$vcon" = "$vpage" ] && [ "$rrc" = "$want_rc" ]; then
        ok "verify: '$vcon' on the console, in sideband.json and on fwpt report's page (exit $want_rc)"
    else
        bad "verify: console '$vcon', sideband.json '$vsb', page '$vpage' (fwpt report exit $rrc: $(head -c 300 "$d/report.err"))"
    fi
    "$B/fwpt" flow "$d/fwpt" --no-disasm 2>/dev/null | grep -oE '^0x[0-9a-f]+' >"$d/flow.txt"
    "$B/tests/soft_ptxed" --ips "$d/fwpt" >"$d/ipt.txt" 2>"$d/ipt.err"
    local nflow nipt
    nflow=$(wc -l <"$d/flow.txt") nipt=$(wc -l <"$d/ipt.txt")
    echo "host: fwpt flow $nflow instructions, libipt $nipt, in-guest verified $nver"
    if [ "$nflow" -gt 0 ] && cmp -s "$d/flow.txt" "$d/ipt.txt" && [ "$nflow" -eq "$nver" ]; then
        ok "host: fwpt flow = libipt = in-guest flow ($nflow instructions)"
    elif grep -q '^trace: ended because: the output stopped' "$d/log" && [ "$nflow" -eq "$nver" ] &&
        [ "$nipt" -gt 0 ] && [ "$nipt" -le "$nflow" ] && head -n "$nipt" "$d/flow.txt" | cmp -s - "$d/ipt.txt"; then
        # a trace cut where the buffer filled: fwpt walks on from the last packet to the first instruction
        # that needs another one (the in-guest verify checked those against the stepped run too); libipt's
        # walk, like ptxed, stops at pts_eos
        ok "host: libipt's $nipt = the first of fwpt flow's $nflow = in-guest flow (output stopped)"
    elif grep -qE '^flow: error at trace offset 0x[0-9a-f]+, ip .*: packet truncated by the end of the trace$' "$d/log" &&
        [ "$nflow" -eq "$nver" ] && [ "$nflow" -gt 0 ] && [ "$nflow" -lt "$nipt" ] && head -n "$nflow" "$d/ipt.txt" | cmp -s - "$d/flow.txt"; then
        # the buffer's last packet was cut in two: fwpt's walk ends at the branch of the complete TIP before it (and says
        # so), where libipt walks on from that TIP's target up to the cut packet (docs/decoder.md)
        ok "host: fwpt flow's $nflow = the first of libipt's $nipt = in-guest flow (the last packet truncated: fwpt stops at the TIP before it)"
    else
        bad "host: fwpt flow ($nflow) / libipt ($nipt) / in-guest ($nver) differ"
    fi
    if [ "$wit" = 1 ]; then
        if "$B/tests/soft_ptxed" --session-witness "$d/fwpt" "$d/w.1"; then
            ok "witness: what QEMU executed = the decoded flow + interrupt handlers"
        else
            bad "witness vs the decoded flow ($opts)"
        fi
    fi
}
session_run 1 1 trace locate-handle backend=soft profile=broadwell verify shutdown
session_run 2 0 trace memory-map backend=soft profile=skylake ring size=16K region=4K tsc mtc=0 verify shutdown
session_run 3 0 trace allocate-pages backend=soft profile=tremont filter=target verify shutdown
# A call far longer than the buffer (ConnectController on every handle, about 41M instructions): stepping ends
# FWPT_SOFT_AFTER_STOP steps after the STOP region filled, and the rest of the call runs at full speed; verify
# compares the oldest part, so the ground truth must reach past what the decoder walks after the last packet.
# listing=1000: flow.txt lists the first 1000 instructions (as the host tool does), then says where it stopped.
session_run 4 0 trace connect-all backend=soft profile=skylake size=16K listing=1000 verify shutdown
if grep -qE '^soft: .*; output stopped at step [0-9]+: stepping ended 65536 steps later' "$tmp/sess4/log" &&
    grep -q '^verified: .*(the oldest part (output stopped))' "$tmp/sess4/log"; then
    ok "connect-all: stepping ended 65536 steps after the output stopped; the oldest part verified"
else
    bad "connect-all: no 'output stopped at step N: stepping ended 65536 steps later' + oldest part verified"
fi
flow_listing "$tmp/sess4/fwpt/flow.txt" >"$tmp/sess4/listing"
nlisted=$(grep -c '^0x' "$tmp/sess4/listing")
last=$(tail -n 1 "$tmp/sess4/listing")
head -n -1 "$tmp/sess4/listing" >"$tmp/sess4/listed"
"$B/fwpt" flow "$tmp/sess4/fwpt" --no-disasm 2>/dev/null | head -n "$(wc -l <"$tmp/sess4/listed")" >"$tmp/sess4/hostlisted"
if [ "$nlisted" = 1000 ] && cmp -s "$tmp/sess4/listed" "$tmp/sess4/hostlisted" &&
    [ "$last" = "-- listing stopped after 1000 of $(wc -l <"$tmp/sess4/flow.txt") instructions (listing=1000): the profile and call tree above count all of them; the host tool lists every one (build/fwpt flow DIR)" ] &&
    grep -q "^flow: flow.txt lists the first 1000 of $(wc -l <"$tmp/sess4/flow.txt") instructions" "$tmp/sess4/log"; then
    ok "listing=1000: flow.txt lists the host's first 1000 instructions, then where it stopped (file and console)"
else
    bad "listing=1000: $nlisted instructions listed, last line '$last'"
fi
# A step limit (steps=N): stepping ends there, the trace ends there with FUP + TIP.PGD, and the rest of the call runs
# untraced; verify compares everything stepped, and on the host fwpt flow = libipt = the in-guest flow, exactly.
session_run 6 0 trace locate-handle backend=soft profile=skylake steps=4000 verify shutdown
if grep -qE '^soft: .*; step limit of 4000 steps reached: the trace ends there \(FUP \+ TIP\.PGD\)' "$tmp/sess6/log" &&
    grep -q '^verified: [0-9]* instructions decoded = single-stepped (all that was stepped before the step limit)' \
        "$tmp/sess6/log" &&
    grep -qx 'trace: ended because: the step limit was reached; tracing disabled at the step limit (steps=), the rest of the call ran untraced: every byte produced is kept' \
        <(tr -d '\r' <"$tmp/sess6/log"); then
    ok "steps=4000: the trace ends at the step limit, and all that was stepped is verified"
else
    bad "steps=4000: no 'step limit of 4000 steps reached: the trace ends there' + verified + 'ended because: the step limit was reached'"
fi
# The same call into 4 KiB, listed whole: flow.txt's listing equals the host tool's, and both end with the line that
# says the trace was cut where the walk stopped (the last instruction listed) at the trace's end (0x1000).
session_run 5 0 trace connect-all backend=soft profile=skylake size=4K verify shutdown
flow_listing "$tmp/sess5/fwpt/flow.txt" >"$tmp/sess5/listing"
"$B/fwpt" flow "$tmp/sess5/fwpt" --no-disasm >"$tmp/sess5/hostlisting" 2>/dev/null
lastip=$(tail -n 1 "$tmp/sess5/flow.txt")
want="-- end of trace with tracing on: the walk stopped at $(printf '0x%x' "$lastip") ("
last=$(tail -n 1 "$tmp/sess5/listing")
if [ -s "$tmp/sess5/listing" ] && cmp -s "$tmp/sess5/listing" "$tmp/sess5/hostlisting" &&
    [ "${last#"$want"}" != "$last" ] && [ "${last%"[trace offset 0x1000]"}" != "$last" ]; then
    ok "cut trace: flow.txt listing = host fwpt flow, ending with where the walk stopped ($lastip)"
else
    bad "cut trace: flow.txt listing differs from the host's, or its last line is not the cut at $lastip: '$last'"
fi
# Decoded in place: the app reads the trace where the processor (here the soft encoder) wrote it, piece by piece
# (the wrapping ring of session 2 is more than one), and the pool memory decoding takes does not grow with the
# trace: the same call traced into buffers of different sizes (sessions 4 and 5, 1 and 6) takes the same pool.
decode_line() { sed -n 's/^decode: in place, from \([0-9]*\) pieces of trace (\([0-9]*\) bytes, not copied); pool memory for decoding: \([0-9]*\) bytes$/\1 \2 \3/p' "$tmp/sess$1/log"; }
for pair in "4 5" "1 6"; do
    set -- $pair
    a=$(decode_line "$1") b=$(decode_line "$2")
    set -- $a $b
    if [ $# = 6 ] && [ "$2" != "$5" ] && [ "$3" = "$6" ]; then
        ok "in place: traces of $2 and $5 bytes ($1 and $4 pieces), decoded with the same $3 bytes of pool"
    else
        bad "in place: sessions $pair: '$a' / '$b' (pieces, trace bytes, pool bytes)"
    fi
done
# Time: `time` turns on TSC, MTC and CYC at the settings the profile allows (skylake: MTCFreq 9, CycThresh 5);
# the app prints the call's duration in TSC ticks and microseconds, says the times are single-stepping's, and lists
# where the time went; the host tool finds the same in the saved directory with no timing options (sideband.json).
session_run 7 0 trace locate-handle backend=soft profile=skylake time verify shutdown
d7="$tmp/sess7"
dur=$(grep -E '^time: [0-9]+ TSC ticks from the first instruction with a time to the last \([0-9]+\.[0-9]{3} us at [0-9]+ MHz\)' "$d7/log")
hostdur=$("$B/fwpt" flow "$d7/fwpt" --profile --by time --top 3 2>/dev/null | tee "$d7/byttime" | grep '^time: [0-9]')
if [ -n "$dur" ] && [ "$dur" = "$hostdur" ] && grep -q '"tsc_en":true,"mtc_en":true,"mtc_freq":9,"cyc_en":true,"cyc_thresh":5' "$d7/fwpt/sideband.json" &&
    grep -q '^time: note: the software backend single-stepped this call' "$d7/log" &&
    grep -q '^TSC ticks per function entry' "$d7/log" && grep -q '^TSC ticks per function entry' "$d7/byttime"; then
    ok "time: the app's duration = the host's from sideband.json ($dur), the single-stepping note, ticks per function"
else
    bad "time: app '$dur' / host '$hostdur', or settings, note or ticks per function missing"
fi
ticks=${dur#time: }
ticks=${ticks%% *}
if "$B/fwpt" flow "$d7/fwpt" --by time --flame "$d7/flame.svg" 2>/dev/null && grep -q ">$ticks TSC ticks, [0-9]* frames" "$d7/flame.svg" &&
    "$B/fwpt" flow "$d7/fwpt" --time --format jsonl 2>/dev/null | grep -c '"type":"insn","tsc":"0x' | grep -qx "$(wc -l <"$d7/flow.txt")"; then
    ok "time: the flame graph by time spans the $ticks ticks; every instruction of fwpt flow --time has a tsc"
else
    bad "time: flame graph by time or fwpt flow --time"
fi
ring=$(decode_line 2)
if [ "${ring%% *}" -ge 2 ] 2>/dev/null && grep -q '"wrapped":true' "$tmp/sess2/fwpt/sideband.json"; then
    ok "in place: the wrapped ring was decoded from ${ring%% *} pieces, and verified"
else
    bad "in place: the wrapped ring: '$ring'"
fi
finish
