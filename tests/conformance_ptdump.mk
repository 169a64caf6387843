# Conformance: fwpt dump against the ptdump output of libipt's test corpus
# (../shared/conformance/libipt, see its README.md). Needs build/fwpt (`all`, a prerequisite of `test`).
EXTRA_TESTS += tests/conformance/test_ptdump.sh
.PHONY: conformance-test
EXTRA_DEPS_GOALS += conformance-test
conformance-test: all
	tests/run.sh tests/conformance/test_ptdump.sh
