# SPDX-License-Identifier: MIT
"""Kernel paths this machine refuses (kprobes, kretprobes, BPF fentry), tested
for real on Debian's stock kernel under QEMU (TCG, 1 vCPU): a static
trawl-ktrace runs in a tiny initramfs, the guest prints each trace on the
serial console (tar | gzip | base64), and this script checks the traces with
babeltrace2's bt2. The kernel package is downloaded once (apt-get download)
and cached under the build folder (kernel-vm-cache/)."""
import base64
import glob
import gzip
import io
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("TRAWL_BUILD_DIR", ".")
BIN = os.environ.get("TRAWL_BIN_DIR", os.path.join(BUILD, "bin"))
CACHE = os.environ.get("KVM_CACHE", os.path.join(BUILD, "kernel-vm-cache"))
PKG = os.environ.get("KERNEL_PKG", "")


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


for tool in ("qemu-system-x86_64", "busybox", "cpio"):
    if not shutil.which(tool):
        skip(tool + " missing (scripts/install-deps installs it)")
ktrace = os.path.join(BIN, "trawl-ktrace-static")
if not os.path.exists(ktrace) or not os.path.exists(os.path.join(BIN, "ktrig-static")):
    skip("trawl-ktrace-static not built (sanitizer builds cannot link statically)")
try:
    import bt2  # noqa: F401
except ImportError:
    skip("python3-bt2 missing")


def fetch_kernel():
    """The cached vmlinux (ELF, for QEMU's direct PVH boot)."""
    vmlinux = os.path.join(CACHE, "vmlinux")
    if os.path.exists(vmlinux):
        return vmlinux
    os.makedirs(os.path.join(CACHE, "dl"), exist_ok=True)
    pkg = PKG
    if not pkg:
        dep = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
        pkg = next((l.split()[1] for l in dep.splitlines() if "Depends: linux-image-" in l), "")
    if not pkg:
        skip("cannot find Debian's linux-image-amd64 package")
    debs = glob.glob(os.path.join(CACHE, "dl", pkg + "_*.deb"))
    if not debs:
        r = subprocess.run(["apt-get", "download", pkg], cwd=os.path.join(CACHE, "dl"), capture_output=True, text=True)
        debs = glob.glob(os.path.join(CACHE, "dl", pkg + "_*.deb"))
        if r.returncode != 0 or not debs:
            skip("cannot download %s: %s" % (pkg, r.stderr.strip()[-200:]))
    data = deb_vmlinuz(debs[0])
    # bzImage: the payload is an xz stream (Debian's choice); the result must be an ELF.
    pos = data.find(b"\xfd7zXZ\x00")
    if pos < 0:
        skip("vmlinuz payload is not xz-compressed")
    elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[pos:])
    if elf[:4] != b"\x7fELF":
        skip("could not extract vmlinux")
    with open(vmlinux + ".tmp", "wb") as f:
        f.write(elf)
    os.rename(vmlinux + ".tmp", vmlinux)
    return vmlinux


def deb_vmlinuz(deb):
    """The bytes of ./boot/vmlinuz-* in the kernel package @deb (an ar archive
    whose data.tar.xz has ./boot first): the tar stream is read only up to it,
    not the 470 MB of modules after it (dpkg -x of all of it took most of a
    fresh build's run, ~60 s at load 12, against 37 s for QEMU)."""
    with open(deb, "rb") as f:
        if f.read(8) != b"!<arch>\n":
            skip("%s is not a Debian package" % deb)
        while True:
            hdr = f.read(60)
            if len(hdr) < 60:
                skip("%s has no data.tar.xz" % deb)
            name, size = hdr[:16].decode().strip().rstrip("/"), int(hdr[48:58])
            if name == "data.tar.xz":
                break
            f.seek(size + (size & 1), os.SEEK_CUR)
        with tarfile.open(fileobj=f, mode="r|xz") as t:
            for m in t:
                if m.isfile() and m.name.lstrip("./").startswith("boot/vmlinuz-"):
                    return t.extractfile(m).read()
    skip("%s holds no boot/vmlinuz-*" % deb)


def build_initramfs(work):
    root = os.path.join(work, "root")
    for d in ("bin", "proc", "sys", "dev", "etc", "tmp", "tests"):
        os.makedirs(os.path.join(root, d))
    shutil.copy(shutil.which("busybox"), os.path.join(root, "bin", "busybox"))
    os.symlink("busybox", os.path.join(root, "bin", "sh"))
    shutil.copy(os.path.join(HERE, "init.sh"), os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    shutil.copy(ktrace, os.path.join(root, "tests", "trawl-ktrace-static"))
    shutil.copy(os.path.join(BIN, "ktrig-static"), os.path.join(root, "tests", "ktrig-static"))
    with open(os.path.join(root, "etc", "hostname"), "w") as f:
        f.write("qemu-guest\n")
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                          capture_output=True, check=True).stdout
    out = os.path.join(work, "initramfs.cpio.gz")
    with open(out, "wb") as f:
        f.write(gzip.compress(cpio, 1))
    return out


vmlinux = fetch_kernel()
work = tempfile.mkdtemp(prefix="trawl-kvm-")
initrd = build_initramfs(work)
t0 = time.time()
# TCG emulates every guest instruction: a fixed amount of work, whose wall time
# is the host CPU QEMU gets. 37 s and 101 s at load 12-14 (stress-ng --cpu 2
# beside other builds and tests): 480 s is a hang detector, not a bound.
p = subprocess.run(["timeout", "480", "qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max",
                    "-m", "1G", "-smp", "1", "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
                    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-kernel", vmlinux,
                    "-initrd", initrd, "-append", "console=ttyS0 quiet panic=-1"],
                   capture_output=True, text=True, errors="replace")
log = p.stdout.replace("\r", "")
print("qemu rc=%d in %.1f s" % (p.returncode, time.time() - t0))
if "GUEST-DONE" not in log:
    print(log[-4000:])
    raise SystemExit("the guest did not finish" + (" in 480 s" if p.returncode == 124 else ""))

results, traces, cur = {}, {}, None
for line in log.splitlines():
    if line.startswith("RESULT "):
        name, rest = line[7:].split(" ", 1)
        results[name] = rest
        print(line)
    elif line.startswith("TRACE-BEGIN "):
        cur, traces[line[12:]] = line[12:], []
    elif line.startswith("TRACE-END"):
        cur = None
    elif cur:
        traces[cur].append(line.strip())
    elif line.startswith("GUEST:"):
        print(line)


def read_trace(name):
    data = base64.b64decode("".join(traces[name]))
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as t:
        t.extractall(work)
    path = os.path.join(work, name)
    evs = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            evs.append((msg.event.name, {k: v for k, v in (msg.event.payload_field or {}).items()}))
    r = subprocess.run(["babeltrace2", path], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return evs


import bt2  # noqa: E402

for name in ("kprobe", "kretprobe", "tracepoint"):
    assert results.get(name, "").startswith("rc=0"), (name, results.get(name))
evs = read_trace("kprobe")
assert len([e for e in evs if e[0] == "kp"]) >= 5, evs[:10]
evs = read_trace("kretprobe")
ent = [e for e in evs if e[0] == "fn_entry"]
ret = [e for e in evs if e[0] == "fn_return"]
assert len(ent) >= 5 and len(ret) >= 5, (len(ent), len(ret))
evs = read_trace("tracepoint")
assert any(e[0] == "syscall_entry_openat" for e in evs) and any(e[0] == "syscall_exit_openat" for e in evs)
# busybox re-executes itself (/proc/self/exe) for each applet: sh, then 5 cats
execs = [e for e in evs if e[0] == "sched_process_exec"]
assert len(execs) >= 6 and str(execs[0][1]["filename"]) == "/bin/sh", execs
assert "has BPF fentry/fexit but no kprobes" in results.get("fentry", ""), results.get("fentry")
assert results.get("functiontracer", "").startswith("rc=0"), results.get("functiontracer")
evs = read_trace("functiontracer")
fn = [e for e in evs if e[0] == "function"]
assert len(fn) >= 5 and all(int(e[1]["ip"]) > 0 and int(e[1]["parent_ip"]) > 0 for e in fn), evs[:5]
# client text bound for tracefs: refused by the grammar (one line naming it), nothing left behind
for name, word in (("inject-kprobe", "kernel probe location"), ("inject-comment", "kernel probe location"),
                   ("inject-function", "kernel symbol"), ("inject-ftrace", "kernel symbol"),
                   ("inject-name", "probe name")):
    r = results.get(name, "")
    assert r.startswith("rc=1 ") and word in r, (name, r)
assert results.get("leftover-kprobes") == "n=0", results.get("leftover-kprobes")
assert results.get("kprobe-offset", "").startswith("rc=0"), results.get("kprobe-offset")
assert len([e for e in read_trace("kprobe-offset") if e[0] == "kp"]) >= 5
assert results.get("uprobe", "").startswith("rc=2 "), results.get("uprobe")  # the child's exit
assert len([e for e in read_trace("uprobe") if e[0] == "u"]) == 1
# kprobe triggers' notifiers: at least the 5 opens seen, with the opener's
# pid captured, at a symbol, SYMBOL+OFFSET and an address; the probe removed
# with the notifier; a location tracefs must not see refused in one line
for name in ("trig-sym", "trig-off", "trig-addr"):
    r = results.get(name, "")
    f = dict(kv.split("=") for kv in r.split()[1:]) if r.startswith("rc=0 ") else {}
    assert int(f.get("mine", 0)) >= 5 and f.get("left") == "0", (name, r)
r = results.get("trig-inject", "")
assert r.startswith("rc=2 refused:") and "kernel probe location" in r, r
shutil.rmtree(work, ignore_errors=True)
print("ok")
