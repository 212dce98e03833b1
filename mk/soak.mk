# make soak: SOAK_MIGRATIONS stand-in migrations on the one-VM
# bench booted on the debug kernel (mk/debugkernel.mk), under ping, an
# iperf3 TCP stream and a checked UDP stream, with short and long
# blackouts and MTU/VLAN/multicast changes mixed in; then SOAK_NESTED
# QEMU migrations back and forth on the nested bench, on the debug kernels
# of mk/nesteddebug.mk as SOAK_NESTED_DEBUG says (below), and the soak
# says which; kmemleak scans L1 there, and a debug L2 only with
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
# SOAK_NESTED_DEBUG: l1 = the debug L1 with the small L2 (the default once
# the debug L1 is built), 1 = the debug L1 and the debug L2, 0 = Debian's
# L1 and the small L2. The debug L2 needs ~90 s after each switch-over
# before its userspace runs again (see SOAK_L2_SETTLE in soak.py), so 50
# migrations there take about 1.5 h against about 0.5 h with the small L2.
SOAK_NESTED_DEBUG ?= $(if $(wildcard $(L1DK_STAMP)),l1,0)
SOAK_OUT        := $(BUILD)/soak
SOAK            := $(TOP)/tests/soak/soak.py
# soak.py's imports: the harness package and, for the nested half, nested.py
SOAK_PYTHONPATH := PYTHONPATH=$(HARNESS_PATH):$(TOP)/tests/nested
# the nested half's make: its own tree and environment on the debug kernels
# (the debug L1 with the small L2 in a tree of its own: the L2 modules of
# $(NDBG_BUILD) are built for the debug L2)
SOAK_NDBG_VARS_1  = $(NDBG_VARS) SOAK_L2_DEBUG=1
SOAK_NDBG_VARS_l1 = $(filter-out BUILD=% L2K_DIR=% L2K_CONFIG=%,$(NDBG_VARS)) \
		    BUILD=$(NDBG_BUILD)-l1 SOAK_L2_DEBUG=0
SOAK_NESTED_MAKE = $(if $(filter 1 l1,$(SOAK_NESTED_DEBUG)),$(NDBG_ENV)) $(MAKE) \
	--no-print-directory soak-nested SOAK_OUT=$(SOAK_OUT) \
	$(SOAK_NDBG_VARS_$(SOAK_NESTED_DEBUG))
SOAK_L2_DEBUG ?= 0
export SOAK_L2_DEBUG

.PHONY: soak soak-nested
soak: debug-initramfs $(if $(filter 1,$(SOAK_NESTED_DEBUG)),nested-debug-kernels) \
	$(if $(filter l1,$(SOAK_NESTED_DEBUG)),l1kernel-debug)
	@mkdir -p $(SOAK_OUT)
	@rm -f $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json
	@echo "soak: bench, $(SOAK_MIGRATIONS) migrations on the debug kernel (log: $(SOAK_OUT)/bench.log)"
	-@COMPSC_DEBUG_KERNEL=1 COMPSC_BUILD=$(DBGK_BUILD) COMPSC_VMLINUZ=$(DBGK_BUILD)/vm/vmlinuz \
		COMPSC_INITRD=$(DBGK_BUILD)/vm/initrd.img PYTHONDONTWRITEBYTECODE=1 $(SOAK_PYTHONPATH) \
		$(PYTHON) $(SOAK) bench --migrations $(SOAK_MIGRATIONS) \
		--out $(SOAK_OUT)/bench.json > $(SOAK_OUT)/bench.log 2>&1; tail -12 $(SOAK_OUT)/bench.log
	-@$(SOAK_NESTED_MAKE)
	@$(SOAK_PYTHONPATH) $(PYTHON) $(SOAK) summary $(SOAK_OUT)/bench.json $(SOAK_OUT)/nested.json

# The nested half alone (make soak runs it, with NDBG_VARS on the debug
# kernels): its report is $(SOAK_OUT)/nested.json.
soak-nested: initramfs l2-kmods $(VFIO_KO) $(VFIO_CORE_KO)
	@mkdir -p $(SOAK_OUT)
	@echo "soak: nested, $(SOAK_NESTED) migrations (log: $(SOAK_OUT)/nested.log)"
	-@$(NESTED_ENV) $(PYTHON) $(SOAK) nested --migrations $(SOAK_NESTED) \
		--out $(SOAK_OUT)/nested.json > $(SOAK_OUT)/nested.log 2>&1; tail -5 $(SOAK_OUT)/nested.log
