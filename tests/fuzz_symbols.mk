# fuzz_symbols fuzzes the symbol-file path: tools/symbols_dw.c (elfutils), the dispatcher and the CodeView reader of
# tools/symbols_pdb.c (with tools/sideband.o, whose JSON readers it links), beside the sanitized library; it links
# elfutils too, so it has its own rule (the pattern rule links no library). Seeds: tests/fuzz/seeds/symbols/; the
# fuzzer holds tiny-dwarf.so itself (.incbin, a path from the checkout: make runs there) to patch its DWARF.
$(B)/fuzz/fuzz_symbols: tests/fuzz/fuzz_symbols.c $(B)/fuzz/obj/tools/symbols_dw.o $(B)/fuzz/obj/tools/symbols_pdb.o \
		$(B)/fuzz/obj/tools/sideband.o $(B)/fuzz/libfwpt.a tests/fuzz/seeds/symbols/tiny-dwarf.so | $(B)/.deps-test
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(B)/fuzz/libfwpt.a -ldw -lelf
