/* fwpt tests — llvm-pdbutil, the referee of the PDB tests (Debian package llvm: llvm-pdbutil, else the versioned
 * llvm-pdbutil-14). Hosted C. */
#ifndef FWPT_TESTS_PDBUTIL_H
#define FWPT_TESTS_PDBUTIL_H

#include <stddef.h>
#include <stdio.h>

/* `llvm-pdbutil ARGS` (its stderr dropped; failing, `llvm-pdbutil-14 ARGS`): its stdout to read (pclose it), NULL
 * when it could not start. */
FILE *pdbutil_popen(const char *args);

/* The PDB's signature as `llvm-pdbutil dump --summary PDB` prints it: "GUID: {...}" into guid (cap bytes; "?" when
 * not printed), "Age: N" into *age (0 when not). */
void pdbutil_summary(const char *pdb, char *guid, size_t cap, unsigned *age);

#endif
