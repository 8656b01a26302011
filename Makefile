# clconv: out-of-tree build in build/. `make V=1` shows the commands.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build

CC ?= cc
CFLAGS ?= -O2 -g
WERROR ?= -Werror
OPENMP ?= -fopenmp
WARNINGS := -Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes \
            -Wshadow -Wvla $(WERROR)
ALL_CFLAGS := -std=c11 -D_DEFAULT_SOURCE $(WARNINGS) $(OPENMP) \
              -Iinclude -DCLCONV_PREFIX='"$(PREFIX)"' $(CFLAGS)
LDLIBS_CL := -lOpenCL -lpng -lm $(OPENMP)
CMOCKA_CFLAGS ?=
CMOCKA_LIBS ?= -lcmocka

ifeq ($(V),1)
Q :=
else
Q := @
endif

# host/lib/ is the library (the only code that includes internal.h);
# host/cli/ the commands, on the public headers of include/ alone.
LIB_SRC := $(wildcard host/lib/*.c)
# host/cli/*_mpi.c are the MPI commands, only in clconv-mpi (below).
CLI_SRC := $(filter-out %_mpi.c,$(wildcard host/cli/*.c))
# Each test/test_*.c is one cmocka program; test/support_*.c is linked into
# every one of them; test/*.sh are shell tests given the CLI's path.
TEST_SRC := $(wildcard test/test_*.c)
TEST_SUPPORT := $(wildcard test/support_*.c)
TEST_SH := $(sort $(wildcard test/*.sh))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(BUILD)/%.o)
TEST_BINS := $(TEST_SRC:test/%.c=$(BUILD)/%)
LIB := $(BUILD)/libclconv.a
# The shared library: libclconv.so.MAJOR is the soname, .so.VERSION the
# file; the version comes from include/clconv.h (CLCONV_VERSION_STRING).
VERSION := $(shell sed -n 's/^\#define CLCONV_VERSION_STRING "\(.*\)"/\1/p' include/clconv.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME := libclconv.so.$(SOMAJOR)
SHLIB := $(BUILD)/libclconv.so.$(VERSION)
PC := $(BUILD)/clconv.pc
LIBDIR ?= $(PREFIX)/lib
BIN := $(BUILD)/clconv
DEPS_OK := $(BUILD)/.deps-ok
FLAGS_STAMP := $(BUILD)/.cflags

# `make` alone builds everything (the MPI rules below come first in the
# file, so the goal is named).
.DEFAULT_GOAL := all

# ---- MPI (issue 19): libclconv_mpi.a (host/mpi/) and the command
# clconv-mpi (every command of clconv, with apply and bench --mpi over MPI
# ranks), built when OpenMPI is found (pkg-config ompi-c, else mpicc) or
# with MPI=1; MPI=0 leaves them out. libclconv never links MPI.
ifeq ($(origin MPI),undefined)
MPI := $(shell (pkg-config --exists ompi-c || mpicc --showme:version) \
         >/dev/null 2>&1 && echo 1 || echo 0)
endif
MPI_LIB_SRC := $(wildcard host/mpi/*.c)
MPI_CLI_SRC := $(wildcard host/cli/*_mpi.c)
MPI_LIB_OBJ := $(MPI_LIB_SRC:%.c=$(BUILD)/%.o)
MPI_CLI_OBJ := $(MPI_CLI_SRC:%.c=$(BUILD)/%.o)
MPI_LIB := $(BUILD)/libclconv_mpi.a
MPI_BIN := $(BUILD)/clconv-mpi
# test/mpi_*.c: cmocka programs of the MPI library's own, run under
# mpirun by test/mpi.sh (built with the test programs).
MPI_TEST_SRC := $(wildcard test/mpi_*.c)
MPI_TEST_OBJ := $(MPI_TEST_SRC:%.c=$(BUILD)/%.o)
MPI_TEST_BINS := $(MPI_TEST_SRC:test/%.c=$(BUILD)/%)
# test/preload_mpi_fault.c: a shared object test/mpi.sh preloads into one
# rank to make one of its MPI calls fail.
MPI_PRELOAD := $(BUILD)/preload_mpi_fault.so
ifeq ($(MPI),1)
MPI_CFLAGS ?= $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile)
MPI_LIBS ?= $(shell pkg-config --libs ompi-c 2>/dev/null || mpicc --showme:link)
MPI_TARGETS := $(MPI_BIN) $(MPI_LIB)
MPI_TEST_TARGETS := $(MPI_TEST_BINS) $(MPI_PRELOAD)
endif
# MPI's headers as system headers: our warnings are for our code.
$(MPI_LIB_OBJ) $(MPI_CLI_OBJ) $(MPI_TEST_OBJ) $(BUILD)/test/preload_mpi_fault.o: ALL_CFLAGS += $(patsubst -I%,-isystem %,$(MPI_CFLAGS))
$(BUILD)/test/preload_mpi_fault.o: ALL_CFLAGS += -fPIC
$(MPI_LIB): $(MPI_LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(MPI_BIN): $(filter-out %/main.o,$(CLI_OBJ)) $(MPI_CLI_OBJ) $(MPI_LIB) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(MPI_LIB) $(LIB) \
	  $(LDFLAGS) $(MPI_LIBS) $(LDLIBS_CL)
$(MPI_PRELOAD): $(BUILD)/test/preload_mpi_fault.o
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(LDFLAGS) $(MPI_LIBS)
$(MPI_TEST_BINS): $(BUILD)/%: $(BUILD)/test/%.o $(MPI_LIB) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(MPI_LIB) $(LIB) $(LDFLAGS) \
	  $(MPI_LIBS) $(CMOCKA_LIBS) $(LDLIBS_CL)

.PHONY: all test run install uninstall clean deps
all: $(BIN) $(LIB) $(SHLIB) $(PC) $(MPI_TARGETS)

# Install the Debian/Ubuntu packages when the headers, loader or cmocka are
# missing (scripts/deps.sh says what it does).
# SKIP_DEPS=1 skips the check (machines without apt, dependencies given
# through CMOCKA_CFLAGS/CMOCKA_LIBS and friends).
$(DEPS_OK): scripts/deps.sh
	$(Q)mkdir -p $(BUILD)
	$(Q)if [ "$(SKIP_DEPS)" != 1 ]; then scripts/deps.sh --if-missing; fi
	$(Q)touch $@
deps:
	scripts/deps.sh

# Rebuild everything when the flags change.
$(FLAGS_STAMP): FORCE | $(DEPS_OK)
	$(Q)mkdir -p $(BUILD)
	$(Q)echo '$(CC) $(ALL_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(filter test/%,$<),$(CMOCKA_CFLAGS)) -MMD -MP -c $< -o $@

# The library's objects are position-independent: one set serves the
# static and the shared library.
$(LIB_OBJ): ALL_CFLAGS += -fPIC

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHLIB): $(LIB_OBJ) scripts/libclconv.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined \
	  -Wl,--version-script=scripts/libclconv.map -o $@ $(LIB_OBJ) $(LDFLAGS) $(LDLIBS_CL)
	$(Q)ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	$(Q)ln -sf $(notdir $@) $(BUILD)/libclconv.so

# pkg-config: `pkg-config --cflags --libs clconv` (add --static for the
# static library and its dependencies).
$(PC): scripts/clconv.pc.in $(FLAGS_STAMP)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(LDLIBS_CL)|' $< > $@

$(BIN): $(CLI_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDFLAGS) $(LDLIBS_CL)

$(BUILD)/test_%: $(BUILD)/test/test_%.o $(TEST_SUPPORT_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIB) $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS_CL)

# test_failures fails the library's host allocations and OpenCL calls one
# at a time: each call named here reaches test/inject.c's __wrap_ twin.
INJECT_WRAP := malloc calloc realloc strdup strndup clCreateBuffer \
  clCreateSubBuffer clCreateKernel clCreateCommandQueue \
  clCreateProgramWithSource clCreateProgramWithBinary clEnqueueMapBuffer \
  clSetKernelArg clEnqueueWriteBuffer clEnqueueReadBuffer \
  clEnqueueNDRangeKernel clEnqueueFillBuffer clEnqueueCopyBufferRect \
  clEnqueueMarkerWithWaitList clFinish clFlush clWaitForEvents \
  clBuildProgram clGetDeviceInfo clGetMemObjectInfo clGetEventInfo \
  clGetEventProfilingInfo clGetKernelWorkGroupInfo clGetProgramInfo
$(BUILD)/test_failures: $(BUILD)/test/test_failures.o $(BUILD)/test/inject.o \
  $(TEST_SUPPORT_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/test/inject.o \
	  $(TEST_SUPPORT_OBJ) $(LIB) $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS_CL) \
	  $(foreach f,$(INJECT_WRAP),-Wl,--wrap=$(f))

# Every variant on every device on the default problems, side by side.
run: $(BIN)
	$(BIN) run

# Every cmocka program, then every shell test; stops at the first failure.
# TEST_SH_SKIP: shell tests a run leaves out (the second-implementation
# runs below skip the Python package and MPI layers, which test the host
# code PoCL already covered, not the implementation's compiler).
TEST_SH_SKIP ?=
TEST_SH_RUN = $(filter-out $(TEST_SH_SKIP),$(TEST_SH))
# TEST_BINS_SKIP: cmocka programs a run leaves out (CI's lane B runs
# test-oclgrind without test_paths, and test-oclgrind-paths as a step of
# its own that either lane takes).
TEST_BINS_SKIP ?=
# IMPL_BINS_SKIP: the ones a second implementation's run leaves out on top
# (test-oclgrind: test_failures, whose failure injection tests host code
# and whose context reference counts Oclgrind keeps past a session's end).
IMPL_BINS_SKIP ?=
# Each program and script says how long it took (CI's logs: where the
# time of a lane went).
RUN_EACH = for t in $(1); do echo "== $$t"; s=$$(date +%s); $$t $(2); \
  echo "== $$t passed in $$(($$(date +%s) - s)) s"; done
test: test-programs
	$(Q)set -e; $(call RUN_EACH,$(filter-out $(TEST_BINS_SKIP) $(IMPL_BINS_SKIP),$(TEST_BINS)),); \
	$(call RUN_EACH,$(TEST_SH_RUN),$(BIN))
# What `make test` runs, built (CI builds it once, with -j2, before the
# steps that share it start side by side).
.PHONY: test-programs
test-programs: $(BIN) $(TEST_BINS) $(MPI_TARGETS) $(MPI_TEST_TARGETS)

# `make install PREFIX=.. DESTDIR=..`: the command, both libraries (with
# the soname link), the public headers, the kernels and clconv.pc, and
# where MPI is built clconv-mpi (which `mpirun -n N clconv apply` runs
# from beside clconv) and libclconv_mpi.a with clconv_mpi.h;
# `make uninstall` with the same PREFIX/DESTDIR removes exactly those.
HEADERS := $(notdir $(filter-out $(if $(MPI_TARGETS),,include/clconv_mpi.h),$(wildcard include/*.h)))
KERNELS := $(notdir $(wildcard cl/*.cl cl/*.clh))
I := $(DESTDIR)$(PREFIX)
L := $(DESTDIR)$(LIBDIR)
install: $(BIN) $(LIB) $(SHLIB) $(PC) $(MPI_TARGETS)
	install -d $(I)/bin $(L)/pkgconfig $(I)/include $(I)/share/clconv/cl
	install -m 755 $(BIN) $(I)/bin/clconv
	install -m 644 $(LIB) $(L)/libclconv.a
	install -m 755 $(SHLIB) $(L)/
	ln -sf $(notdir $(SHLIB)) $(L)/$(SONAME)
	ln -sf $(SONAME) $(L)/libclconv.so
	install -m 644 $(PC) $(L)/pkgconfig/clconv.pc
	install -m 644 $(addprefix include/,$(HEADERS)) $(I)/include/
	install -m 644 $(addprefix cl/,$(KERNELS)) $(I)/share/clconv/cl/
	$(if $(MPI_TARGETS),install -m 755 $(MPI_BIN) $(I)/bin/clconv-mpi)
	$(if $(MPI_TARGETS),install -m 644 $(MPI_LIB) $(L)/libclconv_mpi.a)
uninstall:
	rm -f $(I)/bin/clconv $(I)/bin/clconv-mpi $(L)/libclconv_mpi.a \
	  $(L)/libclconv.a $(L)/$(notdir $(SHLIB)) \
	  $(L)/$(SONAME) $(L)/libclconv.so $(L)/pkgconfig/clconv.pc
	rm -f $(addprefix $(I)/include/,$(HEADERS) clconv_mpi.h)
	rm -f $(addprefix $(I)/share/clconv/cl/,$(KERNELS))
	-rmdir $(I)/share/clconv/cl $(I)/share/clconv 2>/dev/null

clean:
	rm -rf $(BUILD)

# ---- clconv apply: the sample image and `make demo` (issue 6) ----
# assets/sample.png is rendered by scripts/testpattern.c (`make sample`);
# `make demo` writes blurred and edge-detected versions of it to DEMO_OUT
# (`make demo DEMO_OUT=assets/demo` refreshes the README's pictures).
DEMO_OUT ?= $(BUILD)/demo
TESTPATTERN := $(BUILD)/testpattern
DEMO_MASKS := blur:gaussian:9 edges-x:sobel-x edges-y:sobel-y \
              laplacian:laplacian sharpen:sharpen emboss:emboss
.PHONY: demo sample
$(TESTPATTERN): scripts/testpattern.c $(LIB) $(FLAGS_STAMP)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS_CL)
sample: $(TESTPATTERN)
	$(TESTPATTERN) assets/sample.png
demo: $(BIN)
	$(Q)mkdir -p $(DEMO_OUT)
	$(Q)set -e; for m in $(DEMO_MASKS); do \
	  $(BIN) apply assets/sample.png $(DEMO_OUT)/$${m%%:*}.png \
	    --mask $${m#*:} --verify; done

.SECONDARY: $(TEST_OBJ) $(TEST_SUPPORT_OBJ) $(MPI_TEST_OBJ) \
  $(BUILD)/test/preload_mpi_fault.o
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(TEST_SUPPORT_OBJ:.o=.d)
-include $(MPI_LIB_OBJ:.o=.d) $(MPI_CLI_OBJ:.o=.d) $(MPI_TEST_OBJ:.o=.d) \
  $(BUILD)/test/preload_mpi_fault.d

# ---- bench (issue 3): `make bench` runs the default suite on every device
# and writes bench/results/latest.json, latest.csv and the PNGs (needs
# python3 with matplotlib for the pictures). The clconv version in the
# reports is `git describe` at build time.
BENCH_RESULTS ?= bench/results
BENCH_FLAGS ?=
PYTHON ?= python3
CLCONV_GIT_VERSION := $(shell git describe --always --dirty 2>/dev/null)
BENCH_VERSION_STAMP := $(BUILD)/.git-version
$(BENCH_VERSION_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(CLCONV_GIT_VERSION)' | cmp -s - $@ || echo '$(CLCONV_GIT_VERSION)' > $@
$(BUILD)/host/cli/bench.o: $(BENCH_VERSION_STAMP)
$(BUILD)/host/cli/bench.o: ALL_CFLAGS += -DCLCONV_GIT_VERSION='"$(CLCONV_GIT_VERSION)"'
.PHONY: bench
bench: $(BIN)
	@mkdir -p $(BENCH_RESULTS)
	$(BIN) bench --device all $(BENCH_FLAGS) --json $(BENCH_RESULTS)/latest.json \
	  --csv $(BENCH_RESULTS)/latest.csv
	$(PYTHON) bench/plot --out $(BENCH_RESULTS) $(BENCH_RESULTS)/latest.json

# ---- hardening (issue 7): Oclgrind, sanitizers, valgrind, fuzzing ----
# `make check-kernels`: every variant under the Oclgrind simulator, failing
# on any race, divergence, out-of-bounds or uninitialised access.
# `make sanitize`: the whole `make test` built with ASan + UBSan in
# SAN_BUILD (never in build/); TESTING.md explains SAN_ENV. Not
# test/python.sh: the package builds its own library, unsanitized, so
# there it would repeat make test's run.
# `make valgrind`: memcheck on `clconv run`, failing on clconv's errors.
# `make fuzz`: libFuzzer targets fuzz/fuzz_*.c built with clang in
# FUZZ_BUILD, each replaying fuzz/regress/<target>/ and then fuzzing for
# FUZZ_TIME seconds from fuzz/corpus/<target>/.
SAN_BUILD ?= build/asan
# test_matrix's sample under sanitize, test-oclgrind and test-intel
# (TESTING.md):
# pairwise runs a third (1D, 3D) or a quarter (2D) of the classic rows,
# every pair of mask, tile and size kind still among them, and every
# semantics case; MATRIX_SAMPLE= runs the whole matrix.
MATRIX_SAMPLE ?= pairwise
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
# intercept_tls_get_addr=0: GCC 12's runtime (Debian 12) mistakes a
# dynamic TLS block (PoCL's threads) for a pre-2.25 glibc header when its
# address falls on one offset in a page, and LeakSanitizer's exit-time
# tracer then dies ("Tracer caught signal 11": no leak found, the test
# failed); session 10's CI rehearsal met it once after test_matrix_dtype.
SAN_ENV := CLCONV_KERNEL_DIR=$(CURDIR)/cl \
  ASAN_OPTIONS=exitcode=86:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:intercept_tls_get_addr=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0
FUZZ_BUILD ?= build/fuzz
FUZZ_CC ?= clang
FUZZ_TIME ?= 30
FUZZ_TARGETS := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
.PHONY: check-kernels sanitize valgrind fuzz fuzz-build
check-kernels: $(BIN)
	scripts/check-kernels.sh $(BIN)
sanitize:
	$(SAN_ENV) CLCONV_MATRIX_SAMPLE=$(MATRIX_SAMPLE) \
	  $(MAKE) BUILD=$(SAN_BUILD) CFLAGS="-O1 -g $(SAN_FLAGS)" \
	  LDFLAGS="$(SAN_FLAGS)" TEST_SH_SKIP=test/python.sh test
valgrind: $(BIN)
	scripts/valgrind-run.sh $(BIN)
fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPENMP= \
	  CFLAGS="-O1 -g $(SAN_FLAGS) -fsanitize=fuzzer-no-link" fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)
# Built only through `make fuzz` (BUILD and CC set to the fuzz build).
fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
$(BUILD)/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(BUILD)/host/cli/cli_args.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(BUILD)/host/cli/cli_args.o $(LIB) $(LDFLAGS) $(LDLIBS_CL)
.SECONDARY: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%.o)

# ---- other OpenCL implementations (issue 14) ----
# `make test-intel`: the test matrix (thinned as test-oclgrind thins it:
# every variant, mode and pair of mask, tile and size; a cold cache there
# costs Intel's compiler over 20 minutes for the whole matrix) and the
# CLI tests with Intel's CPU runtime alone (scripts/intel-opencl.sh
# downloads it from PyPI once into INTEL_OPENCL_DIR and prints
# OCL_ICD_VENDORS and LD_LIBRARY_PATH).
# `make test-oclgrind`: `make test` with Oclgrind's simulator as the only
# device (OCLGRIND_ICD; a private vendors folder in BUILD): every cmocka
# test and the shell tests that exercise kernels, the OpenCL API and the
# implementation-neutral messages (bad_input, robust_cli). The ones of
# large data or host behaviour alone (output files, installs, bench's
# ceilings, chunked files, the default problems at full size) run on
# PoCL in `make test`; on the simulator each costs minutes (output_files
# over 5) and checks nothing new about the implementation.
INTEL_OPENCL_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/clconv/intel-opencl
OCLGRIND_ICD ?= /usr/lib/oclgrind/liboclgrind-rt-icd.so
SECOND_IMPL_SKIP := test/python.sh test/mpi.sh
OCLGRIND_SKIP := $(SECOND_IMPL_SKIP) test/install.sh test/output_files.sh \
  test/small_workgroups.sh test/bench_smoke.sh test/apply_large.sh
.PHONY: test-intel test-oclgrind test-oclgrind-paths
test-intel: $(BIN) $(TEST_BINS)
	$(Q)env=$$(scripts/intel-opencl.sh '$(INTEL_OPENCL_DIR)') || exit 1; \
	for v in $$env; do export "$$v"; done; set -e; \
	echo "== Intel: $$OCL_ICD_VENDORS"; $(BIN) devices; \
	export CLCONV_MATRIX_SAMPLE=$(MATRIX_SAMPLE); \
	$(call RUN_EACH,$(BUILD)/test_matrix $(BUILD)/test_matrix_dtype,); \
	$(call RUN_EACH,$(filter-out $(SECOND_IMPL_SKIP),$(TEST_SH)),$(BIN))
OCLGRIND_VENDORS = \
  test -f '$(OCLGRIND_ICD)' || { echo "no $(OCLGRIND_ICD): apt-get install oclgrind"; exit 1; }; \
  mkdir -p $(BUILD)/oclgrind-vendors; \
  echo '$(OCLGRIND_ICD)' > $(BUILD)/oclgrind-vendors/oclgrind.icd
test-oclgrind: $(BIN) $(TEST_BINS)
	$(Q)$(OCLGRIND_VENDORS)
	$(Q)OCL_ICD_VENDORS=$(abspath $(BUILD))/oclgrind-vendors \
	  CLCONV_MATRIX_SAMPLE=$(MATRIX_SAMPLE) $(MAKE) --no-print-directory \
	  TEST_SH_SKIP='$(OCLGRIND_SKIP)' IMPL_BINS_SKIP='$(BUILD)/test_failures' test
# test_paths alone on Oclgrind, thinned as test-oclgrind thins it (the
# longest program there: CI runs it as a step of its own beside the rest
# of test-oclgrind).
test-oclgrind-paths: $(BUILD)/test_paths
	$(Q)$(OCLGRIND_VENDORS)
	$(Q)set -e; export OCL_ICD_VENDORS=$(abspath $(BUILD))/oclgrind-vendors \
	  CLCONV_MATRIX_SAMPLE=$(MATRIX_SAMPLE); \
	$(call RUN_EACH,$(BUILD)/test_paths,)
