# SPDX-License-Identifier: MIT
# Sourced by the tests that hold a registered program's agent thread
# (freeze-thread.py) while a real root daemon serves it (tally-shm.sh,
# drop-window.sh), after ../cli/lib.sh: skips (77) without users, a
# user-space consumer or bt2; makes the user B=PREFIX$$; starts the root
# daemon with an app reply deadline of 1 s (PID, LOG); the EXIT trap kills
# the program (APP) and the freezer (FRZ) and resumes a stopped daemon (SD).
# frozen_app_setup PREFIX
frozen_app_setup() {
	users_or_skip
	have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
	"${TRAWL_PYTHON:-python3}" -c 'import bt2' 2>/dev/null || { echo "SKIP: no bt2"; exit 77; }
	B=$1$$
	mkuser "$B" || { echo "SKIP: useradd failed"; exit 77; }
	SD= APP= FRZ=
	trap frozen_app_cleanup EXIT
	"$BIN/trawl-sessiond" --daemonize --limit app-reply-ms=1000 ||
		{ echo "FAIL: the root daemon did not start"; exit 1; }
	PID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log
}

frozen_app_cleanup() {
	[ -n "$APP" ] && kill -KILL "$APP" 2>/dev/null
	[ -n "$FRZ" ] && kill "$FRZ" 2>/dev/null
	[ -n "$SD" ] && kill -CONT "$SD" 2>/dev/null
	cleanup
}
