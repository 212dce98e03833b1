# make bench-migrate: CompSC restore vs a stock igbvf reload, loss, dup and
# state bytes, all in one VM run (tools/compsc-bench). A benchmark: it
# prints ratios, it never fails on a target. NIC=82599: the project's ixgbe
# and ixgbevf on the project's 82599 model (mk/qemu.mk) instead of igb.
NIC ?= igb
BENCH_MIGRATE_ARGS ?= --migrations 5 --rate 1000 --blackout-ms 100

.PHONY: bench-migrate
bench-migrate: initramfs $(if $(filter 82599,$(NIC)),qemu)
	@mkdir -p $(BUILD)/bench
	$(BENCH_ENV) $(PYTHON) tools/compsc-bench --nic $(NIC) $(BENCH_MIGRATE_ARGS) \
		--json $(BUILD)/bench/bench-migrate$(if $(filter-out igb,$(NIC)),-$(NIC)).json --line
