# fuzz_sideband fuzzes the host tool's sideband.json readers: tools/sideband.c linked beside the sanitized library.
# Its seeds: tests/fuzz/seeds/sideband/.
$(B)/fuzz/fuzz_sideband: $(B)/fuzz/obj/tools/sideband.o
# test_sideband reads texts fuzz_sideband met with the readers themselves: it links tools/sideband.o beside its floors
# (an explicit rule: the pattern rule for $(B)/tests/% links no tool object).
$(B)/tests/test_sideband: tests/unit/test_sideband.c $(B)/host/tools/sideband.o $(B)/tests/libcommon.a $$(call test_floor_libs,test_sideband) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/host/tools/sideband.o $(B)/tests/libcommon.a $(call test_floor_libs,test_sideband) $(TEST_LIBS)
