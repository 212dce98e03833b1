# Builds a CompSC DKMS tree: whichever of these parts the tree holds.
# DKMS runs it as MAKE[0] (make -f dkms.mk KDIR=...) in its build copy.
# compsc.ko comes first: compsc_vfio and the igb PF call into it.
KDIR  ?= /lib/modules/$(shell uname -r)/build
PARTS := $(filter libcompsc vfio igb igbvf vfio-core,$(patsubst %/,%,$(wildcard */)))
LIB   := $(CURDIR)/libcompsc

all: $(PARTS)

libcompsc:
	$(MAKE) -C $(KDIR) M=$(LIB) modules

vfio: libcompsc
	$(MAKE) -C $(KDIR) M=$(CURDIR)/vfio COMPSC_INC=$(LIB)/include \
		KBUILD_EXTRA_SYMBOLS=$(LIB)/Module.symvers modules

# The drivers build exactly as the bench builds them (driver-tree.sh).
igb: libcompsc
	+bash ./driver-tree.sh build $(KDIR) igb igb $(LIB)/include $(LIB)/Module.symvers

igbvf:
	+bash ./driver-tree.sh build $(KDIR) igbvf igbvf

# A vfio.ko whose CRCs differ from the kernel's would strand Debian's
# vfio-pci on top of it: fail the build instead.
vfio-core:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/vfio-core modules
	sh vfio-core/check-crcs.sh $(KDIR)/Module.symvers vfio-core/Module.symvers

clean:
	$(foreach p,$(PARTS),$(MAKE) -C $(KDIR) M=$(CURDIR)/$p clean;)

.PHONY: all clean $(PARTS)
