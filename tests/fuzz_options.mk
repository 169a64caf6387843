# fuzz_options compiles efi/options.c in (pure C, as test_efi_options does): rebuilt when it changes. Seeds:
# tests/fuzz/seeds/options/.
$(B)/fuzz/fuzz_options: efi/options.c efi/options.h
