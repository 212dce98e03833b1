"""compsc_harness: what the benchmark tools (tools/compsc-bench,
compsc-datapath, compsc-dpdkbench) and the test suites (tests/vm,
tests/nested, tests/soak) share to drive the QEMU bench VM.

    vm        the bench VM and its host-side network peer (Bench, VM, Peer)
    mig       CompSC migrations through the stand-in (load_compsc, migrate)
    pf        the PF side of a migration (VF-in-PF state, tagged ARP)
    dpdk      DPDK's testpmd on a bench VF
    guestcpu  the guest CPU rule of the measuring tools
    plot      compsc-bench's plots (matplotlib)
    schema    a report against tools/compsc-bench.schema.json (jsonschema)
    vlanarp   run by pf on the peer (802.1Q ARP), not imported

The tools find it beside their own script (tools/ in the source tree,
/usr/lib/compsc/tools in the compsc-tools package); pytest through the
root pytest.ini; make's other Python through PYTHONPATH=tools."""
