"""Fixtures of the nested suite: the host peer and the L1 host, shared by
the test modules of a worker where they leave it as they found it
(L1Pool), else one of each per module.

L1's PF is the 82576 (igb). A test that should also run on the 82599
model is parametrised over the NICs, at module scope:
@pytest.mark.parametrize("nic", list(NICS), scope="module")
(compsc_harness.vm); its `l1` is then an L1 with that NIC (L1(nic=)), the
shared one of the worker where the pool allows. Where this run has no L1
with the 82599 (no QEMU with its model, no ixgbevf for the L2 kernel:
nested.check_nic()) its cases skip."""

import difflib
import warnings

import pytest

from compsc_harness.vm import Bench, Peer
from nested import L1, L1NicMissing, L1Slots, check_nic

# The files that take longest go first: test_give_unreachable.py about 3
# minutes (it waits out the guest's bound on a hold), test_two_hosts.py
# and test_virsh_migrate.py about 2 each (two L1s, booted one after the
# other), the others here
# 1.5-2.5 with the L2s on KVM, L1's boot included, most others 0.5-1.
# With several files at a time (make nested-test, NESTED_JOBS) no worker
# then ends alone on one of them.
LONGEST_FIRST = ("test_give_unreachable.py", "test_two_hosts.py", "test_virsh_migrate.py",
                 "test_migrate_broken_off.py",
                 "test_dpdk_nested.py", "test_shadow_nested.py",
                 "test_migrate_integrity.py", "test_shadow_virtio.py",
                 "test_migrate_busy_guest.py", "test_shadow_standby.py")


def pytest_configure(config):
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(FailureTail(config), "compsc-failure-tail")


class FailureTail:
    """With workers (make nested-test), pytest prints a failure's
    traceback only when the whole suite ends: a run stopped before that
    (CI's time limit) keeps none. The main process prints each
    failure's tail the moment it comes."""
    TAIL = 4000

    def __init__(self, config):
        self.config = config

    def pytest_runtest_logreport(self, report):
        # an expected failure too: an xfail hides its traceback altogether,
        # and CI's one of 2026-12-03 (test_shadow_vf_virtio_vf, in its
        # 0.17 s setup) left nothing to tell what it was
        xfailed = report.skipped and hasattr(report, "wasxfail")
        if report.failed or xfailed:
            tr = self.config.pluginmanager.get_plugin("terminalreporter")
            what = "failed as expected (xfail)" if xfailed else "failed"
            tr.write_line(f"\n---- {report.nodeid} {what} ({report.when}); its tail:")
            tr.write_line(report.longreprtext[-self.TAIL:])


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    many = {item.path for item in items if _nic_of(item) != "igb"}
    # the files parametrised over NICS last, so that they follow each other
    items.sort(key=lambda item: (item.path in many,
                                 rank.get(item.path.name, len(LONGEST_FIRST))))
    _chain_nics(items)


def _nic_of(item) -> str:
    """The NIC of L1 that @item runs on (its `nic` parameter, or igb)."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("nic", "igb") if callspec else "igb"


def _chain_nics(items) -> None:
    """In each file, the items on the NIC the file before ended on go
    first: a worker's L1 (L1Pool) then changes NIC, which is a boot, at
    most once a file instead of twice."""
    out, last, i = [], "igb", 0
    while i < len(items):
        j = i
        while j < len(items) and items[j].path == items[i].path:
            j += 1
        group = sorted(items[i:j], key=lambda item: _nic_of(item) != last)
        out += group
        last = _nic_of(group[-1])
        i = j
    items[:] = out


# Modules with a failed test (or setup): their L1 is not handed on.
_FAILED = set()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed:
        _FAILED.add(item.module.__name__)


class L1Pool:
    """One L1 host and its peer per pytest worker, handed from one test
    module to the next: booting and setting up an L1 costs about 10 s of a
    core under TCG, which over the suite's modules came to a fifth of its
    time. A module gets the L1 as setup() left it. After the module,
    L1.tidy() stops its L2s and puts back the VF MACs; the L1 then goes to
    the next module only if every test of this one passed, L1's console
    shows no kernel problem since the module began, and L1.fingerprint()
    (modules, bindings, the PF's view of the VFs, compsc_vfio's knobs, the
    guest areas the host knows) is what it was after setup(). Otherwise
    L1 and peer are closed and the next module boots its own."""

    def __init__(self):
        self.peer = self.vm = None
        self.setup_print = None     # the fingerprint after setup()

    def get_peer(self) -> Peer:
        if self.peer is None:
            self.peer = Peer()
        return self.peer

    def get_l1(self, nic: str = "igb") -> L1:
        """The worker's L1 with the NIC @nic: the one it has, or a new one
        (an L1 with another NIC is closed first: one L1 a worker, L1_SLOTS)."""
        slot = None
        if self.vm is not None and self.vm.nic.name != nic:
            # its slot goes to the new L1, not back to the machine, where
            # another checkout's waiting L1 would take it
            vm, self.vm = self.vm, None
            slot, vm.slots = vm.slots, L1Slots()
            vm.close(check=False)
        if self.vm is None:
            # its own name, so its run and socket directories are not a
            # module's own L1 ("l1"), which would remove them at boot
            vm = L1(self.get_peer(), name="l1-shared", nic=nic, slots=slot)
            try:
                vm.setup()
                self.setup_print = vm.fingerprint()
            except BaseException:
                vm.close(check=False)
                raise
            self.vm = vm
        return self.vm

    def give_back(self, module: str, since: int) -> None:
        """Keep the L1 for the next module, or close it (raising a
        KernelProblem found since @since, an offset into L1's console)."""
        vm, keep = self.vm, module not in _FAILED and self.vm.alive()
        try:
            if keep:
                vm.tidy()
                vm.check_kernel_log(since)
                now = vm.fingerprint()
                keep = now == self.setup_print
                if not keep:
                    diff = "\n".join(difflib.unified_diff(
                        self.setup_print.splitlines(), now.splitlines(), lineterm=""))
                    # a warning: pytest's summary shows it, with workers too
                    warnings.warn(f"{module} left L1 changed, the next module boots "
                                  f"its own:\n{diff}")
        except BaseException:
            keep = False
            raise
        finally:
            if not keep:
                self.close()

    def close(self) -> None:
        vm, peer, self.vm, self.peer = self.vm, self.peer, None, None
        try:
            if vm is not None:
                # the modules' own checks ran in give_back(); on the debug
                # kernels nothing is shared (_shared), and close() checks
                vm.close(check=False)
        finally:
            if peer is not None:
                peer.close()


def _shared(request) -> bool:
    """Whether a module runs on the worker's shared L1 (L1Pool): one whose
    tests take this file's `l1`; not with the debug kernels, whose close()
    scans for leaks module by module, nor for a module that asks for an
    uplink (guest-shadow) or brings an `l1` of its own (another set-up) or
    its own hosts (two hosts: they get a peer of their own)."""
    mod = request.module
    return "l1" in request.fixturenames and not (
        Bench().debug or getattr(mod, "L1_UPLINK", False) or hasattr(mod, "l1"))


@pytest.fixture(scope="session")
def l1_pool():
    pool = L1Pool()
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(scope="module")
def peer(request, l1_pool):
    if _shared(request):
        yield l1_pool.get_peer()
        return
    # the module boots L1s of its own: the worker's shared one gives its
    # slot back first (nested.L1_SLOTS)
    l1_pool.close()
    with Peer() as p:
        yield p


@pytest.fixture(scope="module")
def nic():
    """The PF model of the module's `l1`: igb, unless the module's tests
    are parametrised over NICS (at module scope)."""
    return "igb"


@pytest.fixture(scope="module")
def l1(request, peer, l1_pool, nic):
    try:
        check_nic(Bench(), nic)
    except L1NicMissing as e:
        pytest.skip(str(e))
    if _shared(request):
        vm = l1_pool.get_l1(nic)
        since = vm.console_path.stat().st_size
        yield vm
        l1_pool.give_back(request.module.__name__, since)
        return
    # a module that moves an L2 to virtio-net says L1_UPLINK = True
    vm = L1(peer, uplink=getattr(request.module, "L1_UPLINK", False), nic=nic)
    try:
        vm.setup()
        yield vm
    finally:
        # the tests check L1's log themselves; on the debug kernels its
        # close also scans for leaks and every L2 console (nested.py)
        vm.close(check=vm.bench.debug)


@pytest.fixture(scope="module")
def bridged(l1):
    """A guest-shadow test's L1 with shadow_nested.bridge() done (its
    module says L1_UPLINK = True)."""
    from shadow_nested import bridge
    bridge(l1)
    return l1
