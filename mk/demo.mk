# make demo: the main job. One command on a fresh Debian 12 machine (root):
# installs what is missing (.ci/install-deps.sh), builds the bench VM image
# (the first run downloads Debian's kernel packages into ~/.cache/compsc),
# then tools/compsc-bench migrates VF 0 the CompSC way and reloads stock
# igbvf (the baseline) under ping + TCP traffic from the peer, with a live
# status line, a table at the end and a results folder:
#   $(BUILD)/demo/<timestamp>/  report.json, throughput.png, gaps.png,
#                               compsc-last.stream (+ decoded JSON)
#   $(BUILD)/demo/latest        -> the newest run
# DEMO_ARGS changes the run (see tools/compsc-bench --help).
#
# make bench-schema (in `make test`): a real compsc-bench report committed
# under tests/tools/samples/ validates against tools/compsc-bench.schema.json.

DEMO_ARGS ?= --migrations 10 --traffic both --rate 1000 --tcp-rate 20M --interval 0.5 \
	     --blackout-ms 100 --settle 4
DEMO_STAMP := $(shell date +%Y%m%d-%H%M%S)
DEMO_DIR   ?= $(BUILD)/demo/$(DEMO_STAMP)
# The Debian interpreter carries python3-matplotlib / python3-jsonschema;
# $(PYTHON) may be another one (pyenv). Evaluated only when used.
py_with = $(shell for p in $(PYTHON) /usr/bin/python3; do \
	$$p -c 'import $1' 2>/dev/null && { echo $$p; exit 0; }; done; echo /usr/bin/python3)
DEMO_PYTHON = $(call py_with,matplotlib)
SCHEMA_PYTHON = $(call py_with,jsonschema)

.PHONY: demo demo-deps bench-schema
demo: demo-deps
	@if [ ! -f $(KSTAMP) ]; then \
	  echo "demo: first run: downloading Debian's kernel packages (linux-image, linux-headers,"; \
	  echo "      linux-source $(KERNEL_PKGVER)) into $(KCACHE); later runs reuse them"; fi
	@$(MAKE) -s --no-print-directory initramfs tools
	@mkdir -p $(DEMO_DIR)
	@echo "demo: one VM, modes compsc and reload, results in $(DEMO_DIR) (about 2-3 min here)"
	$(BENCH_ENV) $(DEMO_PYTHON) tools/compsc-bench --demo $(DEMO_ARGS) --out $(DEMO_DIR)
	@ln -sfn $(DEMO_STAMP) $(BUILD)/demo/latest
	@echo "demo: plots: $(DEMO_DIR)/throughput.png $(DEMO_DIR)/gaps.png"

# Only what is missing is installed (QEMU with the igb model, iperf3,
# matplotlib, ...): install-deps.sh is idempotent and checks first.
demo-deps:
	@if ! command -v qemu-system-x86_64 >/dev/null || ! command -v iperf3 >/dev/null || \
	   ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || \
	   ! qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'; then \
	  echo "demo: installing missing Debian packages (.ci/install-deps.sh)"; \
	  bash .ci/install-deps.sh; fi

bench-schema:
	@PYTHONPATH=$(HARNESS_PATH) $(SCHEMA_PYTHON) tests/tools/test_bench_schema.py
TEST_SUITES += bench-schema
