# make check-integrity: does every received byte survive a migration
# (issue #12)? The bench VM's test_migrate_integrity: 20 stand-in
# migrations (half told that guest memory moved) under a patterned UDP
# stream from the peer, every word checked in the guest by
# `compsc integrity recv`. Part of vm-test too; this target runs it alone
# and ends with its line:
#   integrity: migrations=N blocks=B corrupt=0 stale=0 dup=0
.PHONY: check-integrity
check-integrity: initramfs $(BENCH_WARN_KO)
	@cd $(BENCH) && $(BENCH_ENV) $(PYTHON) -m pytest \
		-p no:cacheprovider -v -s $(PYTEST_TIMEOUT) test_migrate_integrity.py \
		> $(BUILD)/check-integrity.log 2>&1 || \
		{ tail -40 $(BUILD)/check-integrity.log; exit 1; }; \
	grep -o 'integrity: migrations=.*' $(BUILD)/check-integrity.log
