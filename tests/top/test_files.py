# SPDX-License-Identifier: MIT
"""trawltop's files view against truth: a program reads a known file to its
end; trawltop shows that path with exactly its size in bytes read, and the
number of read() calls made."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import toptest  # noqa: E402

SIZE = 123457
d = toptest.setup()
path = os.path.join(d, "known-file.bin")
with open(path, "wb") as f:
    f.write(os.urandom(SIZE))
trace = os.path.join(d, "trace")
out = toptest.record(trace, ["sched_switch"], ["openat", "read", "close"],
                     [toptest.LOAD, "read", path])
pid = int(out["pid"])
assert int(out["bytes"]) == SIZE
opens = [e for e in toptest.bt2_events(trace, {"syscall_entry_openat"})
         if int(e[4]["tid"]) == pid]
if not opens or not isinstance(opens[0][3].get("filename"), str) and \
        type(opens[0][3].get("filename")).__name__ != "_StringFieldConst":
    toptest.ktest.skip("the kernel backend records no syscall string arguments")
iv = toptest.top_json(trace, "-d", "0")[0]
mine = toptest.rows(iv, "files", pid=pid, path=path)
assert len(mine) == 1, toptest.rows(iv, "files", pid=pid)
f = mine[0]
print(f)
reads = -(-SIZE // 4000) + 1  # the last one returns 0 (end of file)
assert f["read_bytes"] == SIZE and f["write_bytes"] == 0, f
assert f["reads"] == reads, (f["reads"], reads)
assert f["calls"] == reads + 2, f  # the reads, the openat and the close
assert f["command"] == "topload", f
proc = toptest.rows(iv, "processes", pid=pid)[0]
# the process's bytes are its files' (the loader's reads of libraries too)
assert proc["read_bytes"] == sum(r["read_bytes"] for r in toptest.rows(iv, "files", pid=pid)), proc
text = toptest.top_text(trace, "-d", "0", "--view", "files", "-f", path)
assert any(l.endswith(" " + path) and " topload " in l for l in text.splitlines()), text
print("ok")
