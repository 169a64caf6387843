# efi/ fragment: the QEMU tests boot the USB image once.
EXTRA_QEMU_DEPS += $(B)/fwpt-usb.img
