#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/export/timeline_page.py PAGE.html: how smooth trawl timeline's page
is in headless Chromium (tests/export/cdp.py): the time from opening it to
its first frame, then the time of each frame (trawl.draw(), ms) over the
whole trace, while zooming in by steps of 2 to 1 us and panning there.
A frame under 16 ms keeps 60 frames per second."""
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tests", "export"))
import cdp  # noqa: E402


def main():
    page = os.path.abspath(sys.argv[1])
    t = time.time()
    b = cdp.Browser("file://" + page)
    try:
        if not b.wait("window.trawl && trawl.frames > 0", 300):
            sys.exit("the page did not draw")
        load = time.time() - t
        ready = b.eval("trawl.readyMs")
        end = b.eval("trawl.data.end")
        frames = []
        span = end
        while span > 1000:
            c = end / 2
            frames.append(b.eval("trawl.setView(%r, %r); trawl.frameMs" % (c - span / 2, c + span / 2)))
            span /= 2
        for i in range(20):
            s = end / 2 + i * span * 0.3
            frames.append(b.eval("trawl.setView(%r, %r); trawl.frameMs" % (s, s + span)))
        lv = b.eval("trawl.levels.map(l => l.count)")
        print("page %s: %d bytes, levels %s items; first frame %.2f s after opening; "
              "(%.0f ms of it in the page: parse, lay out, draw); %d frames: median %.2f ms, worst %.2f ms"
              % (page, os.path.getsize(page), lv, load, ready, len(frames),
                 statistics.median(frames), max(frames)))
    finally:
        b.close()


if __name__ == "__main__":
    main()
