# The one list of libcompsc core sources, shared by the userspace build
# (mk/lib.mk) and the kernel build (Kbuild). Names without extension.
COMPSC_SRCS := error area mbx sync replay replay_pack counter ring crc32c \
	       stream validate \
	       dev_82576vf dev_82599vf devmodel migstate host precopy

# The library's self-test: in the userspace library (compsc_selftest() is
# part of its ABI) and in compsc_selftest.ko (tests/kmod/compsc_selftest),
# never in compsc.ko.
COMPSC_SELFTEST_SRCS := selftest selftest_core selftest_stream

# The guest VF driver helper (compsc/vf.h) and the core it uses, linked
# into each patched VF driver (not exported: no driver needs compsc.ko).
# Paths relative to libcompsc/.
COMPSC_VF_SRCS := $(addprefix src/,error area mbx sync replay counter ring) \
		  kernel/vf
# With COMPSC_FAULTS=y (the bench's builds, scripts/driver-tree.sh) the
# helper's test hooks too (kernel/fault.h); never in the packages' builds.
COMPSC_VF_FAULT_SRCS := kernel/vf_fault

# Userspace only (never in the kernel module): the VF helper for poll-mode
# drivers (compsc/uvf.h), in libcompsc/user/. The userspace library
# (mk/lib.mk) carries it; a PMD compiles COMPSC_UVF_SRCS (paths relative to
# libcompsc/), which drivers/dpdk's meson.build names file by file.
COMPSC_USER_SRCS := uvf
COMPSC_UVF_SRCS := $(addprefix src/,error area mbx sync replay counter ring) \
		   $(addprefix user/,$(COMPSC_USER_SRCS))
