# fwpt — Intel PT firmware tracer. See README.md.
#   make            build/fwpt.efi (UEFI app), build/fwptdrv.efi (its boot-trace driver) and build/fwpt (host
#                   tool); installs nothing (a missing
#                   gnu-efi or Zydis stops it with a hint)
#   make deps       installs the missing Debian packages (as root); test, unit-test, oracle-test, qemu-test,
#                   bench and fuzz do that first too
#   make test       every test: host unit, oracle (libipt, Zydis), QEMU
#   make unit-test  host tests only (fast)
#   make floor-check  no include from a lower floor to a higher one (docs/architecture.md: the floors)
#   make qemu-test  QEMU/OVMF tests only
#   make install    the public headers, build/libfwpt-decode.a and fwpt.pc under PREFIX (docs/api.md)
#   make usb-image  build/fwpt-usb.img (GPT + ESP with EFI/BOOT/BOOTX64.EFI)
#   make bench      throughput against libipt, printed as ratios
#   make bench-peers  fwpt against libxdc (LIBXDC_SRC=DIR, LIBXDC_DATA=DIR) and libipt: docs/performance.md
#   make fuzz       libFuzzer targets (FUZZ_SECONDS each, default 60)
.DEFAULT_GOAL := all
.SUFFIXES:
# Keep intermediate objects (tests/common) between runs.
.SECONDARY:
SHELL := /bin/bash

B := build
CC := gcc
CLANG := clang
FUZZ_SECONDS ?= 60

WARN := -Wall -Wextra -Werror
HOST_CFLAGS := -std=c11 -D_DEFAULT_SOURCE $(WARN) -O2 -g -I. -Iinclude -MMD -MP
HOST_LIBS := -lZydis -lZycore -ldw -lelf
TEST_LIBS := -lipt -lZydis -lZycore -lm

EFI_INC := /usr/include/efi
EFI_CFLAGS := -std=c11 $(WARN) -O2 -g -I. -Iinclude -I$(EFI_INC) -I$(EFI_INC)/x86_64 -I$(EFI_INC)/protocol \
	-ffreestanding -fpic -fshort-wchar -mno-red-zone -fno-stack-protector -fno-stack-check \
	-fno-strict-aliasing -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -DFWPT_EFI -MMD -MP
EFI_LDFLAGS := -nostdlib -znocombreloc -T /usr/lib/elf_x86_64_efi.lds -shared -Bsymbolic -L/usr/lib
EFI_CRT0 := /usr/lib/crt0-efi-x86_64.o

# Code that runs in firmware and on the host, from the same sources.
LIB_SRCS := $(sort $(wildcard base/*.c arch/*.c topa/*.c decode/*.c analyze/*.c sim/*.c render/*.c))
EFI_LIB_SRCS := $(filter-out %_host.c,$(LIB_SRCS)) # *_host.c: host only (threads)
# efi/driver.c is the boot-trace driver's entry (fwptdrv.efi), efi/main.c the app's: each image links one.
EFI_SRCS := $(filter-out efi/driver.c,$(sort $(wildcard efi/*.c)))
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TEST_COMMON_SRCS := $(sort $(wildcard tests/common/*.c))

HOST_LIB_OBJS := $(LIB_SRCS:%.c=$(B)/host/%.o)
EFI_OBJS := $(EFI_LIB_SRCS:%.c=$(B)/efi/%.o) $(EFI_SRCS:%.c=$(B)/efi/%.o)
EFI_DRV_OBJS := $(filter-out $(B)/efi/efi/main.o,$(EFI_OBJS)) $(B)/efi/efi/driver.o
TOOL_OBJS := $(TOOL_SRCS:%.c=$(B)/host/%.o)
TEST_COMMON_OBJS := $(TEST_COMMON_SRCS:%.c=$(B)/host/%.o)

UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(sort $(wildcard tests/unit/test_*.c)))
ORACLE_TESTS := $(patsubst tests/oracle/%.c,$(B)/tests/%,$(sort $(wildcard tests/oracle/test_*.c)))
QEMU_TESTS := $(sort $(wildcard tests/qemu/test_*.sh))
BENCHES := $(patsubst tests/bench/%.c,$(B)/bench/%,$(sort $(wildcard tests/bench/bench_*.c)))
FUZZERS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

export FWPT_BUILD := $(abspath $(B))
# Intel's decoder conformance corpus (the tests read $$FWPT_CONFORMANCE/libipt): ../shared/conformance beside this
# checkout, else beside the local repository it was cloned from (a clone in a temporary directory has none).
ORIGIN_DIR := $(shell git config --get remote.origin.url 2>/dev/null | grep '^/')
FWPT_CONFORMANCE ?= $(firstword $(abspath $(wildcard ../shared/conformance $(if $(ORIGIN_DIR),$(ORIGIN_DIR)/../shared/conformance))) $(abspath ../shared/conformance))
export FWPT_CONFORMANCE
# The EDK2 DEBUG build of OVMF the QEMU target tests also run on (tests/qemu/lib.sh), found the same way.
FWPT_OVMF_DEBUG ?= $(firstword $(abspath $(wildcard ../shared/ovmf-debug/OVMF.fd $(if $(ORIGIN_DIR),$(ORIGIN_DIR)/../shared/ovmf-debug/OVMF.fd))) $(abspath ../shared/ovmf-debug/OVMF.fd))
export FWPT_OVMF_DEBUG

# The floors from the top down (the order a test links them: tests/test_floors.mk), and the archives a test links.
FLOOR_ORDER := render analyze sim topa decode arch base
test_floor_libs = $(foreach f,$(FLOOR_ORDER),$(if $(filter $(f),$(or $(TEST_FLOORS_$(1)),$(FLOOR_ORDER))),$(B)/floors/lib$(f).a))
.SECONDEXPANSION:

# Module fragments may add targets, tests (EXTRA_TESTS) and prerequisites.
# The floors: no include goes up (tests/floor_check.sh names the file and the include); the docs' links lead
# somewhere (tests/docs/check_links.py).
EXTRA_TESTS := tests/floor_check.sh tests/docs/check_links.py
EXTRA_QEMU_DEPS :=
-include $(sort $(wildcard */*.mk))

.PHONY: all deps test unit-test oracle-test floor-check qemu-test usb-image bench fuzz clean
all: $(B)/fwpt.efi $(B)/fwptdrv.efi $(B)/fwpt $(B)/libfwpt-decode.a

# Plain `make` installs nothing: before the first compile, deps-check looks for the headers and libraries the
# build uses and stops with a one-line hint if one is missing (not a compiler error deep in a header). The goals
# of DEPS_GOALS install the missing Debian packages (tools/ensure-deps.sh, as root) first, and every compile waits
# for that (deps-check comes after $(B)/.deps-test), so `make -j2 test` never compiles beside apt-get.
DEPS_GOALS := deps test unit-test oracle-test qemu-test bench fuzz $(EXTRA_DEPS_GOALS)
DEPS_INSTALL := $(if $(filter $(DEPS_GOALS),$(MAKECMDGOALS)),$(B)/.deps-test)
# what `make all` reads: keep in step with the build set of tools/ensure-deps.sh
BUILD_NEEDS := $(EFI_INC)/efi.h $(EFI_INC)/x86_64/efibind.h $(EFI_CRT0) /usr/lib/elf_x86_64_efi.lds \
	/usr/lib/libefi.a /usr/lib/libgnuefi.a /usr/include/Zydis/Zydis.h /usr/include/elfutils/libdwfl.h
$(B)/.deps-test: tools/ensure-deps.sh
	@mkdir -p $(B) && tools/ensure-deps.sh all && touch $@
deps: $(B)/.deps-test
.PHONY: deps-check
deps-check: | $(DEPS_INSTALL)
	@missing="$(filter-out $(wildcard $(BUILD_NEEDS)),$(BUILD_NEEDS))"; \
	command -v $(CC) >/dev/null || missing="$(CC)$${missing:+ $$missing}"; \
	if [ -n "$$missing" ]; then echo "fwpt: missing $$missing: run 'make deps' as root, or: apt-get install gcc make binutils gnu-efi libzydis-dev libdw-dev libelf-dev" >&2; exit 1; fi

# ---- host ----
$(B)/host/%.o: %.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(B)/libfwpt.a: $(HOST_LIB_OBJS)
	@rm -f $@ && ar rcs $@ $^
$(B)/fwpt: $(TOOL_OBJS) $(B)/libfwpt.a
	$(CC) -o $@ $(TOOL_OBJS) $(B)/libfwpt.a $(HOST_LIBS)

# ---- the public API (include/fwpt/, docs/api.md) ----
# The library's objects export only what a public header marks FWPT_API (tests/api/check_exports.sh).
$(HOST_LIB_OBJS): HOST_CFLAGS += -fvisibility=hidden
# analyze/ decodes through the public calls only: built with the flow decoder's state hidden (decode/flow.h), a
# field of it read there does not compile.
$(B)/host/analyze/%.o: HOST_CFLAGS += -DFWPT_FLOW_OPAQUE
$(B)/efi/analyze/%.o: EFI_CFLAGS += -DFWPT_FLOW_OPAQUE
$(B)/free/analyze/%.o: FREE_CFLAGS += -DFWPT_FLOW_OPAQUE
$(B)/fuzz/obj/analyze/%.o: FUZZ_CFLAGS += -DFWPT_FLOW_OPAQUE
# libfwpt-decode.a: the decoder and the freestanding summaries, built as in firmware (no libc: tests/api/check_libc.sh)
DECODE_LIB_SRCS := base/json.c base/status.c base/text.c base/version.c $(sort $(wildcard decode/*.c)) \
	$(filter-out %_host.c,$(sort $(wildcard analyze/*.c)))
FREE_CFLAGS := -std=c11 $(WARN) -O2 -I. -Iinclude -ffreestanding -fno-stack-protector -fno-stack-check \
	-fvisibility=hidden -MMD -MP
$(B)/free/%.o: %.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(FREE_CFLAGS) -c $< -o $@
$(B)/libfwpt-decode.a: $(DECODE_LIB_SRCS:%.c=$(B)/free/%.o)
	@rm -f $@ && ar rcs $@ $^

# make install [PREFIX=/usr/local] [LIBDIR=PREFIX/lib] [DESTDIR=]: the public headers, libfwpt-decode.a and
# fwpt.pc (pkg-config --cflags --libs fwpt); make uninstall removes them. The version is include/fwpt/version.h's.
PREFIX ?= /usr/local
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
version_part = $(shell sed -n 's/^\#define FWPT_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' include/fwpt/version.h)
FWPT_VERSION_STRING := $(call version_part,MAJOR).$(call version_part,MINOR)
PUBLIC_HEADERS := $(sort $(wildcard include/fwpt/*.h))
.PHONY: install uninstall FORCE
$(B)/fwpt.pc: include/fwpt/version.h FORCE
	@mkdir -p $(B)
	@printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$(INCLUDEDIR)' 'libdir=$(LIBDIR)' '' 'Name: fwpt' \
		'Description: Intel Processor Trace decoder: packets, instruction flow, profiles (freestanding)' \
		'Version: $(FWPT_VERSION_STRING)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lfwpt-decode' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
install: $(B)/libfwpt-decode.a $(B)/fwpt.pc
	install -d $(DESTDIR)$(INCLUDEDIR)/fwpt $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/fwpt/
	install -m 644 $(B)/libfwpt-decode.a $(DESTDIR)$(LIBDIR)/
	install -m 644 $(B)/fwpt.pc $(DESTDIR)$(PKGCONFIGDIR)/
uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/fwpt/,$(notdir $(PUBLIC_HEADERS))) \
		$(DESTDIR)$(LIBDIR)/libfwpt-decode.a $(DESTDIR)$(PKGCONFIGDIR)/fwpt.pc
	-rmdir $(DESTDIR)$(INCLUDEDIR)/fwpt 2>/dev/null

# ---- EFI application (freestanding, gnu-efi) ----
$(B)/efi/%.o: %.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(EFI_CFLAGS) -c $< -o $@
# Links the gnu-efi objects $^ into the shared object $@, refusing any undefined symbol (also used
# by fragments, e.g. tests/soft_selftest.mk); $(B)/NAME.efi is the PE image of $(B)/NAME.so.
define EFI_LINK
ld $(EFI_LDFLAGS) $(EFI_CRT0) $^ -o $@ -lefi -lgnuefi $(shell $(CC) -print-libgcc-file-name)
@if nm -u $@ | grep -q .; then echo "$(@F): undefined symbols:"; nm -u $@; rm -f $@; exit 1; fi
endef
$(B)/fwpt.so: $(EFI_OBJS)
	$(EFI_LINK)
$(B)/fwptdrv.so: $(EFI_DRV_OBJS)
	$(EFI_LINK)
EFI_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' -j '.rela.*' -j .reloc
$(B)/%.efi: $(B)/%.so
	objcopy $(EFI_SECTIONS) --target efi-app-x86_64 --subsystem=10 $< $@
# the boot-trace driver: an EFI boot service driver (PE subsystem 11), resident after its entry returns
$(B)/fwptdrv.efi: $(B)/fwptdrv.so
	objcopy $(EFI_SECTIONS) --target efi-bsdrv-x86_64 --subsystem=11 $< $@

# ---- tests ----
# A unit or oracle test links the floors it tests, not the whole library: tests/test_floors.mk names them
# (TEST_FLOORS_test_x := decode arch base); the linker refuses a test that calls into a floor it does not name.
# Each floor is an archive of its folder's objects, linked from the top floor down; tests/common is an archive too,
# so a test takes only the helpers it calls. A test without a line links every floor.
$(foreach f,$(FLOOR_ORDER),$(eval $(B)/floors/lib$(f).a: $(patsubst %.c,$(B)/host/%.o,$(sort $(wildcard $(f)/*.c)))))
$(B)/floors/%.a:
	@mkdir -p $(dir $@) && rm -f $@ && ar rcs $@ $^
$(B)/tests/libcommon.a: $(TEST_COMMON_OBJS)
	@mkdir -p $(dir $@) && rm -f $@ && ar rcs $@ $^
$(B)/tests/%: tests/unit/%.c $(B)/tests/libcommon.a $$(call test_floor_libs,$$*) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/tests/libcommon.a $(call test_floor_libs,$*) $(TEST_LIBS)
$(B)/tests/%: tests/oracle/%.c $(B)/tests/libcommon.a $$(call test_floor_libs,$$*) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(B)/tests/libcommon.a $(call test_floor_libs,$*) $(TEST_LIBS)
$(B)/bench/%: tests/bench/%.c $(TEST_COMMON_OBJS) $(B)/libfwpt.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -O3 -march=native -o $@ $< $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS)
# The fuzzers link one sanitized build of the library ($(B)/fuzz/libfwpt.a, objects under $(B)/fuzz/obj/). A
# fragment links more objects into one fuzzer by naming them as prerequisites, e.g.
#   $(B)/fuzz/fuzz_x: $(B)/fuzz/obj/tools/x.o
FUZZ_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -g -O1 -I. -Iinclude -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/obj/%.o: %.c | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(B)/fuzz/libfwpt.a: $(FUZZ_LIB_OBJS)
	@rm -f $@ && ar rcs $@ $^
$(B)/fuzz/%: tests/fuzz/%.c $(B)/fuzz/libfwpt.a | $(B)/.deps-test
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(B)/fuzz/libfwpt.a

unit-test: all $(UNIT_TESTS)
	tests/run.sh $(UNIT_TESTS)
oracle-test: all $(ORACLE_TESTS)
	tests/run.sh $(ORACLE_TESTS)
floor-check:
	tests/run.sh tests/floor_check.sh
qemu-test: all $(EXTRA_QEMU_DEPS)
	tests/run.sh $(QEMU_TESTS)
test: all $(UNIT_TESTS) $(ORACLE_TESTS) $(EXTRA_QEMU_DEPS)
	tests/run.sh $(UNIT_TESTS) $(ORACLE_TESTS) $(EXTRA_TESTS) $(QEMU_TESTS)

usb-image: $(B)/fwpt-usb.img
$(B)/fwpt-usb.img: $(B)/fwpt.efi $(B)/fwptdrv.efi tools/mkimage.sh
	tools/mkimage.sh usb $@ $(B)/fwpt.efi

# real firmware traces (OVMF under QEMU/TCG, backend=soft) beside the synthetic inputs; kept between runs. The same
# four on the EDK2 DEBUG OVMF, with its full-DWARF symbol files unpacked, for the benches with real names (without
# ../shared/ovmf-debug, bench_list and bench_summary say NOT RUN for those).
bench: all $(BENCHES)
	tests/bench/firmware-traces.sh $(B) $(B)/bench/fw
	@if [ -f "$(FWPT_OVMF_DEBUG)" ]; then \
		tests/bench/firmware-traces.sh $(B) $(B)/bench/fw-debug "$(FWPT_OVMF_DEBUG)" || exit 1; \
		[ -d $(B)/bench/ovmf-debug-full ] || { rm -rf $(B)/bench/ovmf-debug-full.tmp && \
		mkdir -p $(B)/bench/ovmf-debug-full.tmp && \
		tar -xJf "$(dir $(FWPT_OVMF_DEBUG))debug-full.tar.xz" -C $(B)/bench/ovmf-debug-full.tmp && \
		mv $(B)/bench/ovmf-debug-full.tmp $(B)/bench/ovmf-debug-full; } || exit 1; \
	else echo "NOT RUN: the benches with real names: no $(FWPT_OVMF_DEBUG)"; fi
	@for b in $(BENCHES); do echo "=== $$b"; FWPT_BENCH_FW=$(B)/bench/fw $$b || exit 1; done
fuzz: $(FUZZERS)
	@for f in $(FUZZERS); do echo "=== $$f ($(FUZZ_SECONDS) s)"; \
		mkdir -p $(B)/fuzz/corpus-$$(basename $$f); \
		$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 $(B)/fuzz/corpus-$$(basename $$f) \
			$$(ls -d tests/fuzz/seeds/$$(basename $$f | sed s/^fuzz_//) 2>/dev/null) \
			$$(ls tests/fuzz/seeds/$$(basename $$f | sed s/^fuzz_//).dict 2>/dev/null | sed s/^/-dict=/) || exit 1; done

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
