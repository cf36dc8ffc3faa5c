#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Malformed traces: corpus traces with random bytes changed, cut short or
extended. trawl-view must exit 0, or exit 1 with an error line naming a
file; never be killed by a signal, hang, or print a second error line.
Usage: robust.py TRAWL_VIEW CORPUS_DIR [ROUNDS]"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

view, corpus = sys.argv[1], sys.argv[2]
if not os.path.isdir(os.path.join(corpus, "succeed")):
    print("SKIP: ctf-corpus not found at " + corpus)
    sys.exit(77)
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
rnd = random.Random(int(os.environ.get("ROBUST_SEED", "1")))
traces = sorted(os.path.join(corpus, "succeed", d) for d in os.listdir(os.path.join(corpus, "succeed")))
traces = [t for t in traces if sum(f.stat().st_size for f in os.scandir(t) if f.is_file()) < 200000]
bad = 0
with tempfile.TemporaryDirectory() as tmp:
    for i in range(rounds):
        src = rnd.choice(traces)
        dst = os.path.join(tmp, "t%d" % i)
        shutil.copytree(src, dst)
        files = [os.path.join(dp, f) for dp, _, fs in os.walk(dst) for f in fs]
        victim = rnd.choice(files)
        data = bytearray(open(victim, "rb").read())
        how = rnd.choice(["flip", "flip", "flip", "cut", "grow", "zero"])
        if how == "flip" and data:
            for _ in range(rnd.randint(1, 8)):
                data[rnd.randrange(len(data))] = rnd.randrange(256)
        elif how == "cut" and data:
            del data[rnd.randrange(len(data)):]
        elif how == "grow":
            data += bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 64)))
        elif how == "zero" and data:
            a = rnd.randrange(len(data))
            data[a:a + 16] = bytes(min(16, len(data) - a))
        open(victim, "wb").write(data)
        try:
            p = subprocess.run([view, dst], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=20, env=dict(os.environ, TZ="UTC"))
        except subprocess.TimeoutExpired:
            print("HANG: %s (%s %s)" % (src, how, victim))
            bad += 1
            continue
        err = p.stderr.decode(errors="replace").splitlines()
        errors = [l for l in err if "error:" in l]
        if p.returncode < 0 or p.returncode > 1:
            print("CRASH rc=%d: %s (%s %s)" % (p.returncode, src, how, victim))
            bad += 1
        elif p.returncode == 1 and (len(errors) != 1 or "offset" not in errors[0] and "metadata" not in errors[0]):
            print("BAD ERROR rc=1 %s (%s %s): %s" % (src, how, victim, err[-3:]))
            bad += 1
        shutil.rmtree(dst)
print("%d malformed traces, %d problems" % (rounds, bad))
sys.exit(1 if bad else 0)
