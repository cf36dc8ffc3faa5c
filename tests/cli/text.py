# SPDX-License-Identifier: MIT
"""The commands' printed text is LTTng 2.13's (issue 16).

One sequence of commands (mi.py's, and the cases below: comma lists with a
failing item, disable-event --all, contexts on every channel, destroy
--all of several sessions, list of a session that does not exist) runs
through trawl and, as a user made for the test, through real LTTng 2.13.9
(LttngRef). For each command both tools must succeed or both fail, and
their standard output must be the same once normalised:

- each tool's folders and HOME, the default trace folder, auto-session
  names and archive times;
- progress that depends on timing (LTTng's "Waiting for data
  availability...", "Destroying session S..." and its dots);
- channels and their event rules compared as sets (LTTng prints its hash
  tables' order);
- KNOWN: the differences by design, each named below.

Standard error is not compared: each tool's error line is its own
(trawl's name what was wrong and where; cli-errors checks them). Without
LTTng (not root, no lttng-tools) the test skips.

    text.py    (through ctest: TRAWL_BIN_DIR)
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trawltest import BIN, Env, fail  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402
import mi  # noqa: E402

# Beyond mi.py's sequence. A `!` first: the command fails with both tools.
MORE = [
    "!list nosuch",
    "create c1 -o {D}/c1",
    "!enable-channel -u a1,a2,a1",
    "!enable-channel -u b1,.bad,b2",
    "!enable-event -u e1,e1,e2 -c a1",
    "enable-event -u -a -c b1",
    "add-context -u -t vtid",
    "!disable-event -u nosuch,e1 -c a1",
    "disable-event -u -a -c b1",
    "!disable-event -u --tracepoint e2 -c a1",
    "!disable-channel -u nosuch,b2",
    "enable-channel -u m1 --output mmapx",
    "!enable-channel -u m2 --output bogus",
    "list c1",
    "create c2 --no-output",
    "create c3 --snapshot -o {D}/c3",
    "list",
    "destroy --all",
    "destroy --all",
    # agent domains: refusals, a list with a failing item
    "create ag2 -o {D}/ag2",
    "enable-event -j ev1 -s ag2",
    "!enable-event -j ev1,ev2 -s ag2",
    "!enable-event -j ev3 --exclude x -s ag2",
    "!enable-event -j ev* --exclude evx -s ag2",
    "!enable-event -l l5 --loglevel LOG4J_BOGUS -s ag2",
    "!enable-event -l l5 --loglevel ALL -s ag2",
    "!enable-event -j -p x -s ag2",
    "!enable-event -j x --syscall -s ag2",
    "!disable-event -j nosuch -s ag2",
    "disable-event -j ev1 -c lttng_jul -s ag2",
    "list ag2",
    "destroy ag2",
]

# Lines that differ by design, each (pattern, replacement) applied to both
# tools' output:
KNOWN = [
    # each tool's name (`version` is not compared)
    (r"^Use (lttng|trawl) list", "Use TOOL list"),
    # trawl's default kernel sub-buffer is 1 MiB, and its user-space
    # channels have 8 of 512 KiB per CPU (LTTng's 4 of 512 KiB):
    # src/sessiond/cmd-channel.c, channel_defaults()
    (r"^(      Sub-buffer size:  )(524288|1048576) bytes$", r"\1DEFAULT"),
    (r"^(      Sub-buffer count: )(4|8)$", r"\1DEFAULT"),
]
# Lines one tool prints and the other has no counterpart for:
DROP = [
    # LTTng's progress, timing-dependent
    r"^Waiting for data availability\.*$",
    r'^Waiting for clear of session ".*"\.*$',
]
# Blocks (a first line, then up to the next blank line, the blank before
# the block dropped too): trawl also counts losses per domain (its "Events
# discarded:" and "Bytes written:" lines) and lists a channel's contexts.
DROP_BLOCKS = [r"^Events discarded: ", r"^    Context: "]


def normalise(text, folder, home):
    text = text.replace(folder, "{D}").replace(home, "{H}")
    text = text.replace("{H}/trawl-traces/", "{H}/TRACES/").replace("{H}/lttng-traces/",
                                                                    "{H}/TRACES/")
    text = re.sub(r"auto-\d{8}-\d{6}", "auto-TIME", text)
    text = re.sub(r"\d{8}T\d{6}[+-]\d{4}", "TIME", text)
    text = re.sub(r"^Destroying session \S+?\.*(?=Session |Trace chunk|$)", "", text, flags=re.M)
    text = re.sub(r"^(Waiting for rotation to complete)\.*$", r"\1...", text, flags=re.M)
    # LTTng's destroy ends the line of its progress dots before "Session S
    # destroyed" (a blank line once the archive's line came between)
    text = re.sub(r"^(Trace chunk archive for session .*)\n\n(?=Session )", r"\1\n", text,
                  flags=re.M)
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if any(re.match(p, line) for p in DROP_BLOCKS):
            if out and out[-1] == "":
                out.pop()
            while i < len(lines) and lines[i] != "":
                i += 1
            continue
        if not any(re.match(p, line) for p in DROP):
            for p, r in KNOWN:
                line = re.sub(p, r, line)
            out.append(line)
        i += 1
    return sets(out).strip("\n")


AGENT_DOMAINS = ("=== Domain: java.util.logging (JUL) ===", "=== Domain: log4j ===",
                 "=== Domain: Python logging ===")
AGENT_SHORT = ("  - JUL (Java Util Logging)", "  - LOG4j (Logging for Java)", "  - Python (logging)")


def agents_sorted(lines):
    """The agent domains (their blocks in `list SESSION`, their lines in
    `list SESSION -d`) and each one's rules ("    - LOGGER [...]") sorted:
    LTTng prints its hash tables' order."""
    lines = list(lines)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and (lines[j].startswith("    - ") or lines[j] in AGENT_SHORT):
            j += 1
        lines[i:j] = sorted(lines[i:j])
        i = j + 1
    blocks, out, cur = [], [], None
    for line in lines:
        if line in AGENT_DOMAINS:
            cur = [line]
            blocks.append(cur)
        elif cur is not None and line.startswith("=== "):
            cur = None
            out.append(line)
        elif cur is not None:
            cur.append(line)
        else:
            out.append(line)
    if blocks:
        # the agent domains come after the others, at the end: each without
        # its trailing blank lines, one blank line between two
        for b in blocks:
            while b and b[-1] == "":
                b.pop()
        tail = []
        for b in sorted(blocks):
            tail += b + [""]
        out = out + [""] + tail if out and out[-1] != "" else out + tail
    return out


def sets(lines):
    """Channels ("- NAME: [...]" blocks) and the rules inside each, sorted;
    the agent domains sorted (agents_sorted())."""
    lines = agents_sorted(lines)
    out, block = [], None
    chans = []

    def flush():
        if block is not None:
            head, rest = block[0], block[1:]
            while rest and rest[-1] == "":
                rest.pop()
            try:
                k = rest.index("    Recording event rules:")
                j = k + 1
                while j < len(rest) and rest[j].startswith("      "):
                    j += 1
                rest = rest[:k + 1] + sorted(rest[k + 1:j]) + rest[j:]
            except ValueError:
                pass
            chans.append([head] + rest + [""])

    for line in lines:
        if line.startswith("- ") and line.endswith("]"):
            flush()
            block = [line]
        elif block is not None and (line.startswith("===") or line.startswith("Channels:")):
            flush()
            out.extend(x for c in sorted(chans) for x in c)
            chans, block = [], None
            out.append(line)
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    flush()
    out.extend(x for c in sorted(chans) for x in c)
    return "\n".join(out)


def archived(folder, suffix, bound=120):
    """Waits (at most @bound s, to catch a hang) for a trace chunk archive
    named ...@suffix in @folder."""
    end = time.monotonic() + bound
    while time.monotonic() < end:
        try:
            if any(n.endswith(suffix) for n in os.listdir(folder)):
                return
        except OSError:
            pass
        time.sleep(0.05)
    fail("no archive ...%s in %s after %d s" % (suffix, folder, bound))


def main():
    ref = LttngRef.make("trawltext")
    if not ref:
        print("SKIP: no LTTng 2.13 to compare with (needs root and lttng-tools)")
        return 77
    env = Env("trawl-text.")
    # the same locale for both (LTTng prints "µs" only where LANG holds "utf8")
    env.env["LANG"] = "C.UTF-8"
    same = 0
    seq = mi.SEQUENCE + MORE
    try:
        tfolder = env.dir + "/out"
        os.makedirs(tfolder)
        lfolder = ref.dir + "/out"
        os.makedirs(lfolder)
        os.chown(lfolder, ref.uid, -1)
        for cmd in seq:
            if cmd == "version":
                continue
            want_ok = not cmd.startswith("!")
            t = subprocess.run([os.path.join(BIN, "trawl")] + mi.words(cmd, tfolder),
                               env=env.env, capture_output=True, text=True, timeout=120)
            lt = ref.lttng_raw("lttng", *mi.words(cmd, lfolder), extra_env=["LANG=C.UTF-8"])
            if (t.returncode == 0) != want_ok or (lt.returncode == 0) != want_ok:
                fail("%s: trawl exit %d, lttng exit %d, wanted %s (trawl: %s; lttng: %s)"
                     % (cmd, t.returncode, lt.returncode, "0" if want_ok else "non-zero",
                        t.stderr.strip(), lt.stderr.strip()))
            ours = normalise(t.stdout, tfolder, env.env["HOME"])
            theirs = normalise(lt.stdout, lfolder, ref.home)
            if ours != theirs:
                fail("%s: printed differently\n--- lttng\n%s\n--- trawl\n%s" % (cmd, theirs, ours))
            else:
                same += 1
            if cmd == "rotate -n s1":
                # Both rotations done before the next command: LTTng's clear
                # takes a chunk id (its archive's number at destroy) only
                # once the rotation is over (a clear right after `rotate -n`
                # takes none), which depends on the machine's load.
                for folder in (tfolder, lfolder):
                    archived(os.path.join(folder, "t1", "archives"), "-1")
    finally:
        env.close()
        ref.close()
    print("%d of %d commands print the same as LTTng 2.13 (version not compared)"
          % (same, len(seq) - 1))
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
