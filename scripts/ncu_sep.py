"""Profile the separable passes' kernels with Nsight Compute (GPU machine).

NVIDIA's OpenCL program binaries are PTX: this takes them from clconv's
program cache ($XDG_CACHE_HOME/clconv/programs/*.bin: a 32-byte header
of magic, key length, binary length and checksum, the key text, then
the binary), loads each into CUDA through cupy and launches it on the
geometry clconv uses, so that `ncu` (which sees CUDA launches) can
measure it. Usage, after clconv has built the passes with that cache:
  ncu --set full -k regex:sep_pass python3 scripts/ncu_sep.py DIR NX NY
"""
import glob
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
        m = re.search(r"-D AXIS=(\d) -D COARSEN=(\d+) -D LANES=1 "
                      r"-D SEP_GROUP_A=(\d+) .*?TILE_WIDTH=(\d+)", key)
        if m and b".entry sep_pass" in binary:
            yield tuple(int(v) for v in m.groups()), binary


def main():
    folder, nx, ny = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    a = cp.random.random((ny, nx), dtype=cp.float32)
    b = cp.empty_like(a)
    for (axis, coarsen, ga, tile), ptx in entries(folder):
        name = "/tmp/sep_axis%d.ptx" % axis
        open(name, "wb").write(ptx.rstrip(b"\0"))
        f = cp.RawModule(path=name).get_function("sep_pass")
        if axis == 0:
            grid = ((nx + tile * coarsen - 1) // (tile * coarsen), ny, 1)
            block = (tile, 1, 1)
        else:
            rows = (ny + coarsen - 1) // coarsen
            grid = ((nx + tile - 1) // tile, (rows + ga - 1) // ga, 1)
            block = (tile, ga, 1)
        print("axis", axis, "coarsen", coarsen, "grid", grid, "block", block)
        args = (a, b, np.int32(nx), np.int32(ny), np.int32(1))
        for _ in range(3):
            f(grid, block, args)
        cp.cuda.Device().synchronize()


main()
