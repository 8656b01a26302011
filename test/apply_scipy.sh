#!/bin/sh
# `clconv apply` against NumPy and SciPy (Debian's python3-numpy and
# python3-scipy, in /usr/bin/python3): .npy files of every dtype, version
# and byte order written by NumPy read back exactly; random arrays of
# several shapes and masks match scipy.ndimage.correlate(mode='constant');
# PGM/PPM results match SciPy's, rounded and clamped.
# Usage: test/apply_scipy.sh build/clconv
set -u
CLI=${1:-build/clconv}
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, scipy.ndimage' 2>/dev/null; then
    echo "SKIP apply_scipy.sh: $PY with numpy and scipy is not installed" \
         "(apt-get install python3-numpy python3-scipy, or scripts/deps.sh)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec "$PY" - "$CLI" "$tmp" <<'EOF'
import itertools, os, subprocess, sys
import numpy as np
from numpy.lib import format as npf
from scipy import ndimage

cli, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20240606)
failures = 0
strategies = ["naive", "output_tile", "input_tile", "cached_halo"]


def report(ok, name, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    failures += not ok


def apply(inp, out, mask, *extra):
    r = subprocess.run([cli, "apply", inp, out, "--mask", mask, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


# 1. Every dtype x version x byte order, read back exactly (identity mask):
# exactly as NumPy's astype(float32) rounds them (int64 and uint64 over
# their whole range, beyond float32's 24 bits).
dtypes = ["f4", "f8", "i1", "i2", "i4", "u1", "u2", "u4", "i8", "u8", "b1"]
shapes = [(17,), (4, 6), (3, 2, 5)]
k = 0
for code, version in itertools.product(dtypes, [(1, 0), (2, 0), (3, 0)]):
    for order in ("<", ">") if code[1] != "1" else ("|",):
        shape = shapes[k % 3]
        k += 1
        dt = np.dtype(order + code)
        if code[0] == "f":
            a = rng.standard_normal(shape).astype(dt)
        elif code == "b1":
            a = rng.integers(0, 2, size=shape).astype(dt)
        else:
            info = np.iinfo(dt)
            a = rng.integers(info.min, info.max, size=shape, endpoint=True,
                             dtype=code).astype(dt)
        path = f"{tmp}/in_{code}_{version[0]}_{order != '>'}.npy"
        with open(path, "wb") as f:
            npf.write_array(f, a, version=version)
        rc, err = apply(path, f"{tmp}/id.npy", "1")
        name = f"{dt.str} v{version[0]}.0 {shape} reads back exactly"
        if rc != 0:
            report(False, name, err)
            continue
        b = np.load(f"{tmp}/id.npy")
        report(b.dtype == np.float32 and b.shape == a.shape
               and np.array_equal(b, a.astype(np.float32)), name,
               f"dtype {b.dtype} shape {b.shape}")


# 1b. Fortran-order arrays (np.asfortranarray, a transpose) and masks give
# the bytes their C-order copies give: float32 and float64, narrow types
# kept on the device (--out-dtype same), big-endian, from a file and from
# stdin; a 1-D Fortran array is any 1-D array.
def run_bytes(inp, mask, *extra, stdin=None):
    r = subprocess.run([cli, "apply", inp, f"{tmp}/f_out.npy", "--mask", mask,
                        *extra], capture_output=True,
                       stdin=open(stdin, "rb") if stdin else None)
    if r.returncode != 0:
        return None, r.stderr.decode().strip()
    return open(f"{tmp}/f_out.npy", "rb").read(), ""


for n, (code, shape, extra) in enumerate([
        ("<f4", (23, 17), ("--mode", "reflect")),
        ("<f8", (7, 9, 11), ()),
        ("|u1", (19, 33), ("--out-dtype", "same", "--mode", "nearest")),
        (">i2", (6, 10, 13), ("--mode", "wrap")),
        ("<u2", (40,), ())]):
    dt = np.dtype(code)
    if dt.kind == "f":
        a = rng.standard_normal(shape).astype(dt)
    else:
        a = rng.integers(0, 200, size=shape).astype(dt)
    m = rng.uniform(-1, 1, size=(3,) * len(shape)).astype(np.float32)
    np.save(f"{tmp}/fc_m.npy", m)
    np.save(f"{tmp}/ff_m.npy", np.asfortranarray(m))
    np.save(f"{tmp}/fc.npy", a)
    np.save(f"{tmp}/ff.npy", np.asfortranarray(a))
    name = f"Fortran-order {code} {shape} {' '.join(extra)} as its C-order copy"
    want, err = run_bytes(f"{tmp}/fc.npy", f"{tmp}/fc_m.npy", *extra)
    if want is None:
        report(False, name, f"C order: {err}")
        continue
    got, err = run_bytes(f"{tmp}/ff.npy", f"{tmp}/ff_m.npy", *extra)
    report(got == want, name, err or "outputs differ")
    got, err = run_bytes("-", f"{tmp}/ff_m.npy", *extra, stdin=f"{tmp}/ff.npy")
    report(got == want, name + ", from stdin", err or "outputs differ")
# the transpose a user most often saves without knowing its order
a = rng.standard_normal((12, 30)).astype(np.float32)
np.save(f"{tmp}/t.npy", a.T)
np.save(f"{tmp}/tc.npy", np.ascontiguousarray(a.T))
got, err = run_bytes(f"{tmp}/t.npy", "box:3")
want, _ = run_bytes(f"{tmp}/tc.npy", "box:3")
report(npf.read_magic(open(f"{tmp}/t.npy", "rb")) is not None and got == want,
       "a transposed array (Fortran order on disk) as its C-order copy",
       err or "outputs differ")


# 2. Random arrays and masks against scipy.ndimage.correlate. SciPy
# computes on the data as float64 (an integer array's own values: those
# of int64 beyond 2^24 differ from the float32 apply computes with by
# half an ulp of float32 at most, within the bound).
def check_against_scipy(name, a, mask_spec, m, extra=()):
    np.save(f"{tmp}/x.npy", a)
    rc, err = apply(f"{tmp}/x.npy", f"{tmp}/y.npy", mask_spec, "--verify", *extra)
    if rc != 0:
        report(False, name, f"exit {rc}: {err}")
        return
    got = np.load(f"{tmp}/y.npy")
    if got.dtype != np.float32:
        report(False, name, f"output dtype {got.dtype}, not float32")
        return
    got = got.astype(np.float64)
    a64, m64 = a.astype(np.float64), m.astype(np.float32).astype(np.float64)
    want = ndimage.correlate(a64, m64, mode="constant", cval=0.0)
    scale = ndimage.correlate(np.abs(a64), np.abs(m64), mode="constant", cval=0.0)
    err = np.abs(got - want)
    bound = 4 * m.size * np.finfo(np.float32).eps * scale + 1e-30
    bad = np.argwhere(err > bound)
    detail = ""
    if len(bad):
        i = tuple(bad[0])
        detail = f"{len(bad)} elements off, first {i}: got {got[i]!r} scipy {want[i]!r}"
    report(len(bad) == 0 and got.shape == a.shape, name, detail)


cases = [((1000,), 9), ((1,), 3), ((37, 53), 5), ((1, 64), 3), ((64, 1), 7),
         ((100, 80), 1), ((9, 10, 11), 3), ((5, 1, 7), 5), ((12, 13, 14), 7)]
for n, (shape, w) in enumerate(cases):
    a = rng.uniform(-1, 1, size=shape).astype(np.float32)
    m = rng.uniform(-1, 1, size=(w,) * len(shape)).astype(np.float32)
    np.save(f"{tmp}/m.npy", m)
    s = strategies[n % 4]
    check_against_scipy(f"{len(shape)}D {shape} random {w}-wide .npy mask, {s}",
                        a, f"{tmp}/m.npy", m, ("--strategy", s, "--tile", "4"))


def gaussian(w, dims, sigma):
    r = np.arange(w) - w // 2
    g = np.exp(-(r ** 2) / (2 * sigma ** 2))
    out = g
    for _ in range(dims - 1):
        out = np.multiply.outer(out, g)
    return out / out.sum()


named = {
    "sobel-x": np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], float),
    "sobel-y": np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], float),
    "laplacian": np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], float),
    "sharpen": np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], float),
    "emboss": np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]], float),
    "box:5": np.full((5, 5), 1 / 25),
    "gaussian:7": gaussian(7, 2, 7 / 6),
    "gaussian:5:0.8": gaussian(5, 2, 0.8),
    "1,2,1;2,4,2;1,2,1": np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], float),
}
a = rng.uniform(0, 255, size=(31, 45)).astype(np.float32)
for spec, m in named.items():
    check_against_scipy(f"2D named mask {spec}", a, spec, m)
check_against_scipy("3D gaussian:3", rng.uniform(-1, 1, size=(6, 7, 8)).astype(np.float32),
                    "gaussian:3", gaussian(3, 3, 0.5))
check_against_scipy("1D laplacian", rng.uniform(-1, 1, size=(50,)).astype(np.float32),
                    "laplacian", np.array([1.0, -2.0, 1.0]))

# int64 (NumPy's default integer: np.arange, rng.integers), uint64 and
# bool, converted to float32 on the host: against SciPy on the same data
# as float64, values up to 2^62 and 2^64 as well as small ones; an int64
# mask (np.ones((3, 3), int)) too. --out-dtype same has no device type to
# give them: exit 2, one line naming the dtype, no OUT.
wide = [("int64 small", rng.integers(-1000, 1000, size=(23, 31))),
        ("int64 to 2^62", rng.integers(-2**62, 2**62, size=(9, 10, 11))),
        ("uint64 to 2^64", rng.integers(0, 2**64 - 1, size=(300,), dtype=np.uint64,
                                        endpoint=True)),
        ("uint64 small", rng.integers(0, 70000, size=(17, 19)).astype(np.uint64)),
        ("bool", rng.integers(0, 2, size=(29, 37)).astype(bool))]
for n, (label, a) in enumerate(wide):
    m = rng.uniform(-1, 1, size=(5,) * a.ndim).astype(np.float32)
    np.save(f"{tmp}/m.npy", m)
    s = strategies[n % 4]
    check_against_scipy(f"{label} {a.dtype.str} {a.shape} random 5-wide mask, {s}",
                        a, f"{tmp}/m.npy", m, ("--strategy", s))
    np.save(f"{tmp}/x.npy", a)
    rc, err = apply(f"{tmp}/x.npy", f"{tmp}/same.npy", "box:3", "--out-dtype", "same")
    report(rc == 2 and len(err.splitlines()) == 1 and a.dtype.str[1:] in err
           and "no device type" in err and not os.path.exists(f"{tmp}/same.npy"),
           f"{label} {a.dtype.str} --out-dtype same: exit 2, one line",
           f"exit {rc}: {err!r}")
ones = np.ones((3, 3), int)
np.save(f"{tmp}/ones.npy", ones)
check_against_scipy(f"an int64 mask ({ones.dtype.str}, np.ones((3, 3), int))",
                    rng.uniform(-1, 1, size=(20, 21)).astype(np.float32),
                    f"{tmp}/ones.npy", ones)


# 3. PGM/PPM: clconv rounds and clamps what SciPy computes.
def write_pnm(path, img, maxval):
    magic = b"P5" if img.ndim == 2 else b"P6"
    h, w = img.shape[:2]
    dt = ">u1" if maxval < 256 else ">u2"
    with open(path, "wb") as f:
        f.write(magic + b"\n%d %d\n%d\n" % (w, h, maxval))
        f.write(img.astype(dt).tobytes())


def read_pnm(path, shape, maxval):
    data = open(path, "rb").read()
    # Header: magic, width, height, maxval, then one whitespace byte.
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    pos += 1
    dt = ">u1" if maxval < 256 else ">u2"
    return np.frombuffer(data[pos:], dtype=dt).reshape(shape).astype(np.float64)


for shape, maxval in (((40, 33), 255), ((21, 30), 4095), ((25, 19, 3), 255)):
    img = rng.integers(0, maxval, size=shape, endpoint=True)
    path = f"{tmp}/img." + ("pgm" if len(shape) == 2 else "ppm")
    write_pnm(path, img, maxval)
    m = rng.uniform(-0.3, 1.0, size=(5, 5)).astype(np.float32)
    np.save(f"{tmp}/pm.npy", m)
    rc, err = apply(path, f"{tmp}/out_" + path.split("/")[-1], f"{tmp}/pm.npy", "--verify")
    name = f"{'PPM' if len(shape) == 3 else 'PGM'} {shape} maxval {maxval} rounds and clamps SciPy's result"
    if rc != 0:
        report(False, name, err)
        continue
    got = read_pnm(f"{tmp}/out_" + path.split("/")[-1], shape, maxval)
    planes = [img] if len(shape) == 2 else [img[..., c] for c in range(3)]
    want = [np.clip(np.floor(ndimage.correlate(p.astype(np.float64), m.astype(np.float64),
                                               mode="constant") + 0.5), 0, maxval)
            for p in planes]
    want = want[0] if len(shape) == 2 else np.stack(want, axis=-1)
    diff = np.abs(got - want)
    # float32 sums may land on the other side of a .5 by one level.
    report(diff.max() <= 1 and (diff == 0).mean() > 0.99, name,
           f"max diff {diff.max()}, exact {(diff == 0).mean():.4f}")


# 4. Empty arrays (an axis of length 0): SciPy returns an empty array of
# the input's shape, and so does apply, in float32 or (--out-dtype same)
# the input's dtype, SciPy's own; in 1D, 2D and 3D, with channels or
# slices, Fortran order, from stdin, on the chunked path
# (CLCONV_APPLY_CHUNK_BYTES) and under --verify. A mask SciPy refuses
# stays refused.
def check_empty(name, a, mask_spec, m, extra=(), env=None, stdin=False):
    np.save(f"{tmp}/e.npy", a)
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([cli, "apply", "-" if stdin else f"{tmp}/e.npy",
                        f"{tmp}/e_out.npy", "--mask", mask_spec, *extra],
                       capture_output=True, text=True, env=e,
                       stdin=open(f"{tmp}/e.npy", "rb") if stdin else None)
    if r.returncode != 0:
        report(False, name, f"exit {r.returncode}: {r.stderr.strip()}")
        return
    got = np.load(f"{tmp}/e_out.npy")
    want = ndimage.correlate(a, m, mode="constant")
    dtype = want.dtype if "same" in extra else np.float32
    lines = r.stdout.splitlines()
    report(got.shape == want.shape and got.dtype == dtype and len(lines) == 1
           and "nothing to compute" in lines[0] and not r.stderr, name,
           f"shape {got.shape} dtype {got.dtype}, SciPy {want.shape} "
           f"{want.dtype}; stdout {r.stdout!r} stderr {r.stderr!r}")


box3 = lambda d: np.full((3,) * d, 1 / 3 ** d)
for shape, dt, extra in [((0,), np.float32, ()), ((0, 5), np.float64, ()),
                         ((7, 0), np.uint8, ("--out-dtype", "same")),
                         ((4, 0, 3), np.int16, ("--dims", "3")),
                         ((0, 6, 5), np.float16, ("--out-dtype", "same"))]:
    check_empty(f"empty {shape} {np.dtype(dt).name} {' '.join(extra)}",
                np.zeros(shape, dt), "box:3", box3(len(shape)),
                extra + ("--verify",))
a = np.zeros((4, 0, 3), np.uint16)
check_empty("empty (4, 0, 3) uint16 --channel-axis 2", a, "box:3",
            box3(3)[..., 1:2] * 3, ("--channel-axis", "2", "--out-dtype", "same"))
check_empty("empty (4, 5, 0) float32: no channel along --channel-axis 2",
            np.zeros((4, 5, 0), np.float32), "box:3", box3(3)[..., 1:2] * 3,
            ("--channel-axis", "2"))
check_empty("empty (2, 0, 3, 5) --axes 1,2", np.zeros((2, 0, 3, 5), np.float32),
            "box:3", box3(2)[None, :, :, None], ("--axes", "1,2"))
check_empty("empty Fortran-order (3, 0, 4) from stdin",
            np.asfortranarray(np.zeros((3, 0, 4), ">f8")), "box:3", box3(3),
            ("--dims", "3"), stdin=True)
check_empty("empty (0, 9) on the chunked path", np.zeros((0, 9), np.float32),
            "box:3", box3(2), ("--verify",),
            env={"CLCONV_APPLY_CHUNK_BYTES": "64"})
np.save(f"{tmp}/e.npy", np.zeros((0, 5), np.float32))
rc, err = apply(f"{tmp}/e.npy", f"{tmp}/e_bad.npy", "box:3", "--origin", "2")
try:
    ndimage.correlate(np.zeros((0, 5)), box3(2), origin=2)
    scipy_refuses = False
except ValueError:
    scipy_refuses = True
report(rc == 2 and scipy_refuses and "origin" in err
       and not os.path.exists(f"{tmp}/e_bad.npy"),
       "an empty array with an origin beyond its mask is refused, as SciPy "
       "refuses it", f"exit {rc}: {err}")

print(f"apply_scipy.sh: {'all passed' if failures == 0 else f'{failures} failure(s)'}")
sys.exit(1 if failures else 0)
EOF
