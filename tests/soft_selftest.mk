# Software trace backend (backend=soft): the stand-alone self-test app (every efi/ object but main.o,
# plus tests/qemu/soft/selftest_main.c), the host libipt checker of its saved files, and the TCG
# plugin that witnesses what the guest executed. All built into the build dir for the QEMU test.
SOFT_SELFTEST_OBJS := $(filter-out $(B)/efi/efi/main.o,$(EFI_OBJS)) $(B)/efi/tests/qemu/soft/selftest_main.o
$(B)/soft-selftest.so: $(SOFT_SELFTEST_OBJS)
	$(EFI_LINK)
$(B)/tests/soft_ptxed: tests/qemu/soft/soft_ptxed.c | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< -lipt
$(B)/tests/insn_trace.so: tests/qemu/plugin/insn_trace.c tests/qemu/plugin/qemu_plugin_api.h | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_DEFAULT_SOURCE $(WARN) -O2 -I. -shared -fPIC -o $@ $<
EXTRA_QEMU_DEPS += $(B)/soft-selftest.efi $(B)/tests/soft_ptxed $(B)/tests/insn_trace.so
