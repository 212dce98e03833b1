# The compsc CLI (tools/compsc/) and its tests (tests/tools/).
#
#   make tools          $(BUILD)/compsc
#   make tools-test     CLI tests on the committed samples, plain and ASan+UBSan
#   make tools-samples  regenerate tests/tools/samples/ with the library's writer

CLI_SRC    := $(wildcard tools/compsc/*.c)
CLI_HDRS   := $(wildcard tools/compsc/*.h) $(LIB_HDRS)
CLI_SAMPLES := tests/tools/samples

# `compsc devices` reads PCI config space with libpci (libpci-dev).
CLI_LIBS   := -lpci

# CPPFLAGS, CFLAGS and LDFLAGS are the packager's (debian/rules passes
# dpkg-buildflags' hardening flags); empty in a plain build.
$(BUILD)/compsc: $(CLI_SRC) $(CLI_HDRS) $(BUILD)/plain/libcompsc.a
	$(CC) $(LIB_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(CLI_SRC) $(BUILD)/plain/libcompsc.a \
		$(CLI_LIBS) $(LDFLAGS) -o $@
$(BUILD)/san/compsc: $(CLI_SRC) $(CLI_HDRS) $(BUILD)/san/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(SAN_CFLAGS) $(CLI_SRC) $(BUILD)/san/libcompsc.a $(CLI_LIBS) -o $@
$(BUILD)/tools/gen_samples: tests/tools/gen_samples.c $(LIB_HDRS) $(BUILD)/plain/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $< $(BUILD)/plain/libcompsc.a -o $@

tools: $(BUILD)/compsc
all: tools

tools-samples: $(BUILD)/tools/gen_samples
	$(BUILD)/tools/gen_samples $(CLI_SAMPLES)

# Each CLI build runs the whole script; the generator's output must match
# the committed samples (the library's writer still writes what we test).
tools-test: $(BUILD)/compsc $(BUILD)/san/compsc $(BUILD)/tools/gen_samples
	@tests/tools/run.sh $(BUILD)/tools/gen_samples $(CLI_SAMPLES) \
		$(BUILD)/compsc $(BUILD)/san/compsc
TEST_SUITES += tools-test
.PHONY: tools tools-test tools-samples
