# SPDX-License-Identifier: MIT
"""A DNS server the test controls, for relay-hostile.sh's dns-* modes: the
root daemon runs in a mount namespace whose /etc/resolv.conf names it, so
the test, not a network, says when (and whether) a host name resolves.

usage: fake-dns.py ADDRFILE
Listens on UDP port 53 of an address of its own in 127/8 (one the other
tests running at the same time do not have), and writes it to ADDRFILE.
  nx.*        answered at once: no such name (NXDOMAIN)
  any other   held, unanswered, until ADDRFILE.release exists (the test says
              when), then answered: A 127.0.0.1 (AAAA: no address). The
              first held question creates ADDRFILE.asked.
Runs until killed.
"""
import os
import random
import select
import socket
import struct
import sys


def qname(pkt):
    """The question's name and the offset after its type and class."""
    labels, i = [], 12
    while i < len(pkt) and pkt[i]:
        n = pkt[i]
        labels.append(pkt[i + 1:i + 1 + n].decode('ascii', 'replace'))
        i += 1 + n
    return '.'.join(labels).lower(), i + 5


def answer(pkt, rcode, a=None):
    name, end = qname(pkt)
    qtype = struct.unpack_from('>H', pkt, end - 4)[0] if end <= len(pkt) else 0
    rec = b''
    if rcode == 0 and a and qtype == 1:
        rec = struct.pack('>HHHIH', 0xC00C, 1, 1, 60, 4) + socket.inet_aton(a)
    hdr = struct.pack('>HHHHHH', struct.unpack_from('>H', pkt)[0], 0x8180 | rcode, 1,
                      1 if rec else 0, 0, 0)
    return hdr + pkt[12:end] + rec


def main():
    addrfile = sys.argv[1]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(100):
        addr = '127.%d.%d.%d' % (random.randint(1, 254), random.randint(0, 255),
                                 random.randint(1, 254))
        try:
            s.bind((addr, 53))
            break
        except OSError:
            continue
    else:
        sys.exit('fake-dns: no address of 127/8 free on port 53')
    with open(addrfile + '.tmp', 'w') as f:
        f.write(addr + '\n')
    os.rename(addrfile + '.tmp', addrfile)
    held = []
    while True:
        released = os.path.exists(addrfile + '.release')
        if released:
            for pkt, peer in held:
                s.sendto(answer(pkt, 0, '127.0.0.1'), peer)
            held = []
        r, _, _ = select.select([s], [], [], 0.05)
        if not r:
            continue
        pkt, peer = s.recvfrom(4096)
        if len(pkt) < 12:
            continue
        name, _ = qname(pkt)
        if name.startswith('nx.'):
            s.sendto(answer(pkt, 3), peer)
        elif released:
            s.sendto(answer(pkt, 0, '127.0.0.1'), peer)
        else:
            held.append((pkt, peer))
            if not os.path.exists(addrfile + '.asked'):
                open(addrfile + '.asked', 'w').close()


main()
