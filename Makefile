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
              -Iinclude -Ihost -DCLCONV_PREFIX='"$(PREFIX)"' $(CFLAGS)
LDLIBS_CL := -lOpenCL -lm $(OPENMP)
CMOCKA_CFLAGS ?=
CMOCKA_LIBS ?= -lcmocka

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC := $(filter-out host/main.c host/cli%.c,$(wildcard host/*.c))
CLI_SRC := host/main.c $(wildcard host/cli*.c)
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
BIN := $(BUILD)/clconv
DEPS_OK := $(BUILD)/.deps-ok
FLAGS_STAMP := $(BUILD)/.cflags

.PHONY: all test run install clean deps
all: $(BIN) $(LIB)

# Install the Debian/Ubuntu packages when the headers, loader or cmocka are
# missing (scripts/deps.sh says what it does).
$(DEPS_OK): scripts/deps.sh
	$(Q)mkdir -p $(BUILD)
	$(Q)scripts/deps.sh --if-missing
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

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDFLAGS) $(LDLIBS_CL)

$(BUILD)/test_%: $(BUILD)/test/test_%.o $(TEST_SUPPORT_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIB) $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS_CL)

# Every variant on every device on the default problems, side by side.
run: $(BIN)
	$(BIN) run

# Every cmocka program, then every shell test; stops at the first failure.
test: $(BIN) $(TEST_BINS)
	$(Q)set -e; for t in $(TEST_BINS); do echo "== $$t"; $$t; done; \
	for t in $(TEST_SH); do echo "== $$t"; $$t $(BIN); done

install: $(BIN) $(LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/clconv/cl
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/clconv
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libclconv.a
	install -m 644 include/clconv.h $(DESTDIR)$(PREFIX)/include/clconv.h
	install -m 644 cl/*.cl cl/*.clh $(DESTDIR)$(PREFIX)/share/clconv/cl/

clean:
	rm -rf $(BUILD)

.SECONDARY: $(TEST_OBJ) $(TEST_SUPPORT_OBJ)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(TEST_SUPPORT_OBJ:.o=.d)
