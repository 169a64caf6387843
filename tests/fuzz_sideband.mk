# fuzz_sideband fuzzes the host tool's sideband.json readers: tools/sideband.c linked beside the sanitized library.
# Its seeds: tests/fuzz/seeds/sideband/.
$(B)/fuzz/fuzz_sideband: $(B)/fuzz/obj/tools/sideband.o
