# SPDX-License-Identifier: MIT
# Sourced by the held-* tests (relay-hostile.sh, held-owner.sh) after
# ../cli/lib.sh: a member's folder on a FUSE file system of theirs
# (fuse-gate.py), which holds the requests of the daemon's children working
# as the member while "$T/gate.hold" exists.

# gate_mount USER DAEMON_PID [WHO]: mounts $T/USER/gate over $T/USER/real as
# USER's; sets R (the real folder), GATE_PID and F (USER's folder through
# the gate); WHO "consumer": the gate holds the daemon's user-space
# consumers instead of its children that have not run a program. Exits 77 (skipped) when no FUSE file system can be mounted.
gate_mount() {
	local u=$1 dpid=$2 i
	R=$T/$u/real
	mkdir -p "$R" "$T/$u/gate" && chown "$u:" "$R" "$T/$u/gate"
	"${TRAWL_PYTHON:-python3}" "$(dirname "$0")/fuse-gate.py" "$T/$u/gate" "$R" "$(id -u "$u")" \
		"$(id -g "$u")" "$dpid" "$T/gate.hold" ${3:-} >"$T/gate.log" 2>&1 &
	GATE_PID=$!
	for i in $(seq 100); do grep -qs mounted "$T/gate.log" && break; sleep 0.1; done
	grep -qs mounted "$T/gate.log" ||
		{ echo "SKIP: cannot mount a FUSE file system: $(cat "$T/gate.log")"; exit 77; }
	F=$T/$u/gate/to
}
