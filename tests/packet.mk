# packet decoder: `make test` also runs every libFuzzer target briefly (tests/fuzz/smoke.sh), so the
# fuzzers are built as prerequisites of `test`.
EXTRA_TESTS += tests/fuzz/smoke.sh
test: $(FUZZERS)
