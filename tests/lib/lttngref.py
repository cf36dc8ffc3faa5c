# SPDX-License-Identifier: MIT
"""LTTng 2.13 as the reference, side by side with trawl in one test: a user
made for the test (named with its pid) runs its own lttng-sessiond, so the
test never touches another LTTng session daemon (root's, or another test's),
and the same program is traced by each tracer.

    ref = LttngRef("mytest")        # None from LttngRef.make() without LTTng
    ref.session(["tp:*"], lambda: ref.run([app, "1"]))  -> trace folder
    ref.close()                      # its processes ended (by pid), user deleted
"""
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def free_port():
    """A TCP port of 127.0.0.1 that is free now (the kernel's pick, from its
    ephemeral range)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LttngRef:
    @staticmethod
    def make(prefix, env=None):
        """An LttngRef, or None (with the reason printed) when this host
        cannot run one: no lttng-tools, not root, no useradd. @env: extra
        environment of its session daemon (LTTNG_UST_CLOCK_PLUGIN)."""
        if os.geteuid() != 0:
            print("note: not root: no LTTng side-by-side run")
            return None
        for tool in ("lttng", "lttng-sessiond", "useradd", "runuser", "userdel"):
            if not shutil.which(tool):
                print("note: %s missing: no LTTng side-by-side run" % tool)
                return None
        try:
            return LttngRef(prefix, env)
        except (OSError, RuntimeError) as e:
            print("note: no LTTng side-by-side run: %s" % e)
            return None

    def __init__(self, prefix, env=None):
        self.user = "%s%d" % (prefix[:20], os.getpid())
        self.dir = tempfile.mkdtemp(prefix="trawl-lttngref.")
        os.chmod(self.dir, 0o755)
        self.home = self.dir + "/home"
        r = subprocess.run(["useradd", "-M", "-N", "-d", self.home, self.user], capture_output=True, text=True)
        if r.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("useradd %s: %s" % (self.user, r.stderr.strip()))
        self.uid = pwd.getpwnam(self.user).pw_uid
        os.makedirs(self.home)
        os.chown(self.home, self.uid, -1)
        self.nsess = 0
        # Its agent port: one free now, outside LTTng's default range
        # (5345..5354, which every trawl session daemon tries first: with
        # ten of them up, LTTng's would say "agent tracing is disabled").
        # The port file, written before --daemonize returns, says whether
        # it was bound (another process may take the port meanwhile: then
        # another one).
        port_file = self.home + "/.lttng/agent.port"
        for _ in range(5):
            self.agent_port = free_port()
            r = self.lttng_raw("lttng-sessiond", "--daemonize", "--agent-tcp-port=%d" % self.agent_port,
                               extra_env=["%s=%s" % kv for kv in (env or {}).items()])
            if r.returncode != 0:
                self.close()
                raise RuntimeError("lttng-sessiond: %s" % r.stderr.strip())
            try:
                bound = open(port_file).read().strip() == str(self.agent_port)
            except OSError:
                bound = False
            if bound:
                break
            self.end_processes()
        else:
            self.close()
            raise RuntimeError("lttng-sessiond: no agent port bound in 5 tries (%s)" % port_file)

    def env(self):
        return ["env", "HOME=" + self.home, "LTTNG_HOME=" + self.home]

    def lttng_raw(self, *args, extra_env=()):
        return subprocess.run(["runuser", "-u", self.user, "--"] + self.env() + list(extra_env) + list(args),
                              capture_output=True, text=True, timeout=120)

    def lttng(self, *args):
        r = self.lttng_raw("lttng", *args)
        if r.returncode != 0:
            raise RuntimeError("lttng %s: %s" % (" ".join(args), r.stderr.strip()))
        return r

    def run(self, argv, env=None, cwd=None, check=True):
        """Runs @argv as the reference user (its files must be readable by
        all), with extra environment @env."""
        extra = ["%s=%s" % kv for kv in (env or {}).items()]
        # Under ASan, liblttng-ust's own allocations at exit (not ours) would
        # fail the LTTng side's program: leaks are checked on trawl's side only.
        asan = os.environ.get("ASAN_OPTIONS", "")
        extra = ["ASAN_OPTIONS=" + (asan + ":" if asan else "") + "detect_leaks=0"] + extra
        r = subprocess.run(["runuser", "-u", self.user, "--"] + self.env() + extra + list(argv),
                           capture_output=True, text=True, timeout=300, cwd=cwd)
        if check and r.returncode != 0:
            raise RuntimeError("%s (as %s): exit %d: %s" % (argv[0], self.user, r.returncode,
                                                             r.stderr.strip()[-300:]))
        return r

    def session(self, events, body, channel=(), contexts=(), filt=None):
        """Creates a session recording @events (enable-event -u each, or -a
        for "-a") into a new folder, runs @body(), stops and destroys it;
        returns the trace folder."""
        self.nsess += 1
        name = "s%d" % self.nsess
        out = "%s/trace-%d" % (self.dir, self.nsess)
        os.makedirs(out)
        os.chown(out, self.uid, -1)
        self.lttng("create", name, "--output", out + "/t")
        self.lttng("enable-channel", "-u", "ch", "-s", name, *channel)
        for e in events:
            args = ["enable-event", "-u", "-c", "ch", "-s", name]
            args += ["-a"] if e == "-a" else [e]
            if filt:
                args += ["--filter", filt]
            self.lttng(*args)
        for c in contexts:
            self.lttng("add-context", "-u", "-c", "ch", "-s", name, "-t", c)
        self.lttng("start", name)
        try:
            body()
        finally:
            self.lttng("stop", name)
            self.lttng("destroy", name)
        return out + "/t"

    def end_processes(self):
        """Ends every process of the test's user (its session and consumer
        daemons), each by its pid."""
        r = subprocess.run(["pgrep", "-u", str(self.uid)], capture_output=True, text=True)
        for pid in r.stdout.split():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except OSError:
                pass
        # (bounded to catch a hang; they are gone in well under 1 s unloaded)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if subprocess.run(["pgrep", "-u", str(self.uid)], capture_output=True).returncode != 0:
                break
            time.sleep(0.1)

    def close(self):
        self.end_processes()
        subprocess.run(["userdel", self.user], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
