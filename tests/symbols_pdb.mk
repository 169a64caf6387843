# The PDB resolver backend (tools/symbols_pdb.c, over llvm-pdbutil and llvm-symbolizer): its test links it with the
# ELF backend (the dispatcher opens either) and tools/sideband.o (its JSON readers read llvm-symbolizer's answers),
# and reads build/pdbdemo.efi + .pdb and the changed build's PDB (tests/pdb.mk).
$(B)/tests/test_symbols_pdb: tests/unit/test_symbols_pdb.c $(B)/host/tools/symbols_pdb.o $(B)/host/tools/symbols_dw.o \
		$(B)/host/tools/sideband.o $(B)/tests/libcommon.a $$(call test_floor_libs,test_symbols_pdb) \
		$(B)/pdbdemo.efi $(B)/pdbdemo-changed.efi $(B)/fwpt.so | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(filter %.o,$^) $(B)/tests/libcommon.a $(call test_floor_libs,test_symbols_pdb) \
		$(TEST_LIBS) -ldw -lelf
