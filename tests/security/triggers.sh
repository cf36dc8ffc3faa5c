#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Triggers (add-trigger, list-triggers, remove-trigger) on the root daemon,
# by members of 'tracing' (real users, made here; the real root daemon with
# a private state folder):
#  - a trigger belongs to who registered it (SO_PEERCRED): another member
#    neither lists nor removes it (told there is no such trigger, as if it
#    did not exist), nor registers or removes as someone else (--owner-uid,
#    root only); root lists every user's and removes any with --owner-uid;
#  - names are unique per owner: two users may each have "t";
#  - a user holds at most --limit triggers-per-uid (3 here), refused in one
#    line past it, room back with remove-trigger; root is not capped.
. "$(dirname "$0")/lib.sh"
N=trawln$$ # another member
mkuser "$N" tracing
start_root_daemon --limit triggers-per-uid=3
MU=$(id -u "$M"); NU=$(id -u "$N")

rule=(--condition event-rule-matches --type=user --name=app:error)
expect 0 as "$M" add-trigger --name t "${rule[@]}" --action notify || finish
expect 0 as "$N" add-trigger --name t "${rule[@]}" --action notify
expect 0 "$TRAWL" add-trigger --name rt "${rule[@]}" --action notify

# each member lists their own only
expect 0 as "$M" list-triggers
[ "$(grep -c '^- name:' "$T/out")" = 1 ] && grep -q "owner uid: $MU" "$T/out" ||
	fail "M lists: $(cat "$T/out")"
expect 0 as "$N" list-triggers
grep -q "owner uid: $MU\|name: rt" "$T/out" && fail "N sees others' triggers: $(cat "$T/out")"
# root lists all three
expect 0 "$TRAWL" list-triggers
[ "$(grep -c '^- name:' "$T/out")" = 3 ] || fail "root lists: $(cat "$T/out")"

# N cannot remove M's or root's, by name or as them
expect 5 as "$N" remove-trigger rt && expect_err_line "couldn't find trigger with name \`rt\`"
expect 4 as "$N" remove-trigger --owner-uid "$MU" t && expect_err_line "only root"
expect 4 as "$N" add-trigger --owner-uid 0 --name x "${rule[@]}" --action notify &&
	expect_err_line "only root"
expect 0 "$TRAWL" list-triggers
[ "$(grep -c '^- name:' "$T/out")" = 3 ] || fail "a trigger went: $(cat "$T/out")"
# N removes their own t; M's t stays
expect 0 as "$N" remove-trigger t
expect 0 as "$M" list-triggers
grep -q "^- name: t$" "$T/out" || fail "M's t went with N's: $(cat "$T/out")"

# the cap: M has 1, may add 2 more, not a 4th; room comes back
expect 0 as "$M" add-trigger "${rule[@]}" --action notify
expect 0 as "$M" add-trigger "${rule[@]}" --action stop-session s
expect 1 as "$M" add-trigger "${rule[@]}" --action notify && expect_err_line "triggers-per-uid"
expect 0 as "$M" list-triggers
[ "$(grep -c '^- name:' "$T/out")" = 3 ] || fail "M holds: $(cat "$T/out")"
expect 0 as "$M" remove-trigger trigger0
expect 0 as "$M" add-trigger "${rule[@]}" --action notify
# (names counted per owner, as LTTng counts them: N's and root's do not count)
grep -q "Added trigger \`trigger2\`" "$T/out" || fail "M's third unnamed trigger: $(cat "$T/out")"
# root is not capped
for i in 1 2 3 4 5; do expect 0 "$TRAWL" add-trigger "${rule[@]}" --action notify; done
# root removes M's by owner
expect 0 "$TRAWL" remove-trigger --owner-uid "$MU" t
expect 0 as "$M" list-triggers
grep -q "^- name: t$" "$T/out" && fail "root's remove --owner-uid left M's t"
# root registers one for N
expect 0 "$TRAWL" add-trigger --owner-uid "$NU" --name fromroot "${rule[@]}" --action notify
expect 0 as "$N" list-triggers
grep -q "^- name: fromroot$" "$T/out" && grep -q "owner uid: $NU" "$T/out" ||
	fail "N does not own root's trigger for them: $(cat "$T/out")"

# What root is shown of a member's rules: root's list-triggers and `list
# SESSION` printed a member's trigger event name, filter and capture, a
# snapshot action's path or URLs, and their session's event names and
# filters, as given: an escape sequence
# there reached root's terminal (and made MI invalid XML). The daemon
# refuses such text in one line; printable UTF-8 stays welcome.
ESC=$(printf '\033')
esc_refused() { # WHAT CMD...: refused in one line naming the byte
	expect 7 "${@:2}" && expect_err_line "not UTF-8 (0x1b at byte" ||
		echo "  ($1 was taken)" >&2
}
esc_refused "trigger name" as "$N" add-trigger --name e1 --condition event-rule-matches \
	--type=user --name="app${ESC}]0;owned${ESC}\\" --action notify
esc_refused "trigger filter" as "$N" add-trigger --name e2 --condition event-rule-matches \
	--type=user --name=app:x --filter "a == \"${ESC}[31m\"" --action notify
esc_refused "JUL trigger logger" as "$N" add-trigger --name e3 --condition event-rule-matches \
	--type=jul --name="lo${ESC}[2J" --action notify
snap=(--condition event-rule-matches --type=user --name=app:x --action snapshot-session esc)
esc_refused "snapshot action URLs" as "$N" add-trigger --name e4 "${snap[@]}" \
	--ctrl-url "tcp://127.0.0.1:5342/${ESC}[2J" --data-url "tcp://127.0.0.1:5343/${ESC}[2J"
esc_refused "snapshot action URL" as "$N" add-trigger --name e5 "${snap[@]}" \
	--url "net://127.0.0.1/a${ESC}[2J"
esc_refused "snapshot action path" as "$N" add-trigger --name e6 "${snap[@]}" \
	--path "/tmp/a${ESC}[2J"
# (the CLI parses captures itself; the daemon's check is for other clients)
expect 0 as "$N" create esc -o "$T/$N/esc"
esc_refused "event name" as "$N" enable-event -u "app${ESC}[2J" -s esc
esc_refused "event filter" as "$N" enable-event -u app:y -s esc --filter "a == \"${ESC}[31m\""
esc_refused "JUL logger" as "$N" enable-event -j "lo${ESC}[31m" -s esc
expect 0 as "$N" add-trigger --name utf --condition event-rule-matches --type=user \
	--name="app:Ã©tÃ©" --action notify
expect 0 as "$N" enable-event -u "app:Ã©tÃ©" -s esc
expect 0 "$TRAWL" list-triggers
grep -q $'\033' "$T/out" && fail "root's list-triggers shows a member's escape: $(cat -v "$T/out")"
grep -q "rule: app:Ã©tÃ© " "$T/out" || fail "the UTF-8 rule is not listed: $(cat "$T/out")"
expect 0 "$TRAWL" list esc
grep -q $'\033' "$T/out" && fail "root's list esc shows a member's escape: $(cat -v "$T/out")"
grep -q "app:Ã©tÃ© " "$T/out" || fail "the UTF-8 rule is not listed: $(cat "$T/out")"
expect 0 "$TRAWL" --mi xml list-triggers
if command -v xmllint >/dev/null; then
	xmllint --noout - <"$T/out" 2>"$T/err" || fail "root's MI is not XML: $(cat "$T/err")"
fi
finish
