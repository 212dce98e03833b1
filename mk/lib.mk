# libcompsc userspace build (static, and shared with its install), unit tests.
include libcompsc/sources.mk

LIB_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wvla \
	      -Ilibcompsc/include -D_GNU_SOURCE
SAN_CFLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all
LIB_NAMES  := $(COMPSC_SRCS) $(COMPSC_SELFTEST_SRCS)
LIB_SRC    := $(addprefix libcompsc/src/,$(addsuffix .c,$(LIB_NAMES)))
LIB_HDRS   := $(wildcard libcompsc/include/compsc/*.h libcompsc/src/*.h)

# $(1) = variant name, $(2) = extra CFLAGS
define lib_variant
$(BUILD)/$(1)/obj/%.o: libcompsc/src/%.c $(LIB_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(LIB_CFLAGS) $(2) -c $$< -o $$@
$(BUILD)/$(1)/obj/user/%.o: libcompsc/user/%.c $(LIB_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(LIB_CFLAGS) $(2) -c $$< -o $$@
$(BUILD)/$(1)/libcompsc.a: $(patsubst %,$(BUILD)/$(1)/obj/%.o,$(LIB_NAMES)) \
			   $(patsubst %,$(BUILD)/$(1)/obj/user/%.o,$(COMPSC_USER_SRCS))
	rm -f $$@ && ar rcs $$@ $$^
endef
$(eval $(call lib_variant,plain,))
# The shared library's objects take the packager's CPPFLAGS and CFLAGS
# (debian/rules passes dpkg-buildflags' hardening flags; empty otherwise).
$(eval $(call lib_variant,pic,-fPIC $(CPPFLAGS) $(CFLAGS)))
$(eval $(call lib_variant,san,$(SAN_CFLAGS)))

# --- the shared library: soname, version script, install -------------------
# libcompsc.so.$(LIBCOMPSC_VERSION), soname libcompsc.so.$(LIBCOMPSC_MAJOR).
# The version script exports compsc.h's functions and hides the rest, so
# that only the documented API becomes ABI; the static libraries keep every
# symbol for what the tree links itself (tools, tests, fuzzers).
LIBCOMPSC_MAJOR   := 0
LIBCOMPSC_VERSION := 0.1.0
LIBCOMPSC_SONAME  := libcompsc.so.$(LIBCOMPSC_MAJOR)
LIBCOMPSC_SO      := $(BUILD)/libcompsc.so.$(LIBCOMPSC_VERSION)
LIBCOMPSC_MAP     := libcompsc/libcompsc.map
# compsc.h and what it includes; kernel.h, vf.h, host.h and the others
# are the kernel's or the tree's own, not the library's interface.
LIB_PUBLIC_HDRS   := $(addprefix libcompsc/include/compsc/,compsc.h abi.h os.h)
LIB_MANS          := $(wildcard libcompsc/man/*.3 libcompsc/man/*.7)

$(LIBCOMPSC_SO): $(BUILD)/pic/libcompsc.a $(LIBCOMPSC_MAP)
	$(CC) -shared -o $@ -Wl,-soname,$(LIBCOMPSC_SONAME) \
		-Wl,--version-script=$(LIBCOMPSC_MAP) -Wl,--no-undefined \
		-Wl,--whole-archive $< -Wl,--no-whole-archive $(LDFLAGS)
$(BUILD)/$(LIBCOMPSC_SONAME): $(LIBCOMPSC_SO)
	ln -sf $(notdir $<) $@
$(BUILD)/libcompsc.so: $(BUILD)/$(LIBCOMPSC_SONAME)
	ln -sf $(notdir $<) $@

lib: $(BUILD)/plain/libcompsc.a $(BUILD)/libcompsc.so
all: lib
.PHONY: lib

# make install-lib [DESTDIR=...] [PREFIX=/usr/local] [LIBDIR=$(PREFIX)/lib]
# [INCLUDEDIR=$(PREFIX)/include] [MANDIR=$(PREFIX)/share/man]
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man

# $(call lib_install,DESTDIR,PREFIX,LIBDIR,INCLUDEDIR,MANDIR): the shared
# and static libraries, the public headers, libcompsc.pc and the man pages.
define lib_install
install -d $(1)$(3)/pkgconfig $(1)$(4)/compsc $(1)$(5)/man3 $(1)$(5)/man7
install -m 0644 $(LIBCOMPSC_SO) $(BUILD)/plain/libcompsc.a $(1)$(3)/
ln -sf $(notdir $(LIBCOMPSC_SO)) $(1)$(3)/$(LIBCOMPSC_SONAME)
ln -sf $(LIBCOMPSC_SONAME) $(1)$(3)/libcompsc.so
install -m 0644 $(LIB_PUBLIC_HDRS) $(1)$(4)/compsc/
sed -e 's|@prefix@|$(2)|; s|@libdir@|$(3)|; s|@includedir@|$(4)|' \
    -e 's|@version@|$(LIBCOMPSC_VERSION)|' libcompsc/libcompsc.pc.in \
    > $(1)$(3)/pkgconfig/libcompsc.pc
install -m 0644 $(filter %.3,$(LIB_MANS)) $(1)$(5)/man3/
install -m 0644 $(filter %.7,$(LIB_MANS)) $(1)$(5)/man7/
endef

install-lib: lib
	$(call lib_install,$(DESTDIR),$(PREFIX),$(LIBDIR),$(INCLUDEDIR),$(MANDIR))
.PHONY: install-lib

# The library as its users see it: compsc.h, the version script, the
# exported symbols and the man pages agree; a program built with
# `pkg-config --cflags --libs libcompsc` against a DESTDIR install links
# libcompsc.so.$(LIBCOMPSC_MAJOR) and runs. Part of `make unit`.
LIB_TEST        := $(BUILD)/lib-test
LIB_TEST_LIBDIR := /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)
lib-test: lib
	$(PYTHON) tests/lib/check_api.py --header libcompsc/include/compsc/compsc.h \
		--map $(LIBCOMPSC_MAP) --man libcompsc/man --lib $(LIBCOMPSC_SO)
	rm -rf $(LIB_TEST)/root
	$(call lib_install,$(LIB_TEST)/root,/usr,$(LIB_TEST_LIBDIR),/usr/include,/usr/share/man)
	tests/lib/pkgconfig_consumer.sh $(LIB_TEST)/root $(LIB_TEST_LIBDIR) \
		$(LIBCOMPSC_SONAME) $(LIBCOMPSC_VERSION) $(LIB_TEST)/consumer
.PHONY: lib-test

# --- unit tests: one program per behaviour, run plain and sanitized -------
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_NAME := $(basename $(notdir $(UNIT_SRC)))
UNIT_LIBS := -lpthread

$(BUILD)/plain/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h tests/common/*.h) $(BUILD)/plain/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -Itests/unit $< $(BUILD)/plain/libcompsc.a $(UNIT_LIBS) -o $@
$(BUILD)/san/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h tests/common/*.h) $(BUILD)/san/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(SAN_CFLAGS) -Itests/unit $< $(BUILD)/san/libcompsc.a $(UNIT_LIBS) -o $@

UNIT_BINS := $(addprefix $(BUILD)/plain/unit/,$(UNIT_NAME)) \
	     $(addprefix $(BUILD)/san/unit/,$(UNIT_NAME))

# `all` first: every buildable program (tools, benchmarks) must still build.
unit: all $(UNIT_BINS) lib-test
	@tests/unit/run.sh $(UNIT_BINS)
TEST_SUITES += unit
.PHONY: unit
