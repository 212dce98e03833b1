# Fuzzing (tests/fuzz/): one property per target.
#
#   make fuzz-smoke    build every target with gcc + ASan/UBSan against the
#                      standalone driver and replay the committed corpus; if
#                      clang's libFuzzer works, also fuzz each target for
#                      FUZZ_TIME seconds (seed FUZZ_SEED, printed) on a copy
#                      of the corpus
#   make fuzz-corpus   regenerate the committed seed corpus with the library
#
# Needs from mk/lib.mk: LIB_CFLAGS, SAN_CFLAGS, LIB_SRC, LIB_HDRS, the
# $(BUILD)/san and $(BUILD)/plain archives.

FUZZ_DIR     := tests/fuzz
FUZZ_TARGETS := fuzz_stream_parse fuzz_stream_truncate fuzz_stream_bitflip \
		fuzz_area_validate fuzz_host_area fuzz_replay_unpack \
		fuzz_mbx_decode fuzz_pf_ext
FUZZ_HDRS    := $(wildcard $(FUZZ_DIR)/*.h tests/common/*.h)
FUZZ_TIME    ?= 20
FUZZ_SEED    ?=
ifeq ($(FUZZ_SEED),)
FUZZ_SEED    := $(shell date +%s)	# fixed once per make run
endif
CLANG        ?= clang
FUZZ_OUT     := $(BUILD)/fuzz

# --- replay without clang: standalone driver, gcc, ASan + UBSan ----------
$(FUZZ_OUT)/standalone/%: $(FUZZ_DIR)/%.c $(FUZZ_DIR)/standalone.c \
			  $(FUZZ_HDRS) $(BUILD)/san/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(SAN_CFLAGS) -I$(FUZZ_DIR) $< \
		$(FUZZ_DIR)/standalone.c $(BUILD)/san/libcompsc.a -o $@

FUZZ_STANDALONE := $(addprefix $(FUZZ_OUT)/standalone/,$(FUZZ_TARGETS))

# --- libFuzzer: the library itself is instrumented too (coverage) --------
FUZZ_LF_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Wshadow -Wvla \
		  -Ilibcompsc/include -D_GNU_SOURCE -fno-omit-frame-pointer \
		  -fno-sanitize-recover=all
FUZZ_LF_OBJS   := $(patsubst libcompsc/src/%.c,$(FUZZ_OUT)/lf/obj/%.o,$(LIB_SRC))

$(FUZZ_OUT)/lf/obj/%.o: libcompsc/src/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_LF_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
		-c $< -o $@
$(FUZZ_OUT)/lf/libcompsc.a: $(FUZZ_LF_OBJS)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_OUT)/lf/%: $(FUZZ_DIR)/%.c $(FUZZ_HDRS) $(FUZZ_OUT)/lf/libcompsc.a
	$(CLANG) $(FUZZ_LF_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-I$(FUZZ_DIR) $< $(FUZZ_OUT)/lf/libcompsc.a -o $@

FUZZ_LF := $(addprefix $(FUZZ_OUT)/lf/,$(FUZZ_TARGETS))

# Does this clang link a libFuzzer program? (clang without compiler-rt does not)
FUZZ_HAVE_LF = $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	$(CLANG) -x c - -fsanitize=fuzzer -o /dev/null >/dev/null 2>&1 && echo yes)

fuzz-replay: $(FUZZ_STANDALONE)
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_OUT)/standalone/$$t $(FUZZ_DIR)/corpus/$$t || exit 1; \
	done

# Each run fuzzes a fresh copy of the committed corpus; crashes land in
# $(FUZZ_OUT)/artifacts. The libFuzzer log is kept; its summary is printed.
fuzz-libfuzzer: $(FUZZ_LF)
	@echo "fuzz-smoke: libFuzzer, $(FUZZ_TIME)s per target, -seed=$(FUZZ_SEED)"
	@mkdir -p $(FUZZ_OUT)/artifacts $(FUZZ_OUT)/logs
	@for t in $(FUZZ_TARGETS); do \
		rm -rf $(FUZZ_OUT)/run/$$t && mkdir -p $(FUZZ_OUT)/run && \
		cp -r $(FUZZ_DIR)/corpus/$$t $(FUZZ_OUT)/run/$$t && \
		log=$(FUZZ_OUT)/logs/$$t.log; \
		if ! $(FUZZ_OUT)/lf/$$t -seed=$(FUZZ_SEED) \
			-max_total_time=$(FUZZ_TIME) -max_len=8192 -timeout=10 \
			-print_final_stats=1 \
			-artifact_prefix=$(FUZZ_OUT)/artifacts/$$t- \
			$(FUZZ_OUT)/run/$$t >$$log 2>&1; then \
			tail -40 $$log; \
			echo "fuzz-smoke: $$t FAILED (seed $(FUZZ_SEED), log $$log)"; \
			exit 1; \
		fi; \
		runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
		secs=$$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' $$log); \
		cov=$$(grep -o 'cov: [0-9]*' $$log | tail -1); \
		echo "fuzz-smoke: $$t: $$runs execs in $${secs}s, $$cov, seed $(FUZZ_SEED)"; \
	done

fuzz-smoke: fuzz-replay
	@if [ "$(FUZZ_HAVE_LF)" = yes ]; then \
		$(MAKE) --no-print-directory fuzz-libfuzzer FUZZ_SEED=$(FUZZ_SEED); \
	else \
		echo "fuzz-smoke: no clang with libFuzzer; corpus replay only"; \
	fi
	@echo "fuzz-smoke: passed"

$(FUZZ_OUT)/gen_corpus: $(FUZZ_DIR)/gen_corpus.c $(FUZZ_HDRS) \
			$(BUILD)/plain/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -I$(FUZZ_DIR) $< $(BUILD)/plain/libcompsc.a -o $@

fuzz-corpus: $(FUZZ_OUT)/gen_corpus
	mkdir -p $(addprefix $(FUZZ_DIR)/corpus/,$(FUZZ_TARGETS))
	$< $(FUZZ_DIR)/corpus

TEST_SUITES += fuzz-smoke
.PHONY: fuzz-smoke fuzz-replay fuzz-libfuzzer fuzz-corpus
