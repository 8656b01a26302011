#!/usr/bin/python3
"""Write the .npy and image seed corpora (fuzz/corpus/npy, fuzz/corpus/image).

Small valid files of every kind the parsers accept, plus a few near-misses,
so the fuzzers start from the formats' structure. Needs NumPy (Debian's
/usr/bin/python3 has it). Run from anywhere: paths are relative to this
file. The output is committed; rerun only to change the seeds."""
import os
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def out(kind, name, data):
    d = os.path.join(HERE, "corpus", kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy_bytes(arr, version=None):
    import io
    b = io.BytesIO()
    if version is None:
        np.save(b, arr)
    else:
        np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def npy_seeds():
    rng = np.random.default_rng(1)
    out("npy", "f4_1d", npy_bytes(rng.standard_normal(7).astype("<f4")))
    out("npy", "f8_2d", npy_bytes(rng.standard_normal((3, 4)).astype("<f8")))
    out("npy", "f4_3d_be", npy_bytes(rng.standard_normal((2, 2, 3)).astype(">f4")))
    for code in ("i1", "i2", "i4", "u1", "u2", "u4"):
        out("npy", code, npy_bytes(np.arange(6, dtype="<" + code).reshape(2, 3)))
    # int64 (NumPy's default integer), uint64 and bool: read as float32
    for code in ("i8", "u8"):
        out("npy", code, npy_bytes(np.arange(6, dtype="<" + code).reshape(2, 3)))
    out("npy", "i8_be", npy_bytes(np.arange(-3, 2, dtype=">i8")))
    out("npy", "b1", npy_bytes(np.arange(6).reshape(3, 2) % 3 == 0))
    out("npy", "u2_be", npy_bytes(np.arange(5, dtype=">u2")))
    out("npy", "v2", npy_bytes(np.ones(3, "<f4"), version=(2, 0)))
    out("npy", "v3", npy_bytes(np.ones((1, 2), "<f4"), version=(3, 0)))
    out("npy", "fortran", npy_bytes(np.asfortranarray(np.ones((2, 3), "<f4"))))
    out("npy", "nonfinite", npy_bytes(np.array([np.nan, np.inf, -np.inf, 0], "<f4")))
    good = npy_bytes(np.ones((2, 2), "<f4"))
    out("npy", "truncated", good[:-3])
    out("npy", "scalar", npy_bytes(np.float32(1.0)))
    out("npy", "4d", npy_bytes(np.ones((1, 1, 1, 2), "<f4")))


def png(width, height, color_type, depth, rows, palette=None):
    def chunk(tag, body):
        return (struct.pack(">I", len(body)) + tag + body +
                struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    raw = b"".join(b"\x00" + r for r in rows)
    body = chunk(b"IHDR", ihdr)
    if palette:
        body += chunk(b"PLTE", palette)
    body += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def image_seeds():
    out("image", "gray8.png", png(3, 2, 0, 8, [b"\x00\x80\xff", b"\x10\x20\x30"]))
    out("image", "gray16.png", png(2, 2, 0, 16, [b"\x00\x01\xff\xff", b"\x12\x34\x56\x78"]))
    out("image", "rgb8.png", png(2, 1, 2, 8, [b"\xff\x00\x00\x00\xff\x00"]))
    out("image", "rgba8.png", png(1, 2, 6, 8, [b"\x01\x02\x03\x04", b"\x05\x06\x07\x08"]))
    out("image", "graya8.png", png(2, 1, 4, 8, [b"\x10\xff\x20\x80"]))
    out("image", "palette.png", png(4, 1, 3, 2, [b"\x1b"], palette=b"\x00\x00\x00\xff\x00\x00\x00\xff\x00\x00\x00\xff"))
    out("image", "gray1.png", png(8, 1, 0, 1, [b"\xa5"]))
    out("image", "p5.pgm", b"P5\n3 2\n255\n" + bytes([0, 128, 255, 1, 2, 3]))
    out("image", "p5_16.pgm", b"P5 2 1 65535\n" + b"\x01\x02\xff\xff")
    out("image", "p6.ppm", b"P6\n# comment\n2 1\n255\n" + bytes(range(6)))
    out("image", "p2.pgm", b"P2\n2 2\n15\n0 5\n10 15\n")
    out("image", "p3.ppm", b"P3 1 1 255 1 2 3\n")
    out("image", "p5_short.pgm", b"P5\n4 4\n255\n\x00\x01")


if __name__ == "__main__":
    npy_seeds()
    image_seeds()
