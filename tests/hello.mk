# The tiny EFI application of tests/qemu/efi/hello.c (it returns 0x1234 and does nothing else): `make` builds
# build/hello.efi, the image the `trace load-image` example of the README copies into the boot disk, and the QEMU
# tests load it.
$(B)/hello.so: $(B)/efi/tests/qemu/efi/hello.o
	$(EFI_LINK)
all: $(B)/hello.efi
EXTRA_QEMU_DEPS += $(B)/hello.efi
