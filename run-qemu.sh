#!/usr/bin/env bash
# Boot fwpt.efi under OVMF in QEMU and collect what it wrote.
#
#   ./run-qemu.sh [OPTIONS] [-- APP OPTIONS...]
#
# Installs what is missing (tools/ensure-deps.sh run), builds (make), makes a FAT boot image
# with the app as EFI/BOOT/BOOTX64.EFI and \fwpt\fwpt.cfg holding the app options, boots OVMF,
# prints the console, and copies the app's files out of the image into OUT/fwpt/.
# KVM with -cpu host is tried first when /dev/kvm is usable; if it is missing or fails (KVM
# internal error, or no firmware output within --kvm-probe seconds) QEMU is killed and the run
# is repeated under TCG, saying so.
#
# Options:
#   --image IMG     boot this disk image (e.g. build/fwpt-usb.img) attached as a USB stick
#                   (qemu-xhci + usb-storage); a copy is booted, the original stays untouched
#   --accel A       auto (default) | kvm | tcg
#   --cpu MODEL     QEMU CPU model (default: host under KVM, max under TCG; under TCG, host,+f,-g
#                   becomes max,+f,-g)
#   --timeout S     stop a guest that has not finished after S seconds (default 600; 1..86400)
#   --kvm-probe S   seconds KVM gets to show firmware output (default 10; 1..3600)
#   --out DIR       where the app's files go (default out; files land in DIR/fwpt/, or DIR/NAME/ for the
#                   app option out=\NAME); the earlier DIR/fwpt/ is replaced only when the app wrote files
#   --build DIR     build directory (default $FWPT_BUILD or build)
#   --no-build      do not run make (use the existing BUILD/fwpt.efi)
#   --log FILE      also keep the raw console log here
#   --debug-log FILE  keep the firmware's debug port (I/O port 0x402, where EDK2 DEBUG builds print) in FILE;
#                   the summary says when it holds an ASSERT or a FATAL ERROR
#   --copy SRC=DEST put a file into the boot image too (DEST e.g. \fwpt\hello.efi or /fwpt/hello.efi;
#                   repeatable), e.g. an image for `trace load-image`
#   --vars FILE     persistent UEFI variables: boot from pflash, FILE the writable variable store, created
#                   when missing (from OVMF_VARS_4M.fd beside OVMF_CODE_4M.fd; for a one-file firmware given
#                   as $OVMF, FILE is a writable copy of the whole image) and kept when it exists
#   --boots N       boot N times (1..100, default 1 + the number of --then) with the same disk and --vars
#                   store; the files are copied out after the last boot
#   --then OPTS     the app options of the next boot (repeatable: boot 2, boot 3, ...), written into
#                   \fwpt\fwpt.cfg before it; a boot with no --then of its own runs the cfg as it is
#   -h, --help      this text
# App options (after --) default to: DEFAULT_APP_OPTIONS.
# Environment: FWPT_IMG_MB, the size of the FAT disk in MiB (default 256; not for --image); OVMF, the
# firmware (default /usr/share/ovmf/OVMF.fd, with --vars /usr/share/OVMF/OVMF_CODE_4M.fd); OVMF_VARS, the
# store template for a split OVMF_CODE*.fd (default: its name with _CODE made _VARS).
#
# Exit status: 0 the app ended with EFI_SUCCESS; 3 it ended with EFI_UNSUPPORTED (Intel PT not
# usable: the report says why); 1 it ended with another error; 4 no final status line (the app
# did not run to its end); 124 timeout; 125 CPU exception in the guest; 2 usage or set-up error.
# With --boots: the next boot runs only after a boot with status 0 or 3; the status is 0 when every
# boot's was, else the last other one.
set -uo pipefail

# The app options when none are given after `--`.
DEFAULT_APP_OPTIONS="trace locate-handle shutdown"

here=$(cd "$(dirname "$0")" && pwd)
ovmf_given=${OVMF:+1}
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
image="" accel=auto cpu="" timeout=600 kvm_probe=10 outdir=out build="${FWPT_BUILD:-build}" do_build=1 keep_log=""
debug_log=""
app_opts=()
have_app_opts=0
copies=()
vars="" boots="" thens=()

say() { echo "run-qemu: $*" >&2; }
# mtools on a partition (IMG@@OFFSET) warns that the file system is smaller than the rest of the
# disk (the GPT backup header follows it): expected, so that one warning is dropped.
mt() { "$@" 2>"$work/mtools.err"; local r=$?; grep -v 'block count mismatch' "$work/mtools.err" >&2; return $r; }
die() { say "$*"; exit 2; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed -e 's/^# \{0,1\}//' -e "s|DEFAULT_APP_OPTIONS|$DEFAULT_APP_OPTIONS|"; }
# The options that take a value, read from the list above ("--out DIR"): each must have one.
value_options=" $(sed -n '2,/^set -uo/s/^#   \(--[a-z-]*\) [A-Z].*/\1/p' "$0" | tr '\n' ' ')"
# need_value OPTION [VALUE...]: the usage error when OPTION has no value (the end, empty, or another option)
need_value() {
    [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"
    [[ "$2" != --* ]] || die "$1 needs a value, not the option '$2' (see --help)"
}
# whole_seconds OPTION VALUE MAX: the usage error unless VALUE is a whole number 1..MAX
whole_seconds() {
    [[ "$2" =~ ^[0-9]{1,6}$ ]] && [ "$((10#$2))" -ge 1 ] && [ "$((10#$2))" -le "$3" ] ||
        die "$1 '$2': expected whole seconds, 1..$3"
}

while [ $# -gt 0 ]; do
    [[ "$value_options" == *" $1 "* ]] && need_value "$@"
    case "$1" in
    --image) image=${2:?--image needs a file}; shift 2 ;;
    --accel) accel=${2:?}; shift 2 ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --timeout) timeout=${2:?}; shift 2 ;;
    --kvm-probe) kvm_probe=${2:?}; shift 2 ;;
    --out) outdir=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --log) keep_log=${2:?}; shift 2 ;;
    --debug-log) debug_log=$2; shift 2 ;;
    --copy) [[ "${2:-}" == *=* ]] || die "--copy '$2': expected SRC=DEST"; copies+=("$2"); shift 2 ;;
    --vars) vars=$2; shift 2 ;;
    --boots) boots=$2; shift 2 ;;
    --then) thens+=("$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; app_opts=("$@"); have_app_opts=1; break ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
done
case "$accel" in auto | kvm | tcg) ;; *) die "--accel '$accel': expected auto, kvm or tcg" ;; esac
whole_seconds --timeout "$timeout" 86400
whole_seconds --kvm-probe "$kvm_probe" 3600
timeout=$((10#$timeout)) kvm_probe=$((10#$kvm_probe))
if [ -n "$boots" ]; then
    [[ "$boots" =~ ^[0-9]{1,3}$ ]] && [ "$((10#$boots))" -ge 1 ] && [ "$((10#$boots))" -le 100 ] ||
        die "--boots '$boots': expected the number of boots, 1..100"
    boots=$((10#$boots))
    [ ${#thens[@]} -lt "$boots" ] ||
        die "--boots $boots: ${#thens[@]} --then options give the options of $((${#thens[@]} + 1)) boots"
else
    boots=$((${#thens[@]} + 1))
fi
[[ "${FWPT_IMG_MB:-256}" =~ ^[0-9]{1,7}$ ]] && [ "$((10#${FWPT_IMG_MB:-256}))" -ge 34 ] ||
    die "FWPT_IMG_MB '${FWPT_IMG_MB:-}': expected the disk size in MiB, 34 or more"
[ -n "$debug_log" ] && [ "${debug_log#/}" = "$debug_log" ] && debug_log="$PWD/$debug_log"
[ -n "$vars" ] && [ "${vars#/}" = "$vars" ] && vars="$PWD/$vars"
[ $have_app_opts = 1 ] || read -r -a app_opts <<<"$DEFAULT_APP_OPTIONS"

cd "$here"
tools/ensure-deps.sh run || die "missing packages (see above)"
export PATH="$PATH:/usr/sbin:/sbin"
export MTOOLS_SKIP_CHECK=1
if [ $do_build = 1 ]; then
    make -s B="$build" all >&2 || die "build failed"
fi
efi="$build/fwpt.efi"
[ -f "$efi" ] || die "no $efi (build first, or drop --no-build)"

# The firmware. -bios maps it as ROM: OVMF then keeps its variables in RAM, gone at power-off. --vars boots it from
# pflash (QEMU writes the guest's flash writes into the file): Debian's split pair, OVMF_CODE (unit 0, read-only)
# and a copy of its OVMF_VARS (unit 1); a one-file image (OVMF.fd: the variable store's firmware volume first, the
# code after it) is copied whole into FILE, the one pflash unit.
[ -n "$vars" ] && [ -z "$ovmf_given" ] && OVMF=/usr/share/OVMF/OVMF_CODE_4M.fd
[ -f "$OVMF" ] || die "no OVMF firmware at $OVMF (package ovmf)"
fw_args=(-bios "$OVMF")
if [ -n "$vars" ]; then
    [[ "$vars" != *,* ]] || die "--vars '$vars': a path with a comma cannot be given to QEMU's -drive"
    case "$(basename "$OVMF")" in
    *_CODE*)
        vars_layout=split
        vars_tmpl=${OVMF_VARS:-$(dirname "$OVMF")/$(basename "$OVMF" | sed 's/_CODE/_VARS/')}
        [ -f "$vars_tmpl" ] || die "--vars: no variable store template '$vars_tmpl' for $OVMF (set OVMF_VARS)" ;;
    *)
        vars_layout=whole vars_tmpl=$OVMF
        # the variable store's firmware volume opens the image; its FvLength is the size of the variable region
        [ "$(dd if="$OVMF" bs=1 skip=40 count=4 2>/dev/null)" = _FVH ] ||
            die "--vars: $OVMF does not begin with a firmware volume (the variable store): give OVMF=...OVMF_CODE...fd"
        vars_region=$(od -An -t u8 -j 32 -N 8 "$OVMF" | tr -d ' ') ;;
    esac
    for f in "$OVMF" "$vars_tmpl"; do
        [ -e "$vars" ] && [ "$(realpath "$vars")" = "$(realpath "$f")" ] &&
            die "--vars '$vars' is the firmware's own $f: give a file of your own (the guest writes into it)"
    done
    tmpl_size=$(stat -c %s "$vars_tmpl")
    if [ -e "$vars" ]; then
        [ -f "$vars" ] && [ -r "$vars" ] && [ -w "$vars" ] || die "--vars '$vars': not a readable and writable file"
        size=$(stat -c %s "$vars")
        [ "$size" = "$tmpl_size" ] ||
            die "--vars '$vars': $size bytes, but $vars_tmpl has $tmpl_size: not a variable store of this firmware"
        if [ $vars_layout = whole ] && ! cmp -s -i "$vars_region:$vars_region" "$vars" "$OVMF"; then
            die "--vars '$vars': its firmware code (after the first $vars_region bytes) is not $OVMF's: delete it to start afresh"
        fi
        vars_how="kept (it holds the variables of earlier boots)"
    else
        mkdir -p "$(dirname "$vars")" && cp "$vars_tmpl" "$vars" && chmod u+w "$vars" ||
            die "--vars '$vars': cannot create it from $vars_tmpl"
        vars_how="created from $vars_tmpl"
    fi
    if [ $vars_layout = split ]; then
        fw_args=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF" -drive "if=pflash,format=raw,unit=1,file=$vars")
        fw_what="$OVMF (pflash unit 0, read-only) and the variable store $vars (pflash unit 1)"
    else
        fw_args=(-drive "if=pflash,format=raw,unit=0,file=$vars")
        fw_what="$vars (pflash unit 0, writable: a copy of all of $OVMF, its first $vars_region bytes the variable store)"
    fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fwpt-qemu.XXXXXX")
qpid=""
staging=""
cleanup() {
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null
    rm -rf "$work" ${staging:+"$staging"}
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# The boot disk: our own FAT image, or a copy of the given one with the options written in.
printf '%s\n' "${app_opts[*]}" >"$work/fwpt.cfg"
if [ -n "$image" ]; then
    [ -f "$image" ] || die "no image '$image'"
    cp "$image" "$work/disk.img"
    # A partitioned image (the USB stick): the ESP is the first partition.
    start=$(sfdisk --dump "$work/disk.img" 2>/dev/null | sed -n 's/.*start= *\([0-9]*\),.*/\1/p' | head -n1)
    fs="$work/disk.img"
    [ -n "$start" ] && fs="$work/disk.img@@$((start * 512))"
    mt mmd -i "$fs" ::/fwpt 2>/dev/null
    mt mcopy -o -i "$fs" "$work/fwpt.cfg" ::/fwpt/fwpt.cfg || die "cannot write the options into $image"
    disk=(-device qemu-xhci,id=xhci -drive if=none,id=stick,format=raw,file="$work/disk.img"
        -device usb-storage,bus=xhci.0,drive=stick,removable=on)
    what="USB stick $image"
else
    # 256 MiB (sparse): a full 2 MiB trace writes about 125 MB (packets.txt, flow.txt)
    FWPT_IMG_MB="${FWPT_IMG_MB:-256}" "$here/tools/mkimage.sh" fat "$work/disk.img" "$efi" "$work/fwpt.cfg" >/dev/null ||
        die "mkimage failed"
    fs="$work/disk.img"
    disk=(-drive if=none,id=disk,format=raw,file="$work/disk.img" -device virtio-blk-pci,drive=disk)
    what="FAT disk with $efi"
fi

# Extra files (--copy SRC=DEST), directories created as needed.
for c in "${copies[@]}"; do
    src=${c%%=*} dest=${c#*=}
    dest=${dest//\\//}
    [ -f "$src" ] || die "--copy: no file '$src'"
    d=""
    IFS=/ read -r -a parts <<<"${dest#/}"
    for ((i = 0; i < ${#parts[@]} - 1; i++)); do
        d="$d/${parts[i]}"
        mt mmd -i "$fs" "::$d" 2>/dev/null
    done
    mt mcopy -o -i "$fs" "$src" "::/${dest#/}" || die "--copy: cannot write $dest"
done

# The directory the app writes to: its last out= option (read as the app reads it: '/' or '\', with or without a
# leading one), else \fwpt; with '/' and no leading one ("" for the root of the volume).
app_out_dir() {
    local w d=fwpt words
    read -r -a words <<<"${app_opts[*]}"
    for w in "${words[@]}"; do
        [[ "$w" == out=?* ]] && d=${w#out=}
    done
    d=${d//\\//}
    while [[ "$d" == /* ]]; do d=${d#/}; done
    while [[ "$d" == */ ]]; do d=${d%/}; done
    printf '%s' "$d"
}

# Copies the app's directory out of the image (mtools; vvfat is never used for output) into OUT/DIR: into a new
# folder first, which replaces an earlier OUT/DIR only when the app wrote files there (a run that failed before
# the app started keeps the last results). Says where the files went.
collect_files() {
    local dir shown dest stage got
    dir=$(app_out_dir)
    shown="\\${dir//\//\\}"
    if [ -z "$dir" ]; then
        say "the app wrote to the root of the volume (out=$shown): nothing copied (give out=\\DIR)"
        return
    fi
    dest="$outdir/$dir"
    mkdir -p "$outdir" || die "cannot create --out directory '$outdir'"
    stage=$(mktemp -d "$outdir/.run-qemu-new.XXXXXX") || die "cannot write into --out directory '$outdir'"
    staging=$stage
    if mdir -i "$fs" "::/$dir" >/dev/null 2>&1; then
        mt mcopy -s -n -o -i "$fs" "::/$dir" "$stage/" || say "copying $shown out of the image failed (see above)"
    fi
    got=$(find "$stage" -mindepth 1 -maxdepth 1 | head -n1)
    [ -n "$got" ] && rm -f "$got/fwpt.cfg.orig"
    if [ -z "$got" ] || [ -z "$(find "$got" -type f ! -name fwpt.cfg | head -n1)" ]; then
        if [ -e "$dest" ]; then
            say "the app wrote no files in $shown: $dest/ (an earlier run's) left as it was"
        else
            say "the app wrote no files in $shown"
        fi
    else
        mkdir -p "$(dirname "$dest")" && rm -rf "$dest" && mv "$got" "$dest" ||
            { say "cannot replace $dest/ (the new files stay in $stage/)"; staging=""; return; }
        say "the app's files ($shown on the disk) are in $dest/: $(cd "$dest" && find . -type f | sed 's|^\./||' | sort | paste -sd ' ')"
    fi
    rm -rf "$stage"
    staging=""
}

kvm_usable() {
    [ -e /dev/kvm ] || { kvm_why="/dev/kvm does not exist"; return 1; }
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || { kvm_why="/dev/kvm is not readable and writable"; return 1; }
    return 0
}

# run_qemu ACCEL CPU PROBE: boots, echoes the console, sets rc_kind: done|kvmfail|timeout|exception|exit
run_qemu() {
    local acc=$1 model=$2 probe=$3 log="$work/console.$boot.$1.log"
    : >"$log"
    local args=(-machine q35 -m 512 "${fw_args[@]}" -accel "$acc" -cpu "$model" "${disk[@]}"
        -display none -serial stdio -monitor none -no-reboot -net none)
    # the firmware's debug port (EDK2: PcdDebugIoPort 0x402); QEMU truncates the file, so a KVM retry starts afresh
    [ -n "$debug_log" ] && args+=(-debugcon "file:$debug_file" -global isa-debugcon.iobase=0x402)
    # QEMU runs under a subshell that waits for it, so bash's "Aborted" job message (when QEMU
    # dies on a signal) goes to /dev/null instead of the console.
    rm -f "$work/qemu.pid"
    (
        qemu-system-x86_64 "${args[@]}" </dev/null >"$log" 2>&1 &
        echo $! >"$work/qemu.pid"
        wait $!
    ) 2>/dev/null &
    local sub=$!
    while [ ! -s "$work/qemu.pid" ]; do sleep 0.05; done
    qpid=$(cat "$work/qemu.pid")
    tail -n +1 -f --pid="$qpid" "$log" 2>/dev/null | sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' &
    local tailpid=$!
    local t0=$SECONDS done_at=""
    rc_kind=exit
    while kill -0 "$qpid" 2>/dev/null; do
        sleep 0.5
        if grep -aq "KVM internal error" "$log"; then
            kvm_why="QEMU reported: $(grep -a -m1 "KVM internal error" "$log" | tr -d '\r')"
            rc_kind=kvmfail; break
        fi
        if [ "$probe" -gt 0 ] && [ $((SECONDS - t0)) -ge "$probe" ] && ! grep -aq '[A-Za-z]' "$log"; then
            kvm_why="no firmware output within ${probe}s"
            rc_kind=kvmfail; break
        fi
        if grep -aq '!!!! X64 Exception Type' "$log"; then
            sleep 1; rc_kind=exception; break
        fi
        if [ -z "$done_at" ] && grep -aq '^fwpt: exit status' <(tr -d '\r' <"$log"); then
            done_at=$SECONDS
        fi
        # The app has finished but did not power off (no `shutdown`): give it 5 s, then stop QEMU.
        if [ -n "$done_at" ] && [ $((SECONDS - done_at)) -ge 5 ]; then
            rc_kind=noshutdown; break
        fi
        if [ $((SECONDS - t0)) -ge "$timeout" ]; then
            rc_kind=timeout; break
        fi
    done
    if kill -0 "$qpid" 2>/dev/null; then
        kill "$qpid" 2>/dev/null
        sleep 0.5
        kill -9 "$qpid" 2>/dev/null
    fi
    wait "$sub" 2>/dev/null
    qemu_rc=$?
    qpid=""
    # Under KVM, QEMU ending before the app started is a KVM failure too (e.g. it aborts on
    # "failed to set MSR" with -cpu host).
    if [ "$acc" = kvm ] && [ "$rc_kind" = exit ] && ! grep -aq '^fwpt ' <(tr -d '\r' <"$log"); then
        kvm_why="QEMU ended (status $qemu_rc) before the app ran: $(grep -a -m1 -E 'error|Assertion|KVM' "$log" | tr -d '\r')"
        rc_kind=kvmfail
    fi
    wait "$tailpid" 2>/dev/null # tail ends by itself within a second of QEMU (--pid)
    last_log=$log
}

kvm_why="" tcg_cpu_note=""
# TCG cannot run -cpu host ("CPU model 'host' requires KVM"): max, with the same +feature/-feature list.
cpu_tcg=${cpu:-max}
case "$cpu_tcg" in
host | host,*)
    cpu_tcg=max${cpu_tcg#host}
    [ -n "$cpu" ] && tcg_cpu_note="TCG cannot run -cpu $cpu: -cpu $cpu_tcg instead (the same features)" ;;
esac

# boot_once: one boot, KVM first when asked and usable (and it has not failed in an earlier boot), else TCG; sets
# rc_kind, accel_used, last_log.
accel_next=$accel
boot_once() {
    if [ "$accel_next" != tcg ] && kvm_usable; then
        say "booting the $what under KVM (-cpu ${cpu:-host})"
        # a KVM attempt that fails must not leave its writes in the store: the TCG boot starts from the same one
        [ -n "$vars" ] && cp "$vars" "$work/vars.before"
        run_qemu kvm "${cpu:-host}" "$kvm_probe"
        if [ "$rc_kind" = kvmfail ]; then
            say "KVM failed: $kvm_why; QEMU stopped"
            if [ "$accel" = kvm ]; then
                say "falling back to TCG (software emulation) although --accel kvm was asked for"
            else
                say "falling back to TCG (software emulation)"
            fi
            accel_used=tcg accel_next=tcg
            [ "$boots" -gt 1 ] && kvm_why="KVM failed in boot $boot: $kvm_why"
            if [ -n "$vars" ]; then
                cp "$work/vars.before" "$vars" || die "cannot put the variable store $vars back after the KVM attempt"
                say "the variable store $vars is as it was before the KVM attempt"
            fi
            # The same disk is reused: OVMF under KVM died before the app wrote anything.
            [ -n "$tcg_cpu_note" ] && say "$tcg_cpu_note"
            say "booting the $what under TCG (-cpu $cpu_tcg)"
            run_qemu tcg "$cpu_tcg" 0
        else
            accel_used=kvm
        fi
    else
        if [ "$accel" = tcg ]; then
            kvm_why="--accel tcg"
        fi
        [ "$accel" = kvm ] && [ "$boot" = 1 ] && say "KVM is not usable: $kvm_why; falling back to TCG"
        accel_used=tcg
        [ -n "$tcg_cpu_note" ] && say "$tcg_cpu_note"
        say "booting the $what under TCG (-cpu $cpu_tcg)${kvm_why:+ ($kvm_why)}"
        run_qemu tcg "$cpu_tcg" 0
    fi
}

# boot_verdict: what the boot's end says (the lines after the console) and its exit status in st; with several
# boots each line names the boot.
boot_verdict() {
    local bp="" final
    [ "$boots" -gt 1 ] && bp="boot $boot of $boots: "
    final=$(tr -d '\r' <"$last_log" | grep -a '^fwpt: exit status' | tail -n1)
    case "$rc_kind" in
    timeout)
        say "${bp}TIMEOUT: the guest did not finish within ${timeout}s under $accel_used; QEMU killed"
        st=124; return ;;
    exception)
        say "${bp}the guest raised a CPU exception (see '!!!! X64 Exception Type' above); QEMU killed"
        st=125; return ;;
    kvmfail)
        say "${bp}KVM failed twice?"; st=2; return ;;
    noshutdown)
        say "${bp}the app returned without 'shutdown'; QEMU stopped" ;;
    esac
    say "${bp}accelerator: $accel_used${kvm_why:+ ($kvm_why)}"
    case "$final" in
    *EFI_SUCCESS*) say "${bp}app status: EFI_SUCCESS"; st=0 ;;
    *EFI_UNSUPPORTED*) say "${bp}app status: EFI_UNSUPPORTED (Intel PT or a requested feature is not usable here: see above)"; st=3 ;;
    "") say "${bp}no final status line from the app (QEMU exit $qemu_rc)"; st=4 ;;
    *) say "${bp}app status: ${final#fwpt: exit status }"; st=1 ;;
    esac
}

[ -n "$vars" ] && say "firmware: $fw_what; the store $vars_how"
[ -z "$vars" ] && [ "$boots" -gt 1 ] &&
    say "no --vars: each of the $boots boots starts with the variables of $OVMF (OVMF keeps its writes in RAM)"
[ -n "$debug_log" ] && : >"$debug_log"
status=0 boot=0
while [ "$boot" -lt "$boots" ]; do
    boot=$((boot + 1))
    if [ "$boot" -gt 1 ] && [ ${#thens[@]} -ge $((boot - 1)) ]; then
        read -r -a app_opts <<<"${thens[boot - 2]}"
        printf '%s\n' "${app_opts[*]}" >"$work/fwpt.cfg"
        mt mcopy -o -i "$fs" "$work/fwpt.cfg" ::/fwpt/fwpt.cfg || die "cannot write the options of boot $boot into the disk"
    fi
    [ "$boots" -gt 1 ] && say "boot $boot of $boots$([ "$boot" -gt 1 ] && echo ": the same disk${vars:+ and variable store}"); app options: $(mt mtype -i "$fs" ::/fwpt/fwpt.cfg | tr -d '\r' | grep -v '^ *#' | grep -m1 .)"
    debug_file=$debug_log
    [ "$boot" -gt 1 ] && debug_file="$work/debug.$boot.log"
    boot_once
    if [ "$boots" -gt 1 ]; then
        [ -n "$keep_log" ] && { echo "run-qemu: boot $boot of $boots"; cat "$last_log"; } >>"$work/console.all.log"
        [ -n "$debug_log" ] && [ "$boot" -gt 1 ] && { echo "run-qemu: boot $boot of $boots"; cat "$debug_file"; } >>"$debug_log"
    elif [ -n "$keep_log" ]; then
        cp "$last_log" "$work/console.all.log"
    fi
    # the last boot's verdict comes after the files (below), as for one boot
    boot_verdict 2>"$work/verdict.txt"
    [ "$st" = 0 ] || status=$st
    if [ "$st" != 0 ] && [ "$st" != 3 ] && [ "$boot" -lt "$boots" ]; then
        echo "run-qemu: boot $boot of $boots ended with exit status $st: boots $((boot + 1))..$boots not run" >>"$work/verdict.txt"
        break
    fi
    [ "$boot" -lt "$boots" ] && cat "$work/verdict.txt" >&2
done
[ -n "$keep_log" ] && cp "$work/console.all.log" "$keep_log"

collect_files

if [ -n "$debug_log" ]; then
    n_assert=$(grep -acE 'ASSERT|FATAL ERROR' "$debug_log" 2>/dev/null)
    if [ "${n_assert:-0}" -gt 0 ]; then
        say "the firmware's debug log $debug_log holds $n_assert ASSERT or FATAL ERROR lines; the first: $(grep -a -m1 -E 'ASSERT|FATAL ERROR' "$debug_log" | tr -d '\r')"
    else
        say "the firmware's debug log: $debug_log ($(wc -l <"$debug_log" 2>/dev/null || echo 0) lines, no ASSERT or FATAL ERROR)"
    fi
fi
cat "$work/verdict.txt" >&2
[ "$boots" -gt 1 ] && say "$boot of $boots boots run; exit status $status"
exit "$status"
