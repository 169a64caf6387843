# The public API (docs/api.md): the libraries export only fwpt_ names and exactly what include/fwpt/ declares
# FWPT_API; libfwpt-decode.a needs nothing from libc; each public header compiles alone as C11 and C++; the example
# program, built against an installed copy through pkg-config, counts what `fwpt flow` counts.
EXTRA_TESTS += tests/api/check_exports.sh tests/api/check_libc.sh tests/api/check_headers.sh tests/api/test_example.sh
test: $(B)/libfwpt-decode.a $(B)/fwpt
