#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""LTTng's Java agents under trawl (issue 16): a Java program that logs
through java.util.logging (argument jul) or log4j 1.2 (log4j) with Debian's
LTTng agent jars, unchanged (liblttng-ust-agent-java), registers on
trawl-sessiond's agent port (agent.port in $LTTNG_HOME/.lttng) and loads
trawl's liblttng-ust-jul-jni.so / liblttng-ust-log4j-jni.so from
lib/lttng-compat (first on LD_LIBRARY_PATH, which the JVM searches first);
its log records are recorded as lttng_jul:event / lttng_log4j:event with
LTTng's fields, read back with babeltrace2's bt2.

The programs (java/TrawlJul.java, java/TrawlLog4j.java) are compiled here
with javac. Checked, against the records each program makes: the field
names and values (message, logger, class, method, the record's time, its
thread; log4j's file and line); a rule by logger and --loglevel in one
session while a second session has another logger and a rule enabled then
disabled (which records nothing); --loglevel-only and a --filter in two
sessions at once; '*' enabled and a rule disabled while the program runs;
list -j|-l naming the running program's loggers. Skips without java,
javac, the agent jars (and log4j's), or bt2.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

COMPAT = os.path.normpath(os.path.join(BIN, "..", "lib", "lttng-compat"))
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")
JARS = "/usr/share/java"

# What differs between the two agents: the program, the domain option, the
# jars, the native library, the event, its fields, the framework's level
# of each record the program makes, the names used with --loglevel and
# --loglevel-only, and how list names the domain.
FLAVOURS = {
    "jul": {
        "class": "TrawlJul", "opt": "-j", "jars": ["lttng-ust-agent-common.jar",
                                                  "lttng-ust-agent-jul.jar"],
        "lib": "liblttng-ust-jul-jni.so", "event": "lttng_jul:event",
        "fields": ["msg", "logger_name", "class_name", "method_name", "long_millis",
                   "int_loglevel", "int_threadid"],
        "time": "long_millis",
        "levels": {"info 1": 800, "fine 2": 500, "warning 3": 900, "other 4": 1000,
                   "late 5": 800, "late other 6": 1000},
        "at_least": "INFO", "only": "JUL_WARNING",
    },
    "log4j": {
        "class": "TrawlLog4j", "opt": "-l", "jars": ["lttng-ust-agent-common.jar",
                                                    "lttng-ust-agent-log4j.jar",
                                                    "log4j-1.2.jar"],
        "lib": "liblttng-ust-log4j-jni.so", "event": "lttng_log4j:event",
        "fields": ["msg", "logger_name", "class_name", "method_name", "filename",
                   "line_number", "timestamp", "int_loglevel", "thread_name"],
        "time": "timestamp",
        "levels": {"info 1": 20000, "debug 2": 10000, "warning 3": 30000, "other 4": 40000,
                   "late 5": 20000, "late other 6": 40000},
        "at_least": "INFO", "only": "LOG4J_WARN",
    },
}


def records(trace, event):
    """(logger_name, msg, int_loglevel) of each @event, sorted, and the
    first's payload as a dict (field order kept)."""
    import bt2
    got, first = [], None
    for m in bt2.TraceCollectionMessageIterator(trace):
        if type(m) is bt2._EventMessageConst and m.event.name == event:
            p = m.event.payload_field
            if first is None:
                first = {k: p[k] for k in p.keys()}
            got.append((str(p["logger_name"]), str(p["msg"]), int(p["int_loglevel"])))
    return sorted(got), first


def want(fl, *msgs):
    return sorted(("other" if m.startswith("other") or m.startswith("late other") else "app.db",
                   m, fl["levels"][m]) for m in msgs)


def check(what, got, wanted):
    if got != wanted:
        fail("%s: recorded %r, wanted %r" % (what, got, wanted))


class Program:
    def __init__(self, env, fl):
        self.env, self.fl = env, fl
        self.cp = env.dir + ":" + ":".join(os.path.join(JARS, j) for j in fl["jars"])
        self.app_env = dict(env.env)
        # the agent finds the daemon as LTTng's does: $LTTNG_HOME/.lttng/agent.port
        # (a root daemon's own is in its runtime folder)
        self.home = env.dir + "/apphome"
        os.makedirs(self.home + "/.lttng", exist_ok=True)
        self.app_env["LTTNG_HOME"] = self.home
        self.app_env["LD_LIBRARY_PATH"] = COMPAT
        src = os.path.join(SRC, fl["class"] + ".java")
        r = subprocess.run(["javac", "-d", env.dir, "-cp", self.cp, src], capture_output=True,
                           text=True, timeout=300)
        if r.returncode:
            raise RuntimeError("javac %s: %s" % (src, r.stderr.strip()))
        with open(src) as f:
            self.info_line = next(i for i, line in enumerate(f, 1) if "TRAWL-LINE info" in line)

    def share_port(self):
        with open(self.env.env["TRAWL_ROOT_RUNTIME_DIR"] + "/agent.port") as f:
            port = int(f.read().strip())
        with open(self.home + "/.lttng/agent.port", "w") as f:
            f.write("%d\n" % port)

    def start(self, logger, *files):
        return subprocess.Popen(["java", "-cp", self.cp, self.fl["class"], logger] + list(files),
                                env=self.app_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def finish(self, p):
        """The program's output once it ended: its thread ("tid") and the
        wall clock (ms) before and after its records; None if it failed."""
        try:
            out, err = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        if p.returncode:
            fail("%s failed (%d): %s" % (self.fl["class"], p.returncode, err.strip()))
            return None
        tid = re.search(r"^tid (\S+)$", out, re.M)
        ms = [int(x) for x in re.findall(r"^ms (\d+)$", out, re.M)]
        if not tid or len(ms) != 2:
            fail("%s said %r" % (self.fl["class"], out))
            return None
        return tid.group(1), ms


def check_fields(fl, prog, first, said):
    """The first record (app.db's "info 1") field by field."""
    if first is None or said is None:
        return
    if list(first) != fl["fields"]:
        fail("%s's fields: %r, wanted LTTng's %r" % (fl["event"], list(first), fl["fields"]))
        return
    tid, (ms0, ms1) = said
    if str(first["msg"]) != "info 1" or str(first["class_name"]) != fl["class"] or \
            str(first["method_name"]) != "main":
        fail("msg, class_name, method_name: %r" % first)
    if not ms0 <= int(first[fl["time"]]) <= ms1:
        fail("%s %d not in the program's %d..%d" % (fl["time"], int(first[fl["time"]]), ms0, ms1))
    if "int_threadid" in first and str(int(first["int_threadid"])) != tid:
        fail("int_threadid %d, the program's thread %s" % (int(first["int_threadid"]), tid))
    if "thread_name" in first and str(first["thread_name"]) != tid:
        fail("thread_name %r, the program's thread %s" % (str(first["thread_name"]), tid))
    if "filename" in first and (str(first["filename"]) != fl["class"] + ".java" or
                                int(first["line_number"]) != prog.info_line):
        fail("filename, line_number: %r:%d, wanted %s.java:%d" % (
            str(first["filename"]), int(first["line_number"]), fl["class"], prog.info_line))


def run(env, fl):
    prog = Program(env, fl)
    opt = fl["opt"]
    t1, t1b, t2, t3 = (env.dir + "/" + t for t in ("t1", "t1b", "t2", "t3"))

    # two sessions: app.db at INFO and above; other, and app.db disabled
    env.trawl("create", "s1", "-o", t1)
    env.trawl("enable-event", opt, "app.db", "--loglevel", fl["at_least"], "-s", "s1")
    env.trawl("create", "s1b", "-o", t1b)
    env.trawl("enable-event", opt, "other", "-s", "s1b")
    env.trawl("enable-event", opt, "app.db", "-s", "s1b")
    env.trawl("disable-event", opt, "app.db", "-s", "s1b")
    prog.share_port()
    env.trawl("start", "s1")
    env.trawl("start", "s1b")
    said = prog.finish(prog.start("app.db"))
    env.trawl("stop", "s1")
    env.trawl("stop", "s1b")
    got, first = records(t1, fl["event"])
    check("s1: app.db, %s and above" % fl["at_least"], got, want(fl, "info 1", "warning 3"))
    check_fields(fl, prog, first, said)
    got, _ = records(t1b, fl["event"])
    check("s1b: other; app.db disabled", got, want(fl, "other 4"))
    env.trawl("destroy", "s1")
    env.trawl("destroy", "s1b")

    # --loglevel-only and a filter, in two sessions at once; '*' enabled and
    # app.db's rule disabled while the program runs (sent to its agent)
    env.trawl("create", "s2", "-o", t2)
    env.trawl("enable-event", opt, "app.db", "--loglevel-only", fl["only"], "-s", "s2")
    env.trawl("create", "s3", "-o", t3)
    env.trawl("enable-event", opt, "app.db", "--filter", 'msg == "late 5"', "-s", "s3")
    env.trawl("start", "s2")
    env.trawl("start", "s3")
    ready, go = env.dir + "/ready", env.dir + "/go"
    p = prog.start("app.db", ready, go)
    if not wait_file(ready, p):
        fail("%s did not start: %s" % (fl["class"], p.stderr.read() if p.poll() is not None
                                        else "(still running)"))
    listed = env.trawl("list", opt).stdout
    if "PID: %d - Name: " % p.pid not in listed or "      - app.db\n" not in listed or \
            "      - other\n" not in listed:
        fail("list %s with the program running: %r" % (opt, listed))
    env.trawl("enable-event", opt, "-a", "-s", "s2")
    env.trawl("disable-event", opt, "app.db", "-s", "s2")
    open(go, "w").close()
    prog.finish(p)
    env.trawl("stop", "s2")
    env.trawl("stop", "s3")
    got, _ = records(t2, fl["event"])
    # before: app.db's WARNING only; after: every logger ('*'); app.db's
    # rule counted down, '*' keeps it
    check("s2: --loglevel-only %s, then '*'" % fl["only"], got,
          want(fl, "warning 3", "late 5", "late other 6"))
    got, _ = records(t3, fl["event"])
    check("s3: app.db with a filter", got, want(fl, "late 5"))
    env.trawl("destroy", "s2")
    env.trawl("destroy", "s3")


def wait_file(path, proc, bound=120):
    end = time.monotonic() + bound
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in FLAVOURS:
        print("usage: java-agent.py jul|log4j", file=sys.stderr)
        return 2
    fl = FLAVOURS[sys.argv[1]]
    require_bt2()
    for prog in ("java", "javac"):
        if not any(os.access(os.path.join(d, prog), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":")):
            print("SKIP: no %s (scripts/install-deps installs openjdk-17-jdk-headless)" % prog)
            return 77
    for j in fl["jars"]:
        if not os.path.exists(os.path.join(JARS, j)):
            print("SKIP: no %s/%s (scripts/install-deps installs liblttng-ust-agent-java)"
                  % (JARS, j))
            return 77
    if not os.path.exists(os.path.join(COMPAT, fl["lib"])):
        fail("no %s in %s (the build found no JDK jni.h?)" % (fl["lib"], COMPAT))
        return 1
    env = trawltest.Env("trawl-java-%s." % sys.argv[1])
    try:
        run(env, fl)
    finally:
        env.close()
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
