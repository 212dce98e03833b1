#!/usr/bin/env python3
"""The stand-in peer of make qemu-vm-probe, on a QEMU stream netdev: answers
ARP for 10.0.2.2 and ICMP echo, checks the L4 checksum of every TCP and
UDP segment, logs every frame. usage: probe-peer.py SOCKET"""
import socket, struct, sys, time

MAC = bytes.fromhex("525400000202")
IP = socket.inet_aton("10.0.2.2")

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff

def reply(f):
    dst, src, typ = f[:6], f[6:12], f[12:14]
    if typ == b"\x08\x06" and f[38:42] == IP and f[20:22] == b"\x00\x01":
        arp = f[14:22-2] + b"\x00\x02" + MAC + IP + f[22:28] + f[28:32]
        return src + MAC + typ + arp
    if typ == b"\x08\x00" and f[30:34] == IP and f[23] == 1 and f[34] == 8:
        ihl = (f[14] & 15) * 4
        ip = bytearray(f[14:14 + ihl])
        ip[12:16], ip[16:20] = f[30:34], f[26:30]
        ip[10:12] = b"\0\0"
        ip[10:12] = struct.pack("!H", csum(bytes(ip)))
        icmp = bytearray(f[14 + ihl:14 + struct.unpack("!H", f[16:18])[0]])
        icmp[0] = 0
        icmp[2:4] = b"\0\0"
        icmp[2:4] = struct.pack("!H", csum(bytes(icmp)))
        return src + MAC + typ + bytes(ip) + bytes(icmp)
    return None

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
for _ in range(100):
    try:
        s.connect(sys.argv[1]); break
    except OSError:
        time.sleep(0.1)
buf = b""
n = 0
while True:
    d = s.recv(65536)
    if not d:
        break
    buf += d
    while len(buf) >= 4:
        ln = struct.unpack("!I", buf[:4])[0]
        if len(buf) < 4 + ln:
            break
        f, buf = buf[4:4 + ln], buf[4 + ln:]
        n += 1
        if f[12:14] == b"\x08\x00" and f[23] in (6, 17):
            ihl = (f[14] & 15) * 4
            tot = struct.unpack("!H", f[16:18])[0]
            udp = f[14 + ihl:14 + tot]
            ph = f[26:34] + bytes([0, f[23]]) + struct.pack("!H", len(udp))
            ok = csum(ph + udp) == 0
            print("peer: %s segment %d bytes, L4 checksum %s" % ("tcp" if f[23] == 6 else "udp", len(udp), "ok" if ok else "BAD"), flush=True)
        r = reply(f)
        print("peer: frame %d len %d type %s%s" % (n, ln, f[12:14].hex(), " -> reply" if r else ""), flush=True)
        if r:
            s.sendall(struct.pack("!I", len(r)) + r)
