# SPDX-License-Identifier: MIT
"""LTTng 2.13's per-channel "Statistics:" of `trawl list SESSION` (issue 16),
with real losses: two small channels (2 x 4 KiB per CPU), one in discard
mode and one in overwrite mode, both recording ust-app-all's tall:seq
written flat out, so the consumer (polling every 1 ms) cannot keep up.

Once the session is stopped, each channel's count is the one babeltrace2
reads in the trace for that channel's streams: the discard channel's
"Discarded events: N" is the sum of bt2's discarded-events messages of its
streams, the overwrite channel's "Lost packets: N" the sum of its
discarded-packets messages. `--mi xml list` says the same in LTTng's
<discarded_events> and <lost_packets> (the other one 0, as LTTng's daemon
gives), valid against mi-lttng-4.1.xsd when it is found (tests/cli/mi.py).
A snapshot session's channels say "None", as LTTng's.

    stats.py uid    per-user buffers
    stats.py pid    per-process buffers: the app has exited (its buffers
                    removed) when the session is listed
    stats.py kernel (root, tracefs) a 2 x 4 KiB kernel channel in discard
                    mode recording getpgid, flooded by ksyscalls (other
                    programs' calls count too, in both numbers alike)
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from trawltest import BIN, Env, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402
import mi  # noqa: E402

APP = os.path.join(BIN, "ust-app-all")
N = 200000


def bt2_losses(path):
    """{channel: (discarded events, discarded packets)} as bt2 reads @path."""
    require_bt2()
    import bt2
    got = {}
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._DiscardedEventsMessageConst:
            k, i = m.stream, 0
        elif type(m) is bt2._DiscardedPacketsMessageConst:
            k, i = m.stream, 1
        else:
            continue
        chan = re.sub(r"_\d+$", "", os.path.basename(str(k.name)))
        c = got.setdefault(chan, [0, 0])
        c[i] += m.count or 0
    return got


def statistics(text):
    """{channel: the lines of its "Statistics:" block} of `list SESSION`'s text."""
    got, chan, lines = {}, None, text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^- (\S+): \[(enabled|disabled)\]$", line)
        if m:
            chan = m.group(1)
        elif line == "    Statistics:" and chan:
            block = []
            for nxt in lines[i + 1:]:
                if not nxt:
                    break
                # what its buffers hold: tests/ust/memory.py checks it
                if not nxt.startswith("      Memory usage:"):
                    block.append(nxt)
            got[chan] = block
    return got


def mi_counters(doc):
    """{channel: (discarded_events, lost_packets)} of `--mi xml list SESSION`."""
    ns = {"m": "https://lttng.org/xml/ns/lttng-mi"}
    got = {}
    for ch in ET.fromstring(doc).iter("{%s}channel" % ns["m"]):
        a = ch.find("m:attributes", ns)
        got[ch.find("m:name", ns).text] = (int(a.find("m:discarded_events", ns).text),
                                           int(a.find("m:lost_packets", ns).text))
    return got


def check_mi(env, session, want):
    doc = env.trawl("--mi", "xml", "list", session).stdout
    xsd = mi.find_xsd()
    why = mi.xmllint(doc, xsd)
    if why:
        fail("--mi xml list %s: not %s: %s" % (session, "valid" if xsd else "well-formed", why))
        return
    got = mi_counters(doc)
    if got != want:
        fail("--mi xml list %s: counters %s, want %s" % (session, got, want))
    print("MI %s (%s): %s" % (session, "valid against " + xsd if xsd else "well-formed", got))


def case(buffers):
    env = Env("trawl-ust-stats.")
    try:
        env.trawl("create", "s", "--output", env.out)
        for ch, mode in (("disc", []), ("over", ["--overwrite"])):
            env.trawl("enable-channel", "-u", ch, "--subbuf-size", "4096", "--num-subbuf", "2",
                      "--buffers-" + buffers, *mode)
            env.trawl("enable-event", "-u", "tall:seq", "-c", ch)
        env.trawl("start")
        subprocess.run([APP, "1", str(N), "5000"], env=env.env, check=True, timeout=300)
        env.trawl("stop")
        text = env.trawl("list", "s").stdout
        stats = statistics(text)
        bt = bt2_losses(env.out)
        disc, lost = bt.get("disc", [0, 0])[0], bt.get("over", [0, 0])[1]
        print("%s: bt2 reads %d events discarded in disc, %d packets in over; list says %s"
              % (buffers, disc, lost, stats))
        if stats.get("disc") != ["      Discarded events: %d" % disc]:
            fail("disc: Statistics %s, want [Discarded events: %d] (bt2)" % (stats.get("disc"), disc))
        if stats.get("over") != ["      Lost packets:     %d" % lost]:
            fail("over: Statistics %s, want [Lost packets: %d] (bt2)" % (stats.get("over"), lost))
        if disc == 0:
            fail("a 2 x 4 KiB discard channel lost nothing of %d events" % N)
        check_mi(env, "s", {"disc": (disc, 0), "over": (0, lost)})
        # the same in `status` (the current session's list)
        if statistics(env.trawl("status").stdout) != stats:
            fail("status shows other statistics than list")

        env.trawl("create", "snap", "--snapshot", "--output", env.dir + "/snap")
        env.trawl("enable-channel", "-u", "ch", "-s", "snap", "--buffers-" + buffers)
        env.trawl("enable-event", "-u", "tall:seq", "-c", "ch", "-s", "snap")
        env.trawl("start", "snap")
        subprocess.run([APP, "1", "1000", "5000"], env=env.env, check=True, timeout=300)
        got = statistics(env.trawl("list", "snap").stdout)
        if got != {"ch": ["      None"]}:
            fail("snapshot session: Statistics %s, want None (LTTng's)" % got)
    finally:
        env.close()


def case_kernel():
    if os.geteuid() != 0 or not os.path.isdir("/sys/kernel/tracing/instances"):
        print("SKIP: kernel tracing needs root and tracefs")
        sys.exit(77)
    env = Env("trawl-kernel-stats.")
    try:
        env.trawl("create", "k", "--output", env.out)
        env.trawl("enable-channel", "-k", "kc", "--subbuf-size", "4096", "--num-subbuf", "2")
        env.trawl("enable-event", "-k", "-c", "kc", "--syscall", "getpgid")
        env.trawl("start")
        # getpgid(BASE + i): no such process, a cheap call (tests/kernel/ksyscalls.c)
        subprocess.run([os.path.join(BIN, "ksyscalls"), "flood", str(N), "1000000000"],
                       env=env.env, check=True, timeout=300, stdout=subprocess.DEVNULL)
        env.trawl("stop")
        stats = statistics(env.trawl("list", "k").stdout)
        disc = bt2_losses(env.out).get("kc", [0, 0])[0]
        print("kernel: bt2 reads %d events discarded in kc; list says %s" % (disc, stats))
        if stats.get("kc") != ["      Discarded events: %d" % disc]:
            fail("kc: Statistics %s, want [Discarded events: %d] (bt2)" % (stats.get("kc"), disc))
        if disc == 0:
            fail("a 2 x 4 KiB kernel channel lost nothing of %d getpgid calls" % N)
        check_mi(env, "k", {"kc": (disc, 0)})
    finally:
        env.close()


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("uid", "pid", "kernel"):
        sys.exit("usage: stats.py uid|pid|kernel")
    if sys.argv[1] == "kernel":
        case_kernel()
    else:
        case(sys.argv[1])
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
