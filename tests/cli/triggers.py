# SPDX-License-Identifier: MIT
"""add-trigger, list-triggers and remove-trigger (issue 16): LTTng 2.13's
syntax and text.

One sequence of commands runs through trawl and, as a user made for the
test, through real LTTng 2.13.9 (LttngRef): each must succeed with both or
fail with both, and print the same on standard output once each tool's
folder and owner uid are set aside. Then, trawl alone: each malformed
command line is refused with exactly one line on standard error, naming
what was wrong, and a non-zero exit, and registers nothing.

    triggers.py    (through ctest: TRAWL_BIN_DIR)
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, Env, fail  # noqa: E402
import trawltest  # noqa: E402
from lttngref import LttngRef  # noqa: E402

ERM = "--condition event-rule-matches"
# A `!` first: the command fails with both tools.
SEQUENCE = [
    "create s1 --snapshot -o {D}/s1",
    "list-triggers",
    "add-trigger --name t1 %s --type=user --name=app:error --action snapshot-session s1" % ERM,
    "add-trigger --name t2 %s --type=user --name=app:* --filter 'x > 3' --log-level=TRACE_ERR.. "
    "-x app:a,app:b --capture x --capture '$ctx.vpid' --capture 'arr[2]' "
    "--action notify --rate-policy=once-after:3 --action start-session s1 --rate-policy=every:5 "
    "--action stop-session s1 --action rotate-session s1" % ERM,
    "add-trigger %s --type=user --name=foo --action notify" % ERM,
    "add-trigger %s --type=user:tracepoint --action notify --rate-policy=every:1" % ERM,
    "add-trigger --name t5 %s --type=user --log-level=TRACE_ERR --action snapshot-session s1 "
    "--path {D}/snap --name o --max-size 1M" % ERM,
    "add-trigger --name t6 %s -t user -n 'a b' -l DEBUG.. --action snapshot-session s1 "
    "--rate-policy once-after:1" % ERM,
    "add-trigger %s --type=user --name=later --action start-session nosuch" % ERM,
    # a relay output given as one URL, and as LTTng's control and data URLs
    "add-trigger --name t7 %s --type=user --name=x --action snapshot-session s1 "
    "--url net://1.2.3.4:1234:1235" % ERM,
    "add-trigger --name t8 %s --type=user --name=x --action snapshot-session s1 "
    "--ctrl-url=tcp://1.2.3.4:1111 --data-url=tcp://1.2.3.4:1112" % ERM,
    "!add-trigger --name t1 %s --type=user --action notify" % ERM,
    "list-triggers",
    "!remove-trigger nosuch",
    "remove-trigger t1",
    "remove-trigger trigger0",
    "add-trigger %s --type=user --name=again --action notify" % ERM,
    # the agent domains' rules (a logger, the framework's level names)
    "add-trigger --name p1 %s --type=python --action notify" % ERM,
    "add-trigger --name p2 %s --type=python:logging --name=app.db --log-level=ERROR "
    "--action notify" % ERM,
    # (LTTng 2.13 takes no LEVEL.. and no other case for them)
    "!add-trigger --name p3 %s --type=python --log-level=ERROR.. --action notify" % ERM,
    "!add-trigger --name p3 %s --type=python --log-level=error --action notify" % ERM,
    "add-trigger --name j1 %s --type=jul --name=org.x --log-level=SEVERE --action notify" % ERM,
    "add-trigger --name l1 %s --type=log4j --filter 'a == 1' --action notify" % ERM,
    "list-triggers",
    "remove-trigger p1",
    "!remove-trigger",
]

# Refused by trawl in one line naming the cause (and by LTTng, which says
# the same in its words, some in several lines).
MALFORMED = [
    ("--name bad --condition session-consumed-size --action notify", "unknown condition name"),
    ("--name bad %s --action notify" % ERM, "--type"),
    ("--name bad %s --type=user --action notify --rate-policy=every:0" % ERM, "must be > 0"),
    ("--name bad %s --type=user --action notify --rate-policy=foo:1" % ERM, "`foo` unknown"),
    ("--name bad %s --type=user --action notify --rate-policy=every" % ERM, "format is invalid"),
    ("--name bad %s --type=user --action notify --rate-policy=every:x" % ERM, "`x`"),
    ("--name bad %s --type=user --action frob" % ERM, "unknown action name 'frob'"),
    ("--name bad %s --type=user" % ERM, "at least one --action"),
    ("--name bad --action notify", "missing --condition"),
    ("--name bad %s --type=user --action start-session" % ERM, "missing session name"),
    ("--name bad %s --type=frob --action notify" % ERM, "`--type` value: frob"),
    ("--name bad %s --type=user --type=user --action notify" % ERM, "more than one `--type`"),
    ("--name bad %s --type=user --log-level=LOUD --action notify" % ERM, "`LOUD`"),
    ("--name bad %s --type=user --capture '1+1' --action notify" % ERM, "capture expression"),
    ("--name bad %s --type=user --name=x -x y --action notify" % ERM, "globbing pattern"),
    ("--name bad %s --type=user --filter 'x ==' --action notify" % ERM, "filter"),
    ("--name bad %s --type=user --action snapshot-session s1 --name o" % ERM,
     "without a snapshot output destination"),
    ("--name bad %s --type=user --action snapshot-session s1 --path /a --url net://h" % ERM,
     "can't be used together"),
    ("--name bad %s --type=user --action notify extra" % ERM, "unexpected argument"),
    ("--name bad %s --type=user --action start-session s1 s2" % ERM, "unexpected argument"),
    ("--name bad --name again %s --type=user --action notify" % ERM, "duplicate"),
    ("--name bad %s --type=user --action notify --bogus" % ERM, "unknown option '--bogus'"),
    ("--name bad %s --type=user %s --type=user --action notify" % (ERM, ERM), "already given"),
    ("--name '' %s --type=user --action notify" % ERM, "invalid trigger name"),
    # (kernel probes: the root daemon's, tests/kernel/test_trig_probes.py)
    ("--name bad %s --type=kprobe --name=x --location=do_sys_open --action notify" % ERM,
     "can't use --name"),
    ("--name bad %s --type=kernel:uprobe --action notify" % ERM, "requires a --location"),
    ("--name bad %s --type=kernel:uprobe --location=/bin/sh:main --filter 'a0 == 1' "
     "--action notify" % ERM, "filter expressions are not supported"),
]


# Run as `lttng` (a link to trawl of that name), each refusal's standard error
# is LTTng 2.13's, line for line (what its test_add_trigger_cli compares).
UT = ERM + " --type=user"
AS_LTTNG = [
    ("", "Error: Missing --condition."),
    ("--hello", "Error: While parsing argument #2 (`--hello`): Unknown option `--hello`"),
    (UT, "Error: Need at least one --action."),
    ("%s --name=a %s --name=b --action notify" % (UT, UT), "Error: A --condition was already given."),
    ("--name", "Error: While parsing argument #2 (`--name`): Missing required argument for "
     "option `--name`"),
    (UT + " --action notify --rate-policy=every", "Error: Rate policy format is invalid."),
    (UT + " --action notify --rate-policy=once-after:123bob",
     "Error: Failed to parse rate policy value `123bob` as an integer."),
    (UT + " --action notify --rate-policy=every:",
     "Error: Failed to parse rate policy value `` as an integer."),
    (UT + " --action notify --rate-policy=bob:123", "Error: Rate policy type `bob` unknown."),
    ("--condition", "Error: While parsing argument #2 (`--condition`): Missing required argument "
     "for option `--condition`\nError: Valid condition names are:\nError:   event-rule-matches"),
    ("--condition=zoofest", "Error: While parsing argument #2 (`--condition=zoofest`): Unknown "
     "condition name 'zoofest'\nError: Valid condition names are:\nError:   event-rule-matches"),
    (UT + " bozo", "Error: Unexpected argument 'bozo'"),
    (UT + " --log-level=FOO", "Error: Failed to parse log level string `FOO`."),
    (ERM + " --type=kprobe --location=do_sys_open --name=hello",
     "Error: Can't use --name with kernel kprobe event rules."),
    (UT + " --location=hello", "Error: Can't use --location with user tracepoint event rules."),
    (UT + " --event-name=hello", "Error: Can't use --event-name with user tracepoint event rules."),
    (ERM + " --type=syscall open", "Error: Unexpected argument 'open'"),
    (ERM + " --type=syscall:nope --name=open", "Error: Failed to parse syscall type 'syscall:nope'."),
    (UT + " --name=jean --exclude-name jean-chretien --action notify",
     "Error: Event jean: Exclusions can only be used with a globbing pattern"),
    ("--action notify %s --capture" % UT, "Error: While parsing argument #7 (`--capture`): "
     "Missing required argument for option `--capture`"),
    (UT + " --capture --action notify", "Error: While parsing expression `--action`: Unary "
     "operators are not allowed in capture expressions."),
    (UT + " --capture 'foo == 2' --action notify", "Error: While parsing expression `foo == 2`: "
     "Binary operators are not allowed in capture expressions."),
    (UT + " --capture 'foo || bar' --action notify", "Error: While parsing expression "
     "`foo || bar`: Logical operators are not allowed in capture expressions."),
    (UT + " --capture 'foo[3].bar' --action notify", "Error: While parsing expression "
     "`foo[3].bar`: Capturing subfields is not supported."),
    (UT + " --capture '$app.foo' --action notify",
     "Error: Invalid app-specific context field name: missing colon in `foo`."),
    (UT + " --capture '$app.foo:' --action notify",
     "Error: Invalid app-specific context field name: missing type name after colon in `foo:`."),
    (UT + " --action", "Error: While parsing argument #5 (`--action`): Missing required argument "
     "for option `--action`\nError: Valid action names are:\nError:   notify"),
    (UT + " --action=zoofest", "Error: While parsing argument #5 (`--action=zoofest`): Unknown "
     "action name 'zoofest'\nError: Valid action names are:\nError:   notify"),
    (UT + " --action notify bob", "Error: Unexpected argument `bob`."),
    (UT + " --action stop-session", "Error: Missing session name."),
    (UT + " --action rotate-session s bob", "Error: Unexpected argument `bob`."),
    (UT + " --action snapshot-session s --max-size 10M", "Error: Can't provide a snapshot output "
     "max size without a snapshot output destination."),
    (UT + " --action snapshot-session s --name hallo --url /a/path",
     "Error: Failed to parse '/a/path' as an URL."),
    (UT + " --action snapshot-session s --name hallo --path net://8.8.8.8/",
     "Error: Failed to parse 'net://8.8.8.8/' as a local path."),
]


def as_lttng(env):
    """Each AS_LTTNG refusal through trawl named lttng: LTTng's exact stderr."""
    link = os.path.join(env.dir, "lttng")
    os.symlink(os.path.join(BIN, "trawl"), link)
    for args, want in AS_LTTNG:
        r = subprocess.run([link, "add-trigger"] + shlex.split(args), env=env.env,
                           capture_output=True, text=True, timeout=60)
        if r.returncode == 0 or r.stdout or r.stderr != want + "\n":
            fail("lttng add-trigger %s: exit %d, stdout %r, stderr %r (wanted %r)"
                 % (args, r.returncode, r.stdout, r.stderr, want))
    # as trawl, the same refusals keep trawl's own words
    r = subprocess.run([os.path.join(BIN, "trawl"), "add-trigger", "--hello"], env=env.env,
                       capture_output=True, text=True, timeout=60)
    if r.stderr.startswith("Error:"):
        fail("trawl add-trigger --hello printed LTTng's line: %r" % r.stderr)
    print("%d refusals as lttng: LTTng 2.13's lines" % len(AS_LTTNG))


def words(cmd, folder):
    return shlex.split(cmd.lstrip("!").replace("{D}", folder))


def normalise(text, folder):
    text = text.replace(folder, "{D}")
    return re.sub(r"^  owner uid: \d+$", "  owner uid: UID", text, flags=re.M)


def side_by_side(env):
    ref = LttngRef.make("trawltrig")
    if not ref:
        print("note: no LTTng 2.13 to compare with (needs root and lttng-tools)")
        return
    same = 0
    try:
        tfolder = env.dir + "/out"
        lfolder = ref.dir + "/out"
        os.makedirs(tfolder)
        os.makedirs(lfolder)
        os.chown(lfolder, ref.uid, -1)
        for cmd in SEQUENCE:
            want_ok = not cmd.startswith("!")
            t = subprocess.run([os.path.join(BIN, "trawl")] + words(cmd, tfolder),
                               env=env.env, capture_output=True, text=True, timeout=120)
            lt = ref.lttng_raw("lttng", *words(cmd, lfolder))
            if (t.returncode == 0) != want_ok or (lt.returncode == 0) != want_ok:
                fail("%s: trawl exit %d, lttng exit %d, wanted %s (trawl: %s; lttng: %s)"
                     % (cmd, t.returncode, lt.returncode, "0" if want_ok else "non-zero",
                        t.stderr.strip(), lt.stderr.strip()))
            if cmd.startswith("create"):
                continue  # create's text is cli-text's
            ours, theirs = normalise(t.stdout, tfolder), normalise(lt.stdout, lfolder)
            if ours != theirs:
                fail("%s: printed differently\n--- lttng\n%s\n--- trawl\n%s" % (cmd, theirs, ours))
            else:
                same += 1
    finally:
        ref.close()
    print("%d of %d trigger commands print the same as LTTng 2.13" % (same, len(SEQUENCE) - 1))


# --mi xml add-trigger, list-triggers and remove-trigger: LTTng's documents
# (lttng_trigger_mi_serialize()), the same with both tools once owner uids
# are set aside, and valid against mi-lttng-4.1 when a copy is found
# (mi.py's find_xsd()) except where LTTng 2.13's own break it: its
# start-session and stop-session actions (action_start_session,
# action_stop_session; the schema says action_start, action_stop). Two
# LTTng 2.13 bugs are not copied: it names a stop-session action
# action_start_session (so trawl's is compared as that), and it aborts on
# a rotate-session action (an assertion in
# lttng_action_rotate_session_mi_serialize()): `=` first, trawl alone.
MI_SEQUENCE = [
    "add-trigger --name m1 %s --type=user --name=mi_aa --filter 'p == 2' --action notify" % ERM,
    "add-trigger --name m2 %s --type=user --name='m*' -x m1 -x m2 --log-level=INFO.. "
    "--capture a --capture 'b[3]' --capture '$ctx.vpid' --capture '$app.p:t' "
    "--action snapshot-session s1 --path /some/path --name=o --max-size=1234 "
    "--rate-policy=once-after:10" % ERM,
    "add-trigger --name m3 %s --type=user --log-level=WARNING --action notify "
    "--action snapshot-session s1 --url file:///other/path" % ERM,
    "add-trigger --name m4 %s --type=user --action start-session s1 --action stop-session s1" % ERM,
    "add-trigger --name m6 %s --type=user --action snapshot-session s1 "
    "--ctrl-url=tcp://1.2.3.4:1111 --data-url=tcp://1.2.3.4:1112" % ERM,
    "list-triggers",
    "remove-trigger m2",
    "!remove-trigger m2",
    "list-triggers",
    "=add-trigger --name m5 %s --type=user --action rotate-session s1 --rate-policy=every:4" % ERM,
    "=remove-trigger m5",
]


def mi_normalise(doc):
    r = subprocess.run(["xmllint", "--format", "-"], input=doc, capture_output=True, text=True)
    return re.sub(r"<owner_uid>\d+</owner_uid>", "<owner_uid>UID</owner_uid>", r.stdout)


def mi(env, ref):
    from mi import find_xsd, xmllint
    xsd = find_xsd()
    for cmd in MI_SEQUENCE:
        want_ok = not cmd.startswith("!")
        alone = cmd.startswith("=")
        cmd = cmd.lstrip("=")
        t = subprocess.run([os.path.join(BIN, "trawl"), "--mi", "xml"] + words(cmd, env.dir),
                           env=env.env, capture_output=True, text=True, timeout=120)
        if (t.returncode == 0) != want_ok:
            fail("--mi xml %s: exit %d: %s" % (cmd, t.returncode, t.stderr.strip()))
        invalid = any(n in t.stdout for n in ("action_start_session", "action_stop_session"))
        why = xmllint(t.stdout, xsd if not invalid else None)
        if why:
            fail("--mi xml %s: not valid: %s\n%s" % (cmd, why, t.stdout))
        if "rotate-session" in cmd and "action_rotate_session" not in t.stdout:
            fail("--mi xml %s: no <action_rotate_session>\n%s" % (cmd, t.stdout))
        if not ref or alone:
            continue
        lt = ref.lttng_raw("lttng", "--mi", "xml", *words(cmd, ref.dir))
        if (lt.returncode == 0) != want_ok:
            fail("lttng --mi xml %s: exit %d: %s" % (cmd, lt.returncode, lt.stderr.strip()))
        ours = mi_normalise(t.stdout.replace("action_stop_session", "action_start_session"))
        if ours != mi_normalise(lt.stdout):
            fail("--mi xml %s: differs\n--- lttng\n%s\n--- trawl\n%s"
                 % (cmd, mi_normalise(lt.stdout), mi_normalise(t.stdout)))
    print("%d trigger MI documents checked (%s; %s)" % (
        len(MI_SEQUENCE), "against " + xsd if xsd else "no schema found: well-formed only",
        "compared with LTTng 2.13" if ref else "no LTTng to compare with"))


def malformed(env):
    before = env.trawl("list-triggers").stdout
    for args, word in MALFORMED:
        r = subprocess.run([os.path.join(BIN, "trawl"), "add-trigger"] + shlex.split(args),
                           env=env.env, capture_output=True, text=True, timeout=60)
        lines = r.stderr.splitlines()
        if r.returncode == 0 or len(lines) != 1 or word not in lines[0]:
            fail("add-trigger %s: exit %d, stderr %r (wanted one line with %r)"
                 % (args, r.returncode, r.stderr, word))
    after = env.trawl("list-triggers").stdout
    if before != after:
        fail("a malformed add-trigger registered something:\n%s" % after)


def main():
    env = Env("trawl-triggers.")
    try:
        side_by_side(env)
        malformed(env)
        as_lttng(env)
        env.stop_daemons()
        ref = LttngRef.make("trawltrigmi")
        try:
            mi(env, ref)
        finally:
            if ref:
                ref.close()
    finally:
        env.close()
    return trawltest.report()


if __name__ == "__main__":
    sys.exit(main())
