#!/bin/bash
# SPDX-License-Identifier: MIT
# bash completion (src/cli/trawl.bash-completion) against real daemons: the
# script is sourced, a command line is completed as bash would (COMP_WORDS,
# COMP_CWORD, then _trawl), and the offers are checked: commands, global and
# per-command options (every command's, from its --help documentation),
# session, channel, event and context names, and the words of
# snapshot/regenerate/metadata.
. "$(dirname "$0")/lib.sh"
. "$TRAWL_SOURCE_DIR/src/cli/trawl.bash-completion"

# offers LINE: what completing the last word of LINE (a trailing space: a new word) offers
offers() {
	local line=$1
	read -r -a COMP_WORDS <<<"$line"
	COMP_WORDS[0]=$TRAWL
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_trawl
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}

# has LINE WORD...: each WORD is offered for LINE
has() {
	local line=$1 got w; shift
	got=" $(offers "$line")"
	for w in "$@"; do
		[[ $got == *" $w "* ]] || fail "'$line' does not offer '$w': got:$got"
	done
}

# not LINE WORD: WORD is not offered
not() {
	local got
	got=" $(offers "$1")"
	[[ $got == *" $2 "* ]] && fail "'$1' offers '$2': got:$got"
	return 0
}

has "trawl " create destroy track untrack regenerate metadata list enable-event
has "trawl tr" track
not "trawl tr" list
has "trawl --" --help --version --quiet --list-commands --mi
has "trawl --mi " xml
has "trawl --mi xml " create list
has "trawl --mi xml snapshot " record list-output
has "trawl track --v" --vpid --vuid --vgid
has "trawl track -" -k -u -s --session --pid --all --help
has "trawl enable-channel --" --subbuf-size --num-subbuf --overwrite --buffers-pid
has "trawl regenerate " metadata statedump
has "trawl metadata " regenerate
has "trawl snapshot " record add-output del-output list-output
has "trawl " clear rotate enable-rotation disable-rotation save load
has "trawl save -" -a --all -o --output-path -f --force
has "trawl load --" --all --input-path --force --override-url --override-name
has "trawl enable-rotation --" --timer --size --session --help
has "trawl disable-rotation --" --timer --size --session
has "trawl rotate --" --no-wait
has "trawl clear --" --all
has "trawl add-context -u -t " vpid procname pthread_id
# every command offers its options, as its --help documents them
for c in $("$TRAWL" --list-commands); do
	opts=$("$TRAWL" "$c" --list-options)
	help=$("$TRAWL" "$c" --help)
	long=()
	for o in $opts; do
		[[ $help == *"$o"* ]] || fail "$c: $o is not in its --help"
		[[ $o == --* ]] && long+=("$o")
	done
	[ ${#long[@]} = 0 ] || has "trawl $c --" "${long[@]}"
done

"$TRAWL" create alpha -o "$T/a" >/dev/null || fail "create alpha"
"$TRAWL" create beta -o "$T/b" >/dev/null || fail "create beta"
"$TRAWL" enable-channel -u chan_one -s alpha >/dev/null || fail "enable-channel"
"$TRAWL" enable-channel -u chan_two -s alpha >/dev/null || fail "enable-channel"
has "trawl start " alpha beta
has "trawl save " alpha beta
"$TRAWL" save alpha >/dev/null || fail "save alpha"
has "trawl load " alpha
has "trawl add-trigger --condition " event-rule-matches
has "trawl add-trigger --condition event-rule-matches --type=user --action " notify snapshot-session
has "trawl add-trigger --condition event-rule-matches --type=user --action snapshot-session " alpha beta
"$TRAWL" add-trigger --name trig1 --condition event-rule-matches --type=user --action notify \
	>/dev/null || fail "add-trigger"
has "trawl remove-trigger " trig1
not "trawl load " beta
has "trawl destroy a" alpha
has "trawl clear " alpha beta
has "trawl rotate " alpha beta
has "trawl enable-rotation -s " alpha beta
has "trawl track -s " alpha beta
has "trawl enable-event -u -s alpha -c " chan_one chan_two
has "trawl disable-channel -u -s alpha " chan_one chan_two
# events offered are those of the apps registered now
coproc APP { exec "$BIN/ust-app-tick" 7; }
# kept now: bash unsets APP and APP_PID once the coprocess has ended
app_pid=$APP_PID app_in=${APP[1]}
read -r _ pid <&"${APP[0]}"
for _ in $(seq 600); do # up to 60 s: registration is slow on a loaded machine
	"$TRAWL" list -u | grep -q "^PID: $pid " && break
	sleep 0.1
done
has "trawl enable-event -u tall:s" tall:seq tall:strings
exec {app_in}>&-
wait "$app_pid"
finish
