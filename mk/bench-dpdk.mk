# make bench-dpdk: testpmd on the CompSC igb VF PMD migrated by the
# stand-in against the same application under DPDK's documented method
# (active-backup bond over the VF and an af_packet backup, the VF detached
# for the move) and against the kernel CompSC igbvf, plus the PMD's
# packet rate with the read side on and off; one VM run
# (tools/compsc-dpdkbench). A benchmark: it prints ratios, it never fails
# on a target. Not part of `make test`. BENCH_DPDK_N moves per mode.
BENCH_DPDK_N    ?= 5
BENCH_DPDK_ARGS ?= --rate 1000 --blackout-ms 100

.PHONY: bench-dpdk
bench-dpdk: initramfs
	@mkdir -p $(BUILD)/bench
	$(BENCH_ENV) $(SCHEMA_PYTHON) tools/compsc-dpdkbench --migrations $(BENCH_DPDK_N) \
		$(BENCH_DPDK_ARGS) --json $(BUILD)/bench/bench-dpdk.json
