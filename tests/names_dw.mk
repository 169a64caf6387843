# The views' names through the host backend (tools/symbols_dw.c, elfutils' libdwfl) on build/fwpt.so: the test
# links that object and -ldw -lelf beside the floors it prints with.
$(B)/tests/test_names_dw: tests/unit/test_names_dw.c $(B)/host/tools/symbols_dw.o $(B)/floors/librender.a \
	$(B)/floors/libanalyze.a $(B)/floors/libdecode.a $(B)/floors/libbase.a $(B)/tests/libcommon.a $(B)/fwpt.so | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/host/tools/symbols_dw.o $(B)/floors/librender.a $(B)/floors/libanalyze.a \
		$(B)/floors/libdecode.a $(B)/floors/libbase.a -ldw -lelf
