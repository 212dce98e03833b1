# libcompsc userspace build, unit tests, fuzz smoke, lock benchmark.
include libcompsc/sources.mk

LIB_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wvla \
	      -Ilibcompsc/include -D_GNU_SOURCE
SAN_CFLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all
LIB_SRC    := $(addprefix libcompsc/src/,$(addsuffix .c,$(COMPSC_SRCS)))
LIB_HDRS   := $(wildcard libcompsc/include/compsc/*.h libcompsc/src/*.h)

# $(1) = variant name, $(2) = extra CFLAGS
define lib_variant
$(BUILD)/$(1)/obj/%.o: libcompsc/src/%.c $(LIB_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(LIB_CFLAGS) $(2) -c $$< -o $$@
$(BUILD)/$(1)/obj/user/%.o: libcompsc/user/%.c $(LIB_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(LIB_CFLAGS) $(2) -c $$< -o $$@
$(BUILD)/$(1)/libcompsc.a: $(patsubst %,$(BUILD)/$(1)/obj/%.o,$(COMPSC_SRCS)) \
			   $(patsubst %,$(BUILD)/$(1)/obj/user/%.o,$(COMPSC_USER_SRCS))
	rm -f $$@ && ar rcs $$@ $$^
endef
$(eval $(call lib_variant,plain,))
$(eval $(call lib_variant,pic,-fPIC))
$(eval $(call lib_variant,san,$(SAN_CFLAGS)))

$(BUILD)/libcompsc.so: $(BUILD)/pic/libcompsc.a
	$(CC) -shared -o $@ -Wl,--whole-archive $< -Wl,--no-whole-archive

lib: $(BUILD)/plain/libcompsc.a $(BUILD)/libcompsc.so
all: lib
.PHONY: lib

# --- unit tests: one program per behaviour, run plain and sanitized -------
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_NAME := $(basename $(notdir $(UNIT_SRC)))
UNIT_LIBS := -lpthread

$(BUILD)/plain/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/plain/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -Itests/unit $< $(BUILD)/plain/libcompsc.a $(UNIT_LIBS) -o $@
$(BUILD)/san/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/san/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(SAN_CFLAGS) -Itests/unit $< $(BUILD)/san/libcompsc.a $(UNIT_LIBS) -o $@

UNIT_BINS := $(addprefix $(BUILD)/plain/unit/,$(UNIT_NAME)) \
	     $(addprefix $(BUILD)/san/unit/,$(UNIT_NAME))

# `all` first: every buildable program (tools, benchmarks) must still build.
unit: all $(UNIT_BINS)
	@tests/unit/run.sh $(UNIT_BINS)
TEST_SUITES += unit
.PHONY: unit
