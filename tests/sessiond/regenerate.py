#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`trawl regenerate metadata|statedump` and `trawl metadata regenerate`
through the real daemons, traces read with babeltrace2's bt2.

    regenerate.py ust     an app's trace whose metadata file was emptied on
                          disk reads whole again after `regenerate metadata`
                          with the same text (and after `metadata regenerate`),
                          events recorded before and after; refusals: a
                          session not started, per-process buffers; `regenerate
                          statedump` of a user-space session succeeds
    regenerate.py kernel  (root, tracefs) the same for the kernel metadata,
                          and each `regenerate statedump` records one more
                          lttng_statedump_start/_end pair
"""
import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402
from trackers import App, expect_refused as refused, wait_registered  # noqa: E402


def count(path, names):
    """{event name: count} for @names in the trace at @path."""
    import bt2
    got = {n: 0 for n in names}
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst and m.event.name in got:
            got[m.event.name] += 1
    return got


def empty_metadata(path):
    """Empties every metadata file under @path (in place: the same inode);
    returns {file: the text it had}."""
    files = {}
    for f in glob.glob(path + "/**/metadata", recursive=True):
        with open(f, "rb") as fh:
            files[f] = fh.read()
        os.truncate(f, 0)
    return files


def declares(path, name):
    """Whether the metadata file @path declares event @name whole (its
    block closed: the daemon may send the text in parts)."""
    with open(path, "rb") as fh:
        text = fh.read()
    at = text.find(b'name = "%s";' % name)
    return at >= 0 and text.rstrip().endswith(b"};")


def same_metadata(files):
    """Each file of @files holds its text again (regenerated whole)."""
    for f, text in files.items():
        with open(f, "rb") as fh:
            now = fh.read()
        if now != text:
            fail("%s: %d bytes after regenerate, %d before it was emptied" %
                 (f, len(now), len(text)))


def said(r, want):
    if r.stdout != want + "\n":
        fail("said %r, want %r" % (r.stdout, want))


def test_ust(env):
    app = App(env.env, 1)
    wait_registered(env, [app.pid])  # its events count from the first
    env.trawl("create", "s", "-o", env.out)
    env.trawl("enable-event", "-u", "tall:seq")
    refused(env, ["regenerate", "metadata"], "not started")
    refused(env, ["regenerate", "statedump"], "not started")
    refused(env, ["regenerate", "nothing"], "nothing")
    refused(env, ["metadata", "nothing"], "nothing")
    env.trawl("start")
    app.emit(100)
    said(env.trawl("regenerate", "statedump"), "State dump successfully regenerated for session s")
    # the consumer creates the trace's files as it takes the app's first
    # packets, and its metadata grows as the daemon sends it (the event's
    # declaration after the trace's): on a loaded machine, after the
    # commands above return. Once it declares tall:seq it is whole (the
    # session's one event): a file emptied before would be compared with
    # part of the text (once: 2049 bytes of 2357).
    for _ in range(600):
        if any(declares(f, b"tall:seq") for f in glob.glob(env.out + "/**/metadata",
                                                            recursive=True)):
            break
        time.sleep(0.05)
    files = empty_metadata(env.out)
    if len(files) != 1 or not all(files.values()):
        fail("one metadata file expected under %s: %s" % (env.out, list(files)))
    said(env.trawl("regenerate", "metadata"), "Metadata successfully regenerated for session s")
    same_metadata(files)
    app.emit(50)
    empty_metadata(env.out)
    said(env.trawl("metadata", "regenerate", "-s", "s"),
         "Metadata successfully regenerated for session s")
    env.trawl("stop")
    app.close()
    got = count(env.out, ["tall:seq"])["tall:seq"]
    if got != 150:
        fail("after the stop: %d events read, want 150" % got)
    # LTTng's refusals
    env.trawl("create", "p", "-o", env.dir + "/p")
    env.trawl("enable-channel", "-u", "--buffers-pid", "c", "-s", "p")
    env.trawl("enable-event", "-u", "tall:seq", "-c", "c", "-s", "p")
    env.trawl("start", "p")
    refused(env, ["regenerate", "metadata", "-s", "p"], "per-process")
    refused(env, ["regenerate", "metadata", "-s", "nosuch"], "nosuch")


def test_kernel(env):
    if os.geteuid() != 0 or not os.path.isdir("/sys/kernel/tracing/instances"):
        print("SKIP: kernel tracing needs root and tracefs")
        sys.exit(77)
    env.trawl("create", "k", "-o", env.out)
    env.trawl("enable-event", "-k", "lttng_statedump_start,lttng_statedump_end,sched_process_exec")
    env.trawl("start")
    for _ in range(2):
        said(env.trawl("regenerate", "statedump"),
             "State dump successfully regenerated for session k")
    os.system("true")  # one exec the trace records
    files = empty_metadata(env.out)
    if len(files) != 1:
        fail("one kernel metadata file expected under %s: %s" % (env.out, list(files)))
    said(env.trawl("regenerate", "metadata"), "Metadata successfully regenerated for session k")
    with open(list(files)[0], "rb") as fh:
        if not fh.read().startswith(b"/* CTF 1.8 */"):
            fail("the kernel metadata was not written again")
    env.trawl("stop")
    got = count(env.out, ["lttng_statedump_start", "lttng_statedump_end", "sched_process_exec"])
    # one dump at the start, one per regenerate statedump
    if got["lttng_statedump_start"] != 3 or got["lttng_statedump_end"] != 3:
        fail("state dumps: %s, want 3 starts and 3 ends" % got)
    if got["sched_process_exec"] < 1:
        fail("no sched_process_exec read: %s" % got)


def main():
    require_bt2()
    what = sys.argv[1]
    env = trawltest.Env("trawl-regenerate-%s." % what)
    try:
        {"ust": test_ust, "kernel": test_kernel}[what](env)
    finally:
        env.close()
    if FAILS:
        sys.exit(1)
    print("ok")


main()
