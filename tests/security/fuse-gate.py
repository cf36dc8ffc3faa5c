#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A FUSE file system a session's owner could mount (fusermount3 does it
for any user; here root mounts it for them, as user_id/group_id): a
folder MOUNT holding one symbolic link, MOUNT/to -> TARGET, both the
owner's, with no caching (every walk through it asks again). While the
file HOLD exists, the requests of the root session daemon's children
(processes of the daemon, pid DAEMON, that have not run another program:
the children that make, move and remove folders as the owner) are held,
unanswered, and the file HOLD.held says so; once HOLD is gone they are
answered, as everyone else's always are. With WHO "consumer", the
requests held are those of the daemon's user-space consumers instead
(its children running trawl-consumerd, as the owner). What a hostile
owner's FUSE file system (or a stopped NFS server) does to whoever walks
it.

Speaks the kernel's FUSE protocol on /dev/fuse itself (no libfuse).

usage: fuse-gate.py MOUNT TARGET UID GID DAEMON HOLD [children|consumer]
"""
import ctypes
import errno
import os
import select
import struct
import sys

MOUNT, TARGET, UID, GID, DAEMON, HOLD = sys.argv[1:7]
WHO = sys.argv[7] if len(sys.argv) > 7 else "children"
UID, GID, DAEMON = int(UID), int(GID), int(DAEMON)
TARGET = TARGET.encode()

LOOKUP, FORGET, GETATTR, READLINK, INIT, INTERRUPT, DESTROY, BATCH_FORGET = 1, 2, 3, 5, 26, 36, 38, 42
IN_HDR = struct.Struct("<IIQQIIIHH")   # fuse_in_header, 40 bytes
OUT_HDR = struct.Struct("<IiQ")         # fuse_out_header, 16 bytes
ATTR = struct.Struct("<QQQQQQIIIIIIIIII")  # fuse_attr, 88 bytes

ROOT, LINK = 1, 2


def attr(node):
    if node == ROOT:
        return ATTR.pack(ROOT, 0, 0, 0, 0, 0, 0, 0, 0, 0o040755, 2, UID, GID, 0, 4096, 0)
    return ATTR.pack(LINK, len(TARGET), 0, 0, 0, 0, 0, 0, 0, 0o120777, 1, UID, GID, 0, 4096, 0)


def mount(fd):
    libc = ctypes.CDLL(None, use_errno=True)
    opts = "fd=%d,rootmode=40755,user_id=%d,group_id=%d" % (fd, UID, GID)
    if libc.mount(b"fuse-gate", MOUNT.encode(), b"fuse.fuse-gate", 0, opts.encode()) != 0:
        e = ctypes.get_errno()
        sys.exit("mount: %s" % os.strerror(e))


def reply(fd, unique, err=0, body=b""):
    try:
        os.write(fd, OUT_HDR.pack(OUT_HDR.size + len(body), -err, unique) + body)
    except OSError:
        pass  # its asker is gone (killed): the kernel forgot the request


def daemon_child(pid):
    """A child of the daemon that has not run another program (WHO
    "consumer": one running trawl-consumerd)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return False
    comm = st[st.index("(") + 1:st.rindex(")")]
    ppid = int(st[st.rindex(")") + 2:].split()[1])
    return ppid == DAEMON and comm == ("trawl-consumerd" if WHO == "consumer" else "trawl-sessiond")


def answer(fd, req):
    op, unique, node, data = req
    if op == INIT:
        major, minor, readahead, flags = struct.unpack_from("<IIII", data)
        out = struct.pack("<IIIIHHIIHHII", 7, min(minor, 31), readahead, 0, 16, 12, 65536, 1,
                          0, 0, 0, 0)
        reply(fd, unique, 0, out.ljust(64, b"\0"))
    elif op == LOOKUP:
        name = data.split(b"\0", 1)[0]
        if node != ROOT or name != b"to":
            reply(fd, unique, errno.ENOENT)
        else:
            # no caching: every walk looks it up again
            reply(fd, unique, 0, struct.pack("<QQQQII", LINK, 0, 0, 0, 0, 0) + attr(LINK))
    elif op == GETATTR:
        reply(fd, unique, 0, struct.pack("<QII", 0, 0, 0) + attr(node))
    elif op == READLINK:
        reply(fd, unique, 0, TARGET)
    elif op in (FORGET, BATCH_FORGET, INTERRUPT):
        pass  # no answer
    else:
        reply(fd, unique, errno.ENOSYS)


def main():
    fd = os.open("/dev/fuse", os.O_RDWR)
    mount(fd)
    print("mounted", flush=True)
    held = []
    while True:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not os.path.exists(HOLD) and held:
            for req in held:
                answer(fd, req)
            held = []
            try:
                os.unlink(HOLD + ".held")
            except OSError:
                pass
        if not r:
            continue
        try:
            buf = os.read(fd, 1 << 18)
        except OSError as e:
            if e.errno in (errno.EINTR, errno.EAGAIN, errno.ENOENT):
                continue
            return  # ENODEV: unmounted
        if len(buf) < IN_HDR.size:
            continue
        ln, op, unique, node, uid, gid, pid, _, _ = IN_HDR.unpack_from(buf)
        req = (op, unique, node, buf[IN_HDR.size:ln])
        if op == DESTROY:
            return
        if op not in (INIT, FORGET, BATCH_FORGET, INTERRUPT) and os.path.exists(HOLD) \
                and daemon_child(pid):
            held.append(req)
            with open(HOLD + ".held", "a") as f:
                f.write("%d %d\n" % (pid, op))
            continue
        answer(fd, req)


main()
