# The one list of libcompsc core sources, shared by the userspace build
# (mk/lib.mk) and the kernel build (Kbuild). Names without extension.
COMPSC_SRCS := error area mbx sync replay replay_pack counter ring crc32c \
	       stream validate \
	       dev_82576vf migstate host \
	       selftest selftest_core selftest_stream

# The guest VF driver helper (compsc/vf.h) and the core it uses, linked
# into each patched VF driver (not exported: no driver needs compsc.ko).
# Paths relative to libcompsc/.
COMPSC_VF_SRCS := $(addprefix src/,error area mbx sync replay counter ring) \
		  kernel/vf
