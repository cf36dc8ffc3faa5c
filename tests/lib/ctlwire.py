# SPDX-License-Identifier: MIT
"""The ctl protocol's numbers for tests that speak it by hand, as the build's
src/ctl/proto.h has them (printed by the ctl-wire-info program), so that no
test keeps its own copy of the layout."""
import os, struct, subprocess

_out = subprocess.run([os.path.join(os.environ["TRAWL_BIN_DIR"], "ctl-wire-info")],
                      check=True, capture_output=True, text=True).stdout
W = {k: int(v) for k, v in (line.split() for line in _out.splitlines())}
MAGIC, VERSION, REQ = W["MAGIC"], W["VERSION"], W["REQ"]


def hdr(cmd, size, status=0, magic=None, version=None):
    """A message header (the same layout in every protocol version)."""
    return struct.pack("<IHHIi", MAGIC if magic is None else magic,
                       VERSION if version is None else version, cmd, size, status)


def req(**fields):
    """A zeroed request with its struct_size set; domain=N sets the domain."""
    body = bytearray(REQ)
    body[0:4] = struct.pack("<I", REQ)
    if "domain" in fields:
        off = W["REQ_DOMAIN_OFF"]
        body[off:off + 4] = struct.pack("<I", fields["domain"])
    return bytes(body)


def read_hdr(s):
    """(magic, version, cmd, size, status) of the next header, or None at EOF."""
    h = b""
    while len(h) < W["HDR"]:
        d = s.recv(W["HDR"] - len(h))
        if not d:
            return None
        h += d
    return struct.unpack("<IHHIi", h)
