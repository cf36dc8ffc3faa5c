# SPDX-License-Identifier: MIT
"""Event-rule-matches triggers on kernel probes (issue 16): LTTng 2.13's
add-trigger --type=kernel:uprobe and kernel:kprobe with --location and
--event-name, through the root session daemon, fired by real hits:

- a uprobe on trawl_test_add() of a copy of ksyscalls (elf:PATH:SYMBOL), with
  captures of the function's first two arguments (a0, a1: the probe's
  fields), of $ctx.pid and of a field it lacks: one notification per call,
  "<a>|<b>|<the caller's pid>|<unavailable>", on a <trawl/ctl.h>
  notification channel, typed there as LTTng 2.13 types them (its tracers'
  msgpack keeps no signedness: unsigned unless negative) and unavailable;
- a second trigger on the same function (LTTng's location form PATH:SYMBOL,
  no elf: prefix) whose snapshot-session action records a kernel snapshot
  session: babeltrace2 reads the snapshot and finds the exec of the program
  that hit the probe;
- list-triggers shows both as LTTng does ("type: kernel:uprobe, location
  type: ELF, location: PATH:SYMBOL"; --mi xml: <event_rule_kernel_uprobe>);
- bad locations are refused with one line, through enable-event's own checks
  (a relative path, a path with a character tracefs must not see, a file
  that is not a regular file, a symbol the file lacks), and nothing is
  registered or left in uprobe_events;
- remove-trigger removes the probe from uprobe_events;
- kprobes: where the kernel has kprobe_events, a trigger on a kernel
  function (do_sys_openat2) fires when the test opens a file; here, where it
  has none (CONFIG_KPROBES off), add-trigger fails with one line saying so.
  tests/kernel-vm runs the kprobe part on a stock kernel.

No timing is asserted: each wait is bounded (60 s) and polls the outcome."""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ktest  # noqa: E402
import trawltest  # noqa: E402  (its until(): the tests' one polling loop)

ktest.require_root_tracefs()
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("ust-trig-notify", "ust-trig-stats", "ksyscalls"))
trawl = ktest.trawl
BIN = ktest.BIN
KSYS = os.path.join(d, "ksyscalls-uprobe")
shutil.copy(os.path.join(BIN, "ksyscalls"), KSYS)
ERM = ["add-trigger", "--condition", "event-rule-matches"]
SNAP = os.path.join(d, "snap")


def tracefs_file(name):
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype = line.split()[:3]
            if fstype == "tracefs":
                return os.path.join(mnt, name)
    return None


def dynamic_events(name):
    """The daemon's dynamic events (trawl_<its pid>_*) in @name."""
    path = tracefs_file(name)
    if not path or not os.path.exists(path):
        return []
    pid = ktest.daemon_pid()
    with open(path) as f:
        return [l for l in f.read().splitlines() if ":trawl_%d_" % pid in l]


def waiter(count, *triggers):
    w = subprocess.Popen([os.path.join(BIN, "ust-trig-notify"), "-t", str(count), "60000"] +
                         list(triggers), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert w.stdout.readline().strip() == "ready", w.stderr.read()
    return w


def received(w):
    """[(trigger, [capture text...], [typed value...])], typed as
    ust-trig-notify -t prints them (the C API's trawl_ctl_capture_value)."""
    out, err = w.communicate(timeout=120)
    assert w.returncode == 0, (out, err)
    got = []
    for l in out.splitlines():
        if " latency_us=" in l:
            got.append((l.split(" ", 1)[0], l.split("captures=", 1)[1].split("|"), []))
        elif l.startswith("  typed="):
            got[-1][2].append(l.split("=", 1)[1])
    return got


def refused(args, text):
    p = subprocess.run(["trawl"] + ERM + args + ["--action", "notify", "--name", "bad"],
                       env=env, capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().split("\n")
    assert p.returncode != 0 and len(lines) == 1 and text in lines[0], (args, p.stderr)


def until(what, fn, wait_s=60):
    v = trawltest.until(fn, wait_s, 0.2)
    if not v:
        raise SystemExit("never: " + what)
    return v


def bt2_text(path):
    p = subprocess.run(["babeltrace2", path], capture_output=True, text=True, timeout=120)
    return p.stdout if p.returncode == 0 else None


try:
    # The kernel snapshot session the second trigger records.
    trawl("create", "kfr", "--snapshot", "-o", SNAP)
    trawl("enable-event", "-k", "sched_process_exec", "-s", "kfr")
    trawl("start", "kfr")

    trawl(*ERM, "--type=kernel:uprobe", "--location=elf:%s:trawl_test_add" % KSYS,
          "--event-name=uadd", "--capture", "a0", "--capture", "a1", "--capture", "$ctx.pid",
          "--capture", "nosuch", "--action", "notify", "--name", "uadd")
    # (--name after the snapshot-session action would name its output)
    trawl("add-trigger", "--name", "usnap", "--condition", "event-rule-matches",
          "--type=kernel:uprobe", "--location=%s:trawl_test_add" % KSYS,
          "--action", "snapshot-session", "kfr")
    assert len(dynamic_events("uprobe_events")) == 2, dynamic_events("uprobe_events")

    lst = trawl("list-triggers").stdout
    assert ("rule: uadd (type: kernel:uprobe, location type: ELF, location: %s:trawl_test_add)"
            % KSYS) in lst, lst
    # LTTng names the rule's event after its location when --event-name is not given
    assert ("rule: %s:trawl_test_add (type: kernel:uprobe, location type: ELF, location: "
            "%s:trawl_test_add)" % (KSYS, KSYS)) in lst, lst
    mi = trawl("--mi", "xml", "list-triggers").stdout
    assert ("<event_rule_kernel_uprobe><event_name>uadd</event_name><userspace_probe_location>"
            "<userspace_probe_location_function><name>trawl_test_add</name><binary_path>%s"
            "</binary_path>" % KSYS) in "".join(l.strip() for l in mi.splitlines()), mi

    w = waiter(2, "uadd")
    pids = []
    for a, b in ((40, 2), (-7, 1000)):
        r = subprocess.run([KSYS, "add", str(a), str(b)], env=env, capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0 and r.stdout.split()[1] == str(a + b), r
        pids.append(int(r.stdout.split("pid=")[1].split()[0]))
    got = received(w)
    assert got == [("uadd", ["40", "2", str(pids[0]), "<unavailable>"],
                    ["u:40", "u:2", "u:%d" % pids[0], "?"]),
                   ("uadd", ["-7", "1000", str(pids[1]), "<unavailable>"],
                    ["i:-7", "u:1000", "u:%d" % pids[1], "?"])], (got, pids)

    # The snapshot the second trigger's action recorded (at least one: each
    # call fired it), with the exec of the first program that hit the probe.
    def snapshot_has_exec():
        for s in sorted(glob.glob(SNAP + "/*-*-*")):
            text = bt2_text(s)
            if text and any("sched_process_exec" in l and KSYS in l and
                            "tid = %d," % pids[0] in l for l in text.splitlines()):
                return True
        return False
    until("babeltrace2 finds the exec in the trigger's snapshot", snapshot_has_exec)

    stats = subprocess.run([os.path.join(BIN, "ust-trig-stats")], env=env, capture_output=True,
                           text=True, timeout=60).stdout
    occ = {l.rsplit(" occurrences=", 1)[0]: int(l.rsplit("=", 1)[1])
           for l in stats.splitlines() if not l.startswith(" ")}
    assert occ["uadd"] == 2 and occ["usnap"] == 2, stats

    # Refusals: one line each, through enable-event's checks; nothing left behind.
    os.mkfifo(os.path.join(d, "fifo"))
    for loc, text in (("elf:relative/ksys:trawl_test_add", "PATH is absolute"),
                      ("elf:%s;x:trawl_test_add" % KSYS, "PATH is absolute"),
                      ("elf:%s:trawl_test_add+4" % KSYS, "a symbol is"),
                      ("elf:%s/fifo:main" % d, "not a regular file"),
                      ("elf:%s:no_such_function" % KSYS, "no_such_function"),
                      ("sdt:%s:nosuch:probe" % KSYS, "nosuch")):
        refused(["--type=kernel:uprobe", "--location=" + loc], text)
    refused(["--type=kernel:uprobe", "--location=elf:%s:main" % KSYS, "--name=x"],
            "can't use --name")
    lst = trawl("list-triggers").stdout
    assert "bad" not in lst, lst
    assert len(dynamic_events("uprobe_events")) == 2, dynamic_events("uprobe_events")

    trawl("remove-trigger", "uadd")
    trawl("remove-trigger", "usnap")
    assert dynamic_events("uprobe_events") == [], dynamic_events("uprobe_events")

    # kprobes: only where the kernel has them.
    kp = tracefs_file("kprobe_events")
    if kp and os.path.exists(kp):
        trawl(*ERM, "--type=kernel:kprobe", "--location=do_sys_openat2", "--event-name=kopen",
              "--capture", "$ctx.pid", "--action", "notify", "--name", "kopen")
        lst = trawl("list-triggers").stdout
        assert "rule: kopen (type: kernel:kprobe, location: do_sys_openat2)" in lst, lst
        w = waiter(1, "kopen")
        open(KSYS).close()
        assert received(w)[0][0] == "kopen"
        trawl("remove-trigger", "kopen")
        assert dynamic_events("kprobe_events") == [], dynamic_events("kprobe_events")
        refused(["--type=kernel:kprobe", "--location=do_sys_openat2+x"], "kernel probe location")
    else:
        refused(["--type=kernel:kprobe", "--location=do_sys_openat2"], "kprobes unavailable")
        print("kprobe triggers not tested: this kernel has no kprobe_events (tests/kernel-vm "
              "runs them on a stock kernel)")
finally:
    trawl("destroy", "-a", check=False)
    ktest.stop_daemon()
print("ok")
