# SPDX-License-Identifier: MIT
"""The syscall arguments LTTng-modules 2.13 decodes (socket addresses, pollfd
arrays, epoll events, fd sets; clone's flags), made by `ksyscalls args` with
known values, read back as babeltrace2 prints them: each payload must be the
text an LTTng kernel trace of the same calls gives (the field names, order,
types and values of LTTng's overrides, syscalls_pointers_override.h)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
trace = os.path.join(d, "trace")
prog = os.path.join(ktest.BIN, "ksyscalls")
calls = ["connect", "accept4", "poll", "ppoll", "epoll_ctl", "epoll_wait", "select", "clone"]
args = ["-o", trace, "--filter", 'COMM == "ksyscalls"']
for c in calls:
    args += ["-s", c]
p = ktest.ktrace(args + ["--", prog, "args"])
truth = dict(l.split("=", 1) for l in p.stdout.split() if "=" in l)
pid = int(truth["pid"])
print("program:", truth)

lines, err = ktest.babeltrace_clean(trace)
assert err == "", err
# "name: { cpu_id = N }, { payload }" of the program's events (the clone child's too)
payloads = []
for line in lines:
    m = re.search(r" (syscall_\w+): \{ cpu_id = \d+ \}, \{ (.*) \}$", line)
    if m:
        payloads.append((m.group(1), m.group(2)))
print("\n".join("%s: %s" % x for x in payloads))
failures = []


def expect(name, pattern, count=1):
    """@count payloads of event @name match @pattern (a regex of the whole payload);
    count None: at least one."""
    got = [pl for n, pl in payloads if n == name and re.fullmatch(pattern, pl)]
    if len(got) != count and (count is not None or not got):
        failures.append("%s: %d payloads match, expected %d:\n  %s\n  in: %s" % (
            name, len(got), count, pattern, [pl for n, pl in payloads if n == name]))


def esc(s):
    return re.escape(s)


HEX = r"0x[0-9A-F]+"
V4 = "_v4addr_length = 4, v4addr = [ [0] = 127, [1] = 0, [2] = 0, [3] = 1 ], _v6addr_length = 0, v6addr = [ ]"
V6 = ("_v4addr_length = 0, v4addr = [ ], _v6addr_length = 8, v6addr = [ [0] = 0, [1] = 0, [2] = 0, "
      "[3] = 0, [4] = 0, [5] = 0, [6] = 0, [7] = 1 ]")
# connect to 127.0.0.1:port (family AF_INET = 2, dport in host order as LTTng prints it)
expect("syscall_entry_connect", r"fd = \d+, uservaddr = %s, addrlen = 0x10, " % HEX +
       esc("family = 2, dport = %s, %s" % (truth["port"], V4)))
# accept4: upeer_addrlen is the int it points to (16 at entry and exit), the peer's address at exit
expect("syscall_entry_accept4", r"fd = \d+, upeer_sockaddr = %s, upeer_addrlen = 16, flags = 0x80000" % HEX)
expect("syscall_exit_accept4", r"ret = \d+, " + esc("upeer_addrlen = %s, family = 2, sport = %s, %s" % (
    truth["addrlen"], truth["peer_port"], V4)))
if truth["v6"] == "1":
    expect("syscall_entry_connect", r"fd = \d+, uservaddr = %s, addrlen = 0x1C, " % HEX +
           esc("family = 10, dport = 9, " + V6))


def pollfd(fd, ev):
    names = ["POLLIN", "POLLPRI", "POLLOUT", "POLLERR", "POLLHUP"]
    bits = ", ".join("%s = %d" % (n, (ev >> i) & 1) for i, n in enumerate(names))
    return "{ fd = %s, raw_events = 0x%X, events = { %s, padding = 0 } }" % (fd, ev, bits)


def seq(items):
    return "[ " + ", ".join("[%d] = %s" % (i, x) for i, x in enumerate(items)) + " ]" if items else "[ ]"


p0, p1, q0 = truth["p0"], truth["p1"], truth["q0"]
fds_in = seq([pollfd(p0, 0x1), pollfd(p1, 0x4), pollfd(q0, 0x3)])
fds_out = seq([pollfd(p0, 0x1), pollfd(p1, 0x4)])  # only the fds with revents, ret of them
assert truth["poll_ret"] == "2" and truth["ppoll_ret"] == "2", truth
expect("syscall_entry_poll", esc("timeout_msecs = 0, nfds = 3, fds_length = 3, overflow = 0, fds = " + fds_in))
expect("syscall_exit_poll", esc("ret = 2, nfds = 3, fds_length = 2, fds = " + fds_out))
expect("syscall_entry_ppoll", r"tsp = \d+, sigmask = 0, sigsetsize = 8, " +
       esc("nfds = 3, fds_length = 3, overflow = 0, fds = " + fds_in))
expect("syscall_exit_ppoll", esc("ret = 2, nfds = 3, fds_length = 2, overflow = 0, fds = " + fds_out))
# epoll_ctl: EPOLL_CTL_ADD of p0 with that event, as LTTng's enum and struct
EPEV = ("{ data_union = { u64 = 0x%X, fd = %s }, raw_events = 0x1, events = { EPOLLIN = 1, "
        "EPOLLPRI = 0, EPOLLOUT = 0, EPOLLERR = 0, padding = 0 } }" % (0xabcd00000000 | int(p0), p0))
expect("syscall_entry_epoll_ctl", esc('epfd = %s, op_enum = ( "EPOLL_CTL_ADD" : container = 1 ), fd = %s, '
                                      'event = %s' % (truth["epfd"], p0, EPEV)))
expect("syscall_exit_epoll_ctl", esc("ret = 0"))
# epoll_wait: the event's data (0xabcd << 32 | p0) and EPOLLIN
assert truth["epoll_ret"] == "1", truth
expect("syscall_entry_epoll_wait", esc("epfd = %s, maxevents = 4, timeout = 0" % truth["epfd"]))
expect("syscall_exit_epoll_wait", esc(
    "ret = 1, fds_length = 1, overflow = 0, fds = [ [0] = { data_union = { u64 = 0x%X, fd = %s }, "
    "raw_events = 0x1, events = { EPOLLIN = 1, EPOLLPRI = 0, EPOLLOUT = 0, EPOLLERR = 0, padding = 0 } } ]"
    % (0xabcd00000000 | int(p0), p0)))


# select: the fd sets as bytes (LTTng's uint8 hex sequences of DIV_ROUND_UP(n, 8) bytes)
def fdset(fds, n):
    b = [0] * ((n + 7) // 8)
    for fd in fds:
        b[fd // 8] |= 1 << (fd % 8)
    return seq(["0x%X" % x for x in b])


n = int(truth["select_n"])
rd_in, wr = fdset([int(p0), int(q0)], n), fdset([int(p1)], n)
assert truth["select_ret"] == "2", truth
expect("syscall_entry_select", r"n = %d, overflow = 0, tvp = \d+, " % n + esc(
    "_readfds_length = %d, readfds = %s, _writefds_length = %d, writefds = %s, "
    "_exceptfds_length = 0, exceptfds = [ ]" % ((n + 7) // 8, rd_in, (n + 7) // 8, wr)))
expect("syscall_exit_select", r"ret = 2, overflow = 0, tvp = \d+, " + esc(
    "_readfds_length = %d, readfds = %s, _writefds_length = %d, writefds = %s, "
    "_exceptfds_length = 0, exceptfds = [ ]" % ((n + 7) // 8, fdset([int(p0)], n), (n + 7) // 8, wr)))
# clone: LTTng 2.13's default build records flags as one hex integer (its flag split needs
# CONFIG_LTTNG_EXPERIMENTAL_BITWISE_ENUM, off by default)
expect("syscall_entry_clone", esc("flags = 0x%X, newsp = 0x0, parent_tid = " % int(truth["clone_flags"], 16)) +
       HEX + esc(", child_tid = 0x0"))
expect("syscall_exit_clone", esc("ret = %s" % truth["child"]))
# the child's return (under ASan, LeakSanitizer's own clone at exit returns 0 in its child too)
expect("syscall_exit_clone", esc("ret = 0"), None)
# babeltrace 1.5 reads it too, with the same text
if os.path.exists("/usr/bin/babeltrace"):
    import subprocess
    b1 = subprocess.run(["babeltrace", trace], capture_output=True, text=True, timeout=120)
    if b1.returncode != 0 or b1.stderr.strip():
        failures.append("babeltrace: %d %s" % (b1.returncode, b1.stderr))
    elif "syscall_exit_epoll_wait" not in b1.stdout:
        failures.append("babeltrace printed no epoll_wait exit")
if failures:
    raise SystemExit("\n".join(failures))
print("ok")
