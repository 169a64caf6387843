# make bench-peers: fwpt side by side with libxdc (fresh and warm) and libipt on libxdc's test traces and the
# firmware traces (tests/bench/peers.c; docs/performance.md, "Side by side with libxdc"). For measuring only: never
# a prerequisite of all, test or bench, and nothing of libxdc is in the repository.
#   LIBXDC_SRC=DIR    libxdc's source (github nyx-fuzz/libxdc, MIT), compiled here with its own flags into
#                     $(B)/peers/libxdc/ and linked with Debian's capstone; unset: the bench says NOT RUN for libxdc
#   LIBXDC_DATA=DIR   the test_data/ directory of github nyx-fuzz/libxdc_experiments (Unzip, foo, mruby, qemu);
#                     unset: NOT RUN for those traces, the firmware traces only
# Packages (libipt-dev, libcapstone-dev): tools/ensure-deps.sh peers, only when bench-peers runs.
.PHONY: bench-peers bench-peers-source
ifneq ($(filter bench-peers,$(MAKECMDGOALS)),)
$(HOST_LIB_OBJS) $(TEST_COMMON_OBJS): | $(B)/.deps-peers
endif
PEERS_CFLAGS := $(HOST_CFLAGS) -O3 -march=native
$(B)/.deps-peers: tools/ensure-deps.sh
	@mkdir -p $(B) && tools/ensure-deps.sh peers && touch $@
$(B)/bench/peers: tests/bench/peers.c $(TEST_COMMON_OBJS) $(B)/libfwpt.a | $(B)/.deps-peers
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_CFLAGS) -o $@ $< $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(TEST_LIBS)
ifneq ($(strip $(LIBXDC_SRC)),)
PEERS_XDC := $(abspath $(LIBXDC_SRC))
PEERS_XDC_OBJS := $(patsubst $(PEERS_XDC)/src/%.c,$(B)/peers/libxdc/%.o,$(wildcard $(PEERS_XDC)/src/*.c))
# libxdc's own Makefile flags (its release build); rebuilt when LIBXDC_SRC names another directory
PEERS_XDC_CFLAGS := -Ofast -fPIC -fvisibility=hidden -flto -finline-functions
$(B)/peers/libxdc/source: bench-peers-source
	@mkdir -p $(dir $@) && echo '$(PEERS_XDC)' | cmp -s - $@ || echo '$(PEERS_XDC)' > $@
$(B)/peers/libxdc/%.o: $(PEERS_XDC)/src/%.c $(B)/peers/libxdc/source | $(B)/.deps-peers
	$(CC) $(PEERS_XDC_CFLAGS) -c -o $@ $<
$(B)/bench/peers-libxdc: tests/bench/peers.c $(TEST_COMMON_OBJS) $(B)/libfwpt.a $(PEERS_XDC_OBJS) | $(B)/.deps-peers
	@[ -f $(PEERS_XDC)/libxdc.h ] || { echo "bench-peers: LIBXDC_SRC=$(LIBXDC_SRC): no libxdc.h there (want github nyx-fuzz/libxdc's source)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(PEERS_CFLAGS) -DFWPT_PEERS_LIBXDC -I$(PEERS_XDC) -o $@ $< $(TEST_COMMON_OBJS) $(B)/libfwpt.a \
		$(PEERS_XDC_OBJS) -flto -Ofast $(TEST_LIBS) -lcapstone
PEERS_BIN := $(B)/bench/peers-libxdc
else
PEERS_BIN := $(B)/bench/peers
endif
bench-peers-source:
bench-peers: $(B)/fwpt.efi $(PEERS_BIN)
	tests/bench/firmware-traces.sh $(B) $(B)/bench/fw
	FWPT_FW_TRACE_OPTS=noretcomp tests/bench/firmware-traces.sh $(B) $(B)/bench/fw-noretc
	FWPT_BENCH_FW=$(B)/bench/fw FWPT_BENCH_FW_NORETC=$(B)/bench/fw-noretc LIBXDC_DATA=$(LIBXDC_DATA) $(PEERS_BIN)
