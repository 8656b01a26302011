#!/bin/sh
# `clconv apply` against scipy.ndimage.correlate and convolve with every
# border mode (and cval), random shapes, dtypes, per-axis odd and even
# masks (wider than the data too), origins at both ends of their range,
# named per-axis masks and channel axes, the separable path: float32 within a bound that
# scales with the mask, 8 * (mask elements) * FLT_EPSILON * sum|a*m|; the
# FFT path (--method fft) within that plus the FFT's term, which grows
# with the data's range (doc/methods.md): 8 log2(L) FLT_EPSILON
# max(|a|, |cval|) sum|m|, L < prod(2 (n + W)).
# Every strategy takes its turn. Skipped when NumPy/SciPy are missing.
# Usage: test/apply_modes_scipy.sh build/clconv
set -u
CLI=${1:-build/clconv}
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, scipy.ndimage' 2>/dev/null; then
    echo "SKIP apply_modes_scipy.sh: $PY with numpy and scipy is not" \
         "installed (apt-get install python3-numpy python3-scipy)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec "$PY" - "$CLI" "$tmp" <<'EOF'
import subprocess, sys
import numpy as np
from scipy import ndimage

cli, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20261123)
failures = 0
modes = ["constant", "nearest", "reflect", "mirror", "wrap"]
strategies = ["naive", "output_tile", "input_tile", "cached_halo", "coarse",
              "vector"]
dtypes = [np.float32, np.float64, np.int16, np.uint8]
EPS = np.finfo(np.float32).eps


def report(ok, name, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    failures += not ok


def run(a, mask_spec, extra):
    np.save(f"{tmp}/x.npy", a)
    r = subprocess.run([cli, "apply", f"{tmp}/x.npy", f"{tmp}/y.npy", "--mask",
                        mask_spec, *extra], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def compare(name, a, m, mode, cval, origin, convolve, got, channel_axis=None,
            fft=False):
    a64 = a.astype(np.float32).astype(np.float64)
    m64 = m.astype(np.float32).astype(np.float64)
    f = ndimage.convolve if convolve else ndimage.correlate
    if channel_axis is not None:  # the mask spans the other axes
        m64 = np.expand_dims(m64, channel_axis)
        origin = list(origin)
        origin.insert(channel_axis % a.ndim, 0)
    cv = float(np.float32(cval))
    want = f(a64, m64, mode=mode, cval=cv, origin=origin)
    scale = f(np.abs(a64), np.abs(m64), mode=mode, cval=abs(cv), origin=origin)
    bound = 8 * m64.size * EPS * scale + 1e-30
    if fft:
        big_l = np.prod([2 * (n + w) for n, w in zip(a.shape, m64.shape)])
        rng_a = max(np.abs(a64).max(), abs(cv))
        bound = bound + 8 * np.log2(big_l) * EPS * rng_a * np.abs(m64).sum()
    err = np.abs(got.astype(np.float64) - want)
    report(got.shape == a.shape and bool(np.all(err <= bound)), name,
           f"shape {got.shape}, max err {err.max():.3g}, "
           f"worst ratio {(err / bound).max():.3g}")


def run_and_compare(name, a, m, extra, mode, cval, origin, convolve):
    """apply a with mask m (saved as m.npy) and flags extra; compare."""
    np.save(f"{tmp}/m.npy", m)
    rc, err = run(a, f"{tmp}/m.npy", extra)
    if rc != 0:
        report(False, name, f"exit {rc}: {err}")
        return
    compare(name, a, m, mode, cval, origin, convolve, np.load(f"{tmp}/y.npy"),
            fft="fft" in extra)


def run_method(method, a, m, mode, cval, origin, convolve):
    """apply with --method method and the filter's flags; compare."""
    extra = ["--method", method, "--mode", mode, "--cval", repr(cval),
             "--origin", ",".join(map(str, origin))]
    if convolve:
        extra.append("--convolve")
    if a.ndim == 3:
        extra += ["--dims", "3"]
    name = (f"{method} {'convolve' if convolve else 'correlate'} {a.dtype} "
            f"{a.shape} mask {m.shape} origin {origin} {mode} cval {cval}")
    run_and_compare(name, a, m, extra, mode, cval, origin, convolve)


def random_case(k):
    nd = 1 + k % 3
    shape = tuple(int(rng.integers(1, 14 if nd > 1 else 40)) for _ in range(nd))
    mshape = tuple(int(rng.integers(1, 7 if nd < 3 else 5)) for _ in range(nd))
    if k % 7 == 0:  # wider than the data along an axis
        mshape = tuple(s + 2 for s in shape[:1]) + mshape[1:]
    dt = dtypes[k % len(dtypes)]
    if np.issubdtype(dt, np.integer):
        a = rng.integers(0, 100, size=shape).astype(dt)
    else:
        a = rng.standard_normal(shape).astype(dt)
    m = rng.standard_normal(mshape).astype(np.float32)
    # origins at both ends of SciPy's range, or inside it
    ends = k % 3
    origin = [(-(w // 2), (w - 1) // 2, int(rng.integers(-(w // 2), (w - 1) // 2 + 1)))[ends]
              for w in mshape]
    return a, m, origin


# 1. Random arrays, masks, modes, origins, correlate and convolve.
for k in range(40):
    a, m, origin = random_case(k)
    mode = modes[k % 5]
    convolve = (k // 5) % 2 == 1
    cval = 0.0 if k % 4 else float(rng.uniform(-2, 2))
    strat = strategies[k % len(strategies)]
    extra = ["--mode", mode, "--cval", repr(cval), "--strategy", strat,
             "--origin", ",".join(map(str, origin))]
    if convolve:
        extra.append("--convolve")
    if a.ndim == 3:
        extra += ["--dims", "3"]  # a volume, whatever its last extent
    name = (f"{'convolve' if convolve else 'correlate'} {a.dtype} {a.shape} "
            f"mask {m.shape} origin {origin} {mode} cval {cval:.3g} {strat}")
    run_and_compare(name, a, m, extra, mode, cval, origin, convolve)

# 2. Named per-axis masks in NumPy's order, and channel axes.
img = rng.standard_normal((11, 9, 3)).astype(np.float32)
for k, (axis, mode) in enumerate([(2, "reflect"), (-1, "mirror"), (0, "wrap"),
                                   (1, "nearest"), (2, "constant")]):
    plane = np.delete(np.arange(3), axis % 3)
    m = np.ones((5, 2), np.float32) / 10  # box:5x2
    rc, err = run(img, "box:5x2", ["--channel-axis", str(axis), "--mode", mode,
                                   "--origin", "-2,0"])
    name = f"box:5x2 over channel axis {axis} of {img.shape} {mode}"
    if rc != 0:
        report(False, name, f"exit {rc}: {err}")
        continue
    compare(name, img, m, mode, 0.0, [-2, 0], False, np.load(f"{tmp}/y.npy"),
            channel_axis=axis)

# 3. --axes: a lower-dimensional mask over some axes (SciPy's axes=, here
# as the mask expanded with 1-wide axes, which is what axes= means).
vol = rng.standard_normal((6, 9, 11)).astype(np.float32)
for k, (axes, mshape, mode, origin) in enumerate([
        ((1, 2), (3, 4), "reflect", [1, -2]), ((0,), (5,), "wrap", [2]),
        ((0, 2), (3, 2), "mirror", [0, 0]), ((-1,), (6,), "nearest", [-3])]):
    m = rng.standard_normal(mshape).astype(np.float32)
    np.save(f"{tmp}/m.npy", m)
    norm = [x % 3 for x in axes]
    full = m.reshape([mshape[norm.index(i)] if i in norm else 1 for i in range(3)])
    org = [origin[norm.index(i)] if i in norm else 0 for i in range(3)]
    name = f"mask {mshape} over axes {axes} of {vol.shape} {mode} origin {origin}"
    rc, err = run(vol, f"{tmp}/m.npy", ["--axes", ",".join(map(str, axes)),
                                        "--mode", mode, "--origin",
                                        ",".join(map(str, origin))])
    if rc != 0:
        report(False, name, f"exit {rc}: {err}")
        continue
    compare(name, vol, full, mode, 0.0, org, False, np.load(f"{tmp}/y.npy"))

# 4. The separable path (--method separable): outer products of random 1D
# masks, per-axis odd and even widths, origins at both ends, convolve, in
# every mode and constant with a cval, 2D and 3D.
for k in range(12):
    mode = modes[k % 5]
    cval = 1.25 if k == 5 else 0.0
    nd = 2 + k % 2
    shape = tuple(int(rng.integers(1, 16)) for _ in range(nd))
    factors = [rng.standard_normal(int(rng.integers(1, 8))).astype(np.float32)
               for _ in range(nd)]
    m = factors[0]
    for fac in factors[1:]:
        m = np.multiply.outer(m, fac)
    m = m.astype(np.float32)
    origin = [(-(w // 2), (w - 1) // 2)[(k + i) % 2] for i, w in enumerate(m.shape)]
    convolve = k % 3 == 0
    a = rng.standard_normal(shape).astype(np.float32)
    run_method("separable", a, m, mode, cval, origin, convolve)

# 5. The FFT path (--method fft): random (not separable) masks, per-axis
# odd and even widths, wider than the data too, origins at both ends,
# convolve, in every mode and constant with a cval, 1D to 3D; float32 and
# uint8 input.
for k in range(15):
    mode = modes[k % 5]
    cval = -1.5 if k in (5, 10) else 0.0
    nd = 1 + k % 3
    shape = tuple(int(rng.integers(1, 40 if nd == 1 else 14)) for _ in range(nd))
    mshape = tuple(int(rng.integers(1, 8)) for _ in range(nd))
    if k % 4 == 1:  # wider than the data along the first axis
        mshape = (shape[0] + 3,) + mshape[1:]
    m = rng.standard_normal(mshape).astype(np.float32)
    origin = [(-(w // 2), (w - 1) // 2)[(k + i) % 2] for i, w in enumerate(mshape)]
    convolve = k % 3 == 2
    a = (rng.integers(0, 255, size=shape).astype(np.uint8) if k % 4 == 3
         else rng.standard_normal(shape).astype(np.float32))
    run_method("fft", a, m, mode, cval, origin, convolve)

# 6. An (H, W, 3) float array is not silently a volume.
rc, err = run(img, "box:3", [])
report(rc == 2 and "--channel-axis" in err and "--dims 3" in err,
       "(H, W, 3) float without --channel-axis or --dims 3 is a usage error",
       f"exit {rc}: {err}")
rc, err = run(img, "box:3", ["--dims", "3"])
report(rc == 0, "--dims 3 filters it as a volume", f"exit {rc}: {err}")
# Nor an integer one: a uint8 RGB array is what image libraries return
# (it was filtered as a volume, box:3 blurring across the channels).
for rgb in (rng.integers(0, 256, (7, 6, 3)).astype(np.uint8),
            rng.integers(0, 65536, (5, 4, 4)).astype(np.uint16)):
    what = f"(H, W, {rgb.shape[2]}) {rgb.dtype}"
    rc, err = run(rgb, "box:3", [])
    report(rc == 2 and "--channel-axis" in err and "--dims 3" in err,
           f"{what} without --channel-axis or --dims 3 is a usage error",
           f"exit {rc}: {err}")
    rc, err = run(rgb, "box:3", ["--channel-axis", "2"])
    if rc == 0:
        compare(f"{what} --channel-axis 2", rgb, np.ones((3, 3)) / 9,
                "constant", 0.0, (0, 0), False, np.load(f"{tmp}/y.npy"),
                channel_axis=2)
    else:
        report(False, f"{what} --channel-axis 2", f"exit {rc}: {err}")

# 7. Arrays of more than 3 axes: --axes lists 1 to 3 of them (spelled
# from either end), the others are slices filtered one by one; a 4D
# array's --channel-axis leaves 3. Every mode, cval, origins, convolve,
# float and narrow dtypes of either byte order, C and Fortran order, the
# three methods; each against SciPy with the mask expanded by 1-wide axes.
nd_dtypes = [np.float32, np.float64, np.uint8, np.int16, np.float16,
             np.dtype(">f4"), np.uint16]
for k in range(24):
    nd = 4 + k % 3
    shape = tuple(int(rng.integers(1, 6 if nd > 4 else 8)) for _ in range(nd))
    dt = np.dtype(nd_dtypes[k % len(nd_dtypes)])
    a = (rng.integers(0, 200, size=shape) if dt.kind in "iu"
         else rng.standard_normal(shape)).astype(dt)
    if k % 4 == 2:
        a = np.asfortranarray(a)
    channel = nd == 4 and k % 5 == 0
    if channel:
        ca = int(rng.integers(-4, 4))
        axes = [i for i in range(nd) if i != ca % nd]
    else:
        axes = sorted(int(x) for x in rng.choice(nd, int(rng.integers(1, 4)),
                                                 replace=False))
    mshape = tuple(int(rng.integers(1, 5)) for _ in axes)
    m = rng.standard_normal(mshape).astype(np.float32)
    mode = modes[k % 5]
    cval = 0.0 if k % 3 else float(rng.uniform(-2, 2))
    origin = [int(rng.integers(-(w // 2), (w - 1) // 2 + 1)) for w in mshape]
    convolve = k % 4 == 1
    method = ["direct", "auto", "separable" if len(axes) > 1 else "direct",
              "fft"][k % 4]
    if method == "separable":  # an outer product
        m = np.ones(1, np.float32)
        for w in mshape:
            m = np.multiply.outer(m, rng.standard_normal(w)).astype(np.float32)
        m = m.reshape(mshape)
    spelled = [x - nd if (x + k) % 2 else x for x in axes]
    extra = (["--channel-axis", str(ca)] if channel
             else ["--axes", ",".join(map(str, spelled))])
    extra += ["--mode", mode, "--cval", repr(cval), "--origin",
              ",".join(map(str, origin)), "--method", method]
    if convolve:
        extra.append("--convolve")
    np.save(f"{tmp}/m.npy", m)
    name = (f"{nd}D {dt.str} {shape}{' F' if k % 4 == 2 else ''} "
            f"{'channel ' + str(ca) if channel else 'axes ' + str(spelled)} "
            f"mask {mshape} {mode} cval {cval:.3g} origin {origin} "
            f"{'convolve ' if convolve else ''}{method}")
    rc, err = run(a, f"{tmp}/m.npy", extra)
    if rc != 0:
        report(False, name, f"exit {rc}: {err}")
        continue
    full = m.reshape([mshape[axes.index(i)] if i in axes else 1
                      for i in range(nd)])
    org = [origin[axes.index(i)] if i in axes else 0 for i in range(nd)]
    compare(name, a, full, mode, cval, org, convolve, np.load(f"{tmp}/y.npy"),
            fft=method == "fft")

# A uint8 (N, H, W, C) batch kept uint8 (--out-dtype same): SciPy's float
# result rounded half to even and saturated, within one where the float
# lies within the bound of a half.
batch = rng.integers(0, 256, size=(3, 9, 8, 3)).astype(np.uint8)
rc, err = run(batch, "gaussian:5:1.1", ["--axes", "1,2", "--out-dtype", "same",
                                    "--mode", "nearest"])
if rc != 0:
    report(False, "u8 (N, H, W, C) batch --out-dtype same", f"exit {rc}: {err}")
else:
    got = np.load(f"{tmp}/y.npy")
    x = np.arange(5) - 2.0
    g = np.exp(-0.5 * (x / 1.1) ** 2)
    g = (g / g.sum()).astype(np.float32).astype(np.float64)
    want = ndimage.correlate(batch.astype(np.float64),
                             np.multiply.outer(g, g)[None, :, :, None],
                             mode="nearest")
    near = np.abs(want - np.floor(want) - 0.5) < 1e-4
    err = np.abs(got.astype(np.float64) - np.clip(np.rint(want), 0, 255))
    report(got.dtype == np.uint8 and got.shape == batch.shape and
           bool(np.all(err[~near] == 0)) and bool(np.all(err <= 1)),
           "u8 (N, H, W, C) batch --out-dtype same",
           f"{got.dtype} {got.shape}, max err {err.max()}")

# Usage errors on arrays of more than 3 axes: exit 2 with the reason.
a5 = rng.standard_normal((2, 3, 4, 5, 2)).astype(np.float32)
for extra, needle in [([], "--axes"), (["--channel-axis", "1"], "leaves 4"),
                      (["--axes", "0,1,2,3"], "at most 3"),
                      (["--axes", "5"], "out of range"),
                      (["--axes", "2,1"], "increasing"),
                      (["--axes", "1,-4"], "twice"),
                      (["--dims", "3"], "5D")]:
    rc, err = run(a5, "box:3", extra)
    report(rc == 2 and needle in err and err.count("\n") == 0,
           f"5D array with {extra or 'no axes'} is a usage error",
           f"exit {rc}: {err}")

# NaN and Inf in the input: a Fourier transform would spread each to every
# output, so auto takes another method (SciPy's NaN where the window holds
# one, the rest within the bound, on a problem where finite data take the
# FFT on PoCL here) and --method fft is exit 3 with the reason.
a = rng.standard_normal((96, 96)).astype(np.float32)
m = rng.standard_normal((31, 31)).astype(np.float32)
np.save(f"{tmp}/m.npy", m)
a[40, 50], a[90, 7] = np.nan, np.inf
rc, err = run(a, f"{tmp}/m.npy", ["--method", "auto"])
if rc != 0:
    report(False, "NaN and Inf input, auto", f"exit {rc}: {err}")
else:
    got = np.load(f"{tmp}/y.npy").astype(np.float64)
    want = ndimage.correlate(a.astype(np.float64), m.astype(np.float64),
                             mode="constant")
    fin = np.isfinite(want)
    scale = ndimage.correlate(np.nan_to_num(np.abs(a.astype(np.float64)),
                                            posinf=0.0),
                              np.abs(m.astype(np.float64)), mode="constant")
    err = np.abs(got[fin] - want[fin])
    same_class = bool(np.all(np.isnan(got) == np.isnan(want)) and
                      np.all(np.isinf(got) == np.isinf(want)))
    report(same_class and bool(np.all(err <= 8 * m.size * EPS * scale[fin]
                                      + 1e-30)),
           "NaN and Inf input, auto: SciPy's NaN and Inf, the rest in bound",
           f"{(~fin).sum()} non-finite in SciPy, {(~np.isfinite(got)).sum()} "
           f"here, max err {err.max():.3g}")
rc, err = run(a, f"{tmp}/m.npy", ["--method", "fft"])
report(rc == 3 and "NaN or Inf" in err and "\n" not in err,
       "NaN and Inf input, --method fft: exit 3 with the reason",
       f"exit {rc}: {err}")

# Finite data large enough that the FFT's float32 sums overflow (the
# padded elements times the range times sum|M| beyond float32): the
# transform gave NaN at every output under auto; auto takes another
# method (SciPy's finite result within the bound) and --method fft is
# exit 3 saying why.
a = (rng.uniform(-1, 1, (96, 96)) * 1e36).astype(np.float32)
rc, err = run(a, f"{tmp}/m.npy", [])
if rc != 0:
    report(False, "input up to 1e36, auto", f"exit {rc}: {err}")
else:
    got = np.load(f"{tmp}/y.npy").astype(np.float64)
    a64, m64 = a.astype(np.float64), m.astype(np.float64)
    want = ndimage.correlate(a64, m64, mode="constant")
    scale = ndimage.correlate(np.abs(a64), np.abs(m64), mode="constant")
    err = np.abs(got - want)
    report(bool(np.all(np.isfinite(got))) and
           bool(np.all(err <= 8 * m.size * EPS * scale + 1e-30)),
           "input up to 1e36, auto: no NaN, SciPy's result within the bound",
           f"{np.isnan(got).sum()} NaN, max err {np.nanmax(err):.3g}")
rc, err = run(a, f"{tmp}/m.npy", ["--method", "fft"])
report(rc == 3 and "overflow" in err and "\n" not in err,
       "input up to 1e36, --method fft: exit 3 with the reason",
       f"exit {rc}: {err}")

print(f"apply_modes_scipy.sh: {'all passed' if not failures else f'{failures} failure(s)'}")
sys.exit(1 if failures else 0)
EOF
