# Conformance, flow half: fwpt flow against the ptxed output of libipt's test corpus
# (../shared/conformance/libipt), and fwpt flow --cpu none against libipt with no processor on every
# errata case (tests/conformance/ipt_errors). Needs build/fwpt (`all`, a prerequisite of `test`).
EXTRA_TESTS += tests/conformance/test_ptxed.sh
$(B)/tests/ipt_errors: tests/conformance/ipt_errors.c tests/common/ipt_insn.h tests/common/code_image.h | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< -lipt
test: $(B)/tests/ipt_errors
.PHONY: conformance-flow-test
EXTRA_DEPS_GOALS += conformance-flow-test
conformance-flow-test: all $(B)/tests/ipt_errors
	tests/run.sh tests/conformance/test_ptxed.sh
