#!/usr/bin/env python3
"""Writes icons/icon.png: PayDesk's 8-bit RGBA icon (a receipt on a teal tile).

Only the standard library (zlib + struct), so it runs anywhere; the PNG is committed.
Usage: python3 icons/make_icon.py [size]   (default 256: icon.png; other sizes: SxS.png,
e.g. 32 and 128 for the package's hicolor icon sizes, see src-tauri/tauri.conf.json)
"""
import struct, sys, zlib, os

N = int(sys.argv[1]) if len(sys.argv) > 1 else 256

def inside_round_rect(x, y, x0, y0, x1, y1, r):
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r

def pixel(px, py):
    # sample at pixel centre in unit coordinates
    x, y = (px + 0.5) / N, (py + 0.5) / N
    if not inside_round_rect(x, y, 0.04, 0.04, 0.96, 0.96, 0.2):
        return (0, 0, 0, 0)
    tile = (15, 118, 110, 255)          # teal
    # receipt: white paper with a zig-zag bottom edge
    if 0.27 <= x <= 0.73 and 0.16 <= y <= 0.84:
        zig = 0.80 + 0.04 * abs(((x - 0.27) / 0.0767) % 2 - 1)
        if y <= zig:
            # printed lines
            for ly, lx1 in ((0.28, 0.66), (0.38, 0.60), (0.48, 0.66)):
                if ly <= y <= ly + 0.035 and 0.34 <= x <= lx1:
                    return (71, 85, 105, 255)
            # the total: a bold bar
            if 0.62 <= y <= 0.69 and 0.34 <= x <= 0.66:
                return (15, 118, 110, 255)
            return (255, 255, 255, 255)
    return tile

def png(width, height, rows):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(v for p in row for v in p) for row in rows)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))

rows = [[pixel(x, y) for x in range(N)] for y in range(N)]
name = "icon.png" if N == 256 else f"{N}x{N}.png"
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
with open(out, "wb") as f:
    f.write(png(N, N, rows))
print(out)
