#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 10, item 2: client text that reaches tracefs. A member of group
# 'tracing' asks the real root daemon for probes crafted to make tracefs
# read another user's memory: a user-space probe whose PATH holds a space
# and '#' (uprobe_events would take the rest as fetch arguments such as
# +0(%di):string and comment out what trawl appends), fetch arguments after
# the symbol, an offset into a function, a newline, a kernel probe with
# fetch arguments, set_ftrace_filter commands, a filter with a comment.
# Meanwhile the victim, another user, hashes a secret with crypt(3) 30
# times. Each crafted request must be refused with one line, nothing of it
# may reach uprobe_events, and the secret must appear nowhere in the trace;
# the probe a member may ask for (a function of a library they can read)
# records the victim's 30 calls, as integers only. Files are opened as the
# member: a private file, a FIFO and a folder are refused (the FIFO
# without hanging the daemon). The same locations as add-trigger's
# (--type=kernel:uprobe|kprobe --location) are refused alike.
. "$(dirname "$0")/../cli/lib.sh"

skip() { echo "SKIP: $*"; exit 77; }
users_or_skip
for c in babeltrace2 readelf ldd; do
	command -v $c >/dev/null || skip "$c missing"
done
VICTIM=$BIN/victim-crypt
[ -x "$VICTIM" ] || skip "victim-crypt not built (no libcrypt)"
TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$TRACEFS" ] && [ -w "$TRACEFS/uprobe_events" ] || skip "no tracefs with uprobe_events"

V=trawlv$$; G=trawlg$$
mkuser "$V" || skip "useradd failed"
mkuser "$G" tracing
chmod 700 "$T/$V"
cp "$VICTIM" "$T/$V/private-victim" && chown "$V" "$T/$V/private-victim"
LIBCRYPT=$(realpath "$(ldd "$VICTIM" | awk '/libcrypt/ { print $3 }')")
[ -r "$LIBCRYPT" ] || skip "cannot find the victim's libcrypt"
SECRET="hunter2-$$-s3cr3t"

"$BIN/trawl-sessiond" --daemonize || { fail "the root daemon did not start"; finish; }
DPID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
tg() { as "$G" "$@"; }

# refused WORD CMD...: CMD fails with one line on stderr that holds WORD.
refused() {
	local word=$1; shift
	"$@" >"$T/out" 2>"$T/err" && { fail "accepted: $*"; return 1; }
	expect_err_line "$word"
}

# The file offset of crypt() in libcrypt: what the crafted path aims at.
OFF=$(python3 - "$LIBCRYPT" <<'PY'
import re, subprocess, sys
lib = sys.argv[1]
syms = subprocess.run(["readelf", "-Ws", lib], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines() if re.search(r"FUNC .* crypt(@@\S+)?$", l))
for l in subprocess.run(["readelf", "-lW", lib], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        off, va, fsz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if va <= addr < va + fsz:
            print(hex(addr - va + off))
PY
)
[ -n "$OFF" ] || skip "cannot find crypt() in $LIBCRYPT"

expect 0 tg create atk -o "$T/$G/out"

# 1. The attack as found: PATH names a folder "lnk:OFF pw=+0(%di):string #"
#    beside a link lnk -> libcrypt; the kernel would probe libcrypt at OFF with
#    a fetch argument reading the string crypt() is given.
as_user "$G" mkdir -p "$T/$G/att"
as_user "$G" ln -s "$LIBCRYPT" "$T/$G/att/lnk"
D="$T/$G/att/lnk:$OFF pw=+0(%di):string #"
as_user "$G" mkdir -p "$D" && as_user "$G" cp "$VICTIM" "$D/t"
refused "PATH is absolute" tg enable-event -k --userspace-probe "elf:$D/t:main" pw
# 2. Fetch arguments after the symbol, an offset, a newline, another grammar's text.
refused "PATH is absolute" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt pw=+0(%di):string" pw
refused "no offset" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt pw=+0(%di)" pw
refused "no offset" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt+4" pw
refused "no offset" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:0x$OFF" pw
refused "user-space probe" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt
p:x/y $LIBCRYPT:$OFF pw=+0(%di):string" pw
refused "SDT provider" tg enable-event -k --userspace-probe "sdt:$LIBCRYPT:p:n +0(%di):string" pw
refused "probe name" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt" "pw pw=+0(%di):string"
refused "probe name" tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt" "x#"
# 3. Kernel probes and the function tracer: the grammar refuses before the
#    kernel would be asked (this kernel has no kprobes: the line must be the grammar's).
refused "kernel probe location" tg enable-event -k --probe "do_sys_openat2 x=+0(%si):string" kp
refused "kernel probe location" tg enable-event -k --probe "do_sys_openat2#" kp
refused "kernel symbol" tg enable-event -k --function "schedule:traceoff" fn
refused "kernel symbol" tg enable-event -k --function "*:mod:ext4" fn
# 4. Filters and event names.
refused "ftrace's syntax" tg enable-event -k sched_switch --filter "prev_pid == 0 # x"
refused "ftrace's syntax" tg enable-event -k sched_switch --filter "prev_pid == 0
prev_pid == 1"
refused "kernel event name" tg enable-event -k "sched_switch/../../x"
# 5. Files are opened as the member: another user's private file, a FIFO
#    (which must not hang the daemon), a folder.
refused "Permission denied" tg enable-event -k --userspace-probe "elf:$T/$V/private-victim:main" pv
as_user "$G" mkfifo "$T/$G/fifo"
start=$(date +%s)
refused "not a regular file" tg enable-event -k --userspace-probe "elf:$T/$G/fifo:main" ff
[ $(($(date +%s) - start)) -lt 5 ] || fail "a FIFO held the daemon"
refused "not a regular file" tg enable-event -k --userspace-probe "elf:$T/$G/att:main" dd
grep -q "trawl_${DPID}_" "$TRACEFS/uprobe_events" && fail "a refused probe reached uprobe_events"
# The same locations as a trigger's (add-trigger --type=kernel:uprobe|kprobe):
# the same checks, the file opened as the member too.
ut() { tg add-trigger --condition event-rule-matches --type=kernel:uprobe --location "$1" --action notify; }
refused "PATH is absolute" ut "elf:$D/t:main"
refused "PATH is absolute" ut "elf:$LIBCRYPT:crypt pw=+0(%di):string"
refused "no offset" ut "elf:$LIBCRYPT:crypt+4"
refused "user-space probe" ut "elf:$LIBCRYPT:crypt
p:x/y $LIBCRYPT:$OFF pw=+0(%di):string"
refused "SDT provider" ut "sdt:$LIBCRYPT:p:n +0(%di):string"
refused "Permission denied" ut "elf:$T/$V/private-victim:main"
start=$(date +%s)
refused "not a regular file" ut "elf:$T/$G/fifo:main"
[ $(($(date +%s) - start)) -lt 5 ] || fail "a FIFO held the daemon (add-trigger)"
refused "kernel probe location" tg add-trigger --condition event-rule-matches --type=kernel:kprobe \
	--location "do_sys_openat2 x=+0(%si):string" --action notify
grep -q "trawl_${DPID}_" "$TRACEFS/uprobe_events" && fail "a refused trigger's probe reached uprobe_events"
tg list-triggers >"$T/out" 2>&1
[ -s "$T/out" ] && ! grep -q "^No triggers" "$T/out" && grep -q "name:" "$T/out" &&
	fail "a refused trigger is listed: $(cat "$T/out")"

# 6. What a member may do: a probe on a function of a library they can read.
expect 0 tg enable-event -k --userspace-probe "elf:$LIBCRYPT:crypt" cr
line=$(grep "trawl_${DPID}_" "$TRACEFS/uprobe_events")
[ "$(echo "$line" | wc -l)" = 1 ] || fail "expected one probe, got: $line"
# Defined on the file the member opened (/proc/self/fd/N), registers only.
echo "$line" | grep -Eq "^p:trawl_${DPID}_[0-9]+/cr /proc/self/fd/[0-9]+:0x[0-9a-f]+( a[0-5]=%[a-z0-9]+:s64){6}$" ||
	fail "unexpected uprobe definition: $line"
off=$(echo "$line" | sed -E 's/^[^ ]+ [^ ]+:(0x[0-9a-f]+) .*/\1/')
[ "$((off))" = "$((OFF))" ] || fail "probe at $off, crypt() is at $OFF"
expect 0 tg start
as_user "$V" "$VICTIM" "$SECRET" 30 >"$T/victim.out" || fail "the victim failed"
expect 0 tg stop
n=$(babeltrace2 "$T/$G/out" 2>/dev/null | grep -c " cr: ")
[ "$n" = 30 ] || fail "expected 30 crypt() events, got $n"
babeltrace2 "$T/$G/out" 2>/dev/null | grep -qF "$SECRET" && fail "the secret is in the trace"
grep -rqaF "$SECRET" "$T/$G/out" && fail "the secret is in the trace files"
expect 0 tg destroy
grep -q "trawl_${DPID}_" "$TRACEFS/uprobe_events" && fail "probe left behind after destroy"
finish
