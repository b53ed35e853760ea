#!/usr/bin/env python3
"""test_pngstat.py — unit tests of the pure-Python PNG decoder.

Part of the browser test; needs no browser.  Encodes small images here
with every row filter (0 None .. 4 Paeth, computed from the PNG
specification independently of pngstat's decoder) and checks that
pngstat.decode() gives the pixels back and stats() counts them.
Run: python3 tests/browser/test_pngstat.py
"""
import os
import struct
import sys
import unittest
import zlib

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngstat  # noqa: E402


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _filter_row(ftype, row, prev, bpp):
    """Filtered bytes of row (PNG spec, section 9)."""
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, _paeth(a, b, c)][ftype]
        out.append((x - pred) & 0xFF)
    return bytes(out)


def encode(width, height, bpp, rows, filters):
    """PNG bytes of rows (bytes of width*bpp), row y filtered with
    filters[y % len(filters)]."""
    raw, prev = bytearray(), bytes(width * bpp)
    for y, row in enumerate(rows):
        f = filters[y % len(filters)]
        raw.append(f)
        raw += _filter_row(f, row, prev, bpp)
        prev = row

    def chunk(kind, data):
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", crc)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2 if bpp == 3 else 6,
                       0, 0, 0)
    return (pngstat.PNG_SIGNATURE + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


def gradient(width, height, bpp):
    """Rows of a pattern that exercises every filter's wrap-around."""
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            px = [(x * 37 + y * 11) & 0xFF, (x * y + 200) & 0xFF,
                  (255 - x * 3) & 0xFF, 255 - y]
            row += bytes(px[:bpp])
        rows.append(bytes(row))
    return rows


class DecodeTest(unittest.TestCase):
    def test_every_filter_rgb_and_rgba(self):
        for bpp in (3, 4):
            rows = gradient(23, 17, bpp)
            for filters in ([0], [1], [2], [3], [4], [0, 1, 2, 3, 4]):
                png = encode(23, 17, bpp, rows, filters)
                w, h, got_bpp, got = pngstat.decode(png)
                self.assertEqual((w, h, got_bpp), (23, 17, bpp))
                self.assertEqual([bytes(r) for r in got], rows,
                                 "bpp %d filters %s" % (bpp, filters))

    def test_stats(self):
        # 10x10 white with a 2x5 red block and one blue pixel.
        rows = []
        for y in range(10):
            row = bytearray(b"\xff\xff\xff" * 10)
            if y < 5:
                row[0:6] = b"\xff\x00\x00" * 2
            if y == 9:
                row[27:30] = b"\x00\x00\xff"
            rows.append(bytes(row))
        st = pngstat.stats(encode(10, 10, 3, rows, [4, 1]))
        self.assertEqual(st["colours"], 3)
        self.assertEqual(st["background"], "#ffffff")
        self.assertAlmostEqual(st["foreground_share"], 11 / 100)

    def test_rejects_non_png(self):
        with self.assertRaises(pngstat.PNGError):
            pngstat.decode(b"GIF89a....")

    def test_rejects_16_bit(self):
        png = encode(2, 2, 3, gradient(2, 2, 3), [0])
        png = png.replace(struct.pack(">IIBB", 2, 2, 8, 2),
                          struct.pack(">IIBB", 2, 2, 16, 2))
        with self.assertRaisesRegex(pngstat.PNGError, "depth 16"):
            pngstat.decode(png)


if __name__ == "__main__":
    unittest.main()
