# The PDB test image: tests/pdb/pdbdemo.c built with clang for a Windows target (CodeView debug information) and
# linked by lld-link into a UEFI application with its PDB: build/pdbdemo.efi + build/pdbdemo.pdb, and a second
# build with one function changed (build/pdbdemo-changed.efi + .pdb: another PDB signature). /pdbaltpath:%_PDB%
# writes only the PDB's file name into the image's CodeView entry, so the image does not depend on the checkout's
# path. tests/unit/test_symbols_pdb.c reads them; the QEMU tests may load build/pdbdemo.efi with load-image.
PDB_CLANG := $(CLANG) --target=x86_64-unknown-windows -ffreestanding -fno-stack-protector -mno-red-zone \
	-fshort-wchar -g -gcodeview -O2 $(WARN)
LLD_LINK := lld-link
$(B)/pdb/pdbdemo.obj: tests/pdb/pdbdemo.c | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(PDB_CLANG) -c $< -o $@
$(B)/pdb/pdbdemo-changed.obj: tests/pdb/pdbdemo.c | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(PDB_CLANG) -DPDBDEMO_CHANGED -c $< -o $@
$(B)/pdbdemo.efi $(B)/pdbdemo.pdb &: $(B)/pdb/pdbdemo.obj
	$(LLD_LINK) /nologo /subsystem:efi_application /entry:efi_main /debug /nodefaultlib /pdbaltpath:%_PDB% \
		/out:$(B)/pdbdemo.efi /pdb:$(B)/pdbdemo.pdb $<
$(B)/pdbdemo-changed.efi $(B)/pdbdemo-changed.pdb &: $(B)/pdb/pdbdemo-changed.obj
	$(LLD_LINK) /nologo /subsystem:efi_application /entry:efi_main /debug /nodefaultlib /pdbaltpath:%_PDB% \
		/out:$(B)/pdbdemo-changed.efi /pdb:$(B)/pdbdemo-changed.pdb $<
# tests/qemu/test_names_pdb.sh traces build/pdbdemo.efi and names it through both PDBs
EXTRA_QEMU_DEPS += $(B)/pdbdemo.efi $(B)/pdbdemo-changed.efi
# test_efi_pe reads the RSDS entry of build/pdbdemo.efi against llvm-pdbutil's summary of its PDB.
$(B)/tests/test_efi_pe: $(B)/pdbdemo.efi
