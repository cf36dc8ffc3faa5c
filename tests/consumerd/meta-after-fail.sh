#!/bin/sh
# SPDX-License-Identifier: MIT
# cons-meta-after-fail OUT GOLDEN SAMPLE-TRACE: the metadata after a full
# disk (issue 10). The golden stream channel0_0 is cut after 3 packets by
# the file size limit (output-golden --cut), its event classes' metadata
# arriving only then, as the daemon's METADATA can reach a consumer after
# the first packets holding those events (disk-ust's clean-clone CI
# failure: "No event class with ID 0", no event read; and a loaded ASan run
# whose stop counted "3410 events or more" of 134470: the lost packets did
# not decode with the metadata the consumer had then). babeltrace2 must
# read the 3 packets' events, and the loss line must count the others
# exactly: read + lost = the stream's events.
set -u
out=$1 golden=$2 sample=$3
rm -rf "$out" "$out.out" "$out.one"
"$sample" "$out" 400 >/dev/null || { echo "FAIL: sample-trace"; exit 1; }
"$golden" --cut 3 "$out" "$out.out" channel0_0 >"$out.cut" || { cat "$out.cut"; exit 1; }
babeltrace2 "$out.out" >"$out.bt" || { echo "FAIL: babeltrace2 cannot read the cut trace"; exit 1; }
read=$(wc -l <"$out.bt")
[ "$read" -gt 0 ] || { echo "FAIL: babeltrace2 read no event of the cut trace"; exit 1; }
mkdir "$out.one" && cp "$out/metadata" "$out/channel0_0" "$out.one/" || exit 1
all=$(babeltrace2 "$out.one" | wc -l)
lost=$(sed -n 's/^lost: .*, [0-9]* packets\{0,1\} (\([0-9]*\) events\{0,1\}) lost.*/\1/p' "$out.cut")
[ -n "$lost" ] || { echo "FAIL: the loss line does not count the events: $(cat "$out.cut")"; exit 1; }
[ $((read + lost)) = "$all" ] ||
	{ echo "FAIL: read $read + lost $lost != the stream's $all: $(cat "$out.cut")"; exit 1; }
echo "$read events read + $lost counted lost = $all: $(cat "$out.cut")"
