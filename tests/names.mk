# The EFI application of tests/qemu/efi/names.c, compiled with -g like every EFI object: build/names.so keeps its
# symbols and DWARF (the file `fwpt flow --symbols` reads), build/names.efi is its PE image, which
# tests/qemu/test_names.sh traces with `trace load-image` (docs/symbols.md: a gnu-efi .so).
$(B)/names.so: $(B)/efi/tests/qemu/efi/names.o
	$(EFI_LINK)
EXTRA_QEMU_DEPS += $(B)/names.efi
