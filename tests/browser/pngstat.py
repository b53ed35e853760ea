"""pngstat.py — decode a PNG in pure Python and measure how blank it is.

Part of the browser test (tests/browser/run_browser.py): a screenshot of a
report must not be blank.  decode() handles what Chromium writes
(8-bit RGB or RGBA, non-interlaced, any of the five row filters; Up,
the only one Chromium uses with optimizeForSpeed, at C speed);
stats() counts distinct colours and the share of pixels that differ from
the background (the most common colour).
"""
import collections
import struct
import sys
import zlib
from itertools import accumulate

BYTE = 0xFF

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class PNGError(Exception):
    pass


def _chunks(data):
    """Yields (type, payload) for each chunk after the signature."""
    if data[:8] != PNG_SIGNATURE:
        raise PNGError("not a PNG file")
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def _paeth_row(cur, prev, bpp):
    """Undoes the Paeth filter of one row in place."""
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        if pa <= pb and pa <= pc:
            cur[i] = (cur[i] + a) & 0xFF
        elif pb <= pc:
            cur[i] = (cur[i] + b) & 0xFF
        else:
            cur[i] = (cur[i] + c) & 0xFF


def _add_bytes(a, b):
    """Bytewise (a + b) mod 256 of two equal-length byte strings, as a
    bytearray: one big-integer addition with the carries between bytes
    masked off (add the low 7 bits, then xor in the top bits)."""
    n = len(a)
    if n not in _MASKS:
        _MASKS[n] = (int.from_bytes(b"\x7f" * n, "big"),
                     int.from_bytes(b"\x80" * n, "big"))
    low, high = _MASKS[n]
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    r = ((x & low) + (y & low)) ^ ((x ^ y) & high)
    return bytearray(r.to_bytes(n, "big"))


_MASKS = {}   # row length -> (0x7f7f..., 0x8080...) for _add_bytes


def _unfilter_row(ftype, cur, prev, bpp):
    """Returns row cur (bytearray) with filter ftype (0..4) undone, given
    the already reconstructed previous row prev.  Up (all that Chromium
    writes with optimizeForSpeed) is one big-integer addition, Sub a
    prefix sum per channel (accumulate); Average and Paeth loop in
    Python."""
    n = len(cur)
    if ftype == 0:
        return cur
    if ftype == 1:
        for c in range(bpp):
            cur[c::bpp] = bytes(map(BYTE.__and__, accumulate(cur[c::bpp])))
    elif ftype == 2:
        cur = _add_bytes(cur, prev)
    elif ftype == 3:
        for i in range(n):
            left = cur[i - bpp] if i >= bpp else 0
            cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 0xFF
    elif ftype == 4:
        _paeth_row(cur, prev, bpp)
    else:
        raise PNGError("bad filter type %d" % ftype)
    return cur


def decode(data):
    """Decodes PNG bytes; returns (width, height, bpp, rows) where rows is
    a list of bytearrays of width*bpp bytes (RGB or RGBA)."""
    header, idat = None, []
    for kind, payload in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", payload)
        elif kind == b"IDAT":
            idat.append(payload)
        elif kind == b"IEND":
            break
    if header is None:
        raise PNGError("no IHDR chunk")
    width, height, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace != 0:
        raise PNGError("unsupported PNG: depth %d, colour type %d, "
                       "interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    if len(raw) < height * (stride + 1):
        raise PNGError("truncated image data")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        off = y * (stride + 1)
        cur = bytearray(raw[off + 1:off + 1 + stride])
        cur = _unfilter_row(raw[off], cur, prev, bpp)
        rows.append(cur)
        prev = cur
    return width, height, bpp, rows


def stats(data):
    """Colour statistics of a PNG: dict with width, height, colours
    (distinct RGB values), background (most common RGB, as #rrggbb),
    foreground_share (pixels not of the background colour / all)."""
    width, height, bpp, rows = decode(data)
    counts = collections.Counter()
    rgbx = bytearray(4 * width)   # each pixel as one 32-bit int, alpha 0
    for row in rows:
        for c in range(3):
            rgbx[c::4] = row[c::bpp]
        counts.update(memoryview(rgbx).cast("I"))
    total = width * height
    key, nbg = counts.most_common(1)[0] if counts else (0, 0)
    bg = tuple(key.to_bytes(4, sys.byteorder)[:3])
    return {
        "width": width, "height": height, "colours": len(counts),
        "background": "#%02x%02x%02x" % bg,
        "foreground_share": (total - nbg) / total if total else 0.0,
    }
