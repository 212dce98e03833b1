# make bench-migrate: CompSC restore vs a stock igbvf reload, loss, dup and
# state bytes, all in one VM run (tools/compsc-bench). A benchmark: it
# prints ratios, it never fails on a target.
BENCH_MIGRATE_ARGS ?= --migrations 5 --rate 1000 --blackout-ms 100

.PHONY: bench-migrate
bench-migrate: initramfs
	@mkdir -p $(BUILD)/bench
	$(BENCH_ENV) $(PYTHON) tools/compsc-bench $(BENCH_MIGRATE_ARGS) \
		--json $(BUILD)/bench/bench-migrate.json --line
