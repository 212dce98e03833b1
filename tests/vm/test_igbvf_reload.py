"""Stock igbvf unbind+bind of VF 0 recovers traffic; the peer measures the gap in its ping stream."""

import time


def test_igbvf_reload(vm, vfs, peer, measure):
    vf = vfs[0]
    drv = "/sys/bus/pci/drivers/igbvf"
    with peer.ping_stream(vf.ip, interval=0.01) as ps:
        time.sleep(2)
        t0 = time.time()
        r = vm.run(f"echo {vf.bdf} > {drv}/unbind && echo {vf.bdf} > {drv}/bind && "
                   f"IF=$(ls /sys/bus/pci/devices/{vf.bdf}/net) && "
                   f"ip addr add {vf.ip}/24 dev $IF && ip link set $IF up && echo $IF")
        t1 = time.time()
        vm.wait_link(r.out.strip(), 30)
        time.sleep(3)
    tr = ps.trace
    after = [t for t, _ in tr.replies if t > t1]
    assert after, f"no ping reply after the reload\n{tr.raw[-2000:]}"
    assert len([t for t, _ in tr.replies if t < t0]) > 10, "stream was not running before the reload"
    gap = tr.max_gap(t0, t1)
    measure("unbind+bind command", t1 - t0, "s")
    measure("peer-seen gap (longest reply gap)", gap * 1000, "ms")
    measure("pings lost (10 ms interval)", tr.lost, "pkts")
    measure("pings sent", tr.sent, "pkts")
