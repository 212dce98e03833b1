"""vlanarp: tagged ARP from the peer's namespace (the host has no 8021q).

usage: vlanarp.py IFACE VID TARGET_IP [COUNT] [--any-tag] [--dst=MAC]
Sends COUNT 802.1Q-tagged ARP requests (sender 10.77.VID.1) for TARGET_IP
out of IFACE and prints how many answers came back in that VLAN (the tag
is read from the packet or, when the kernel took it off, from auxdata).
With --any-tag an untagged answer counts too: it still proves the tagged
request reached TARGET_IP (a VF whose PF strips the tag on receive, and
an application that answers without putting it back, as testpmd's
icmpecho). VID 0 sends untagged requests and counts untagged answers.
--dst sends to MAC instead of broadcast (a multicast group's MAC: only a
receiver whose multicast filter takes the group can answer).
"""

import select
import socket
import struct
import sys
import time

ETH_P_ALL, ETH_P_ARP, ETH_P_8021Q = 0x0003, 0x0806, 0x8100
SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID = 1 << 4


def request(src_mac: bytes, vid: int, target: str, dst: bytes = b"\xff" * 6) -> bytes:
    spa = socket.inet_aton(f"10.77.{vid}.1")
    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, src_mac, spa,
                      b"\0" * 6, socket.inet_aton(target))
    tag = struct.pack("!HH", ETH_P_8021Q, vid) if vid else b""
    return dst + src_mac + tag + struct.pack("!H", ETH_P_ARP) + arp


def answer_vid(data: bytes, anc, target: bytes):
    """VLAN id of an ARP reply from target (None: untagged), or -1 when
    the frame is no such reply."""
    etype, off, vid = struct.unpack("!H", data[12:14])[0], 14, None
    if etype == ETH_P_8021Q:
        vid = struct.unpack("!H", data[14:16])[0] & 0xfff
        etype, off = struct.unpack("!H", data[16:18])[0], 18
    for level, kind, val in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and vid is None:
            status, _, _, _, _, tci = struct.unpack("IIIHHH", val[:18])
            if status & TP_STATUS_VLAN_VALID:
                vid = tci & 0xfff
    if etype != ETH_P_ARP or len(data) < off + 28:
        return -1
    op, spa = struct.unpack("!H", data[off + 6:off + 8])[0], data[off + 14:off + 18]
    return vid if op == 2 and spa == target else -1


def main() -> int:
    opts = [a for a in sys.argv[1:] if a.startswith("--")]
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    iface, vid, target = args[0], int(args[1]), args[2]
    count = int(args[3]) if len(args) > 3 else 3
    dst = b"\xff" * 6
    for o in opts:
        if o.startswith("--dst="):
            dst = bytes.fromhex(o[len("--dst="):].replace(":", ""))
    accept = (None,) if vid == 0 else (vid, None) if "--any-tag" in opts else (vid,)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((iface, 0))
    mac = s.getsockname()[4]
    got = 0
    for _ in range(count):
        s.send(request(mac, vid, target, dst))
        end = time.time() + 1.0
        while time.time() < end:
            if not select.select([s], [], [], max(0, end - time.time()))[0]:
                break
            data, anc, _, _ = s.recvmsg(2048, 1024)
            got_vid = answer_vid(data, anc, socket.inet_aton(target))
            if got_vid in accept:
                got += 1
                break
    print(got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
