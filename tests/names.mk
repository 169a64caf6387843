# The EFI application of tests/qemu/efi/names.c, compiled with -g like every EFI object: build/names.so keeps its
# symbols and DWARF (the file `fwpt flow --symbols` reads), build/names.efi is its PE image, which
# tests/qemu/test_names.sh traces with `trace load-image` (docs/symbols.md: a gnu-efi .so).
$(B)/names.so: $(B)/efi/tests/qemu/efi/names.o
	$(EFI_LINK)
EXTRA_QEMU_DEPS += $(B)/names.efi
# A stale build of build/fwpt.so for the same test: efi/targets.c rebuilt with ALLOC_PAGES_COUNT 17 instead of 16
# (one immediate of fwpt_target_call changes, no code moves) and relinked in the same order with the other objects.
$(B)/tests/stale/efi/targets.c: efi/targets.c
	@mkdir -p $(dir $@)
	sed 's/^#define ALLOC_PAGES_COUNT 16$$/#define ALLOC_PAGES_COUNT 17/' $< >$@
	@grep -q '^#define ALLOC_PAGES_COUNT 17$$' $@ || { echo "$@: efi/targets.c has no '#define ALLOC_PAGES_COUNT 16' to change"; rm -f $@; exit 1; }
$(B)/tests/stale/efi/targets.o: $(B)/tests/stale/efi/targets.c | deps-check
	$(CC) $(EFI_CFLAGS) -c $< -o $@
$(B)/tests/fwpt-stale.so: $(patsubst $(B)/efi/efi/targets.o,$(B)/tests/stale/efi/targets.o,$(EFI_OBJS))
	$(EFI_LINK)
EXTRA_QEMU_DEPS += $(B)/tests/fwpt-stale.so $(B)/fwpt.so
