#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `trawl add-context --list` says what add-context takes: every type it lists
# is accepted by the domain it names (hardware perf counters refused with one
# line where the machine has no PMU, as it says), and nothing else is.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] && kernel=1 || kernel=0
expect 0 "$TRAWL" add-context --list || finish
cp "$T/out" "$T/list"
n=$(wc -l <"$T/list")
[ "$n" -gt 40 ] || fail "add-context --list gave $n lines"
# Few processes: on a loaded machine starting one is most of what a command
# costs (/bin/true took 135-195 ms at load 20; more under ASan). A session
# per type (create, enable-event, add-context, destroy) and greps per line
# made ~1,300 processes and timed out under ASan. Now one session per
# domain; the types that must be taken go 8 to a channel in one add-context
# (8: a kernel channel's perf counters); each refusal is one command; the
# list is matched by bash itself.
for d in -k -u; do
	[ "$d" = -k ] && [ $kernel = 0 ] && continue
	expect 0 "$TRAWL" create "ctx$d" --output "$T/traces/ctx$d" || finish
done
nch=0
channel() { # DOMAIN: a new small channel in the domain's session, named in $ch
	nch=$((nch + 1))
	ch=ch$nch
	expect 0 "$TRAWL" enable-channel "$1" -s "ctx$1" --subbuf-size 4096 --num-subbuf 2 "$ch"
}
flush() { # DOMAIN: every type queued for the domain, in one add-context on a fresh channel
	local d=$1 q
	[ "$d" = -k ] && q=("${queue_k[@]}") || q=("${queue_u[@]}")
	[ ${#q[@]} = 0 ] && return
	channel "$d"
	expect 0 "$TRAWL" add-context "$d" -s "ctx$d" -c "$ch" "${q[@]}"
	[ "$d" = -k ] && queue_k=() || queue_u=()
}
queue_k=() queue_u=()
declare -A refusal_channel
while read -r type domains; do
	for d in $domains; do
		case $d in -k | -u) ;; *) continue ;; esac
		[ "$d" = -k ] && [ $kernel = 0 ] && continue
		if [[ $domains == *hardware* ]]; then
			[ -n "${refusal_channel[$d]:-}" ] || { channel "$d" && refusal_channel[$d]=$ch; }
		fi
		if [[ $domains == *"no PMU"* ]]; then
			# exit 9: not possible on this system
			expect 9 "$TRAWL" add-context "$d" -s "ctx$d" -c "${refusal_channel[$d]}" -t "$type" &&
				expect_err_line "no hardware PMU"
		elif [[ $domains == *hardware* ]]; then
			# a PMU need not count every event: taken, or refused as such (own channel)
			channel "$d"
			"$TRAWL" add-context "$d" -s "ctx$d" -c "$ch" -t "$type" >"$T/out" 2>"$T/err"
			rc=$?
			[ $rc = 0 ] || { [ $rc = 9 ] && expect_err_line "not available"; } ||
				fail "add-context $d -t $type exited $rc: $(cat "$T/err")"
		elif [ "$d" = -k ]; then
			queue_k+=(-t "$type")
			[ ${#queue_k[@]} -ge 16 ] && flush -k
		else
			queue_u+=(-t "$type")
			[ ${#queue_u[@]} -ge 16 ] && flush -u
		fi
	done
done <"$T/list"
flush -k
flush -u
for d in -k -u; do
	[ "$d" = -k ] && [ $kernel = 0 ] && continue
	expect 0 "$TRAWL" destroy "ctx$d"
done
# the other domain refuses what the list gives one only
expect 0 "$TRAWL" create other --output "$T/traces/other"
expect 0 "$TRAWL" enable-event -u -a
for type in perf:cpu:page-fault hostname cpu_id no-such-context; do
	"$TRAWL" add-context -u -t "$type" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 7 ] || [ $rc = 9 ] || fail "add-context -u -t $type exited $rc (wanted 7 or 9)"
	expect_err_line "$type"
done
finish
