#!/usr/bin/env python3
"""frames_from: when a guest sends again, as the peer sees it.

usage: frames_from.py IFACE MAC [QUIET_S]
Until killed, prints one line per event on IFACE (host clock, time.time()):
  "T first"     the first frame from MAC after QUIET_S (0.5) s without one
  "T garp IP"   a gratuitous ARP from MAC (sender and target address IP)
Run in the peer's namespace (bench_shadow.py): its clock is the host's, so
the lines sit on the same time axis as the ping stream's replies.
"""

import socket
import struct
import sys
import time

ETH_P_ALL, ETH_P_ARP, ETH_P_8021Q = 0x0003, 0x0806, 0x8100


def garp_ip(data: bytes):
    """The address a gratuitous ARP in @data announces, or None."""
    etype, off = struct.unpack("!H", data[12:14])[0], 14
    if etype == ETH_P_8021Q:
        etype, off = struct.unpack("!H", data[16:18])[0], 18
    if etype != ETH_P_ARP or len(data) < off + 28:
        return None
    spa, tpa = data[off + 14:off + 18], data[off + 24:off + 28]
    return socket.inet_ntoa(spa) if spa == tpa else None


def main(iface: str, mac: str, quiet: float) -> None:
    want = bytes.fromhex(mac.replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    last = 0.0
    while True:
        data, addr = s.recvfrom(65535)
        now = time.time()
        # frames this host sends come back on a packet socket too
        if len(data) < 14 or data[6:12] != want or addr[2] == socket.PACKET_OUTGOING:
            continue
        if now - last >= quiet:
            print(f"{now:.3f} first", flush=True)
        last = now
        ip = garp_ip(data)
        if ip:
            print(f"{now:.3f} garp {ip}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) == 4 else 0.5)
