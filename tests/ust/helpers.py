#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The helper libraries (src/ust-helpers), each preloaded into ust-app-helpers,
a program with no tracepoint of its own, recorded by a real session daemon
and read by babeltrace2: the events carry the values the program knows
(sizes, pointers it prints, its mutex, the library it opens, its function's
address). Where LTTng-UST 2.13 is installed, the same binary runs under
LTTng's own helper (liblttng-ust-<name>.so), in its own session daemon as a
user made for the test, and the events about the program's known work must
be the same, field by field (pointers, which differ from run to run, are
compared with what each run printed).

    helpers.py libc      libtrawl-ust-libc-wrapper: lttng_ust_libc:*
    helpers.py pthread   libtrawl-ust-pthread-wrapper: lttng_ust_pthread:*
    helpers.py dl        libtrawl-ust-dl: lttng_ust_dl:dlopen/dlclose/build_id
    helpers.py cyg       libtrawl-ust-cyg-profile: lttng_ust_cyg_profile:func_*
    helpers.py cyg-fast  libtrawl-ust-cyg-profile-fast: its func_exit has no
                         address (only cyg_leaf() is instrumented)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402

LIB = os.path.join(BIN, "..", "lib")
APP = os.path.join(BIN, "ust-app-helpers")
LTTNG_LIB = "/usr/lib/x86_64-linux-gnu"
LINE = re.compile(r"^\[[^]]*\] \([^)]*\) \S+ (\S+): (.*)$")
# a library the program does not link, with a build id (Debian's libcrypt)
DL_LIB = "libcrypt.so.1"

HELPER = {"libc": ("libc-wrapper", "lttng_ust_libc:*"),
          "pthread": ("pthread-wrapper", "lttng_ust_pthread:*"),
          "dl": ("dl", "lttng_ust_dl:*"),
          "cyg": ("cyg-profile", "lttng_ust_cyg_profile:*"),
          "cyg-fast": ("cyg-profile-fast", "lttng_ust_cyg_profile_fast:*")}


def events(trace):
    """(name, {field: text value}) of each event, babeltrace2's text."""
    r = subprocess.run(["babeltrace2", trace], capture_output=True, text=True)
    if r.returncode != 0:
        fail("babeltrace2 %s: %s" % (trace, r.stderr.strip()[-300:]))
    out = []
    for line in r.stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        body = re.sub(r"^\{ cpu_id = \d+ \}, ", "", m.group(2))
        fields = dict(re.findall(r"(\w+) = (\"[^\"]*\"|[^,{}\[\]]+?)(?=,| \})", body))
        out.append((m.group(1).rstrip(":"), fields))
    return out


def printed(stdout):
    """The program's "name=value" words, values as integers (pointers)."""
    return {k: int(v, 16) if v.startswith("0x") else v
            for k, v in re.findall(r"(\w+)=(\S+)", stdout)}


def num(v):
    return int(v, 0)


def known(case, evs, out):
    """The events about the program's known work, pointers replaced by the
    names it printed them under: what both tracers must agree on."""
    ptrs = {v: k for k, v in out.items() if isinstance(v, int)}
    got = []
    for name, f in evs:
        g = {}
        for k, v in f.items():
            if re.fullmatch(r"0x[0-9A-Fa-f]+", v) and int(v, 16) >= 0x10000:
                v = ptrs.get(int(v, 16), "ptr")  # an address: another in each run
            g[k] = v
        if case == "libc" and any(x in ptrs for x in (num(f.get("ptr", "0")), num(f.get("in_ptr", "0")),
                                                     num(f.get("out_ptr", "0")))):
            got.append((name, g))
        elif case == "pthread" and num(f.get("mutex", "0")) == out.get("mutex"):
            got.append((name, g))
        elif case == "dl" and (name.endswith(":dlopen") and "/" + DL_LIB in f.get("path", "")
                               or name.endswith((":dlclose", ":build_id", ":debug_link"))):
            got.append((name, {k: v for k, v in g.items() if k not in ("baddr", "memsz")}))
        elif case == "cyg-fast" and (num(f.get("addr", "0")) == out.get("cyg_leaf") or not f):
            got.append((name, g))
        elif case == "cyg" and num(f.get("addr", "0")) == out.get("cyg_leaf"):
            got.append((name, {k: v for k, v in g.items() if k != "call_site"}))
    return got


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-helpers.")

    def record(self, case, argv):
        lib, pattern = HELPER[case]
        self.trawl("create", "s", "--output", self.out)
        self.trawl("enable-event", "-u", pattern)
        self.trawl("start")
        env = dict(self.env, LD_PRELOAD=os.path.join(LIB, "libtrawl-ust-%s.so" % lib))
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        self.trawl("stop")
        self.trawl("destroy")
        if r.returncode != 0:
            fail("%s under libtrawl-ust-%s: exit %d: %s" % (argv, lib, r.returncode, r.stderr[-300:]))
        return events(self.out), printed(r.stdout)


def lttng_side(case, argv):
    lib, pattern = HELPER[case]
    so = os.path.join(LTTNG_LIB, "liblttng-ust-%s.so" % lib)
    if not os.path.exists(so):
        print("note: %s missing: no LTTng side-by-side run" % so)
        return None
    ref = LttngRef.make("trawlhlp")
    if not ref:
        return None
    res = {}
    try:
        trace = ref.session([pattern], lambda: res.update(r=ref.run(argv, env={"LD_PRELOAD": so})))
        return events(trace), printed(res["r"].stdout)
    finally:
        ref.close()


def check_libc(evs, out):
    by = {}
    for name, f in evs:
        by.setdefault(name.split(":")[1], []).append(f)

    def one(call, **want):
        hits = [f for f in by.get(call, []) if all(f.get(k) == v for k, v in want.items())]
        if len(hits) != 1:
            fail("libc: %d %s events with %s (want 1): %s" % (len(hits), call, want, by.get(call, [])[:4]))
    one("malloc", size="12345", ptr="malloc")
    one("calloc", nmemb="7", size="111", ptr="calloc")
    one("memalign", alignment="128", size="444", ptr="memalign")
    one("posix_memalign", out_ptr="posix_memalign", alignment="64", size="333", result="0")
    one("realloc", in_ptr="malloc", size="22222", ptr="realloc")
    for p in ("realloc", "calloc", "memalign", "posix_memalign"):
        one("free", ptr=p)


def check_pthread(evs, out):
    names = [n.split(":")[1] for n, _ in evs]
    for n, want in (("pthread_mutex_lock_req", 5), ("pthread_mutex_lock_acq", 5),
                    ("pthread_mutex_trylock", 1), ("pthread_mutex_unlock", 6)):
        if names.count(n) != want:
            fail("pthread: %d %s events on the program's mutex, want %d: %s" % (names.count(n), n, want, names))
    if names[:3] != ["pthread_mutex_lock_req", "pthread_mutex_lock_acq", "pthread_mutex_unlock"]:
        fail("pthread: the first lock is not req, acq, unlock: %s" % names[:3])


def check_dl(evs, out):
    opens = [f for n, f in evs if n.endswith(":dlopen")]
    if len(opens) != 1 or "/" + DL_LIB not in opens[0].get("path", ""):
        fail("dl: want one dlopen of %s: %s" % (DL_LIB, opens))
    if opens[0].get("has_build_id") == "1" and not any(n.endswith(":build_id") for n, _ in evs):
        fail("dl: dlopen says has_build_id, no build_id event")
    if not any(n.endswith(":dlclose") for n, _ in evs):
        fail("dl: no dlclose event")


def check_cyg(evs, out):
    names = [n.split(":")[1] for n, _ in evs]
    if names != ["func_entry", "func_exit"] * 3:
        fail("cyg: want 3 entry/exit pairs at cyg_leaf: %s" % names)


check_cyg_fast = check_cyg


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in HELPER:
        print(__doc__)
        sys.exit(2)
    argv = [APP, case.split("-")[0]] + ([DL_LIB] if case == "dl" else [])
    e = Env()
    try:
        evs, out = e.record(case, argv)
    finally:
        e.close()
    got = known(case, evs, out)
    print("%s: %d events, %d about the program's work" % (case, len(evs), len(got)))
    globals()["check_" + case.replace("-", "_")](got, out)
    ref = lttng_side(case, argv)
    if ref is None:
        print("note: checked against the program's known values only")
    else:
        want = known(case, *ref)
        if got != want:
            for i in range(max(len(got), len(want))):
                g = got[i] if i < len(got) else None
                w = want[i] if i < len(want) else None
                if g != w:
                    fail("%s: event %d differs:\n  trawl: %s\n  lttng: %s" % (case, i, g, w))
                    break
        else:
            print("%s: the same %d events as LTTng-UST 2.13's helper" % (case, len(got)))
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
