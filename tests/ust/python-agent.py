#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""LTTng's Python agent under trawl (issue 16): a Python program using
Debian's python3-lttngust (`import lttngust`, then the logging module)
registers on trawl-sessiond's agent port (agent.port), and its log records
of the enabled loggers and levels are recorded as lttng_python:event with
LTTng's fields (read with babeltrace2's bt2), through trawl's
liblttng-ust-python-agent.so.1 (lib/lttng-compat, first on
LD_LIBRARY_PATH). Checked: a rule by logger and --loglevel (records below
the level and of other loggers left out), --loglevel-only, '*', a rule
enabled while the program runs (sent to the registered agent), a rule
disabled, a second session; `list -p` (and --mi xml) naming the running
program's loggers; a python trigger firing; the agent port refuses a peer that is not an
agent and one that says nothing; enable-event -p answers once the registered
agents have answered its ENABLE. Skips without python3-lttngust or bt2.
"""
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

COMPAT = os.path.normpath(os.path.join(BIN, "..", "lib", "lttng-compat"))

# The program: logs INFO, DEBUG and WARNING records on app.db, one on
# other, then (with a go file) waits for it and logs once more.
PROGRAM = r"""
import logging, os, sys, time
import lttngust
db = logging.getLogger("app.db")
db.setLevel(logging.DEBUG)
other = logging.getLogger("other")
other.setLevel(logging.DEBUG)
db.info("info %d", 1)
db.debug("debug %d", 2)
db.warning("warning %d", 3)
other.error("other %d", 4)
if len(sys.argv) > 2:
    open(sys.argv[1], "w").close()
    end = time.monotonic() + 60
    while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
        time.sleep(0.05)
    db.info("late %d", 5)
    other.critical("late other %d", 6)
"""


def records(trace):
    """(logger_name, msg, int_loglevel) of each lttng_python:event, and
    the field names of the first."""
    import bt2
    got, fields = [], None
    for m in bt2.TraceCollectionMessageIterator(trace):
        if type(m) is bt2._EventMessageConst and m.event.name == "lttng_python:event":
            p = m.event.payload_field
            if fields is None:
                fields = list(p.keys())
            got.append((str(p["logger_name"]), str(p["msg"]), int(p["int_loglevel"])))
    return sorted(got), fields


class Run:
    def __init__(self, env):
        self.env = env
        self.app_env = dict(env.env)
        # the program finds the daemon as LTTng's agent does: agent.port
        # in $LTTNG_HOME/.lttng (a root daemon's own is in its runtime folder)
        home = env.dir + "/apphome"
        os.makedirs(home + "/.lttng", exist_ok=True)
        self.app_env["LTTNG_HOME"] = home
        self.app_env["LD_LIBRARY_PATH"] = COMPAT
        self.home = home
        self.prog = env.dir + "/prog.py"
        with open(self.prog, "w") as f:
            f.write(PROGRAM)

    def port(self):
        for d in (self.env.env["TRAWL_ROOT_RUNTIME_DIR"], self.env.env["HOME"] + "/.lttng"):
            try:
                with open(d + "/agent.port") as f:
                    return int(f.read().strip())
            except (OSError, ValueError):
                continue
        return None

    def share_port(self):
        port = self.port()
        if port is None:
            fail("no agent.port written by the session daemon")
            return None
        with open(self.home + "/.lttng/agent.port", "w") as f:
            f.write("%d\n" % port)
        return port

    def start(self, *args):
        return subprocess.Popen(["/usr/bin/python3", self.prog] + list(args), env=self.app_env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_file(path, proc, bound=60):
    end = time.monotonic() + bound
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def closed(s):
    """Whether the daemon closed connection @s (an end, or a reset: it
    closed with bytes unread)."""
    try:
        return s.recv(16) == b""
    except ConnectionResetError:
        return True


def check(what, got, want):
    if got != want:
        fail("%s: recorded %r, wanted %r" % (what, got, want))


def recv_all(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("the daemon closed the agent's connection")
        b += c
    return b


def enable_waits_for_agents():
    """enable-event -p answers once the registered agents have answered
    the ENABLE (as LTTng's): an agent holding its answer finds the command
    still running, and it exits 0 once answered. A daemon of its own, whose
    apps and agents may take 10 minutes to answer, so that the command
    cannot end at its deadline while the agent holds."""
    env = trawltest.Env("trawl-pyagent-wait.")
    try:
        r = subprocess.run([os.path.join(BIN, "trawl-sessiond"), "--daemonize", "--limit",
                            "app-reply-ms=600000"], env=env.env, capture_output=True, text=True,
                           timeout=60)
        if r.returncode:
            fail("trawl-sessiond: exit %d: %s" % (r.returncode, r.stderr.strip()))
            return
        env.trawl("create", "s", "-o", env.dir + "/t")
        with open(env.env["TRAWL_ROOT_RUNTIME_DIR"] + "/agent.port") as f:
            port = int(f.read().strip())
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            s.sendall(struct.pack(">IIII", 5, os.getpid(), 2, 0))
            s.settimeout(60)
            size, cmd, _ = struct.unpack(">QII", recv_all(s, 16))
            recv_all(s, size)
            if cmd != 4:
                fail("the agent got command %d, not REGISTRATION_DONE" % cmd)
                return
            p = subprocess.Popen([os.path.join(BIN, "trawl"), "enable-event", "-p", "held",
                                  "-s", "s"], env=env.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            size, cmd, _ = struct.unpack(">QII", recv_all(s, 16))
            body = recv_all(s, size)
            if cmd != 2 or b"held" not in body:
                fail("the agent got command %d (%r), not ENABLE of held" % (cmd, body[:40]))
            # held 3 s: a command that does not wait for the agent has
            # ended by then (and is caught); one that waits cannot have
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                pass
            if p.poll() is not None:
                fail("enable-event -p ended (exit %d) before the agent answered its ENABLE"
                     % p.returncode)
            s.sendall(struct.pack(">I", 0))
            out, err = p.communicate(timeout=60)
            if p.returncode != 0:
                fail("enable-event -p, its agent answered: exit %d: %s"
                     % (p.returncode, err.strip()))
    finally:
        env.close()


def main():
    require_bt2()
    try:
        import lttngust  # noqa: F401
    except ImportError:
        print("SKIP: python3-lttngust missing (scripts/install-deps installs it)")
        return 77
    if not os.path.exists(os.path.join(COMPAT, "liblttng-ust-python-agent.so.1")):
        fail("no liblttng-ust-python-agent.so.1 in " + COMPAT)
        return 1
    enable_waits_for_agents()
    env = trawltest.Env("trawl-pyagent.")
    try:
        run = Run(env)
        t1, t2 = env.dir + "/t1", env.dir + "/t2"
        env.trawl("create", "s1", "-o", t1)
        env.trawl("enable-event", "-p", "app.db", "--loglevel", "INFO", "-s", "s1")
        port = run.share_port()
        if port is None:
            return 1
        env.trawl("start", "s1")
        p = run.start()
        out, err = p.communicate(timeout=120)
        if p.returncode:
            fail("the program failed (%d): %s" % (p.returncode, err.strip()))
        env.trawl("stop", "s1")
        got, fields = records(t1)
        check("app.db, INFO and above", got,
              [("app.db", "info 1", 20), ("app.db", "warning 3", 30)])
        want_fields = ["asctime", "msg", "logger_name", "funcName", "lineno", "int_loglevel",
                       "thread", "threadName"]
        if fields != want_fields:
            fail("lttng_python:event's fields: %r, wanted LTTng's %r" % (fields, want_fields))

        # --loglevel-only, then '*' enabled and a rule disabled while the
        # program runs (sent to the registered agent); a second session
        env.trawl("destroy", "s1")
        env.trawl("create", "s2", "-o", t2)
        env.trawl("enable-event", "-p", "app.db", "--loglevel-only", "WARNING", "-s", "s2")
        env.trawl("start", "s2")
        ready, go = env.dir + "/ready", env.dir + "/go"
        p = run.start(ready, go)
        if not wait_file(ready, p):
            fail("the program did not start: %s" % (p.stderr.read() if p.poll() is not None
                                                   else "(still running)"))
        # list -p: the registered agent's loggers, by process, as LTTng prints them
        listed = env.trawl("list", "-p").stdout
        want = "python events (Logger name):\n-------------------------\n\nPID: %d - Name: " \
               "/usr/bin/python3\n" % p.pid
        if not listed.startswith(want) or "      - app.db\n" not in listed or \
                "      - other\n" not in listed:
            fail("list -p with the program running: %r" % listed)
        mi = subprocess.run([trawltest.TRAWL, "--mi", "xml", "list", "-p"], env=env.env,
                            capture_output=True, text=True, timeout=60).stdout
        if "<pid><id>%d</id>" % p.pid not in mi or "<name>app.db</name>" not in mi:
            fail("--mi xml list -p with the program running: %s" % mi)
        env.trawl("enable-event", "-p", "-a", "-s", "s2")
        env.trawl("disable-event", "-p", "app.db", "-s", "s2")
        open(go, "w").close()
        out, err = p.communicate(timeout=120)
        if p.returncode:
            fail("the program failed (%d): %s" % (p.returncode, err.strip()))
        env.trawl("stop", "s2")
        got, _ = records(t2)
        # before: app.db's WARNING only; after: every logger ('*'), app.db's
        # rule counted down but '*' keeps it
        check("--loglevel-only WARNING, then '*'", got,
              [("app.db", "late 5", 20), ("app.db", "warning 3", 30),
               ("other", "late other 6", 50)])
        listed = env.trawl("list", "s2").stdout
        if "- app.db [enabled] (loglevel == PYTHON_WARNING)" not in listed:
            fail("list s2 after enable -a then disable: %s" % listed)
        env.trawl("destroy", "s2")

        # a trigger on an agent domain's logger fires on the program's
        # record (its agent told to enable the logger): start-session
        t3 = env.dir + "/t3"
        env.trawl("create", "s3", "-o", t3)
        env.trawl("enable-event", "-p", "-a", "-s", "s3")
        env.trawl("add-trigger", "--name", "pytrig", "--condition", "event-rule-matches",
                  "--type=python", "--name=other", "--log-level=ERROR",
                  "--action", "start-session", "s3")
        listed = env.trawl("list-triggers").stdout
        if "rule: other (type: python:logging, log level is ERROR)" not in listed:
            fail("list-triggers: %s" % listed)
        p = run.start()
        out, err = p.communicate(timeout=120)
        end = time.monotonic() + 60
        while "s3 [active]" not in env.trawl("list").stdout and time.monotonic() < end:
            time.sleep(0.1)
        if "s3 [active]" not in env.trawl("list").stdout:
            fail("the python trigger did not start s3: %s" % env.trawl("list").stdout)
        env.trawl("remove-trigger", "pytrig")
        env.trawl("destroy", "s3")

        # the port: a peer that is not an agent, one that says nothing
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(struct.pack(">IIII", 2, os.getpid(), 2, 0))  # the UST domain
            s.settimeout(10)
            if not closed(s):
                fail("the agent port answered a registration of the UST domain")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(struct.pack(">IIII", 5, os.getpid(), 1, 0))  # protocol 1.0
            s.settimeout(10)
            if not closed(s):
                fail("the agent port answered an agent of protocol 1.0")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(struct.pack(">IIII", 5, os.getpid(), 2, 0))
            s.settimeout(10)
            hdr = s.recv(16)
            if len(hdr) != 16 or struct.unpack(">QII", hdr)[1] != 4:
                fail("a registered agent got %r, not REGISTRATION_DONE" % hdr)
            s.sendall(b"junk")  # nothing was asked
            if not closed(s):
                fail("the agent port kept a peer that sent what was not asked")
        # an agent that never answers LIST: list -p ends (app-reply-ms), the
        # agent dropped
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(struct.pack(">IIII", 5, os.getpid(), 2, 0))
            s.settimeout(30)
            if len(s.recv(16)) != 16:
                fail("no REGISTRATION_DONE")
            r = env.trawl("list", "-p")
            if "None" not in r.stdout:
                fail("list -p with a silent agent: %r" % r.stdout)
            hdr = s.recv(16)
            if len(hdr) != 16 or struct.unpack(">QII", hdr)[1] != 1:
                fail("the silent agent got %r, not LIST" % hdr)
            if not closed(s):
                fail("the agent port kept an agent that did not answer LIST")
    finally:
        env.close()
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
