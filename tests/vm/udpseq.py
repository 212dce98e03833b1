#!/usr/bin/env python3
"""udpseq: count, on the wire, the iperf3 UDP datagrams that reach an
interface, by their sequence numbers (run in the peer's namespace).

usage: udpseq.py IFACE PORT
Prints {"distinct": N, "max": M, "frames": F} as JSON on SIGTERM/SIGINT.

iperf3's own server count is no help for an exact check: it stops reading
when the test-end message arrives over TCP, and the datagrams still in
flight then go uncounted (on loopback too). A packet socket sees every
frame the interface receives, whatever iperf3 does with it.
"""

import json
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux; Python 3.11 lacks the name


def seq_of(frame: bytes, port: int):
    """The iperf3 sequence number of an IPv4 UDP datagram to @port, else None."""
    if len(frame) < 14 + 20 + 8 + 12 or struct.unpack_from("!H", frame, 12)[0] != ETH_P_IP:
        return None
    ihl = (frame[14] & 0x0F) * 4
    if frame[14 + 9] != socket.IPPROTO_UDP:
        return None
    udp = 14 + ihl
    if struct.unpack_from("!H", frame, udp + 2)[0] != port:
        return None
    # iperf3's UDP header: tv_sec, tv_usec, then a 32-bit packet count
    return struct.unpack_from("!I", frame, udp + 8 + 8)[0]


def main() -> None:
    iface, port = sys.argv[1], int(sys.argv[2])
    seen: set = set()
    frames = 0

    def report(*_):
        print(json.dumps({"distinct": len(seen), "max": max(seen, default=0),
                          "frames": frames}), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    signal.signal(signal.SIGINT, report)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    # past rmem_max (root): the held packets reach the wire in one burst
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    s.bind((iface, 0))
    print("ready", flush=True)
    while True:
        frame, addr = s.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        n = seq_of(frame, port)
        if n is not None:
            frames += 1
            seen.add(n)


if __name__ == "__main__":
    main()
