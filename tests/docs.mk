# The docs agree with the tool: every option of `fwpt CMD --help` is in docs/host-tool.md and the other way
# round; the Markdown tables parse; the examples that need no run (fwpt plan) print what the page says (the
# ones that need a run: tests/qemu/test_docs_examples.sh).
EXTRA_TESTS += tests/docs/check_host_tool.py tests/docs/check_tables.py tests/docs/check_examples.py
