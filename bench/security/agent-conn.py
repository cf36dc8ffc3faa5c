# SPDX-License-Identifier: MIT
"""The root daemon's cost per connection on the agent port (run.sh's
agent-port row).

  hold N           (as another user) holds N TCP sockets on 127.0.0.1 (N/2
                   connected pairs to a listener of its own), prints "ready",
                   until stdin closes
  conns PORT PID N N connections, each sending a registration of another
                   domain and waiting for the daemon to drop it: prints the
                   median round trip in ms and the daemon PID's CPU time per
                   connection in ms (utime + stime, /proc/PID/stat)
"""
import os
import resource
import socket
import struct
import sys
import time


def hold(n):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1024)
    socks = []
    while len(socks) < n:
        c = socket.create_connection(lst.getsockname())
        socks.append(c)
        socks.append(lst.accept()[0])
    print("ready", flush=True)
    sys.stdin.read()


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def conns(port, pid, n):
    reg = struct.pack(">4I", 7, os.getpid(), 2, 0)  # not an agent domain
    times, c0 = [], cpu_ms(pid)
    for _ in range(n):
        t0 = time.monotonic()
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(reg)
        s.settimeout(30)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        s.close()
        times.append((time.monotonic() - t0) * 1000)
    times.sort()
    print("%.2f %.3f" % (times[len(times) // 2], (cpu_ms(pid) - c0) / n))


if __name__ == "__main__":
    if sys.argv[1] == "hold":
        hold(int(sys.argv[2]))
    else:
        conns(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
