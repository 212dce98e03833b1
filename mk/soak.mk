# make soak (issue 16): SOAK_MIGRATIONS stand-in migrations on the one-VM
# bench booted on the debug kernel (mk/debugkernel.mk), under ping, an
# iperf3 TCP stream and a checked UDP stream, with short and long
# blackouts and MTU/VLAN/multicast changes mixed in; then SOAK_NESTED
# QEMU migrations back and forth on the nested bench (Debian's L1, the
# small L2 kernel: no debug flavour of those yet). Ends with
#   soak: migrations=N problems=P leaks=K counters_exact=yes|no
# and exits non-zero unless P = 0, K = 0 and the counters are exact.
# Not part of `make test`. Reports: $(SOAK_OUT)/{bench,nested}.json, logs
# next to them. Run it under the VM lock like every VM job.
SOAK_MIGRATIONS ?= 1000
SOAK_NESTED     ?= 50
SOAK_OUT        := $(BUILD)/soak
SOAK            := $(TOP)/tests/soak/soak.py

.PHONY: soak
soak: debug-initramfs initramfs l2-kmods $(VFIO_KO) $(VFIO_CORE_KO)
	@mkdir -p $(SOAK_OUT)
	@rm -f $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json
	@echo "soak: bench, $(SOAK_MIGRATIONS) migrations on the debug kernel (log: $(SOAK_OUT)/bench.log)"
	-@COMPSC_DEBUG_KERNEL=1 COMPSC_BUILD=$(DBGK_BUILD) COMPSC_VMLINUZ=$(DBGK_BUILD)/vm/vmlinuz \
		COMPSC_INITRD=$(DBGK_BUILD)/vm/initrd.img PYTHONDONTWRITEBYTECODE=1 \
		$(PYTHON) $(SOAK) bench --migrations $(SOAK_MIGRATIONS) \
		--out $(SOAK_OUT)/bench.json > $(SOAK_OUT)/bench.log 2>&1; tail -12 $(SOAK_OUT)/bench.log
	@echo "soak: nested, $(SOAK_NESTED) migrations (log: $(SOAK_OUT)/nested.log)"
	-@$(NESTED_ENV) $(PYTHON) $(SOAK) nested --migrations $(SOAK_NESTED) \
		--out $(SOAK_OUT)/nested.json > $(SOAK_OUT)/nested.log 2>&1; tail -5 $(SOAK_OUT)/nested.log
	@$(PYTHON) $(SOAK) summary $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json
