"""What a user gets today without guest-shadow: Debian's igbvf in an L2
moved VF0 -> VF1 by hot-unplug/plug under a TCP and a ping stream, the gap
measured (shadow_nested.py)."""
import time

from nested import vf_nic
from shadow_nested import PING_S, Guest, Streams, gaps, hop, report, tcp_resumes

# conftest.py: this module's L1 has an uplink (bridge() puts it in br1)
L1_UPLINK = True


def test_unplug_without_shadow(bridged, peer):
    """Stock igbvf, VF0 -> VF1 by unplug/replug, the guest's network set
    up again on the new NIC (l2-init, as a network manager would)."""
    l1 = bridged
    guest = Guest(l1, "stock")
    guest.boot()
    results = []
    with Streams(l1, peer, guest) as st:
        hop(guest, l1, peer, st, vf_nic(l1.vf1, 1), "VF0 -> VF1 (no gshadow)", results)
        resumed = tcp_resumes(st, time.time())
        alive = st.close()
    seen = gaps(st, results)
    report("no-shadow", {"gaps_s": seen, "ping_every_s": PING_S, "hops": results,
                         "tcp_alive": alive, "tcp_resumed_s": resumed})
    # measured, not asserted: what survives without the shadow is the finding
    assert seen and seen[0] > 0
    l1.l2_stop("src", "dst")
