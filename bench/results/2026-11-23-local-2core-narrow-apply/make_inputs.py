"""The inputs of run.sh: an 8192x8192 uint8 .npy and the same as an 8-bit
gray PNG (stored with zlib level 1)."""
import struct, sys, zlib
import numpy as np

w = sys.argv[1]
a = np.random.default_rng(1).integers(0, 256, size=(8192, 8192), dtype=np.uint8)
np.save(f"{w}/in.npy", a)
raw = b"".join(b"\0" + row.tobytes() for row in a)


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))


with open(f"{w}/in.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", 8192, 8192, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
