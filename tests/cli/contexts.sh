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
i=0
while read -r type domains; do
	i=$((i + 1))
	for d in $domains; do
		case $d in -k | -u) ;; *) continue ;; esac
		[ "$d" = -k ] && [ $kernel = 0 ] && continue
		expect 0 "$TRAWL" create "c$i$d" --output "$T/traces/c$i" || continue
		if [ "$d" = -k ]; then
			expect 0 "$TRAWL" enable-event -k sched_switch
		else
			expect 0 "$TRAWL" enable-event -u -a
		fi
		if grep -q "no PMU" <<<"$domains"; then
			# exit 9: not possible on this system
			expect 9 "$TRAWL" add-context "$d" -t "$type" && expect_err_line "no hardware PMU"
		elif grep -q "hardware" <<<"$domains"; then
			# a PMU need not count every event: taken, or refused as such
			"$TRAWL" add-context "$d" -t "$type" >"$T/out" 2>"$T/err"
			rc=$?
			[ $rc = 0 ] || { [ $rc = 9 ] && expect_err_line "not available"; } ||
				fail "add-context $d -t $type exited $rc: $(cat "$T/err")"
		else
			expect 0 "$TRAWL" add-context "$d" -t "$type"
		fi
		expect 0 "$TRAWL" destroy "c$i$d"
	done
done <"$T/list"
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
