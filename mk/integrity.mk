# make check-integrity: does every received byte survive a migration
# (issue #12)? A patterned UDP stream from the host peer, every 8-byte word
# checked in the guest by `compsc integrity recv`, in three configurations:
#   bench   the bench VM's test_migrate_integrity: 20 stand-in migrations
#           (half told that guest memory moved); also in vm-test
#   nested  tests/nested/test_migrate_integrity: INTEGRITY_MIGRATIONS QEMU
#           migrations of an L2 (VF0 -> VF1 -> ...) with DMA logging on,
#           then as many attempts with it off, each refused while the
#           stream stays intact on the source; in nested-test with 4
# One line per configuration, then their sum:
#   integrity: migrations=N blocks=B corrupt=0 stale=0 dup=0
# (mk/nested.mk adds the nested suite's modules to the prerequisites.)
INTEGRITY_MIGRATIONS ?= 20
# 20 + 20 nested attempts take far longer than one nested-test file may
INTEGRITY_TIMEOUT    ?= 10800
INTEGRITY_LOG        := $(BUILD)/check-integrity
.PHONY: check-integrity
check-integrity: initramfs $(BENCH_WARN_KO)
	@cd $(BENCH) && $(BENCH_ENV) $(PYTHON) -m pytest \
		-p no:cacheprovider -v -s $(PYTEST_TIMEOUT) test_migrate_integrity.py \
		> $(INTEGRITY_LOG).log 2>&1 || \
		{ tail -40 $(INTEGRITY_LOG).log; exit 1; }
	@grep -o 'integrity: migrations=.*' $(INTEGRITY_LOG).log | sed 's/^/bench: /'
	@cd $(NESTED) && $(NESTED_ENV) COMPSC_INTEGRITY_MIGRATIONS=$(INTEGRITY_MIGRATIONS) \
		$(NESTED_PY) -m pytest -p no:cacheprovider -v -s \
		$(if $(NESTED_TIMEOUT_OPT),--timeout=$(INTEGRITY_TIMEOUT)) test_migrate_integrity.py \
		> $(INTEGRITY_LOG)-nested.log 2>&1 || \
		{ tail -40 $(INTEGRITY_LOG)-nested.log; exit 1; }
	@grep -o 'nested dma_log=.*integrity: migrations=.*' $(INTEGRITY_LOG)-nested.log
	@grep -ho 'integrity: migrations=.*' $(INTEGRITY_LOG).log $(INTEGRITY_LOG)-nested.log | \
		awk '{ for (i = 2; i <= NF; i++) { split($$i, kv, "="); t[kv[1]] += kv[2] } } \
		END { printf "integrity: migrations=%d blocks=%d corrupt=%d stale=%d dup=%d\n", \
		      t["migrations"], t["blocks"], t["corrupt"], t["stale"], t["dup"] }'
