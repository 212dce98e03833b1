# make soak (issue 16): SOAK_MIGRATIONS stand-in migrations on the one-VM
# bench booted on the debug kernel (mk/debugkernel.mk), under ping, an
# iperf3 TCP stream and a checked UDP stream, with short and long
# blackouts and MTU/VLAN/multicast changes mixed in; then SOAK_NESTED
# QEMU migrations back and forth on the nested bench, on the debug L1 and
# L2 kernels (mk/nesteddebug.mk) when SOAK_NESTED_DEBUG=1: by default
# when both are built already (`make nested-debug-kernels`, ~30-40 min on
# 2 cores, once), else on Debian's L1 and the small L2, and the soak says
# which; kmemleak scans L1 there, and the last L2 only with
# SOAK_L2_KMEMLEAK=1 (slow: not finished after 7 min in the first run).
# Ends with
#   soak: migrations=N problems=P leaks=K counters_exact=yes|no
# and exits non-zero unless P = 0, K = 0 and the counters are exact.
# Not part of `make test`. Reports: $(SOAK_OUT)/{bench,nested}.json, logs
# next to them. Run it under the VM lock like every VM job.
SOAK_MIGRATIONS ?= 1000
SOAK_NESTED     ?= 50
SOAK_L2_KMEMLEAK ?= 0
export SOAK_L2_KMEMLEAK
SOAK_NESTED_DEBUG ?= $(if $(and $(wildcard $(L1DK_STAMP)),$(wildcard $(L2DK_DIR)/.built)),1,0)
SOAK_OUT        := $(BUILD)/soak
SOAK            := $(TOP)/tests/soak/soak.py
# the nested half's make: its own tree and environment on the debug kernels
SOAK_NESTED_MAKE = $(if $(filter 1,$(SOAK_NESTED_DEBUG)),$(NDBG_ENV)) $(MAKE) \
	--no-print-directory soak-nested SOAK_OUT=$(SOAK_OUT) \
	$(if $(filter 1,$(SOAK_NESTED_DEBUG)),$(NDBG_VARS))

.PHONY: soak soak-nested
soak: debug-initramfs $(if $(filter 1,$(SOAK_NESTED_DEBUG)),nested-debug-kernels)
	@mkdir -p $(SOAK_OUT)
	@rm -f $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json
	@echo "soak: bench, $(SOAK_MIGRATIONS) migrations on the debug kernel (log: $(SOAK_OUT)/bench.log)"
	-@COMPSC_DEBUG_KERNEL=1 COMPSC_BUILD=$(DBGK_BUILD) COMPSC_VMLINUZ=$(DBGK_BUILD)/vm/vmlinuz \
		COMPSC_INITRD=$(DBGK_BUILD)/vm/initrd.img PYTHONDONTWRITEBYTECODE=1 \
		$(PYTHON) $(SOAK) bench --migrations $(SOAK_MIGRATIONS) \
		--out $(SOAK_OUT)/bench.json > $(SOAK_OUT)/bench.log 2>&1; tail -12 $(SOAK_OUT)/bench.log
	-@$(SOAK_NESTED_MAKE)
	@$(PYTHON) $(SOAK) summary $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json

# The nested half alone (make soak runs it, with NDBG_VARS on the debug
# kernels): its report is $(SOAK_OUT)/nested.json.
soak-nested: initramfs l2-kmods $(VFIO_KO) $(VFIO_CORE_KO)
	@mkdir -p $(SOAK_OUT)
	@echo "soak: nested, $(SOAK_NESTED) migrations (log: $(SOAK_OUT)/nested.log)"
	-@$(NESTED_ENV) $(PYTHON) $(SOAK) nested --migrations $(SOAK_NESTED) \
		--out $(SOAK_OUT)/nested.json > $(SOAK_OUT)/nested.log 2>&1; tail -5 $(SOAK_OUT)/nested.log
