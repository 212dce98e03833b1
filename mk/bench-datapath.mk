# make bench-datapath: what the CompSC read side costs a running guest. The
# patched igbvf (area registered, no migration) against igbvf built from
# Debian's source with no patch, TCP and small-packet UDP from the peer, in
# one VM run with the modes alternating (tools/compsc-datapath). A
# benchmark: it prints ratios, it never fails on a target.
BENCH_DATAPATH_ARGS ?=

.PHONY: bench-datapath
bench-datapath: initramfs
	@mkdir -p $(BUILD)/bench
	$(BENCH_ENV) $(PYTHON) tools/compsc-datapath $(BENCH_DATAPATH_ARGS) \
		--json $(BUILD)/bench/bench-datapath.json
