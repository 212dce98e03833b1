# libvirt: a domain XML for a guest on a CompSC VF (tools/libvirt/).
#
#   make libvirt-check  the XML against libvirt's schema (virt-xml-validate,
#                       libvirt-clients >= 10 from bookworm-backports), against
#                       its generator and against the nested bench's QEMU
#                       options; a second or two, no VM, no libvirtd

.PHONY: libvirt-check
libvirt-check:
	@PYTHONPATH=$(HARNESS_PATH):$(TOP)/tests/nested $(PYTHON) tests/libvirt/test_domxml.py
TEST_SUITES += libvirt-check
