# make bench-lock: read-side cost of the CompSC lock vs pthread_rwlock,
# 1 and 2 threads, ratios measured in one run (a benchmark, never a test).
$(BUILD)/bench/bench_lock: tests/bench/bench_lock.c $(LIB_HDRS) $(BUILD)/plain/libcompsc.a
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $< $(BUILD)/plain/libcompsc.a -lpthread -o $@

bench-lock: $(BUILD)/bench/bench_lock
	@$<
.PHONY: bench-lock
# Built by `make` (and so by `make test`) so the benchmark never rots.
all: $(BUILD)/bench/bench_lock
