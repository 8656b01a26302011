#!/usr/bin/env python3
"""Random filters under MPI against one process (test/mpi.sh runs it).

Usage: mpi_fuzz.py CLCONV CLCONV_MPI MPIRUN_WORDS CASES [SEED]

Each case: a random 1-3D array (float16/32/64 either byte order, uint8/16,
int16/32), a random mask of any width per axis, border mode, cval, origin,
convolution, channel axis or --axes, method and output type (float32 or
the input's: --out-dtype same); 1-6 ranks reading or
exchanging their halos. The MPI output must be the one-process output byte
for byte (the FFT's within 1e-4 of the largest value: it transforms each
slab; then one step of an integer or float16 output type), or both must
fail with the same exit code. Prints the seed.
"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

MODES = ["constant", "nearest", "reflect", "mirror", "wrap", "grid-wrap"]
DTYPES = ["<f4", "<f8", "|u1", "<u2", "<i2", "<f2", ">f4", "<i4"]


def case(rng, d):
    nd = rng.randint(1, 3)
    shape = [rng.randint(1, 13) for _ in range(nd)]
    dt = rng.choice(DTYPES)
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    if dt[1] == "f":
        x = nrng.uniform(-100, 100, shape).astype(dt)
    else:
        x = nrng.integers(0, 200, shape).astype(dt)
    np.save(os.path.join(d, "in.npy"), x)
    args, mdims = [], nd
    if nd == 3:
        pick = rng.random()
        if pick < 0.3:
            args += ["--channel-axis", str(rng.randint(-3, 2))]
            mdims = 2
        elif pick < 0.5:
            axes = sorted(rng.sample(range(3), rng.randint(1, 2)))
            args += ["--axes", ",".join(map(str, axes))]
            mdims = len(axes)
        else:
            args += ["--dims", "3"]
    widths = [rng.randint(1, 6) for _ in range(mdims)]
    np.save(os.path.join(d, "m.npy"),
            nrng.uniform(-1, 1, widths).astype(np.float32))
    args += ["--mask", os.path.join(d, "m.npy"), "--mode", rng.choice(MODES)]
    if rng.random() < 0.5:
        args += ["--cval", rng.choice(["0", "1.5", "-3"])]
    if rng.random() < 0.5:
        args += ["--origin", ",".join(str(rng.randint(-(w // 2), (w - 1) // 2))
                                      for w in widths)]
    if rng.random() < 0.3:
        args.append("--convolve")
    method = rng.choice([None, None, "direct", "fft", "separable"])
    if method:
        args += ["--method", method]
    # OUT float32, or the input's type where the device has it (the others
    # are refused, on one process as under MPI)
    args += ["--out-dtype", rng.choice(["f32", "f32", "same"])]
    ranks = rng.randint(1, 6)
    halo = rng.choice(["read", "exchange"])
    return shape, dt, args, method, ranks, halo


def main():
    cli, mpi_cli, mpirun, cases = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else random.randrange(1 << 30)
    print("mpi_fuzz.py: seed %d (repeat: test/mpi_fuzz.py ... %d %d)" % (seed, cases, seed))
    rng = random.Random(seed)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        ref, out = os.path.join(d, "ref.npy"), os.path.join(d, "out.npy")
        for k in range(cases):
            shape, dt, args, method, ranks, halo = case(rng, d)
            what = "case %d: %s %s, %d ranks, halo %s: %s" % (
                k, dt, shape, ranks, halo, " ".join(args))
            one = subprocess.run([cli, "apply", os.path.join(d, "in.npy"), ref] + args,
                                 capture_output=True, text=True)
            if os.path.exists(out):
                os.remove(out)
            many = subprocess.run(mpirun + ["-n", str(ranks), mpi_cli, "apply",
                                            os.path.join(d, "in.npy"), out,
                                            "--halo", halo] + args,
                                  capture_output=True, text=True, timeout=300)
            if one.returncode or many.returncode:
                if one.returncode != many.returncode:
                    fails += 1
                    print("FAIL %s: exit %d on one process, %d over MPI" % (
                        what, one.returncode, many.returncode))
                    print("  | " + (one.stderr + many.stderr).strip()[:600])
                else:
                    print("ok   %s: both refused (exit %d)" % (what, one.returncode))
                continue
            a, b = np.load(ref), np.load(out)
            if open(ref, "rb").read() == open(out, "rb").read():
                print("ok   %s: identical bytes" % what)
                continue
            err = float(np.abs(a.astype(np.float64) - b).max()) if a.shape == b.shape else float("inf")
            # the FFT's slabs: within 1e-4 of the largest value, then rounded
            # to the output type (one step of an integer, of a float16)
            tol = 1e-4 * max(1.0, float(np.abs(a).max()))
            if a.dtype.kind in "iu":
                tol = max(tol, 1.0)
            elif a.dtype.itemsize == 2:
                tol = max(tol, 1e-3 * max(1.0, float(np.abs(a).max())))
            if method == "fft" and err <= tol:
                print("ok   %s: FFT within %.2g" % (what, err))
            else:
                fails += 1
                print("FAIL %s: differs by %.3g" % (what, err))
    print("mpi_fuzz.py: %d case(s), %d failed" % (cases, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
