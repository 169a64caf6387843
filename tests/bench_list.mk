# bench_list measures fwpt flow's listing as the tool makes it: it links the tool's Zydis glue and sideband reader
# beside the library (an explicit rule: the pattern rule for $(B)/bench/% links the library only).
BENCH_LIST_TOOL_OBJS := $(B)/host/tools/zydis.o $(B)/host/tools/sideband.o
$(B)/bench/bench_list: tests/bench/bench_list.c $(TEST_COMMON_OBJS) $(BENCH_LIST_TOOL_OBJS) $(B)/libfwpt.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O3 -march=native -o $@ $< $(BENCH_LIST_TOOL_OBJS) $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS)
