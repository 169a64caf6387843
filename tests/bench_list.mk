# bench_list measures fwpt flow's listing as the tool makes it: it links the tool's Zydis glue and sideband reader
# beside the library (an explicit rule: the pattern rule for $(B)/bench/% links the library only); with real names
# (tests/bench/real_names.h) the symbol-file side of --symbols too: tools/symmap and its backends, -ldw -lelf.
BENCH_LIST_TOOL_OBJS := $(B)/host/tools/zydis.o $(B)/host/tools/sideband.o
BENCH_NAMES_OBJS := $(B)/host/tests/bench/real_names.o $(B)/host/tools/symmap.o $(B)/host/tools/symbols_dw.o \
	$(B)/host/tools/symbols_pdb.o
$(B)/bench/bench_list: tests/bench/bench_list.c $(TEST_COMMON_OBJS) $(BENCH_LIST_TOOL_OBJS) $(BENCH_NAMES_OBJS) $(B)/libfwpt.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O3 -march=native -o $@ $< $(BENCH_LIST_TOOL_OBJS) $(BENCH_NAMES_OBJS) $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS) -ldw -lelf
$(B)/bench/bench_summary: tests/bench/bench_summary.c $(TEST_COMMON_OBJS) $(B)/host/tools/sideband.o $(BENCH_NAMES_OBJS) $(B)/libfwpt.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O3 -march=native -o $@ $< $(B)/host/tools/sideband.o $(BENCH_NAMES_OBJS) $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS) -ldw -lelf
