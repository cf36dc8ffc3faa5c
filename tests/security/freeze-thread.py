#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""freeze-thread.py PID COMM: stops the one thread of process PID whose
name is COMM (ptrace: PTRACE_SEIZE, PTRACE_INTERRUPT), the process's other
threads running on, and prints "frozen TID"; the thread stays stopped until
this is killed (the kernel then detaches it). tally-shm.sh late freezes
libtrawl-ust's agent thread ("trawl-ust") so that the program cannot notice,
for as long as the test needs, that the daemon dropped it: what a thread
not scheduled on a loaded machine does, without a race."""
import ctypes
import os
import signal
import sys

PTRACE_SEIZE, PTRACE_INTERRUPT = 0x4206, 0x4207
WALL = 0x40000000

pid, comm = int(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)
        if open("/proc/%d/task/%s/comm" % (pid, t)).read().strip() == comm]
if len(tids) != 1:
    sys.exit("freeze-thread: process %d has %d threads named %s" % (pid, len(tids), comm))
tid = tids[0]
if libc.ptrace(PTRACE_SEIZE, tid, None, None) or libc.ptrace(PTRACE_INTERRUPT, tid, None, None):
    sys.exit("freeze-thread: ptrace: %s" % os.strerror(ctypes.get_errno()))
_, status = os.waitpid(tid, WALL)
if not os.WIFSTOPPED(status):
    sys.exit("freeze-thread: thread %d did not stop (status %#x)" % (tid, status))
print("frozen %d" % tid, flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    signal.pause()
