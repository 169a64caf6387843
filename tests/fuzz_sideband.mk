# fuzz_sideband fuzzes the host tool's sideband.json readers: tools/sideband.c linked beside the sanitized library.
# Its seeds: tests/fuzz/seeds/sideband/.
$(B)/fuzz/fuzz_sideband: $(B)/fuzz/obj/tools/sideband.o
# test_sideband reads texts fuzz_sideband met with the readers themselves: it links tools/sideband.o beside the library
# (an explicit rule: the pattern rule for $(B)/tests/% links the library only).
$(B)/tests/test_sideband: tests/unit/test_sideband.c $(B)/host/tools/sideband.o $(TEST_COMMON_OBJS) $(B)/libfwpt.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/host/tools/sideband.o $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS)
