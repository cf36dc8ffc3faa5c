# SPDX-License-Identifier: MIT
"""A hostile local user against a trawl session daemon's sockets.

Run as the attacking user (runuser -u USER -- python3 attacker.py ...). Each
attack prints "ready" once it is in place (the caller measures from then
on), holds it for the given seconds, then prints one line of outcome as
key=value pairs, which the tests check:

  slowloris SOCK CONNS SECONDS   CONNS connections each sending a valid
                                 registration one byte every 0.5 s
  flood SOCK CONNS SECONDS       as many idle connections as it can open, up
                                 to CONNS, held
  regbomb SOCK CONNS EVENTS FIELDS SECONDS
                                 CONNS registrations of EVENTS events of
                                 FIELDS fields each (the daemon's memory)
  mute SOCK APPS SECONDS         APPS valid registrations that never answer
                                 a command (nor read one)
  churn SOCK SECONDS             connects, sends garbage and closes, as fast as it
                                 can (the daemon's log)
  agentflood PORT IDLE TRICKLE BAD DEAF SECONDS
                                 on the agent port (TCP, 127.0.0.1:PORT): IDLE
                                 connections saying nothing, TRICKLE sending a
                                 valid registration one byte per 0.5 s, BAD
                                 registrations of another domain or protocol
                                 version, DEAF valid registrations (Python)
                                 that never read (a 4 KiB receive buffer)
  agentspy PORT SECONDS          one Python agent that answers each command and
                                 records the loggers it is sent (rules)
  agentlist PORT SECONDS         one Python agent answering LIST with logger
                                 names holding control bytes (a terminal escape)
  agentbig PORT AGENTS SECONDS   AGENTS Python agents answering each LIST with
                                 1 MiB of distinct logger names
  names SOCK SECONDS             two registrations: one with a process name
                                 holding a terminal escape and a good event,
                                 one with an event name holding one (refused)
  agent PORT                     (any user) one Python agent: the time from its
                                 registration to REGISTRATION_DONE, and the
                                 ENABLEs before it

The agent port's protocol is big-endian (src/sessiond/agent-port.c).

The wire format is src/ustabi/wire.h's (host byte order).
"""
import os
import socket
import struct
import sys
import time

MAGIC = 0x54525755
HDR = struct.Struct("=IHHII")      # magic, version, type, size, seq
REGISTER, EVENT, CMD, REPLY = 1, 2, 3, 4
CMD_REGISTRATION_DONE = 8
DONE_REFUSED = 2                   # wire.h TRAWL_WIRE_DONE_REFUSED
REG_SIZE, EVENT_SIZE, FIELD_SIZE, CMD_SIZE = 80, 288, 232, 72


def register_msg(nr_events, pid=None, procname=b"attacker"):
    pid = pid or os.getpid()
    body = struct.pack("=8I", pid, os.getppid(), os.getuid(), os.getgid(), 64, 1, 1, nr_events)
    body += procname.ljust(16, b"\0") + bytes(16)
    return HDR.pack(MAGIC, 1, REGISTER, REG_SIZE, 0) + body


def event_msg(index, nr_fields, name=None):
    size = EVENT_SIZE + nr_fields * FIELD_SIZE
    name = (name or ("bomb:e%d" % index).encode()).ljust(256, b"\0")
    msg = HDR.pack(MAGIC, 1, EVENT, size, 0) + name + struct.pack("=iIII", 13, nr_fields, 0, 0)
    fields = []
    for f in range(nr_fields):
        fname = ("f%d" % f).encode().ljust(64, b"\0")
        # integer, 32 bits, unsigned, base 10, native, not text
        fields.append(fname + bytes(128) + struct.pack("=10I", 1, 32, 0, 10, 0, 0, 0, 0, 0, 0))
    return msg + b"".join(fields)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def ready():
    print("ready", flush=True)


def hold(seconds):
    """Holds the attack @seconds, or until the file $ATTACK_STOP exists."""
    stop, end = os.environ.get("ATTACK_STOP"), time.monotonic() + seconds
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        time.sleep(0.1)


def closed_by_peer(s):
    """True if the daemon closed @s (EOF or reset), without blocking; what
    it sent before is read and dropped."""
    try:
        while True:
            if s.recv(65536, socket.MSG_DONTWAIT) == b"":
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def slowloris(path, conns, seconds):
    msg = register_msg(1) + event_msg(0, 1)
    socks = []
    for _ in range(conns):
        try:
            socks.append(connect(path))
        except OSError:
            break
    ready()
    end, stop = time.monotonic() + seconds, os.environ.get("ATTACK_STOP")
    pos, dropped, first_drop = 0, set(), None
    start = time.monotonic()
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        for i, s in enumerate(socks):
            if i in dropped:
                continue
            try:
                s.send(msg[pos % len(msg):pos % len(msg) + 1], socket.MSG_DONTWAIT)
            except OSError:
                dropped.add(i)
                first_drop = first_drop or time.monotonic() - start
                continue
            if closed_by_peer(s):
                dropped.add(i)
                first_drop = first_drop or time.monotonic() - start
        pos += 1
        time.sleep(0.5)
    print("opened=%d dropped=%d first_drop_s=%.1f" % (len(socks), len(dropped), first_drop or -1))


def flood(path, conns, seconds):
    socks, refused = [], 0
    for _ in range(conns):
        try:
            socks.append(connect(path))
        except OSError:
            refused += 1
            if refused > 50:
                break
    ready()
    hold(seconds)
    alive = sum(1 for s in socks if not closed_by_peer(s))
    print("opened=%d alive=%d refused=%d" % (len(socks), alive, refused))


def read_cmds(s, timeout):
    """Commands the daemon sent on @s within @timeout s: a list of (kind,
    flags), and whether the daemon closed the connection."""
    s.settimeout(timeout)
    buf, cmds, closed = b"", [], False
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            closed = True
            break
        if not d:
            closed = True
            break
        buf += d
        while len(buf) >= HDR.size:
            size = HDR.unpack_from(buf)[3]
            if size < HDR.size or len(buf) < size:
                break
            msg, buf = buf[:size], buf[size:]
            kind = struct.unpack_from("=I", msg, 16)[0]
            flags = struct.unpack_from("=I", msg, 16 + 4 * 12)[0] if size >= CMD_SIZE else 0
            seq = HDR.unpack_from(msg)[4]
            cmds.append((kind, flags, seq))
            if kind == CMD_REGISTRATION_DONE:
                return cmds, closed
    return cmds, closed


def answer(s, seq, ret=0):
    s.sendall(HDR.pack(MAGIC, 1, REPLY, 24, seq) + struct.pack("=iI", ret, 0))


def regbomb(path, conns, events, fields, seconds):
    socks, refused, sent_all, cut = [], 0, 0, 0
    for c in range(conns):
        try:
            s = connect(path)
        except OSError:
            refused += 1
            continue
        socks.append(s)
        try:
            s.sendall(register_msg(events, pid=os.getpid() * 100 + c))
            for e in range(events):
                s.sendall(event_msg(e, fields))
            sent_all += 1
        except OSError:
            cut += 1
            continue
        cmds, closed = read_cmds(s, 10)
        for _, _, seq in cmds:
            answer(s, seq)  # an app that answers: kept unless refused
        if any(k == CMD_REGISTRATION_DONE and f & DONE_REFUSED for k, f, _ in cmds):
            refused += 1
        elif closed:
            cut += 1
    ready()
    hold(seconds)
    print("conns=%d sent_all=%d refused=%d cut=%d" % (len(socks), sent_all, refused, cut))


def names(path, seconds):
    """Names that would put a terminal escape on root's screen: its comm
    too (the daemon reads it from /proc)."""
    with open("/proc/self/comm", "wb") as f:
        f.write(b"ev\x1b[2Jil")
    kept, refused, socks = 0, 0, []
    for procname, event in ((b"ev\x1b[2Jil", b"good:event"), (b"attacker", b"bad:e\x1b]0;x\x07")):
        s = connect(path)
        socks.append(s)
        try:
            s.sendall(register_msg(1, procname=procname))
            s.sendall(event_msg(0, 1, name=event))
        except OSError:
            refused += 1
            continue
        cmds, closed = read_cmds(s, 10)
        for _, _, seq in cmds:
            answer(s, seq)
        if closed or any(k == CMD_REGISTRATION_DONE and f & DONE_REFUSED for k, f, _ in cmds):
            refused += 1
        else:
            kept += 1
    ready()
    hold(seconds)
    print("kept=%d refused=%d" % (kept, refused))


def mute(path, apps, seconds):
    socks = []
    for a in range(apps):
        try:
            s = connect(path)
            s.sendall(register_msg(1, pid=os.getpid() * 100 + a) + event_msg(0, 1))
            socks.append(s)
        except OSError:
            pass
    ready()
    hold(seconds)
    dropped = sum(1 for s in socks if closed_by_peer(s))
    print("apps=%d dropped=%d" % (len(socks), dropped))


def churn(path, seconds):
    n, end, stop = 0, time.monotonic() + seconds, os.environ.get("ATTACK_STOP")
    ready()
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        try:
            s = connect(path)
            # A header that is not one: each connection is a line to log
            # (with a newline and an escape, to forge one if it could).
            s.send(b"x\n[0] forged\x1b[2J".ljust(HDR.size, b"x"))
            s.close()
            n += 1
        except OSError:
            time.sleep(0.001)
    print("connections=%d" % n)


AGENT_PYTHON, AGENT_LIST, AGENT_ENABLE, AGENT_DISABLE, AGENT_REG_DONE = 5, 1, 2, 3, 4


def agent_reg(domain=AGENT_PYTHON, major=2, minor=0, pid=None):
    return struct.pack(">4I", domain, pid or os.getpid(), major, minor)


def tcp(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", int(port)))
    return s


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def agent_cmd(s):
    """One command from the daemon: (cmd, data)."""
    size, cmd, _ = struct.unpack(">QII", recv_exact(s, 16))
    return cmd, recv_exact(s, size) if size else b""


def agentflood(port, idle, trickle, bad, deaf, seconds):
    classes = {"deaf": [], "bad": [], "trickle": [], "idle": []}
    reg = agent_reg()
    bads = [agent_reg(domain=7), agent_reg(domain=1), agent_reg(major=3), agent_reg(minor=1)]
    for k, n in (("deaf", deaf), ("bad", bad), ("trickle", trickle), ("idle", idle)):
        for i in range(n):
            try:
                s = tcp(port, 4096 if k == "deaf" else None)
            except OSError:
                continue
            try:
                if k == "deaf":
                    s.sendall(reg)
                elif k == "bad":
                    s.sendall(bads[i % len(bads)])
            except OSError:
                pass
            classes[k].append(s)
    ready()
    end, stop = time.monotonic() + seconds, os.environ.get("ATTACK_STOP")
    pos, gone = 0, set()
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        for i, s in enumerate(classes["trickle"]):
            if i in gone or pos >= len(reg):
                continue
            try:
                s.send(reg[pos:pos + 1], socket.MSG_DONTWAIT)
            except OSError:
                gone.add(i)
        pos += 1
        time.sleep(0.5)
    out = []
    for k, socks in classes.items():
        out.append("%s=%d %s_dropped=%d" % (k, len(socks), k,
                                            sum(1 for s in socks if closed_by_peer(s))))
    print(" ".join(out))


def agentspy(port, seconds):
    """Records every ENABLE's logger (and its filter) until REGISTRATION_DONE
    and after, answering each command."""
    s = tcp(port)
    s.sendall(agent_reg())
    seen, done = [], False
    s.settimeout(0.2)
    ready()
    end, stop = time.monotonic() + seconds, os.environ.get("ATTACK_STOP")
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        try:
            cmd, data = agent_cmd(s)
        except socket.timeout:
            continue
        except (EOFError, OSError):
            break
        if cmd == AGENT_REG_DONE:
            done = True
            continue
        if cmd in (AGENT_ENABLE, AGENT_DISABLE):
            off = 8 if cmd == AGENT_ENABLE else 0
            name = data[off:off + 256].split(b"\0")[0].decode(errors="replace")
            filt = data[off + 260:].split(b"\0")[0].decode(errors="replace") \
                if cmd == AGENT_ENABLE else ""
            seen.append(("+" if cmd == AGENT_ENABLE else "-") + name + "|" + filt)
        s.sendall(struct.pack(">I", 1))
    print("done=%d rules=%s" % (done, ",".join(seen) or "-"))


def agentlist(port, seconds):
    """Answers LIST with names holding a terminal escape and a newline."""
    s = tcp(port)
    s.sendall(agent_reg())
    s.settimeout(0.2)
    names = [b"evil\x1b]0;owned\x07", b"evil\nforged", b"plain.logger"]
    lists = 0
    ready()
    end, stop = time.monotonic() + seconds, os.environ.get("ATTACK_STOP")
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        try:
            cmd, _ = agent_cmd(s)
        except socket.timeout:
            continue
        except (EOFError, OSError):
            break
        if cmd == AGENT_LIST:
            body = b"".join(n + b"\0" for n in names)
            s.sendall(struct.pack(">III", 1, len(body), len(names)) + body)
            lists += 1
        elif cmd != AGENT_REG_DONE:
            s.sendall(struct.pack(">I", 1))
    print("lists=%d" % lists)


def agentbig(port, agents, seconds):
    body = b"".join(b"big%07d\0" % i for i in range(100000))
    body = body[:1 << 20].rsplit(b"\0", 1)[0] + b"\0"
    socks = []
    for _ in range(agents):
        s = tcp(port)
        s.sendall(agent_reg())
        socks.append(s)
    ready()
    lists, end = 0, time.monotonic() + seconds
    stop = os.environ.get("ATTACK_STOP")
    for s in socks:
        s.setblocking(False)
    bufs, rest = [b""] * len(socks), []
    while time.monotonic() < end and not (stop and os.path.exists(stop)):
        for i, s in enumerate(socks):
            try:
                bufs[i] += s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                continue
            while len(bufs[i]) >= 16:
                size, cmd, _ = struct.unpack(">QII", bufs[i][:16])
                if len(bufs[i]) < 16 + size:
                    break
                bufs[i] = bufs[i][16 + size:]
                try:
                    if cmd == AGENT_LIST:
                        # the head and half the names now, the rest later:
                        # the daemon holds all the agents' answers at once
                        s.setblocking(True)
                        s.settimeout(5)
                        s.sendall(struct.pack(">III", 1, len(body), 100000) + body[:1000])
                        s.setblocking(False)
                        rest.append((time.monotonic() + 0.5, s))
                        lists += 1
                    elif cmd != AGENT_REG_DONE:
                        s.send(struct.pack(">I", 1))
                except OSError:
                    pass
        while rest and rest[0][0] <= time.monotonic():
            try:
                rest[0][1].setblocking(True)
                rest[0][1].settimeout(5)
                rest[0][1].sendall(body[1000:])
                rest[0][1].setblocking(False)
            except OSError:
                pass
            rest.pop(0)
        time.sleep(0.01)
    dropped = sum(1 for s in socks if closed_by_peer(s))
    print("agents=%d lists=%d dropped=%d" % (len(socks), lists, dropped))


def agent(port):
    """A well-behaved agent's registration: ms until REGISTRATION_DONE."""
    t0 = time.monotonic()
    s = tcp(port)
    s.settimeout(30)
    s.sendall(agent_reg())
    enables = 0
    while True:
        cmd, _ = agent_cmd(s)
        if cmd == AGENT_REG_DONE:
            break
        enables += cmd == AGENT_ENABLE
        s.sendall(struct.pack(">I", 1))
    print("registered_ms=%d enables=%d" % ((time.monotonic() - t0) * 1000, enables))


def main(argv):
    what, path, args = argv[1], argv[2], [int(a) for a in argv[3:]]
    {"slowloris": slowloris, "flood": flood, "regbomb": regbomb, "mute": mute,
     "churn": churn, "agentflood": agentflood, "agentspy": agentspy,
     "agentlist": agentlist, "agentbig": agentbig, "agent": agent, "names": names}[what](path, *args)


if __name__ == "__main__":
    main(sys.argv)
