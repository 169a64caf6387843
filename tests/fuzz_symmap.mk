# fuzz_symmap fuzzes the --symbols matching (tools/symmap.c: Guid.xref, as-built INF, NAME_GUID.debug names, the
# CodeView path's suffix, the byte check) with the sideband.json images read as fwpt flow reads them; it links the
# symbol backends and elfutils like fuzz_symbols (and holds the same seed tiny-dwarf.so). Seeds: tests/fuzz/seeds/symmap/.
$(B)/fuzz/fuzz_symmap: tests/fuzz/fuzz_symmap.c $(B)/fuzz/obj/tools/symmap.o $(B)/fuzz/obj/tools/symbols_dw.o \
		$(B)/fuzz/obj/tools/symbols_pdb.o $(B)/fuzz/obj/tools/sideband.o $(B)/fuzz/libfwpt.a \
		tests/fuzz/seeds/symbols/tiny-dwarf.so | $(B)/.deps-test
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(B)/fuzz/libfwpt.a -ldw -lelf
