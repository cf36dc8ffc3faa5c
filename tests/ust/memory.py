# SPDX-License-Identifier: MIT
"""`trawl list SESSION` says what a user-space channel's buffers hold
(LTTng 2.15's "Memory usage: USED / SIZE", issue 17), and buffers are
allocated lazily: a page costs memory once something is written in it.

A channel of 64 KiB x 4 sub-buffers per CPU; ust-app-all pinned to CPU 0
(taskset) records a few events, then many:

- before any app: no buffer exists, no "Memory usage" line (LTTng's
  "None" is not printed: LTTng 2.13 has no such line);
- after the few: SIZE is one stream buffer file per possible CPU; USED is
  more than 0, far from SIZE (the idle CPUs' buffers hold their control
  page alone, CPU 0's a few pages more);
- after the many (more than 64 KiB of events): USED has grown by at least
  64 KiB and is at most one whole stream plus the idle CPUs' control
  pages; the C API's figures (ChannelInfo through the Python module when it
  is built) are the line's;
- `--mi xml list` stays valid against mi-lttng-4.1 (no new element: LTTng
  2.15's <data_stream_info_sets> is not in 4.1).

    memory.py uid   per-user buffers: the second run adds to the first's
    memory.py pid   per-process buffers: one app, kept alive ("hang"),
                    listed while it holds them
"""
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from trawltest import BIN, Env, fail  # noqa: E402
import trawltest  # noqa: E402
import mi  # noqa: E402

APP = os.path.join(BIN, "ust-app-all")
SUBBUF, NSUB = 64 * 1024, 4
PAGE = os.sysconf("SC_PAGE_SIZE")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def possible_cpus():
    n = 0
    with open("/sys/devices/system/cpu/possible") as f:
        for part in f.read().strip().split(","):
            a, _, b = part.partition("-")
            n += int(b or a) - int(a) + 1
    return n


def memory_line(text):
    """(used, size) in bytes from the channel's "Memory usage:" line, or None."""
    m = re.search(r"^      Memory usage:     ([\d.]+) (\w+) / ([\d.]+) (\w+)$", text, re.M)
    if not m:
        return None
    return (float(m.group(1)) * UNITS[m.group(2)], float(m.group(3)) * UNITS[m.group(4)])


def check_mi(env):
    doc = env.trawl("--mi", "xml", "list", "s").stdout
    xsd = mi.find_xsd()
    why = mi.xmllint(doc, xsd)
    if why:
        fail("--mi xml list s: not %s: %s" % ("valid" if xsd else "well-formed", why))


def api_figures(env):
    """(memory_resident, memory_size) of channel ch through the Python
    module (the C API's ChannelInfo), or None when it is not built."""
    code = ("import sys, trawl\n"
            "c = trawl.Client().session('s').info().domains['ust'].channels['ch']\n"
            "print(c.memory_resident, c.memory_size)\n")
    pydir = os.path.join(os.path.dirname(BIN), "python")
    if not os.path.isdir(pydir):
        return None
    r = subprocess.run([sys.executable, "-c", code], env=dict(env.env, PYTHONPATH=pydir),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        print("note: no Python figures: %s" % r.stderr.strip().splitlines()[-1:])
        return None
    a, b = r.stdout.split()
    return int(a), int(b)


def check(env, label, used_min, used_max, size):
    """The line's figures after @label; returns used."""
    got = memory_line(env.trawl("list", "s").stdout)
    if got is None:
        fail("%s: no Memory usage line" % label)
        return 0
    used, sz = got
    print("%s: Memory usage %d of %d bytes (want %d..%d of %d)" % (label, used, sz, used_min, used_max, size))
    # The line rounds to 0.01 of its unit.
    if abs(sz - size) > size / 1000:
        fail("%s: size %d, want %d (%d streams of %d bytes)" % (label, sz, size, size // STREAM, STREAM))
    if not used_min <= used <= used_max * 1.001:
        fail("%s: %d bytes used, want %d..%d" % (label, used, used_min, used_max))
    api = api_figures(env)
    if api is not None:
        if api[1] != size or abs(api[0] - used) > max(used / 500, 1024):
            fail("%s: ChannelInfo says %s, the line %s" % (label, api, got))
        print("%s: ChannelInfo memory_resident %d, memory_size %d" % (label, api[0], api[1]))
    return used


def app(env, events, hang=False):
    argv = ["taskset", "-c", "0", APP, "1", str(events), "5000"] + (["hang"] if hang else [])
    if not hang:
        subprocess.run(argv, env=env.env, check=True, timeout=300, stdout=subprocess.DEVNULL)
        return None
    p = subprocess.Popen(argv, env=env.env, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        fail("the app did not get ready")
    return p


STREAM = 0


def case(buffers):
    global STREAM
    ncpu = possible_cpus()
    # One stream's file: its control page(s) and the sub-buffers.
    env = Env("trawl-ust-memory.")
    p = None
    try:
        env.trawl("create", "s", "--output", env.out)
        env.trawl("enable-channel", "-u", "ch", "--subbuf-size", str(SUBBUF), "--num-subbuf", str(NSUB),
                  "--buffers-" + buffers)
        env.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
        env.trawl("start")
        if memory_line(env.trawl("list", "s").stdout) is not None:
            fail("a Memory usage line before any app was traced (no buffer exists)")
        check_mi(env)
        p = app(env, 100, hang=buffers == "pid")
        text = env.trawl("list", "s").stdout
        got = memory_line(text)
        if got is None:
            fail("no Memory usage line once an app was traced:\n" + text)
            return
        STREAM = int(round(got[1] / ncpu / PAGE)) * PAGE
        if STREAM < SUBBUF * NSUB or STREAM > SUBBUF * NSUB + 16 * PAGE:
            fail("a stream file of %d bytes for %d x %d" % (STREAM, NSUB, SUBBUF))
        size = STREAM * ncpu
        ctrl = STREAM - SUBBUF * NSUB
        # Idle CPUs: their control pages alone (no page of their
        # sub-buffers, not even for their empty first packet's header,
        # which the consumer fills in its own memory); CPU 0: a few pages.
        idle = (ncpu - 1) * ctrl
        used1 = check(env, "100 events on CPU 0", ncpu * ctrl, idle + ctrl + 4 * PAGE, size)
        if used1 * 4 > size:
            fail("100 events made %d of %d bytes resident: not lazy" % (used1, size))
        check_mi(env)
        if buffers == "uid":
            # The same user's buffers: the second app adds to what the first wrote.
            app(env, 20000)
            used2 = check(env, "20000 more events on CPU 0", used1 + SUBBUF, idle + STREAM, size)
            if ncpu > 1 and used2 > idle + STREAM:
                fail("CPUs that never traced hold more than their control pages")
        check_mi(env)
        env.trawl("stop")
    finally:
        if p:
            p.send_signal(signal.SIGKILL)
            p.wait()
        env.close()


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("uid", "pid"):
        sys.exit("usage: memory.py uid|pid")
    case(sys.argv[1])
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
