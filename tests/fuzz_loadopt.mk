# fuzz_loadopt compiles efi/loadopt.c in (pure C, as test_loadopt does): rebuilt when it changes. Seeds:
# tests/fuzz/seeds/loadopt/.
$(B)/fuzz/fuzz_loadopt: efi/loadopt.c efi/loadopt.h
