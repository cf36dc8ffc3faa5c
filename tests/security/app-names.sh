#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A non-member's app names hold terminal escapes: its process name (any
# bytes, as comm is) is shown to root with each byte outside printable
# ASCII as '?', and an event name holding one is refused with its
# registration (names are printable ASCII, as LTTng's C identifiers are).
# Root's `trawl list -u` and the daemon's log never carry the escape.
. "$(dirname "$0")/lib.sh"

start_root_daemon
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log
ATT_ARGV0=$'ev\e[2Jil-argv0' attack names "$APPS" 120
root_answers "root's list -u" "$TRAWL" list -u
cp "$T/out" "$T/list"
root_answers "root's list -u --mi xml" "$TRAWL" --mi xml list -u
cp "$T/out" "$T/list.xml"
attack_end
[ "$(att kept)" = 1 ] && [ "$(att refused)" = 1 ] ||
	fail "wanted the escaped process name kept and the escaped event refused: $ATT_RESULT"
grep -q 'Name: ev?\[2Jil-argv0' "$T/list" || fail "argv[0] is not shown cleaned: $(cat -v "$T/list")"
grep -q 'good:event' "$T/list" || fail "the good event is not listed: $(cat -v "$T/list")"
grep -q 'app [0-9]* (ev?\[2Jil, uid' "$LOG" || fail "the log does not name the app by its cleaned comm"
if grep -q $'\e' "$T/list" "$T/list.xml" "$LOG"; then
	fail "an escape reached root's list or the log: $(grep -h $'\e' "$T/list" "$T/list.xml" "$LOG" | cat -v)"
fi
if command -v xmllint >/dev/null; then
	xmllint --noout "$T/list.xml" 2>"$T/xmlerr" || fail "list -u --mi xml: not XML: $(cat "$T/xmlerr")"
fi
daemon_alive
finish
