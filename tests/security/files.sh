#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Attacks on the files that the root session daemon and the processes it
# spawns write for a user (docs/SECURITY.md, "Files"; the table in
# tests/security/README.md). A member of group 'tracing' (a real user, made
# here) traces through the real root daemon (private TRAWL_ROOT_RUNTIME_DIR)
# and plants links, FIFOs, devices and hard links where root writes, or
# swaps folders while it works. Every attack checks the same outcome: root's
# file and root's folder are unchanged byte for byte; the session is either
# refused with one clear line or traced where it should be; and a trace that
# was written is the member's, readable by them with `trawl view` and with
# babeltrace2, kernel part included.
#
# usage: files.sh ATTACK   (the ATTACKS list below; ctest runs each)
. "$(dirname "$0")/../cli/lib.sh"

ATTACK=${1:?usage: files.sh ATTACK}
users_or_skip
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }

G=trawlsf$$ # the attacker: a member of 'tracing', owner of the session
B=trawlsb$$ # a second user, not in 'tracing' (other_user: some attacks only)
TEST_PID=$$
LOOP_PIDS=()

# G_LOOP BODY: runs BODY over and over as the attacker in the background,
# for as long as this shell lives: setpriv execs the loop's shell (so $! is
# that shell, which G_STOP kills), in our process group, with SIGKILL as its
# parent-death signal, and each round checks that we are still here.
G_LOOP() {
	setpriv --reuid "$G" --regid "$(id -g "$G")" --init-groups --pdeathsig KILL \
		sh -c "while [ -e /proc/$TEST_PID ]; do $1
		done" >/dev/null 2>&1 &
	LOOP_PIDS+=($!)
}
G_STOP() {
	local p
	for p in "${LOOP_PIDS[@]}"; do
		kill -STOP "$p" 2>/dev/null # no new child; then its children, then it
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	LOOP_PIDS=()
}

# Nothing this test starts may outlive it: the attacker's loops, the root
# daemon, the user. On any exit (a failure, INT/TERM/HUP) the trap stops the
# loops, the daemon, and then whatever still runs as the user we made (theirs
# alone: the name carries our pid), before lib.sh deletes the user and $T.
files_cleanup() {
	G_STOP
	kill_daemons
	id -u "$G" >/dev/null 2>&1 && pkill -KILL -U "$(id -u "$G")" 2>/dev/null
	sleep 0.2
	cleanup
}
trap files_cleanup EXIT
trap 'exit 1' INT TERM HUP

mkuser "$G" tracing || { echo "SKIP: useradd failed"; exit 77; }

# Killed outright (ctest's timeout sends SIGKILL to this shell and its
# children; a job's process group may be killed too), no trap runs: a
# watchdog outside both (its own session, reparented to init) then does the
# trap's work once this shell is gone. After a normal exit $T is gone and it
# just ends.
watchdog() {
	while [ -e "/proc/$TEST_PID" ]; do sleep 1; done
	[ -d "$T" ] || exit 0
	kill_daemons
	pkill -KILL -U "$GUID" 2>/dev/null
	sleep 0.2
	userdel "$G" 2>/dev/null
	userdel "$B" 2>/dev/null
	rm -rf "$T"
}
(T=$T G=$G B=$B GUID=$(id -u "$G") TEST_PID=$TEST_PID \
	setsid bash -c "$(declare -f kill_daemons watchdog); watchdog" \
	</dev/null >/dev/null 2>&1 &)

O=$T/$G/o # the session's output folder

"$BIN/trawl-sessiond" --daemonize || { echo "FAIL: the root daemon did not start"; exit 1; }
"$TRAWL" list -k >/dev/null 2>&1 || { echo "SKIP: kernel tracing unavailable"; exit 77; }

# g_run CMD...: runs CMD as the attacker, in their own folders
g_run() {
	runuser -u "$G" -- env HOME="$T/$G" TRAWL_RUNTIME_DIR="$T/$G/run" \
		TRAWL_ROOT_RUNTIME_DIR="$TRAWL_ROOT_RUNTIME_DIR" "$@"
}
# trawl as the attacker (lib.sh's as); G_DO SCRIPT as them in a shell (links, FIFOs, renames)
gt() { as "$G" "$@"; }
G_DO() { g_run sh -c "$1"; }
# What root owns and must never see changed: a file, and a folder with nothing in it.
VICTIM=$T/victim
ROOTDIR=$T/rootdir
head -c 4096 /dev/urandom >"$VICTIM"
chmod 600 "$VICTIM"
VICTIM_SUM=$(sha256sum <"$VICTIM")
mkdir -m 700 "$ROOTDIR"
victims_intact() {
	[ "$(sha256sum <"$VICTIM")" = "$VICTIM_SUM" ] || fail "root's file $VICTIM was changed"
	[ -z "$(ls -A "$ROOTDIR")" ] || fail "root's folder got files: $(ls -lAR "$ROOTDIR")"
}

# session_run NAME [enable-event args]: create -o $O, a kernel event, start,
# some scheduling, stop. Each step's status in RC_CREATE, RC_START, RC_STOP.
session_run() {
	local name=$1; shift
	gt create "$name" -o "$O" >"$T/out" 2>"$T/err.create"; RC_CREATE=$?
	gt enable-event -k -s "$name" "${@:-sched_switch}" >"$T/out" 2>&1
	prepare_hook "$name"
	gt start "$name" >"$T/out" 2>"$T/err"; RC_START=$?
	sleep 0.2
	gt stop "$name" >"$T/out" 2>"$T/err.stop"; RC_STOP=$?
	# 11: stopped, but sched_switch overflowed a buffer on a busy machine
	# (counted in the trace); these cases are about files, not loss
	[ "$RC_STOP" = 11 ] && RC_STOP=0
}
prepare_hook() { :; }

# trace_is_members DIR: everything under DIR is the attacker's, the trace's
# files are 0640 and regular, and they read kernel events there with babeltrace2.
trace_is_members() {
	local dir=$1 n
	[ -d "$dir/kernel" ] || { fail "no kernel trace in $dir"; return; }
	n=$(find "$dir" ! -user "$G" | head -3)
	[ -z "$n" ] || fail "not the member's: $n"
	n=$(find "$dir/kernel" -type f ! -perm 0640 | head -3)
	[ -z "$n" ] || fail "modes: $(ls -ld $n)"
	find "$dir/kernel" ! -type f ! -type d | grep -q . && fail "not files: $(find "$dir/kernel" ! -type f ! -type d)"
	n=$(g_run babeltrace2 "$dir/kernel" 2>"$T/bt.err" | grep -c " sched_switch: ")
	[ "$n" -gt 0 ] || fail "the member's babeltrace2 reads no kernel event: $(head -3 "$T/bt.err")"
}
# viewable NAME: the member's `trawl view NAME` shows kernel events
viewable() {
	local n
	n=$(gt view "$1" 2>"$T/view.err" | grep -c " sched_switch: ")
	[ "$n" -gt 0 ] || fail "the member's trawl view shows no kernel event: $(head -3 "$T/view.err")"
}
# refused_one_line FILE WORD: one line on stderr naming WORD
refused_one_line() {
	[ "$(wc -l <"$1")" = 1 ] || fail "expected one error line, got: $(cat "$1")"
	grep -qF -- "$2" "$1" || fail "error line lacks '$2': $(cat "$1")"
}

# ---- the attacks --------------------------------------------------------------

# A link to root's file where each kind of trace file goes.
attack_link_file() {
	G_DO "mkdir -p '$O/kernel/index' && ln -s '$VICTIM' '$O/kernel/metadata' &&
	      ln -s '$VICTIM' '$O/kernel/channel0_0' && ln -s '$VICTIM' '$O/kernel/index/channel0_0.idx'"
	session_run s
	[ "$RC_START" = 0 ] && [ "$RC_STOP" = 0 ] || fail "start/stop failed: $(cat "$T/err" "$T/err.stop")"
	victims_intact
	[ -f "$O/kernel/metadata" ] && [ ! -L "$O/kernel/metadata" ] || fail "metadata still a link"
	trace_is_members "$O"
	viewable s
}

# The output folder itself a link to root's folder, made after create.
attack_link_output() {
	gt create s -o "$O" >/dev/null 2>&1 || fail "create failed"
	gt enable-event -k -s s sched_switch >/dev/null 2>&1
	G_DO "rmdir '$O' && ln -s '$ROOTDIR' '$O'"
	gt start s >"$T/out" 2>"$T/err" && fail "start wrote through the member's link to root's folder"
	refused_one_line "$T/err" "Permission denied"
	cat "$T/err"
	victims_intact
	# and at create: refused as the member would be
	gt create s2 -o "$O/sub" >"$T/out" 2>"$T/err" && fail "create made a folder in root's"
	refused_one_line "$T/err" "Permission denied"
	victims_intact
}

# o/kernel (or o/kernel/index) a link to root's folder.
attack_link_kernel() {
	G_DO "mkdir -p '$O' && ln -s '$ROOTDIR' '$O/kernel'"
	session_run s
	[ "$RC_START" != 0 ] || fail "start wrote through the member's link to root's folder"
	refused_one_line "$T/err" "Permission denied"
	cat "$T/err"
	victims_intact
}
attack_link_index() {
	G_DO "mkdir -p '$O/kernel' && ln -s '$ROOTDIR' '$O/kernel/index'"
	session_run s
	[ "$RC_START" != 0 ] || fail "start wrote through a link inside the trace"
	refused_one_line "$T/err" "$O/kernel/index"
	grep -q "symbolic link" "$T/err" || fail "the line does not say why: $(cat "$T/err")"
	cat "$T/err"
	victims_intact
}

# o/ust/uid/<uid> a link to root's folder: the user-space consumer runs as
# the member, and the member's kernel trace is still written.
attack_link_ust() {
	local app=$BIN/ust-app-all uid
	[ -x "$app" ] || { echo "SKIP: no ust-app-all"; exit 77; }
	uid=$(id -u "$G")
	G_DO "mkdir -p '$O/ust/uid' && ln -s '$ROOTDIR' '$O/ust/uid/$uid'"
	gt create s -o "$O" >/dev/null 2>&1
	gt enable-event -k -s s sched_switch >/dev/null 2>&1
	gt enable-event -u -s s tall:seq >/dev/null 2>&1
	gt start s >/dev/null 2>"$T/err" || fail "start failed: $(cat "$T/err")"
	g_run "$app" 1 50 5000 >/dev/null 2>&1
	gt stop s >/dev/null 2>&1
	victims_intact
	trace_is_members "$O"
}

# create --shm-path: the member's shm folder is a link to a folder of
# root's. The buffer files are made by a process running as the member, so
# the link leads nowhere they may write: the channel is refused (the app
# runs untraced) and root's folder stays empty. A real folder of theirs
# gets the files, all theirs, and `trawl crash` reads them as them.
attack_shm_link() {
	local app=$BIN/ust-app-all n
	[ -x "$app" ] || { echo "SKIP: no ust-app-all"; exit 77; }
	G_DO "ln -s '$ROOTDIR' '$T/$G/shm'"
	gt create s -o "$O" --shm-path "$T/$G/shm" >"$T/out" 2>"$T/err" ||
		fail "create --shm-path failed: $(cat "$T/err")"
	gt enable-event -u -s s tall:seq >/dev/null 2>&1
	gt start s >/dev/null 2>"$T/err" || fail "start failed: $(cat "$T/err")"
	g_run "$app" 1 50 3000 >/dev/null 2>&1
	gt stop s >/dev/null 2>&1
	gt destroy s >/dev/null 2>&1
	victims_intact
	[ -z "$(find "$ROOTDIR" -mindepth 1 | head -1)" ] || fail "root's folder got files"
	grep -q "cannot make the buffer files in $T/$G/shm/s-" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" ||
		fail "the daemon's log does not say why: $(tail -3 "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	# the same in a folder of theirs: the files are made, theirs, and read back
	gt create s2 -o "$O.2" --shm-path "$T/$G/shm2" >/dev/null 2>"$T/err" ||
		fail "create --shm-path failed: $(cat "$T/err")"
	gt enable-event -u -s s2 tall:seq >/dev/null 2>&1
	gt start s2 >/dev/null 2>"$T/err" || fail "start failed: $(cat "$T/err")"
	g_run "$app" 1 50 5000 >/dev/null 2>&1
	gt stop s2 >/dev/null 2>&1
	n=$(find "$T/$G/shm2" -type f | wc -l)
	[ "$n" -ge 2 ] || fail "no buffer files under $T/$G/shm2: $(find "$T/$G/shm2")"
	n=$(find "$T/$G/shm2" ! -user "$G" | head -3)
	[ -z "$n" ] || fail "not the member's: $n"
	g_run "$TRAWL" crash -x "$T/$G/crash" "$T/$G/shm2" >"$T/out" 2>"$T/err" ||
		fail "trawl crash as the member: $(cat "$T/err")"
	n=$(babeltrace2 "$T/$G/crash" 2>/dev/null | grep -c 'tall:seq')
	[ "$n" = 50 ] || fail "trawl crash: $n of 50 events"
	gt destroy s2 >/dev/null 2>&1
	victims_intact
}

# A FIFO where stream files and metadata go: root once blocked opening it
# (no reader), holding the root daemon for its 30 s start timeout.
attack_fifo() {
	G_DO "mkdir -p '$O/kernel/index' && mkfifo '$O/kernel/metadata' '$O/kernel/channel0_0' \
	      '$O/kernel/index/channel0_1.idx'"
	session_run s
	[ "$RC_START" = 0 ] && [ "$RC_STOP" = 0 ] || fail "start/stop failed: $(cat "$T/err" "$T/err.stop")"
	victims_intact
	trace_is_members "$O"
}

# A device where a stream file goes: the member's link to one, and a device
# node in their folder (a member cannot make one: root puts it there, as a
# hard link to /dev/full would be on a system with fs.protected_hardlinks=0).
attack_device() {
	G_DO "mkdir -p '$O/kernel' && ln -s /dev/full '$O/kernel/channel0_0'"
	mknod "$O/kernel/channel0_1" c 1 7 && chown "$G" "$O/kernel/channel0_1"
	session_run s
	[ "$RC_START" = 0 ] && [ "$RC_STOP" = 0 ] || fail "start/stop failed: $(cat "$T/err" "$T/err.stop")"
	[ -f "$O/kernel/channel0_1" ] || fail "the device is still there"
	victims_intact
	trace_is_members "$O"
}

# A hard link to root's file where the metadata goes (what a user can make
# with fs.protected_hardlinks=0; root makes it here): root used to truncate
# it through the link, and O_NOFOLLOW does not see hard links.
attack_hardlink() {
	G_DO "mkdir -p '$O/kernel'"
	ln "$VICTIM" "$O/kernel/metadata" || { echo "SKIP: cannot hard link"; exit 77; }
	session_run s
	[ "$RC_START" = 0 ] || fail "start failed: $(cat "$T/err")"
	victims_intact
	trace_is_members "$O"
}

# Swaps between check and use: while root starts and stops sessions, the
# member keeps renaming o/kernel, o/kernel/index and the metadata in and
# out of links to root's file and folder.
attack_race() {
	local i ok=0
	G_DO "mkdir -p '$O'"
	G_LOOP "
		cd '$O' || exit 1
		mkdir -p real/index 2>/dev/null
		ln -sfn '$ROOTDIR' kernel 2>/dev/null; ln -sfn '$ROOTDIR' kernel 2>/dev/null
		rm -f kernel; mv real kernel 2>/dev/null
		ln -sf '$VICTIM' kernel/metadata 2>/dev/null
		ln -sfn '$ROOTDIR' kernel/index 2>/dev/null
		rm -rf kernel/index 2>/dev/null; mkdir kernel/index 2>/dev/null
		mv kernel real 2>/dev/null"
	for i in $(seq 12); do
		gt create "r$i" -o "$O" >/dev/null 2>&1
		gt enable-event -k -s "r$i" sched_switch >/dev/null 2>&1
		if gt start "r$i" >"$T/out" 2>"$T/err"; then
			ok=$((ok + 1))
			gt stop "r$i" >/dev/null 2>&1
		else
			[ "$(wc -l <"$T/err")" = 1 ] || fail "start r$i: not one line: $(cat "$T/err")"
		fi
		gt destroy "r$i" >/dev/null 2>&1
	done
	G_STOP
	victims_intact
	"$TRAWL" list >/dev/null 2>&1 || fail "the root daemon does not answer root"
	echo "race: $ok of 12 sessions started (the others refused in one line)"
}

# Snapshots: every snapshot-N-* folder gets a kernel link to root's folder
# planted as soon as it appears.
attack_snapshot() {
	local i n
	gt create s --snapshot -o "$O" >/dev/null 2>&1 || fail "create --snapshot failed"
	gt enable-event -k -s s sched_switch >/dev/null 2>&1
	gt start s >/dev/null 2>"$T/err" || fail "start failed: $(cat "$T/err")"
	G_LOOP "for d in '$O'/snapshot-*; do
		[ -d \"\$d\" ] && [ ! -e \"\$d/kernel\" ] && ln -s '$ROOTDIR' \"\$d/kernel\"; done"
	for i in $(seq 8); do
		if ! gt snapshot record -s s >"$T/out" 2>"$T/err"; then
			[ "$(wc -l <"$T/err")" = 1 ] || fail "snapshot $i: not one line: $(cat "$T/err")"
		fi
	done
	G_STOP
	victims_intact
	n=$(find "$O" ! -user "$G" | head -3)
	[ -z "$n" ] || fail "not the member's: $n"
}

# Item 10 of issue 10: a member's mixed session is theirs and reads whole.
attack_member_trace() {
	local app=$BIN/ust-app-all n
	[ -x "$app" ] || { echo "SKIP: no ust-app-all"; exit 77; }
	gt create s -o "$O" >/dev/null 2>&1 || fail "create failed"
	gt enable-event -k -s s sched_switch >/dev/null 2>&1
	gt enable-event -u -s s tall:seq >/dev/null 2>&1
	gt start s >/dev/null 2>"$T/err" || fail "start failed: $(cat "$T/err")"
	g_run "$app" 1 200 5000 >/dev/null 2>&1 || fail "the member's app failed"
	# 11: stopped, sched_switch overflowed on a busy machine (counted)
	gt stop s >/dev/null 2>"$T/err" || [ $? = 11 ] || fail "stop failed: $(cat "$T/err")"
	trace_is_members "$O"
	viewable s
	n=$(gt view s 2>/dev/null | grep -c " tall:seq: ")
	[ "$n" = 200 ] || fail "the member's trawl view shows $n of 200 user-space events"
	n=$(g_run babeltrace2 "$O" 2>/dev/null | grep -c " tall:seq: ")
	[ "$n" = 200 ] || fail "the member's babeltrace2 reads $n of 200 user-space events"
	gt destroy s >/dev/null 2>&1
}

# ~/.trawlrc when root runs trawl with the member's HOME (sudo keeps it on
# some systems): links at the file and at the one written aside.
attack_trawlrc() {
	G_DO "ln -s '$VICTIM' '$T/$G/.trawlrc' && ln -s '$VICTIM' '$T/$G/..trawlrc.tmp'"
	HOME=$T/$G "$TRAWL" create rc -o "$T/rootout" >"$T/out" 2>"$T/err" ||
		fail "create failed: $(cat "$T/err")"
	victims_intact
	[ -f "$T/$G/.trawlrc" ] && [ ! -L "$T/$G/.trawlrc" ] || fail ".trawlrc still a link"
	grep -qx "session=rc" "$T/$G/.trawlrc" || fail ".trawlrc: $(cat "$T/$G/.trawlrc")"
	"$TRAWL" destroy rc >/dev/null 2>&1
	# a FIFO there: root's trawl, looking for the current session, once
	# blocked opening it for as long as the member wished
	G_DO "rm -f '$T/$G/.trawlrc' && mkfifo '$T/$G/.trawlrc'"
	HOME=$T/$G timeout 20 "$TRAWL" start >"$T/out" 2>"$T/err"
	[ $? != 124 ] || fail "root's trawl blocked on the member's FIFO at ~/.trawlrc"
	refused_one_line "$T/err" "session"
	[ -p "$T/$G/.trawlrc" ] || fail "the member's FIFO was removed"
}

# A root relayd given an output folder the member owns: refused in one line
# (they could rename its session folders under it and swap in links).
attack_relayd() {
	G_DO "mkdir -p '$T/$G/relay'"
	timeout 10 "$BIN/trawl-relayd" -o "$T/$G/relay" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 \
		-L tcp://127.0.0.1:0 >"$T/out" 2>"$T/err"
	[ $? = 1 ] || fail "relayd did not refuse the member's folder: $(cat "$T/err")"
	refused_one_line "$T/err" "belongs to another user"
}

# Names that reach root's paths: the same session and channel names for two
# users (their tracefs instances once collided), names of the longest
# length, an output path with a newline (refused in one line) or with "..".
attack_names() {
	local long
	long=$(printf 'n%.0s' $(seq 200))
	"$TRAWL" create same -o "$T/rootout" >/dev/null 2>&1 || fail "root: create"
	"$TRAWL" enable-event -k -s same sched_switch >/dev/null 2>"$T/err" ||
		fail "root: enable-event: $(cat "$T/err")"
	gt create same -o "$O" >/dev/null 2>&1 || fail "member: create"
	gt enable-event -k -s same sched_switch >/dev/null 2>"$T/err" ||
		fail "member: the same session name as root's: $(cat "$T/err")"
	gt create "$long" -o "$T/$G/long" >/dev/null 2>"$T/err" || fail "long name: $(cat "$T/err")"
	gt enable-channel -k -s "$long" "$long" >/dev/null 2>"$T/err" ||
		fail "long channel: $(cat "$T/err")"
	gt enable-event -k -s "$long" -c "$long" sched_switch >/dev/null 2>"$T/err" ||
		fail "long names: $(cat "$T/err")"
	gt start "$long" >/dev/null 2>"$T/err" || fail "long names: start: $(cat "$T/err")"
	sleep 0.2
	gt stop "$long" >/dev/null 2>&1
	trace_is_members "$T/$G/long"
	gt create nl -o "$T/$G/a
b" >"$T/out" 2>"$T/err" && fail "an output path with a newline was taken"
	refused_one_line "$T/err" "control character"
	gt create dots -o "$T/$G/x/../dots" >/dev/null 2>"$T/err" || fail "'..': $(cat "$T/err")"
	gt create up -o "$T/$G/../rootdir/x" >"$T/out" 2>"$T/err" && fail "'..' into root's folder"
	victims_intact
}

# ---- rotate, clear, snapshot record: the folders made after the start -------
#
# Each of these names a folder when it runs (a chunk: OUTPUT/YYYYmmddTHHMMSS+zzzz-ID,
# cmd-rotate.c; a snapshot: OUTPUT/NAME-YYYYmmdd-HHMMSS-N, cmd-snapshot.c), so the
# member can plant links under every name it may take: here, one for each
# second of the next two minutes. Some point to the member's own folder: a
# trace found there proves the writer took the planted name (a root writer
# would have written through a link to root's folder the same way); the
# others point to root's folder, root's file, or the second user's.

# other_user: a second real user, not in 'tracing', with a file (0644) and an
# empty folder (0755) of theirs the member may read but not change.
other_user() {
	mkuser "$B" || { echo "SKIP: useradd failed"; exit 77; }
	OTHER_FILE=$T/$B/file
	OTHER_DIR=$T/$B/dir
	head -c 4096 /dev/urandom >"$OTHER_FILE"
	mkdir -m 755 "$OTHER_DIR"
	chmod 644 "$OTHER_FILE"
	chown "$B" "$OTHER_FILE" "$OTHER_DIR"
	chmod 755 "$T/$B"
	OTHER_SUM=$(sha256sum <"$OTHER_FILE")
}
others_intact() {
	victims_intact
	[ "$(sha256sum <"$OTHER_FILE")" = "$OTHER_SUM" ] || fail "the other user's file was changed"
	[ -z "$(ls -A "$OTHER_DIR")" ] || fail "the other user's folder got files: $(ls -lAR "$OTHER_DIR")"
}

# plant MODE DIR FORMAT TARGET [TARGET2]: as the member, for each second of
# the next five minutes, the name FORMAT (strftime, local time, as the daemon
# names folders) takes in DIR: MODE "link", a link to TARGET; MODE
# "inside", a real folder whose kernel/metadata and kernel/index/channel0_0.idx
# are links to TARGET and kernel/channel0_0 one to TARGET2 (one process: 300
# names, however loaded the machine).
plant() {
	cat >"$T/plant.py" <<'PY'
import os, sys, time
mode, d, fmt, target = sys.argv[1:5]
now = int(time.time())
os.makedirs(d, exist_ok=True)
for i in range(300):
    p = os.path.join(d, time.strftime(fmt, time.localtime(now + i)))
    if mode == "link":
        os.symlink(target, p)
    else:
        os.makedirs(p + "/kernel/index")
        os.symlink(target, p + "/kernel/metadata")
        os.symlink(sys.argv[5], p + "/kernel/channel0_0")
        os.symlink(target, p + "/kernel/index/channel0_0.idx")
PY
	chmod 644 "$T/plant.py"
	g_run "${TRAWL_PYTHON:-python3}" "$T/plant.py" "$@" || fail "planting $1 in $2 failed"
}
# kernel_session NAME OUT [create args]: the member's kernel session, started
kernel_session() {
	local name=$1 out=$2; shift 2
	gt create "$name" -o "$out" "$@" >"$T/out" 2>"$T/err" || fail "create $name: $(cat "$T/err")"
	gt enable-event -k -s "$name" sched_switch >"$T/out" 2>"$T/err" ||
		fail "enable-event $name: $(cat "$T/err")"
	gt start "$name" >"$T/out" 2>"$T/err" || fail "start $name: $(cat "$T/err")"
	sleep 0.2
}
# readable DIR: a trace of the member's under DIR (kernel/), read by them with babeltrace2
readable() {
	local n
	[ -d "$1/kernel" ] || { fail "no kernel trace in $1: $(ls -lA "$1" 2>&1)"; return; }
	n=$(find "$1" ! -user "$G" | head -3)
	[ -z "$n" ] || fail "not the member's: $n"
	find "$1" -type l | grep -q . && fail "links left in the trace: $(find "$1" -type l | head -3)"
	n=$(g_run babeltrace2 "$1/kernel" 2>"$T/bt.err" | grep -c " sched_switch: ")
	[ "$n" -gt 0 ] || fail "the member's babeltrace2 reads no kernel event in $1: $(head -3 "$T/bt.err")"
}
# failed_one_line RC FILE WORD: the command failed (RC != 0) with one line naming WORD
failed_one_line() {
	[ "$1" != 0 ] || fail "it succeeded: $(cat "$2")"
	refused_one_line "$2" "$3"
}

# rotate: the next chunk's folder is a link to root's folder (refused), a
# link to the member's own (written there, as the member), or a real
# folder whose kernel/ files are links (replaced); archives/ a link to the
# other user's folder (refused).
attack_rotate() {
	local rc f
	other_user
	CHUNK='%Y%m%dT%H%M%S%z'
	# 1. to root's folder: the member's opener cannot write there
	kernel_session r1 "$O/r1"
	plant link "$O/r1" "$CHUNK-1" "$ROOTDIR"
	gt rotate r1 >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "Permission denied"
	echo "rotate into root's folder: $(cat "$T/err")"
	gt destroy r1 >/dev/null 2>&1
	others_intact
	# 2. to the member's own folder: the chunk goes there, the member's
	G_DO "mkdir -p '$T/$G/mine'"
	kernel_session r2 "$O/r2"
	plant link "$O/r2" "$CHUNK-1" "$T/$G/mine"
	gt rotate r2 >"$T/out" 2>"$T/err" || fail "rotate r2: $(cat "$T/err")"
	sleep 0.2
	gt stop r2 >/dev/null 2>&1
	readable "$T/$G/mine"
	f=$(ls -d "$O/r2/archives/"*-0 2>/dev/null | head -1)
	[ -n "$f" ] && readable "$f" || fail "no archive of chunk 0: $(ls -lAR "$O/r2" | head)"
	gt destroy r2 >/dev/null 2>&1
	others_intact
	# 3. real chunk folders holding links where the files go: replaced
	kernel_session r3 "$O/r3"
	plant inside "$O/r3" "$CHUNK-1" "$VICTIM" "$OTHER_FILE"
	gt rotate r3 >"$T/out" 2>"$T/err" || fail "rotate r3: $(cat "$T/err")"
	sleep 0.2
	gt rotate r3 >"$T/out" 2>"$T/err" || fail "rotate r3 (2): $(cat "$T/err")"
	gt stop r3 >/dev/null 2>&1
	f=$(ls -d "$O/r3/archives/"*-1 2>/dev/null | head -1)
	[ -n "$f" ] && readable "$f" || fail "no archive of chunk 1: $(ls -lAR "$O/r3" | head)"
	[ -f "$f/kernel/metadata" ] && [ ! -L "$f/kernel/metadata" ] || fail "chunk 1's metadata: not replaced"
	gt destroy r3 >/dev/null 2>&1
	others_intact
	# 4. archives/ a link to the other user's folder
	kernel_session r4 "$O/r4"
	G_DO "ln -s '$OTHER_DIR' '$O/r4/archives'"
	gt rotate r4 >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "archives"
	echo "archives a link: $(cat "$T/err")"
	gt destroy r4 >/dev/null 2>&1
	others_intact
}

# clear deletes the chunk's files as the member: links in the output folder,
# and the folder itself swapped for a link, are removed, never followed;
# what the session writes next is the member's.
attack_clear() {
	local rc
	other_user
	mkdir -m 700 "$T/rootfull" && head -c 100 /dev/urandom >"$T/rootfull/keep"
	G_DO "mkdir -p '$T/$G/mine' && echo mine >'$T/$G/mine/file'"
	# 1. stopped: links beside and inside the chunk's folders; then links
	# where the next start writes
	kernel_session c1 "$O/c1"
	gt stop c1 >/dev/null 2>&1
	G_DO "ln -s '$T/rootfull' '$O/c1/kernel/rootfull' && ln -s '$T/$G/mine' '$O/c1/kernel/mine' &&
	      ln -s '$OTHER_DIR' '$O/c1/kernel/other' && ln -s '$VICTIM' '$O/c1/kernel/index/x.idx'"
	gt clear c1 >"$T/out" 2>"$T/err" || fail "clear c1: $(cat "$T/err")"
	# the links were reached (removed), what they point to was not
	[ -L "$O/c1/kernel/mine" ] && fail "clear left the member's link"
	[ -f "$T/rootfull/keep" ] || fail "clear deleted root's file through a link"
	[ -f "$T/$G/mine/file" ] || fail "clear deleted the member's file through a link"
	G_DO "mkdir -p '$O/c1/kernel/index' && ln -s '$VICTIM' '$O/c1/kernel/metadata' &&
	      ln -s '$OTHER_FILE' '$O/c1/kernel/channel0_0' && ln -s '$VICTIM' '$O/c1/kernel/index/channel0_0.idx'"
	gt start c1 >"$T/out" 2>"$T/err" || fail "start c1 after clear: $(cat "$T/err")"
	sleep 0.2
	gt stop c1 >/dev/null 2>&1
	readable "$O/c1"
	gt destroy c1 >/dev/null 2>&1
	others_intact
	# 2. started: the output folder swapped for a link to root's folder
	# holding a file; clear removes the link, and the session goes on in a
	# new folder of the member's
	kernel_session c2 "$O/c2"
	G_DO "mv '$O/c2' '$O/c2.old' && ln -s '$T/rootfull' '$O/c2'"
	gt clear c2 >"$T/out" 2>"$T/err"; rc=$?
	[ -f "$T/rootfull/keep" ] || fail "clear deleted root's file through the output link"
	if [ $rc = 0 ]; then
		sleep 0.2
		gt stop c2 >/dev/null 2>&1
		[ -L "$O/c2" ] && fail "the output is still the link after clear"
		readable "$O/c2"
	else
		refused_one_line "$T/err" "c2"
	fi
	gt destroy c2 >/dev/null 2>&1
	# 3. started, while a loop keeps planting links at kernel/ (the other
	# user's folder) and at the metadata (root's file) of the new chunk
	kernel_session c3 "$O/c3"
	G_LOOP "[ -e '$O/c3/kernel' ] || ln -s '$OTHER_DIR' '$O/c3/kernel' 2>/dev/null
		[ -d '$O/c3/kernel' ] && ln -s '$VICTIM' '$O/c3/kernel/metadata' 2>/dev/null"
	for rc in 1 2 3 4; do
		if ! gt clear c3 >"$T/out" 2>"$T/err"; then
			[ "$(wc -l <"$T/err")" = 1 ] || fail "clear c3: not one line: $(cat "$T/err")"
		fi
	done
	G_STOP
	gt stop c3 >/dev/null 2>&1
	gt destroy c3 >/dev/null 2>&1
	others_intact
	"$TRAWL" list >/dev/null 2>&1 || fail "the root daemon does not answer root"
}

# snapshot record: the snapshot's folder a link to root's folder (refused),
# to the member's own (written there), a real folder holding links
# (replaced); snapshot add-output at a link to root's or the other user's
# folder (refused).
attack_snapshot_record() {
	local rc f
	other_user
	kernel_session s "$O" --snapshot
	# 1. snapshot-1-...-0 links to root's folder
	plant link "$O" "snapshot-1-%Y%m%d-%H%M%S-0" "$ROOTDIR"
	gt snapshot record -s s >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "Permission denied"
	echo "snapshot into root's folder: $(cat "$T/err")"
	others_intact
	# 2. mine-...-0 links to the member's own folder: written there
	G_DO "mkdir -p '$T/$G/mine'"
	plant link "$O" "mine-%Y%m%d-%H%M%S-0" "$T/$G/mine"
	gt snapshot record -s s -n mine >"$T/out" 2>"$T/err" || fail "record mine: $(cat "$T/err")"
	readable "$T/$G/mine"
	# 3. real inner-...-1 folders holding links where the files go
	plant inside "$O" "inner-%Y%m%d-%H%M%S-1" "$VICTIM" "$OTHER_FILE"
	gt snapshot record -s s -n inner >"$T/out" 2>"$T/err" || fail "record inner: $(cat "$T/err")"
	# the one written: its links replaced by the member's files
	f=$(for d in "$O"/inner-*-1; do [ -f "$d/kernel/metadata" ] && [ ! -L "$d/kernel/metadata" ] &&
		echo "$d"; done)
	[ "$(echo "$f" | grep -c .)" = 1 ] || fail "not one inner snapshot written: '$f'"
	[ -n "$f" ] && readable "$(echo "$f" | head -1)"
	others_intact
	# 4. add-output at a link to root's folder, then to the other user's
	G_DO "ln -s '$ROOTDIR' '$T/$G/to-root' && ln -s '$OTHER_DIR' '$T/$G/to-other'"
	gt snapshot del-output -s s 1 >/dev/null 2>&1
	gt snapshot add-output -s s "$T/$G/to-root" >"$T/out" 2>"$T/err" ||
		fail "add-output: $(cat "$T/err")"
	gt snapshot record -s s >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "Permission denied"
	gt snapshot del-output -s s 2 >/dev/null 2>&1
	gt snapshot add-output -s s "$T/$G/to-other/sub" >"$T/out" 2>"$T/err" ||
		fail "add-output: $(cat "$T/err")"
	gt snapshot record -s s >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "Permission denied"
	# and as a URL for one record
	gt snapshot record -s s "file://$T/$G/to-root" >"$T/out" 2>"$T/err"; rc=$?
	failed_one_line $rc "$T/err" "Permission denied"
	gt destroy s >/dev/null 2>&1
	others_intact
}

ATTACKS="link_file link_output link_kernel link_index link_ust fifo device hardlink race snapshot
member_trace trawlrc relayd names rotate clear snapshot_record shm_link"
case " $(echo $ATTACKS) " in
*" $ATTACK "*) "attack_$ATTACK" ;;
*) echo "unknown attack '$ATTACK' (one of: $(echo $ATTACKS))" >&2; exit 2 ;;
esac
gt destroy --all >/dev/null 2>&1
"$TRAWL" destroy --all >/dev/null 2>&1
finish
