# SPDX-License-Identifier: MIT
"""A headless Chromium driven over the DevTools protocol, with nothing but
the standard library: chromium --headless --remote-debugging-port=0, its
page target's websocket (RFC 6455: client frames masked, text frames, a
reply found by its id), Runtime.evaluate, Input.dispatch*Event and
Page.captureScreenshot. Used by test_timeline.py and bench/export."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class WebSocket:
    def __init__(self, url, timeout=60):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n"
                           % (m.group(3), m.group(1), m.group(2), key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.sock.recv(4096)
            if not c:
                raise OSError("websocket: connection closed during the handshake")
            head += c
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise OSError("websocket: handshake refused: %r" % head[:80])
        self.buf = head.split(b"\r\n\r\n", 1)[1]

    def send(self, text):
        data = text.encode()
        n = len(data)
        hdr = bytes([0x81])
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            c = self.sock.recv(1 << 20)
            if not c:
                raise OSError("websocket: connection closed")
            self.buf += c
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """One whole message (fragments joined), as text."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            op = b0 & 0x0F
            if op == 0x8:
                raise OSError("websocket: closed by the browser")
            if op in (0x9, 0xA):  # ping, pong: nothing to answer for a short session
                continue
            parts.append(data)
            if b0 & 0x80:
                return b"".join(parts).decode("utf-8", "replace")


class Browser:
    """chromium --headless with one page at @url (width x height)."""

    def __init__(self, url, width=1400, height=900, timeout=120):
        exe = find_chromium()
        if not exe:
            raise FileNotFoundError("chromium is not installed")
        self.profile = tempfile.mkdtemp(prefix="trawl-chromium.")
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                "--disable-background-networking", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--user-data-dir=" + self.profile,
                "--remote-debugging-port=0", "--window-size=%d,%d" % (width, height), url]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        self.id = 0
        port = None
        end = time.time() + timeout
        err = b""
        while time.time() < end and port is None:
            line = self.proc.stderr.readline()
            if not line:
                break
            err += line
            m = re.search(rb"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            self.close()
            raise OSError("chromium did not start: " + err.decode(errors="replace")[-600:])
        # the rest of its stderr is drained so that it never blocks on a full pipe
        import threading
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        page = None
        while time.time() < end and page is None:
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=30) as r:
                for t in json.load(r):
                    if t.get("type") == "page":
                        page = t["webSocketDebuggerUrl"]
            if page is None:
                time.sleep(0.2)
        self.ws = WebSocket(page, timeout=timeout)

    def call(self, method, **params):
        self.id += 1
        my = self.id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == my:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page: %s" % r["exceptionDetails"].get("exception", {})
                               .get("description", r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, expr, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            try:
                if self.eval(expr):
                    return True
            except RuntimeError:
                pass
            time.sleep(0.1)
        return False

    def mouse(self, kind, x, y, **kw):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **kw)

    def key(self, key, code=None, text=None):
        for kind in ("keyDown", "keyUp"):
            p = dict(type=kind, key=key, code=code or key)
            if text and kind == "keyDown":
                p["text"] = text
            self.call("Input.dispatchKeyEvent", **p)

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=30)
        except Exception:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)
