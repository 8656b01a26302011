#!/usr/bin/env python3
"""Random `clconv apply` calls against scipy.ndimage in float64.

Usage: apply_fuzz.py CLCONV CASES [SEED] [DEVICE]

Each case: a random .npy (1 to 4 axes of 1-31 elements; float32,
float64, uint8, uint16, int16, float16, int32, bool, big-endian float32
and uint16, sometimes Fortran order), a random mask over the data's axes,
over --axes, or beside --channel-axis (random values, an outer product
of positive 1-D masks, or a box; 1-7 wide per axis), a random mode, cval,
origin, --convolve, --method (separable only for outer products),
--out-dtype and sometimes --verify. The result must have the input's
shape, the documented dtype (float32; the input's own with --out-dtype
same, which the wide types refuse with exit 2) and lie within float32
rounding of SciPy's (8 taps' FLT_EPSILON of sum |x w| a tap; the FFT's
bound beside it where it may be chosen; one step for rounded integers,
a thousandth for float16). Prints the seed; exits 1 if any case fails.
Run by hand (TESTING.md), on any device: SciPy 1.10 has no axes=, so a
mask over --axes is given SciPy as a mask of width 1 along the others.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.ndimage as nd

MODES = ["constant", "nearest", "reflect", "mirror", "wrap"]
DTYPES = ["f4", "f8", "u1", "u2", "i2", "f2", "i4", "?", ">f4", ">u2"]
NARROW = {"float32", "uint8", "uint16", "int16", "float16"}


def data(rng, shape, dt):
    if dt == "?":
        x = rng.random(shape) < 0.5
    elif np.dtype(dt).kind == "f":
        x = (rng.standard_normal(shape) * 10).astype(dt)
    else:
        x = rng.integers(0, 200, shape).astype(dt)
    return np.asfortranarray(x) if rng.random() < 0.2 else x


def mask(rng, wshape):
    kind = rng.choice(["random", "outer", "box"])
    if kind == "random":
        return kind, rng.standard_normal(wshape)
    if kind == "outer":
        w = np.ones(())
        for n in wshape:
            w = np.multiply.outer(w, rng.random(n) + 0.1)
        return kind, w
    return kind, np.ones(wshape) / np.prod(wshape)


def case(rng, tmp, cli, device):
    ndim = int(rng.choice([1, 2, 2, 3, 3, 4]))
    shape = tuple(int(rng.choice([1, 2, 3, 5, 8, 13, 31]))
                  for _ in range(ndim))
    dt = str(rng.choice(DTYPES))
    x = data(rng, shape, dt)
    args, spread = [], None  # spread: the mask's axes, as SciPy takes it
    if ndim == 4 or (ndim >= 2 and rng.random() < 0.2):
        k = int(rng.integers(1, min(3, ndim - 1) + 1))
        spread = sorted(rng.choice(ndim, k, replace=False).tolist())
        args += ["--axes", ",".join(map(str, spread))]
    elif ndim >= 2 and rng.random() < 0.15:
        chan = int(rng.integers(0, ndim))
        args += ["--channel-axis", str(chan)]
        spread = [a for a in range(ndim) if a != chan]
    elif ndim == 3:
        args += ["--dims", "3"]
    axes = spread if spread is not None else list(range(ndim))
    wshape = tuple(int(rng.integers(1, 8)) for _ in axes)
    kind, w = mask(rng, wshape)
    np.save(os.path.join(tmp, "w.npy"), w.astype(np.float32))
    w = w.astype(np.float32).astype(np.float64)
    mode = str(rng.choice(MODES))
    cval = float(rng.choice([0, 1.5, -3])) if mode == "constant" else 0.0
    origin = [int(rng.integers(-(n // 2), (n - 1) // 2 + 1)) for n in wshape]
    conv = bool(rng.random() < 0.3)
    methods = ["auto", "direct", "fft"] + (["separable"] if kind != "random" else [])
    method = str(rng.choice(methods))
    out = str(rng.choice(["f32", "same"]))
    args += ["--mask", os.path.join(tmp, "w.npy"), "--mode", mode, "--cval",
             str(cval), "--origin", ",".join(map(str, origin)), "--method",
             method, "--out-dtype", out]
    if conv:
        args.append("--convolve")
    if rng.random() < 0.3:
        args.append("--verify")
    if device:
        args += ["--device", device]
    xin, yout = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
    np.save(xin, x)
    if os.path.exists(yout):
        os.remove(yout)
    r = subprocess.run([cli, "apply", xin, yout] + args, capture_output=True,
                       text=True)
    what = "shape %s %s: %s" % (shape, dt, " ".join(args))
    name = np.dtype(dt).name
    if r.returncode != 0:
        if r.returncode == 2 and out == "same" and name not in NARROW:
            return None  # documented: no device type to keep
        return "exit %d %s | %s" % (r.returncode, what, r.stderr.strip()[-300:])
    # SciPy's view of the mask: width 1 along the axes it leaves out
    full, forg = [1] * ndim, [0] * ndim
    for a, n, o in zip(axes, wshape, origin):
        full[a], forg[a] = n, o
    f = nd.convolve if conv else nd.correlate
    xf = x.astype(np.float64)
    ref = f(xf, w.reshape(full), mode=mode, cval=cval, origin=forg)
    mag = f(np.abs(xf), np.abs(w).reshape(full), mode=mode, cval=abs(cval),
            origin=forg)
    taps = max(1, np.count_nonzero(w))
    tol = 8 * taps * np.finfo(np.float32).eps * mag + 1e-6
    if method in ("fft", "auto"):
        tol = tol + 1e-4 * (np.abs(xf).max() + abs(cval)) * np.abs(w).sum()
    want = np.dtype("float32")
    if out == "same":
        want = np.dtype(name)
        if want.kind in "iu":
            info = np.iinfo(want)
            ref = np.clip(ref, info.min, info.max)
            tol = tol + 1.0
        elif want == np.float16:
            tol = tol + 1e-3 * np.abs(ref) + 1e-3
    y = np.load(yout)
    if y.shape != x.shape or y.dtype != want:
        return "got %s %s %s" % (y.shape, y.dtype, what)
    err = np.abs(y.astype(np.float64) - ref)
    ok = (err <= tol) | (np.isnan(y) & np.isnan(ref))
    if not ok.all():
        i = np.unravel_index(np.argmax(np.where(ok, 0, err)), err.shape)
        return "%s at %s: got %r expected %r" % (what, i, y[i], ref[i])
    return None


def main():
    cli, cases = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int.from_bytes(
        os.urandom(4), "little")
    device = sys.argv[4] if len(sys.argv) > 4 else None
    print("apply_fuzz: seed %d, %d cases, device %s" % (seed, cases,
                                                        device or "default"))
    rng = np.random.default_rng(seed)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(cases):
            why = case(rng, tmp, cli, device)
            if why:
                bad += 1
                print("FAIL case %d: %s" % (n, why), flush=True)
    print("apply_fuzz: %d cases, %d failed" % (cases, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
