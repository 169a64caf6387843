# The fuzz smoke test: `make test` also runs every libFuzzer target briefly (tests/fuzz/smoke.sh), so the
# fuzzers are built as prerequisites of `test` (the Makefile's rule $(B)/fuzz/%).
EXTRA_TESTS += tests/fuzz/smoke.sh
test: $(FUZZERS)
