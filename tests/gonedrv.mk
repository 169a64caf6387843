# The tiny EFI boot service driver of tests/qemu/efi/gonedrv.c (its entry does some work and returns
# EFI_UNSUPPORTED, so DxeCore unloads it): tests/qemu/test_boot_trace.sh starts it from a Driver#### option after
# fwpt's, while the boot trace runs. PE subsystem 11, as build/fwptdrv.efi.
$(B)/gonedrv.so: $(B)/efi/tests/qemu/efi/gonedrv.o
	$(EFI_LINK)
$(B)/gonedrv.efi: $(B)/gonedrv.so
	objcopy $(EFI_SECTIONS) --target efi-bsdrv-x86_64 --subsystem=11 $< $@
EXTRA_QEMU_DEPS += $(B)/gonedrv.efi
