"""Profile clconv's direct and separable kernels with Nsight Compute.

NVIDIA's OpenCL program binaries are PTX, and `ncu` sees CUDA launches
only: this takes each program from clconv's cache ($XDG_CACHE_HOME/
clconv/programs/*.bin: a 32-byte header of magic, key length, binary
length and checksum, the key text, then the binary), loads it into CUDA
through cupy and launches its kernel on the geometry clconv gives it,
reading the geometry from the build's -D defines in the key. Handles
conv1d_coarse, conv3d_coarse and sep_pass (LANES 1); other programs are
listed and skipped. Usage, after clconv has built the kernels with that
cache:
  ncu --set full -k regex:'conv|sep' python3 scripts/ncu_kernels.py \
      DIR NX [NY [NZ]]
Each kernel runs three times on random data of that shape (the mask:
the program's baked one where it has one, else random). $NCU_ONLY, a
regular expression, keeps the kernels whose "name D=V ..." matches it
(e.g. "sep_pass.*AXIS=0").
"""
import glob
import os
import re
import struct
import sys

import cupy as cp
import numpy as np


def entries(folder):
    for path in sorted(glob.glob(folder + "/clconv/programs/*.bin")):
        raw = open(path, "rb").read()
        magic, klen, blen, _ = struct.unpack("<8sQQQ", raw[:32])
        if magic != b"CLCVBIN1":
            continue
        key = raw[32:32 + klen].decode("utf-8", "replace")
        binary = raw[32 + klen:32 + klen + blen]
        names = re.findall(rb"\.entry\s+(\w+)", binary)
        defs = dict(re.findall(r"-D\s*(\w+)=([-\w.]+)", key))
        yield path, [n.decode() for n in names], defs, binary


def zero_envregs(ptx):
    """NVIDIA's OpenCL reads the NDRange's global offset (and other launch
    state) from PTX environment registers, which a CUDA launch leaves
    undefined: clconv's launches have no offset, so each becomes 0."""
    used = sorted(set(re.findall(rb"%envreg\d+", ptx)))
    print("environment registers:", b" ".join(used).decode() or "none")
    return re.sub(rb"%envreg\d+", b"0", ptx)


def cdiv(a, b):
    return (a + b - 1) // b


def geometry(name, d, shape):
    """(grid, block, int args) of one launch, as clconv's host makes it."""
    tile = int(d.get("TILE_WIDTH", 0))
    c = int(d.get("COARSEN", 1))
    if name == "conv1d_coarse":
        (nx,) = shape[:1]
        spans = int(d.get("SPANS", 1))
        return (cdiv(nx, tile * c * spans), 1, 1), (tile, 1, 1), [nx]
    if name == "conv3d_coarse":
        nx, ny, nz = shape
        gy, rows = int(d["GROUP_Y"]), int(d["ROWS"])
        xv, gz = int(d.get("XV", 1)), int(d.get("GROUP_Z", 1))
        return ((cdiv(nx, tile * xv), cdiv(ny, gy * rows), cdiv(nz, c * gz)),
                (tile, gy, gz), [nx, ny, nz])
    if name == "conv2d_coarse":
        nx, ny = shape[:2]
        gy, xv = int(d["GROUP_Y"]), int(d.get("XV", 1))
        return ((cdiv(nx, tile * xv), cdiv(ny, gy * c), 1), (tile, gy, 1),
                [nx, ny])
    if name == "sep_pass" and d.get("LANES") == "1":
        axis, ga = int(d["AXIS"]), int(d.get("SEP_GROUP_A", 1))
        nx, ny = shape[0], shape[1] if len(shape) > 1 else 1
        nz = shape[2] if len(shape) > 2 else 1
        if axis == 0:
            return ((cdiv(nx, tile * c), ny * nz, 1), (tile, 1, 1),
                    [nx, ny, nz])
        rows = cdiv(ny if axis == 1 else nz, c)
        return ((cdiv(nx, tile), cdiv(rows, ga), nz if axis == 1 else ny),
                (tile, ga, 1), [nx, ny, nz])
    return None


def main():
    folder = sys.argv[1]
    shape = [int(v) for v in sys.argv[2:]]
    n = int(np.prod(shape))
    a = cp.random.random(n, dtype=cp.float32)
    b = cp.empty_like(a)
    mask = cp.random.random(4096, dtype=cp.float32) / 64
    for path, names, d, ptx in entries(folder):
        for name in names:
            # the filter first: another program's geometry may need
            # another shape (a 3D kernel in a 2D profile's cache)
            label = name + " " + " ".join("%s=%s" % kv for kv in sorted(d.items()))
            if not re.search(os.environ.get("NCU_ONLY", ""), label):
                continue
            g = geometry(name, d, shape)
            if g is None:
                print("skipped", name, path)
                continue
            grid, block, ints = g
            src = "/tmp/ncu_%s.ptx" % name
            open(src, "wb").write(zero_envregs(ptx.rstrip(b"\0")))
            f = cp.RawModule(path=src).get_function(name)
            if name == "sep_pass":
                args = (a, b) + tuple(np.int32(v) for v in ints)
            else:
                args = (a, b, mask) + tuple(np.int32(v) for v in ints)
            print(name, {k: d[k] for k in sorted(d) if len(d[k]) < 12},
                  "grid", grid, "block", block, flush=True)
            for _ in range(3):
                f(grid, block, args)
            cp.cuda.Device().synchronize()


main()
