# The host resolver backend (tools/symbols_dw.c, elfutils' libdwfl): its test links the object and -ldw -lelf,
# and compares against nm/addr2line on build/fwpt.so and the EDK2 build in ../shared/ovmf-debug.
$(B)/tests/test_symbols: tests/unit/test_symbols.c $(B)/host/tools/symbols_dw.o $(B)/tests/libcommon.a $(B)/floors/libbase.a $(B)/fwpt.so | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/host/tools/symbols_dw.o $(B)/tests/libcommon.a $(B)/floors/libbase.a -ldw -lelf

# The --symbols matching (tools/symmap.c): the EDK2 images of ../shared/ovmf-debug loaded by
# tests/oracle/ovmf_load.py, matched to its debug/ files; build/pdbdemo.efi and its PDBs; and fwpt flow --symbols.
$(B)/tests/test_symmap: tests/unit/test_symmap.c $(B)/host/tools/symmap.o $(B)/host/tools/symbols_dw.o $(B)/host/tools/symbols_pdb.o $(B)/host/tools/sideband.o $(B)/tests/libcommon.a $(B)/libfwpt.a $(B)/fwpt $(B)/pdbdemo.efi $(B)/pdbdemo-changed.efi | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/host/tools/symmap.o $(B)/host/tools/symbols_dw.o $(B)/host/tools/symbols_pdb.o $(B)/host/tools/sideband.o $(B)/tests/libcommon.a $(B)/libfwpt.a -ldw -lelf $(TEST_LIBS)
