# fabricbench: `make` builds common/ once as a static library and every app
# present; `make check` runs the tests; `make quickstart` sets up and runs the
# first comparison. See config.mk for the variables you can override.
include config.mk

# BUILD holds objects, BINDIR the binaries (the app folders by default; the
# memcheck tree, tests/memcheck, puts both under build/memcheck).
BUILD ?= build
BINDIR ?= .
# app folder : binary name
APPS := himeno:bmt stream:stream pingpong:pingpong hpl_lite:hpl halo_weather:weather md_shear:md
app_dir = $(word 1,$(subst :, ,$(1)))
app_bin = $(word 2,$(subst :, ,$(1)))
PRESENT := $(foreach a,$(APPS),$(if $(wildcard $(call app_dir,$(a))/main.c),$(a)))
bin_path = $(if $(filter .,$(BINDIR)),,$(BINDIR)/)$(call app_dir,$(1))/$(call app_bin,$(1))
BINS := $(foreach a,$(PRESENT),$(call bin_path,$(a)))

ALL_CFLAGS = $(CFLAGS) $(WARN_FLAGS) $(MPI_WARN_FLAGS) $(OPENMP_FLAGS) $(SAN_FLAGS) -I common -I $(BUILD) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(OPENMP_FLAGS) $(SAN_FLAGS)

COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libfabricbench.a
COMMON_LIBS = $(INIH_LIBS) $(ZLIB_LIBS) -lm -lpthread

.PHONY: all check clean quickstart memcheck fuzzers print-cflags print-arch-flags print-mpicc FORCE
all: $(BINS)

# Build info (compiler, flags, git revision, version) generated at build time;
# rewritten only when it changes so nothing rebuilds needlessly.
$(BUILD)/build_info.h: FORCE
	@mkdir -p $(BUILD)
	@common/gen-build-info "$(MPICC)" "$(CFLAGS) $(OPENMP_FLAGS) $(SAN_FLAGS)" > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

$(BUILD)/common/build_info.o: $(BUILD)/build_info.h

# Everything is rebuilt when the compiler or flags change (make MPI=mpich,
# SANITIZE=..., CFLAGS=...), so no object of another build is linked in.
$(BUILD)/config.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo "$(MPICC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(INIH_CFLAGS) $(ZLIB_CFLAGS) $(foreach a,$(PRESENT),$(EXTRA_CFLAGS_$(call app_dir,$(a))) $(LIBS_$(call app_dir,$(a))))" > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

$(BUILD)/%.o: %.c $(BUILD)/config.stamp | $(BUILD)/build_info.h
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $(INIH_CFLAGS) $(ZLIB_CFLAGS) $(EXTRA_CFLAGS_$(firstword $(subst /, ,$*))) $(FILE_CFLAGS_$*) -c $< -o $@

$(LIB): $(COMMON_OBJ)
	$(AR) rcs $@ $^

# Per-app extra libraries come from APP/app.mk (e.g. OpenBLAS, NetCDF).
-include $(wildcard */app.mk)
define app_rule
$(call bin_path,$(1)): $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(call app_dir,$(1))/*.c)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(MPICC) $$(ALL_LDFLAGS) $$^ $$(LIBS_$(call app_dir,$(1))) $$(COMMON_LIBS) -o $$@
endef
$(foreach a,$(PRESENT),$(eval $(call app_rule,$(a))))

# The MPI-level fabric injector (run/fabric-emu): a PMPI library for LD_PRELOAD,
# never sanitized (it is preloaded ahead of a sanitizer runtime).
INJECT := $(BUILD)/libfbinject.so
all: $(INJECT)
$(INJECT): run/inject/fbinject.c $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -std=c11 -Wall -Wextra -fPIC -shared $< -o $@ -lm -lrt

# Unit tests of common/: one program per tests/unit/*.c.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB)
	$(MPICC) $(ALL_LDFLAGS) $^ $(COMMON_LIBS) -o $@

# Parser fuzzers (libFuzzer, clang): built with the MPI wrapper pointed at clang.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 10
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fopenmp -std=c11 -D_GNU_SOURCE \
             -I common -I $(BUILD) $(INIH_CFLAGS) $(ZLIB_CFLAGS)
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_EXTRA_fuzz_hpldat = hpl_lite/setup.c hpl_lite/matrix.c hpl_lite/hpl_comm.c $(OPENBLAS_CFLAGS) $(OPENBLAS_LIBS)
FUZZ_EXTRA_fuzz_mddata = md_shear/data.c md_shear/atoms.c md_shear/box.c
FUZZ_EXTRA_fuzz_eam = md_shear/potential.c md_shear/data.c md_shear/atoms.c md_shear/box.c
# (an app's sources and headers are prerequisites too: a fuzzer built before
# an edit of md_shear/data.c went on fuzzing the old reader)
.SECONDEXPANSION:
$(BUILD)/fuzz/%: tests/fuzz/%.c $(COMMON_SRC) $(BUILD)/build_info.h \
                 $$(filter %.c,$$(FUZZ_EXTRA_$$*)) $(wildcard common/*.h md_shear/*.h hpl_lite/*.h)
	@mkdir -p $(dir $@)
	OMPI_CC=$(FUZZ_CC) MPICH_CC=$(FUZZ_CC) $(MPICC) $(FUZZ_FLAGS) $< $(COMMON_SRC) \
	  $(FUZZ_EXTRA_$*) $(INIH_LIBS) $(ZLIB_LIBS) -lm -lpthread -o $@
fuzzers: $(FUZZERS)

# Sanitizer builds: a dlclose() that keeps libraries loaded, preloaded into
# the tests' processes (tests/keep_loaded.c says why; never sanitized
# itself), and a program that leaks, which LeakSanitizer must report.
KEEP_LOADED := $(BUILD)/tests/libkeep_loaded.so
$(KEEP_LOADED): tests/keep_loaded.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -fPIC -shared $< -o $@
LEAK_PROBE := $(BUILD)/tests/leak_probe
$(LEAK_PROBE): tests/leak_probe.c $(BUILD)/config.stamp
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< -o $@

check: all $(UNIT_BINS) $(if $(SANITIZE),$(KEEP_LOADED) $(LEAK_PROBE))
	MPIRUN="$(MPIRUN)" FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD="$(MAKE) -s fuzzers" \
	  FB_SANITIZE="$(SANITIZE)" FB_MPI="$(MPI)" tests/run-tests

quickstart:
	run/quickstart

# valgrind runs its own build (build/memcheck), with the widest -march that
# valgrind can execute on this host, found by probing (tests/memcheck).
memcheck:
	MPIRUN="$(MPIRUN)" MAKE="$(MAKE)" MPI="$(MPI)" tests/memcheck

clean:
	rm -rf $(BUILD) $(BINS)

print-cflags:  # for run/ scripts that build a peer with the same flags
	@echo $(CFLAGS)
print-arch-flags:  # for tests/memcheck's probe
	@echo $(ARCH_FLAGS)
print-mpicc:
	@echo $(MPICC)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
