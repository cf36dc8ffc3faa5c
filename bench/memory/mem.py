# SPDX-License-Identifier: MIT
"""Buffer memory of trawl and LTTng-UST 2.13, side by side in one run
(bench/memory/run.sh says what and how).

Every figure is read from /proc while the programs hold their buffers:
  shm allocated   the buffer files' allocated bytes (st_blocks * 512 of each
                  memfd or shm file, through /proc/PID/fd and map_files of
                  the apps and the daemons, each file once): what the
                  buffers really cost, whoever maps them;
  shm size        the same files' sizes (what a tracer that allocated
                  everything at once would hold);
  per CPU         each data stream is one CPU's buffer; with the apps
                  pinned to CPU 0, a buffer set's largest stream is the
                  traced CPU's, the others never saw an event;
  RSS             VmRSS of /proc/PID/status (RssAnon: private memory).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tests/lib"))
from lttngref import LttngRef  # noqa: E402

KIB = 1024.0


def status(pid):
    """{VmRSS, RssAnon, RssShmem, RssFile} in bytes, of process @pid."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssShmem", "RssFile"):
                out[k] = int(v.split()[0]) * 1024
    return out


def app_rss(pid, own):
    """{VmRSS, RssAnon, RssShmem} of app @pid, its shared memory counted
    only in the mappings of files in @own (shm_files() of this run's
    daemons): an LTTng-UST app also registers with root's lttng-sessiond
    when one runs, whose sessions (other users') may give it buffers too."""
    st = status(pid)
    shm, cur = 0, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", parts[0]):
                cur = int(parts[4]) if len(parts) > 4 else 0
            elif parts[0] == "Rss:" and cur in own:
                shm += int(parts[1]) * 1024
    return {"VmRSS": st["RssAnon"] + st["RssFile"] + shm, "RssAnon": st["RssAnon"], "RssShmem": shm}


def children(pid):
    """@pid's descendants (pids)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def comm(pid):
    with open("/proc/%d/comm" % pid) as f:
        return f.read().strip()


def shm_files(pids):
    """{inode: (size, allocated)} of the memfds and /dev/shm files that
    @pids hold open or mapped."""
    files = {}
    for pid in pids:
        for sub in ("fd", "map_files"):
            d = "/proc/%d/%s" % (pid, sub)
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                try:
                    link = os.readlink(d + "/" + n)
                    if not (link.startswith("/memfd:") or link.startswith("/dev/shm/")):
                        continue
                    st = os.stat(d + "/" + n)
                except OSError:
                    continue
                files[st.st_ino] = (st.st_size, st.st_blocks * 512)
                if os.environ.get("MEM_DEBUG"):  # file by file, with its written ranges
                    print("debug: %s %d %s size %d alloc %d data %s" % (
                        comm(pid), pid, link, st.st_size, st.st_blocks * 512, data_map(d + "/" + n)))
    return files


def data_map(path):
    """The byte ranges of @path that hold pages (SEEK_DATA), for debugging."""
    out = []
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return "?"
    try:
        off = 0
        while len(out) < 8:
            try:
                a = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            b = os.lseek(fd, a, os.SEEK_HOLE)
            out.append("%d-%d" % (a, b))
            off = b
    finally:
        os.close(fd)
    return ",".join(out)


class Tracer:
    """One tracer's daemons and commands (trawl's, LTTng's)."""

    def start_app(self, n, cpu):
        p = subprocess.Popen(self.app_argv(["taskset", "-c", str(cpu), self.app, str(n)]),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = p.stdout.readline().split()
        if len(line) != 2 or line[0] != "ready":
            p.kill()
            p.wait()
            raise RuntimeError("%s: no ready line" % self.app)
        p.app_pid = int(line[1])
        return p

    def stop_apps(self, apps):
        for p in apps:
            p.stdin.close()
        for p in apps:
            p.wait(timeout=60)

    def daemons(self):
        """{"sessiond": pid, "consumer": [pids]}."""
        sd = self.sessiond_pid()
        return sd, [c for c in children(sd) if "consumer" in comm(c)]


class Trawl(Tracer):
    name = "trawl"

    def __init__(self, bindir, tmp):
        self.bin = bindir
        self.app = bindir + "/bench-memory-app-trawl"
        self.tmp = tmp
        self.env = dict(os.environ, HOME=tmp + "/home", TRAWL_RUNTIME_DIR=tmp + "/run",
                        TRAWL_ROOT_RUNTIME_DIR=tmp + "/rootrun")
        os.makedirs(tmp + "/home", exist_ok=True)
        self.cmd("list")  # starts the daemon

    def cmd(self, *args):
        r = subprocess.run([self.bin + "/trawl"] + list(args), env=self.env, capture_output=True, text=True)
        # 11: stopped, events lost (written flat out, more than the buffers
        # hold: LTTng-UST discards them alike, and says nothing)
        if r.returncode not in (0, 11):
            raise RuntimeError("trawl %s: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    def app_argv(self, argv):
        return ["env", "HOME=" + self.env["HOME"], "TRAWL_RUNTIME_DIR=" + self.env["TRAWL_RUNTIME_DIR"],
                "TRAWL_ROOT_RUNTIME_DIR=" + self.env["TRAWL_ROOT_RUNTIME_DIR"]] + argv

    def sessiond_pid(self):
        with open(self.tmp + "/rootrun/sessiond.lock") as f:
            return int(f.read().split()[0])

    def session(self, name, chan):
        self.cmd("create", name, "--output", self.tmp + "/trace-" + name)
        self.cmd("enable-channel", "-u", "ch", "-s", name, *chan)
        self.cmd("enable-event", "-u", "anchor:ev", "-c", "ch", "-s", name)
        self.cmd("start", name)

    def end(self, name):
        self.cmd("destroy", name)

    def close(self):
        subprocess.run([self.bin + "/trawl", "destroy", "--all"], env=self.env, capture_output=True)
        for f in ("/run/sessiond.lock", "/rootrun/sessiond.lock"):
            try:
                with open(self.tmp + f) as fh:
                    os.kill(int(fh.read().split()[0]), 15)
            except (OSError, ValueError):
                pass


class Lttng(Tracer):
    name = "LTTng-UST"

    def __init__(self, bindir):
        self.app = bindir + "/bench-memory-app-lttng"
        self.ref = LttngRef.make("trawlmem")
        if self.ref is None:
            raise RuntimeError("no LTTng reference")

    def cmd(self, *args):
        return self.ref.lttng(*args).stdout

    def app_argv(self, argv):
        return ["runuser", "-u", self.ref.user, "--"] + self.ref.env() + argv

    def sessiond_pid(self):
        r = subprocess.run(["pgrep", "-u", str(self.ref.uid), "-x", "lttng-sessiond"],
                           capture_output=True, text=True)
        return int(r.stdout.split()[0])

    def session(self, name, chan):
        out = self.ref.dir + "/trace-" + name
        os.makedirs(out)
        os.chown(out, self.ref.uid, -1)
        self.cmd("create", name, "--output", out + "/t")
        self.cmd("enable-channel", "-u", "ch", "-s", name, *chan)
        self.cmd("enable-event", "-u", "anchor:ev", "-c", "ch", "-s", name)
        self.cmd("start", name)

    def end(self, name):
        self.cmd("destroy", name)

    def close(self):
        self.ref.close()


def measure(tr, name, chan, napps, n, data_min):
    """Runs @napps apps pinned to CPU 0, @n events each, in a session with
    channel options @chan; returns the figures while they hold their buffers."""
    sd, cons = tr.daemons()
    base = status(sd)["VmRSS"], sum(status(c)["VmRSS"] for c in cons)
    tr.session(name, chan)
    apps = []
    try:
        for _ in range(napps):
            apps.append(tr.start_app(n, 0))
        sd, cons = tr.daemons()
        # The buffers of this run's daemons (the apps hold no others of theirs)
        files = shm_files([sd] + cons)
        data = sorted(v[1] for v in files.values() if v[0] >= data_min)
        f = {
            "streams": len(data),
            "alloc": sum(data),
            "size": sum(v[0] for v in files.values() if v[0] >= data_min),
            "other": sum(v[1] for v in files.values() if v[0] < data_min),
            "app": [app_rss(a.app_pid, files) for a in apps],
            "sessiond": status(sd)["VmRSS"],
            "consumer": sum(status(c)["VmRSS"] for c in cons),
            "sessiond0": base[0], "consumer0": base[1],
        }
        sets = 1 if "--buffers-uid" in chan else napps
        f["traced"] = sum(data[-sets:]) / sets if data else 0
        rest = data[:-sets]
        f["untraced"] = sum(rest) / len(rest) if rest else 0
    finally:
        tr.stop_apps(apps)
        tr.end(name)
    return f


def baseline(tr):
    """An app's RSS with the tracer loaded, its daemon up, no session."""
    p = tr.start_app(0, 0)
    try:
        sd, cons = tr.daemons()
        return app_rss(p.app_pid, shm_files([sd] + cons))
    finally:
        tr.stop_apps([p])


def human(b):
    if b >= 1 << 20:
        return "%.2f MiB" % (b / (1 << 20))
    return "%.0f KiB" % (b / KIB)


def ratio(a, b):
    return "%.2f" % (a / b) if b else ("-" if not a else "inf")


def main():
    bindir, n_small, n_big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    subbuf, nsub = 1 << 20, 4
    chan_opts = ["--subbuf-size", "1M", "--num-subbuf", "4"]
    data_min = subbuf * nsub
    ncpu = os.cpu_count()
    tmp = tempfile.mkdtemp(prefix="trawl-bench-mem.", dir="/tmp")
    os.chmod(tmp, 0o755)
    tracers = []
    try:
        tracers = [Lttng(bindir), Trawl(bindir, tmp)]
        rows = []
        base = {tr.name: baseline(tr) for tr in tracers}
        scen = [
            ("per-uid, 1 app, %d events" % n_small, ["--buffers-uid"], 1, n_small),
            ("per-uid, 1 app, %d events" % n_big, ["--buffers-uid"], 1, n_big),
            ("per-uid, 10 apps, %d events each" % n_big, ["--buffers-uid"], 10, n_big),
            ("per-pid, 1 app, %d events" % n_small, ["--buffers-pid"], 1, n_small),
            ("per-pid, 1 app, %d events" % n_big, ["--buffers-pid"], 1, n_big),
            ("per-pid, 10 apps, %d events each" % n_small, ["--buffers-pid"], 10, n_small),
            ("per-pid, 10 apps, %d events each" % n_big, ["--buffers-pid"], 10, n_big),
        ]
        for i, (title, mode, napps, n) in enumerate(scen):
            res = {}
            for tr in tracers:
                res[tr.name] = measure(tr, "mem%d" % i, chan_opts + mode, napps, n, data_min)
            rows.append((title, napps, res))
    finally:
        for tr in tracers:
            tr.close()
        subprocess.run(["rm", "-rf", tmp])

    lt, tw = "LTTng-UST", "trawl"
    w = 44
    print("Channel: --subbuf-size 1M --num-subbuf 4 (4 MiB per CPU buffer), %d CPUs, "
          "apps pinned to CPU 0 (taskset -c 0)" % ncpu)
    print("%-*s %14s %14s %7s" % (w, "(ratio: trawl / LTTng-UST)", lt, tw, "ratio"))

    def line(label, a, b, fmt=human):
        print("%-*s %14s %14s %7s" % (w, label, fmt(a), fmt(b), ratio(b, a)))

    for title, napps, res in rows:
        a, b = res[lt], res[tw]
        print(title)
        line("  buffer shm allocated (all streams)", a["alloc"], b["alloc"])
        line("  buffer shm size (all streams)", a["size"], b["size"])
        line("  data streams (one per CPU per set)", a["streams"], b["streams"], str)
        line("  per app: buffer shm allocated", a["alloc"] / napps, b["alloc"] / napps)
        line("  per traced CPU stream (CPU 0)", a["traced"], b["traced"])
        line("  per untraced CPU stream", a["untraced"], b["untraced"])
        line("  other shm (metadata, counters, wakeup)", a["other"], b["other"])
        for k, lab in (("VmRSS", "RSS"), ("RssAnon", "RSS anon"), ("RssShmem", "RSS shm")):
            da = sum(s[k] for s in a["app"]) / napps - base[lt][k]
            db = sum(s[k] for s in b["app"]) / napps - base[tw][k]
            line("  per app: %s increase from tracing" % lab, da, db)
        line("  session daemon RSS", a["sessiond"], b["sessiond"])
        line("  consumer daemon(s) RSS", a["consumer"], b["consumer"])
    print("Idle (tracer loaded, daemon up, no session):")
    line("  app RSS", base[lt]["VmRSS"], base[tw]["VmRSS"])
    print("(allocated: st_blocks of each buffer file of this run's daemons, each file once;")
    print(" RSS increase: the app's anonymous + file + this run's buffer pages while it holds")
    print(" its buffers, minus the same app's with no session; a daemon's RSS counts the")
    print(" buffer pages it maps too: shared with the apps, not more memory)")


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        sys.exit("bench/memory: %s" % e)
