#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Application contexts of LTTng's Java agents under trawl (issue 16):
`trawl add-context -j|-l -t '$app.PROVIDER:KEY'` records, in each
lttng_jul:event / lttng_log4j:event, the value of KEY that the program's
IContextInfoRetriever registered as PROVIDER gives (java/TrawlAppCtx.java,
with Debian's agent jars, unchanged).

Checked against what real LTTng 2.13.9 recorded for the same program and
commands on the dev machine (December 2026; the values below are its
babeltrace2 lines and bt2 field classes): babeltrace2's text of each
event's context, byte for byte (Java int, long, double, float, byte,
short, boolean, String and char; null, a retriever registered after the
contexts were added, which shows from its registration on, a retriever
never registered, and a context added with -u only, which the agent is
never asked for: the variant's "_none"); and the field classes of a
context's tag and variant. Then hostile arrays handed to the JNI library
directly (bad offsets, an unknown type, a string without its NUL, a
string longer than the 1024 bytes kept, no arrays at all) record what
the library's rules say and leave the trace readable. And the command
line's errors: a malformed name, a channel other than the domain's,
--python (LTTng's add-context has none), a context after the start; save
and load. And (jul, without Java too) a C program, which has no provider,
on a -u channel with application contexts: "_none" in every event. Skips
without java, javac, the agent jars (and log4j's), or bt2.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

COMPAT = os.path.normpath(os.path.join(BIN, "..", "lib", "lttng-compat"))
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java")
JARS = "/usr/share/java"
KEYS = ["int", "long", "double", "float", "byte", "short", "bool", "string", "char", "null"]

FLAVOURS = {
    "jul": {"opt": "-j", "event": "lttng_jul:event", "channel": "lttng_jul_channel",
            "jars": ["lttng-ust-agent-common.jar", "lttng-ust-agent-jul.jar"]},
    "log4j": {"opt": "-l", "event": "lttng_log4j:event", "channel": "lttng_log4j_channel",
              "jars": ["lttng-ust-agent-common.jar", "lttng-ust-agent-log4j.jar",
                       "log4j-1.2.jar"]},
}

# LTTng 2.13.9's babeltrace2 text of the event context of "ctx 1" (ctx 2
# differs only in _app_late_k: registered in between).
NONE = '( "_none" : container = 0 ), %s = { { } }'
LTTNG_CTX1 = (
    '{ _app_trawl_int_tag = ( "_int32" : container = 3 ), _app_trawl_int = { 42 }, '
    '_app_trawl_long_tag = ( "_int64" : container = 4 ), _app_trawl_long = { -5000000000 }, '
    '_app_trawl_double_tag = ( "_double" : container = 10 ), _app_trawl_double = { 2.5 }, '
    '_app_trawl_float_tag = ( "_float" : container = 9 ), _app_trawl_float = { 1.25 }, '
    '_app_trawl_byte_tag = ( "_int8" : container = 1 ), _app_trawl_byte = { -7 }, '
    '_app_trawl_short_tag = ( "_int16" : container = 2 ), _app_trawl_short = { 300 }, '
    '_app_trawl_bool_tag = ( "_int8" : container = 1 ), _app_trawl_bool = { 1 }, '
    '_app_trawl_string_tag = ( "_string" : container = 11 ), _app_trawl_string = { "hello world" }, '
    '_app_trawl_char_tag = ( "_string" : container = 11 ), _app_trawl_char = { "x" }, '
    '_app_trawl_null_tag = ( "_none" : container = 0 ), _app_trawl_null = { { } }, '
    '_app_late_k_tag = ( "_none" : container = 0 ), _app_late_k = { { } }, '
    '_app_nope_x_tag = ( "_none" : container = 0 ), _app_nope_x = { { } }, '
    '_app_trawl_int2_tag = ( "_none" : container = 0 ), _app_trawl_int2 = { { } } }')
LTTNG_CTX2 = LTTNG_CTX1.replace(
    '_app_late_k_tag = ( "_none" : container = 0 ), _app_late_k = { { } }',
    '_app_late_k_tag = ( "_string" : container = 11 ), _app_late_k = { "late:k" }')

# LTTng 2.13.9's field classes of one context (bt2), described by desc().
LTTNG_TAG = ("SignedEnumerationFieldClass(8){_none=[(0, 0)], _int8=[(1, 1)], _int16=[(2, 2)], "
             "_int32=[(3, 3)], _int64=[(4, 4)], _uint8=[(5, 5)], _uint16=[(6, 6)], "
             "_uint32=[(7, 7)], _uint64=[(8, 8)], _float=[(9, 9)], _double=[(10, 10)], "
             "_string=[(11, 11)]}")
LTTNG_VARIANT = ("variant{none: struct{}, int8: SignedIntegerFieldClass(8,base10), "
                 "int16: SignedIntegerFieldClass(16,base10), int32: SignedIntegerFieldClass(32,base10), "
                 "int64: SignedIntegerFieldClass(64,base10), uint8: UnsignedIntegerFieldClass(8,base10), "
                 "uint16: UnsignedIntegerFieldClass(16,base10), uint32: UnsignedIntegerFieldClass(32,base10), "
                 "uint64: UnsignedIntegerFieldClass(64,base10), float: SinglePrecisionRealFieldClass, "
                 "double: DoublePrecisionRealFieldClass, string: StringFieldClass}")


def desc(fc):
    t = type(fc).__name__.replace("Const", "").lstrip("_")
    if "Variant" in t:
        return "variant{" + ", ".join("%s: %s" % (o.name, desc(o.field_class))
                                      for o in fc.values()) + "}"
    if "Structure" in t:
        return "struct{" + ", ".join("%s: %s" % (m.name, desc(m.field_class))
                                     for m in fc.values()) + "}"
    if "Enumeration" in t:
        return "%s(%d){%s}" % (t, fc.field_value_range, ", ".join(
            "%s=%s" % (m.label, [(r.lower, r.upper) for r in m.ranges]) for m in fc.values()))
    if "Integer" in t:
        return "%s(%d,base%d)" % (t, fc.field_value_range, fc.preferred_display_base)
    return t


def contexts_text(trace, event):
    """{msg: babeltrace2's text of the event's context} of each @event."""
    r = subprocess.run(["babeltrace2", trace], capture_output=True, text=True, timeout=300)
    if r.returncode or r.stderr.strip():
        fail("babeltrace2 %s: exit %d: %s" % (trace, r.returncode, r.stderr.strip()[:500]))
    got = {}
    pat = re.compile(r"%s: \{ cpu_id = \d+ \}, (\{ _app.*\} \}), \{ msg = \"([^\"]*)\"" %
                     re.escape(event))
    for line in r.stdout.splitlines():
        m = pat.search(line)
        if m:
            got[m.group(2)] = m.group(1)
        elif event in line:
            fail("an event without the contexts: %s" % line[:300])
    return got


def field_classes(trace):
    import bt2
    for m in bt2.TraceCollectionMessageIterator(trace):
        if type(m) is bt2._EventMessageConst:
            cc = m.event.cls.stream_class.event_common_context_field_class
            return {mm.name: desc(mm.field_class) for mm in cc.values()}
    return {}


class Program:
    def __init__(self, env, fl):
        self.env, self.fl = env, fl
        self.cp = env.dir + ":" + ":".join(os.path.join(JARS, j) for j in fl["jars"])
        self.app_env = dict(env.env)
        self.home = env.dir + "/apphome"
        os.makedirs(self.home + "/.lttng", exist_ok=True)
        self.app_env["LTTNG_HOME"] = self.home
        self.app_env["LD_LIBRARY_PATH"] = COMPAT
        src = os.path.join(SRC, "TrawlAppCtx.java")
        r = subprocess.run(["javac", "-d", env.dir, "-cp", self.cp, src], capture_output=True,
                           text=True, timeout=300)
        if r.returncode:
            raise RuntimeError("javac %s: %s" % (src, r.stderr.strip()))

    def share_port(self):
        with open(self.env.env["TRAWL_ROOT_RUNTIME_DIR"] + "/agent.port") as f:
            port = int(f.read().strip())
        with open(self.home + "/.lttng/agent.port", "w") as f:
            f.write("%d\n" % port)

    def run(self, *args):
        p = subprocess.run(["java", "-cp", self.cp, "TrawlAppCtx"] + list(args),
                           env=self.app_env, capture_output=True, text=True, timeout=300)
        if p.returncode:
            fail("TrawlAppCtx %s failed (%d): %s" % (" ".join(args), p.returncode,
                                                     p.stderr.strip()[-2000:]))
        return p.stdout


def check_errors(env, fl):
    """One line and a non-zero exit for each; nothing added."""
    opt = fl["opt"]
    env.trawl("create", "e", "-o", env.dir + "/te")
    for args, why in (
            ([opt, "-t", "$app.nocolon"], "invalid application context"),
            ([opt, "-t", "$app.:k"], "invalid application context"),
            ([opt, "-t", "$app.p:"], "invalid application context"),
            ([opt, "-t", "$app.p:a-b"], "invalid application context"),
            ([opt, "-t", "$app.p:" + "k" * 200], "invalid application context"),
            ([opt, "-c", "channel0", "-t", "$app.p:k"], "no channel named 'channel0'"),
            (["-p", "-t", "$app.p:k"], "--python"),
    ):
        r = env.trawl("add-context", "-s", "e", *args, check=False)
        if r.returncode == 0 or why not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            fail("add-context %s: exit %d, %r (wanted one line with %r)" % (
                " ".join(args), r.returncode, r.stderr, why))
    r = env.trawl("add-context", "-s", "e", "-p", "-t", "$app.p:k", check=False)
    if r.returncode != 2:
        fail("add-context -p: exit %d, wanted LTTng's 2" % r.returncode)
    env.trawl("add-context", "-s", "e", opt, "-t", "$app.p:k")
    r = env.trawl("add-context", "-s", "e", opt, "-t", "$app.p:k", check=False)
    if r.returncode == 0 or "already" not in r.stderr:
        fail("the same context twice: exit %d, %r" % (r.returncode, r.stderr))
    for i in range(16):
        r = env.trawl("add-context", "-s", "e", "-u", "-t", "$app.p:k%d" % i, check=False)
    if r.returncode == 0 or "at most 16" not in r.stderr:
        fail("a 17th application context: exit %d, %r" % (r.returncode, r.stderr))
    env.trawl("enable-event", opt, "x", "-s", "e")
    check_save_load(env)
    env.trawl("start", "e")
    r = env.trawl("add-context", "-s", "e", opt, "-t", "$app.p:late", check=False)
    if r.returncode == 0 or "started" not in r.stderr:
        fail("add-context after start: exit %d, %r" % (r.returncode, r.stderr))
    env.trawl("destroy", "e")


def check_save_load(env):
    """save writes LTTng's <app> (valid against its session.xsd, when
    installed); load makes the same contexts again."""
    d = env.dir + "/saved"
    env.trawl("save", "e", "-o", d)
    xml = open(d + "/e.lttng").read()
    if "<app><provider_name>p</provider_name><ctx_name>k</ctx_name></app>" not in \
            re.sub(r"\s+", "", xml):
        fail("save: no <app> context for $app.p:k in %s" % xml[:3000])
    xsd = "/usr/share/xml/lttng/session.xsd"
    if os.path.exists(xsd):
        r = subprocess.run(["xmllint", "--noout", "--schema", xsd, d + "/e.lttng"],
                           capture_output=True, text=True)
        if r.returncode:
            fail("xmllint --schema session.xsd: %s" % r.stderr.strip())
    env.trawl("load", "e", "-i", d, "--override-name", "e2")
    listed = env.trawl("list", "e2").stdout
    for ctx in ["$app.p:k"] + ["$app.p:k%d" % i for i in range(15)]:
        if ctx not in listed:
            fail("load: %s not in the loaded session: %s" % (ctx, listed))
    env.trawl("destroy", "e2")


def run(env, fl):
    prog = Program(env, fl)
    opt, t1 = fl["opt"], env.dir + "/t1"
    env.trawl("create", "s1", "-o", t1)
    env.trawl("enable-event", opt, "app.db", "-s", "s1")
    for k in KEYS:
        r = env.trawl("add-context", opt, "-s", "s1", "-t", "$app.trawl:" + k)
        if r.stdout != "%s context $app.trawl:%s added to all channels\n" % (opt == "-j" and "jul" or "log4j", k):
            fail("add-context said %r" % r.stdout)
    env.trawl("add-context", opt, "-s", "s1", "-t", "$app.late:k", "-t", "$app.nope:x")
    # on the same channel, with -u: recorded, but never asked of the agent
    env.trawl("add-context", "-u", "-s", "s1", "-c", fl["channel"], "-t", "$app.trawl:int2")
    prog.share_port()
    env.trawl("start", "s1")
    out = prog.run(sys.argv[1], "hostile" if fl["opt"] == "-j" else "-")
    env.trawl("stop", "s1")
    if "registered trawl true" not in out or "registered late true" not in out:
        fail("the retrievers' registration: %r" % out)
    got = contexts_text(t1, fl["event"])
    for msg, want in (("ctx 1", LTTNG_CTX1), ("ctx 2", LTTNG_CTX2)):
        if got.get(msg) != want:
            fail("%s's contexts:\n  trawl %s\n  LTTng %s" % (msg, got.get(msg), want))
    classes = field_classes(t1)
    for k in KEYS + ["late_k", "nope_x"]:
        name = "_app_" + (k if "_" in k else "trawl_" + k)
        if classes.get(name + "_tag") != LTTNG_TAG or classes.get(name) != LTTNG_VARIANT:
            fail("%s's field classes: %r, %r" % (name, classes.get(name + "_tag"),
                                                  classes.get(name)))
    if fl["opt"] == "-j":
        check_hostile(got)
    env.trawl("destroy", "s1")


def check_c_app(env):
    """A C program (no provider in it) on a -u channel with application
    contexts among others: every event records "_none" for them, after
    the others, as LTTng-UST does; trawl view reads the same."""
    t = env.dir + "/tc"
    env.trawl("create", "c", "-o", t)
    env.trawl("enable-event", "-u", "tctx:*", "-s", "c")
    env.trawl("add-context", "-u", "-s", "c", "-t", "vpid", "-t", "$app.x:y", "-t", "procname",
              "-t", "$app.other.p:z")
    env.trawl("start", "c")
    subprocess.run([os.path.join(BIN, "ust-app-ctx")], env=env.env, capture_output=True,
                   timeout=120)
    env.trawl("stop", "c")
    r = subprocess.run(["babeltrace2", t], capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    pat = re.compile(r'tctx:mark: \{ cpu_id = \d+ \}, \{ vpid = \d+, procname = "ust-app-ctx", '
                     r'_app_x_y_tag = \( "_none" : container = 0 \), _app_x_y = \{ \{ \} \}, '
                     r'_app_other_p_z_tag = \( "_none" : container = 0 \), '
                     r'_app_other_p_z = \{ \{ \} \} \}, \{ role = ')
    if r.returncode or r.stderr.strip() or len(lines) < 10 or \
            any(not pat.search(line) for line in lines):
        fail("a C program's events (%d, exit %d): %s %s" % (
            len(lines), r.returncode, r.stderr.strip()[:300], lines[:2]))
    view = env.trawl("view", "c").stdout.splitlines()
    if view != lines:
        fail("trawl view differs from babeltrace2: %r" % view[:2])
    env.trawl("destroy", "c")


def check_hostile(got):
    """TrawlAppCtx's hostile records (its comments say what each hands)."""
    def ctx(**vals):
        parts = []
        for k in KEYS + ["late:k", "nope:x", "trawl:int2"]:
            name = "_app_" + (k.replace(":", "_") if ":" in k else "trawl_" + k)
            v = vals.get(name[5:])
            if v is None:
                parts.append('%s_tag = %s' % (name, NONE % name))
            else:
                parts.append('%s_tag = ( "%s" : container = %d ), %s = { %s }' % (
                    name, v[0], v[1], name, v[2]))
        return "{ " + ", ".join(parts) + " }"
    want = {
        "hostile 1": ctx(trawl_int=("_int32", 3, "7")),       # 20-byte entries: the first only
        "hostile 2": ctx(),                                    # name offsets out of the strings
        "hostile 3": ctx(),                                    # an unknown type
        "hostile 4": ctx(trawl_string=("_string", 11, '"abc"')),  # no NUL: cut at the array's end
        "hostile 5": ctx(trawl_string=("_string", 11, '"' + "x" * 1024 + '"')),  # 5000 bytes
        "hostile 6": ctx(),                                    # no arrays
        "hostile 7": ctx(),                                    # name without its NUL
    }
    for msg, w in want.items():
        if got.get(msg) != w:
            fail("%s:\n  got    %s\n  wanted %s" % (msg, got.get(msg), w))


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in FLAVOURS:
        print("usage: java-appctx.py jul|log4j", file=sys.stderr)
        return 2
    fl = FLAVOURS[sys.argv[1]]
    require_bt2()
    if sys.argv[1] == "jul":
        # (needs no Java: the one C check, in the jul test)
        env = trawltest.Env("trawl-appctx-c.")
        try:
            check_c_app(env)
        finally:
            env.close()
        if FAILS:
            print("%d failure(s)" % len(FAILS))
            return 1
    for prog in ("java", "javac", "babeltrace2"):
        if not any(os.access(os.path.join(d, prog), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":")):
            print("SKIP: no %s (scripts/install-deps installs openjdk-17-jdk-headless)" % prog)
            return 77
    for j in fl["jars"]:
        if not os.path.exists(os.path.join(JARS, j)):
            print("SKIP: no %s/%s (scripts/install-deps installs liblttng-ust-agent-java)"
                  % (JARS, j))
            return 77
    if not os.path.exists(os.path.join(COMPAT, "liblttng-ust-context-jni.so")):
        fail("no liblttng-ust-context-jni.so in %s (the build found no JDK jni.h?)" % COMPAT)
        return 1
    env = trawltest.Env("trawl-java-appctx-%s." % sys.argv[1])
    try:
        run(env, fl)
        check_errors(env, fl)
    finally:
        env.close()
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
