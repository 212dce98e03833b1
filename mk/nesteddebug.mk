# The nested bench on debug kernels: the detectors of the one-VM
# debug kernel (mk/debugkernel.mk) in L1 and in L2.
#
#   make l2kernel-debug   the L2 kernel + tests/nested/l2kernel-debug.config
#                         (cached next to the plain one, its own hash)
#   make l2-kmods-debug   compsc.ko and the CompSC igbvf built against it,
#                         into $(NDBG_BUILD)/l2 and $(NDBG_BUILD)/drivers
#   make l1kernel-debug   the one-VM debug kernel's config +
#                         tests/nested/l1kernel-debug.config (L1's needs),
#                         laid out like Debian's package (cached, own hash)
#
# Not part of `make test`. L2K_JOBS and DBGK_JOBS (default: every CPU) set
# the kernel builds' -j.

NDBG_BUILD  := $(BUILD)/debug-nested

# The debug L2's fragment: the plain L2's, its release suffix left to the
# debug file (every line of a fragment must survive, so no line may be
# overridden), then the debug file. Keyed by both files, the script, gcc.
L2DK_FRAG   := $(TOP)/tests/nested/l2kernel-debug.config
L2DK_HASH   := $(shell { cat $(L2K_CONFIG) $(L2DK_FRAG) $(L2K_SCRIPT); gcc --version | head -1; } | \
		sha256sum | cut -c1-12)
L2DK_DIR    := $(L2K_CACHE)/l2kernel-dbg-$(KERNEL_ABI)-$(L2DK_HASH)
L2DK_CONFIG := $(L2DK_DIR).config
# mk/l2kernel.mk's rules and NESTED_ENV's L2 paths, pointed at the debug L2.
L2DK_VARS   := L2K_DIR=$(L2DK_DIR) L2K_CONFIG=$(L2DK_CONFIG) BUILD=$(NDBG_BUILD)

.PHONY: l2kernel-debug l2-kmods-debug
$(L2DK_CONFIG): $(L2K_CONFIG) $(L2DK_FRAG)
	mkdir -p $(@D)
	{ grep -v '^CONFIG_LOCALVERSION=' $(L2K_CONFIG); cat $(L2DK_FRAG); } > $@.tmp
	mv $@.tmp $@

l2kernel-debug: $(L2DK_CONFIG)
	$(MAKE) --no-print-directory l2kernel $(L2DK_VARS)

l2-kmods-debug: l2kernel-debug
	$(MAKE) --no-print-directory l2-kmods $(L2DK_VARS)

# The debug L1's fragment, built the way mk/debugkernel.mk builds the
# one-VM debug kernel (debugkernel-build.sh: the L2 script, then a
# Debian-like root with boot/vmlinuz-REL and lib/modules/REL).
L1DK_FRAG   := $(TOP)/tests/nested/l1kernel-debug.config
L1DK_HASH   := $(shell { cat $(DBGK_CONFIG) $(L1DK_FRAG) $(DBGK_SCRIPT) $(L2K_SCRIPT); \
		gcc --version | head -1; } | sha256sum | cut -c1-12)
L1DK_DIR    := $(DBGK_CACHE)/debugkernel-l1-$(KERNEL_ABI)-$(L1DK_HASH)
L1DK_CONFIG := $(L1DK_DIR).config
L1DK_STAMP  := $(L1DK_DIR)/root/.installed

.PHONY: l1kernel-debug
$(L1DK_CONFIG): $(DBGK_CONFIG) $(L1DK_FRAG)
	mkdir -p $(@D)
	{ grep -v '^CONFIG_LOCALVERSION=' $(DBGK_CONFIG); cat $(L1DK_FRAG); } > $@.tmp
	mv $@.tmp $@

l1kernel-debug: $(L1DK_STAMP)
$(L1DK_STAMP): | $(KSTAMP) $(L1DK_CONFIG)
	L2K_JOBS=$(DBGK_JOBS) $(DBGK_SCRIPT) $(KSOURCE_TAR) $(DBGK_SRC) $(L1DK_DIR) $(L1DK_CONFIG)

# mk/bench.mk's, mk/nested.mk's and mk/l2kernel.mk's variables for the
# parallel tree $(NDBG_BUILD): L1's image, stock modules, compsc_vfio and
# the rebuilt VFIO core from the debug L1 tree, L2's kernel and modules
# from the debug L2's; no 82599 (the debug L1 has none of ixgbe's stock
# dependencies, mk/debugkernel.mk), so its cases skip. NDBG_ENV: what the harness needs to know (the
# extra memory, its own cache of the L2 images and of L1's modules).
NDBG_VARS    = BUILD=$(NDBG_BUILD) KDIR=$(L1DK_DIR) KROOT=$(L1DK_DIR)/root \
	       KREL=$$(cat $(L1DK_DIR)/include/config/kernel.release) \
	       L2K_DIR=$(L2DK_DIR) L2K_CONFIG=$(L2DK_CONFIG) BENCH_82599=no
NDBG_ENV     = COMPSC_DEBUG_KERNEL=1 COMPSC_NESTED_CACHE=$(DBGK_CACHE)/nested-debug

#   make nested-test-debug  tests/nested on the debug L1 and L2 (PYTEST_ARGS
#                           as for nested-test); each test may take twice
#                           as long (NESTED_TIMEOUT): the debug L2 alone
#                           needs ~5 min to come up
#                         test_detectors_debug.py commits a bug in L1 and
#                         in an L2 (bench_bugs.ko built for each) and
#                         checks that the harness fails on the reports
.PHONY: nested-test-debug nested-debug-kernels nested-debug-bugs
nested-debug-kernels: l1kernel-debug l2kernel-debug
nested-test-debug: nested-debug-kernels nested-debug-bugs
	$(NDBG_ENV) $(NDBG_BUGS_ENV) $(MAKE) --no-print-directory nested-test $(NDBG_VARS) \
		NESTED_TIMEOUT=$$(( 2 * $(NESTED_TIMEOUT) )) NESTED_JOBS=1

# bench_bugs.ko (tests/kmod/bench_bugs) for the debug L1 (mk/debugkernel.mk's
# rule, in the debug tree) and the debug L2; only nested-test-debug's
# detector test loads them.
NDBG_L1_BUGS  := $(NDBG_BUILD)/kmod/bench_bugs/bench_bugs.ko
NDBG_L2_BUGS  := $(NDBG_BUILD)/l2/kmod/bench_bugs/bench_bugs.ko
NDBG_BUGS_ENV  = COMPSC_L1_BUGS_KO=$(NDBG_L1_BUGS) COMPSC_L2_BUGS_KO=$(NDBG_L2_BUGS)
nested-debug-bugs: nested-debug-kernels $(NDBG_L2_BUGS)
	$(MAKE) --no-print-directory $(NDBG_L1_BUGS) $(NDBG_VARS)
$(NDBG_L2_BUGS): $(wildcard $(TOP)/tests/kmod/bench_bugs/*) | l2kernel-debug
	mkdir -p $(@D)
	rsync -a --delete $(KBUILD_JUNK) $(TOP)/tests/kmod/bench_bugs/ $(@D)/
	$(MAKE) -C $(L2DK_DIR) M=$(@D) modules
