/* fwpt tests — where a test finds its inputs and keeps its files: the build directory, the EDK2 DEBUG build of
 * OVMF beside the checkout, and one scratch directory per test binary. Hosted C. */
#ifndef FWPT_TESTS_SCRATCH_H
#define FWPT_TESTS_SCRATCH_H

/* $FWPT_BUILD, else "build". */
const char *build_dir(void);

/* The EDK2 DEBUG build of OVMF: $FWPT_OVMF_DEBUG, else ../shared/ovmf-debug/OVMF.fd (as tests/qemu/lib.sh finds
 * it); ovmf_debug_dir is its folder, where debug/, debug-full.tar.xz and MODULES.tsv are. Whether they are there is
 * the caller's to check. */
const char *ovmf_debug_fd(void);
const char *ovmf_debug_dir(void);

/* The test's scratch directory: made on the first call as $TMPDIR/PREFIX.XXXXXX (TMPDIR unset: /tmp; a failure
 * ends the test with status 1); later calls return the same one. */
const char *scratch_dir(const char *prefix);

/* Removes the scratch directory, if one was made, unless FWPT_TEST_KEEP is set; a failure is said on stderr under
 * the test's name. */
void scratch_remove(const char *test);

#endif
