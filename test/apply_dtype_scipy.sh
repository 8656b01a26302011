#!/bin/sh
# `clconv apply` on narrow element types (issue 17 item 4): uint8/uint16/
# int16/float16 .npy files and 8/16-bit PNGs go to the device as they are;
# with --out-dtype same (the default for images) the device rounds to
# nearest, ties to even, and saturates. Against SciPy's float64 result
# rounded the same way (np.rint, np.clip; np.float16 for f16), exactly:
# the masks here have dyadic weights, so float32 sums are exact and the
# ties are real ties. Also: every border mode, channels, the separable
# and FFT methods, saturation at both ends (and how SciPy's own integer
# output differs: it truncates and wraps), the host-to-host slab path
# (CLCONV_MAX_ALLOC_BYTES small) bit-identical to one launch, an image
# through --out-dtype f32 (host rounding, ties up), and the refusals.
# Usage: test/apply_dtype_scipy.sh build/clconv
set -u
CLI=${1:-build/clconv}
. "$(dirname "$0")/lib/scipy.sh"
exec "$PY" - "$CLI" "$tmp" <<'EOF'
import os, re, struct, subprocess, sys, zlib
import numpy as np
from scipy import ndimage

cli, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20261123)
failures = 0


def report(ok, name, detail=""):
    """One line per check; failures counted for the exit status."""
    global failures
    failures += not ok
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))


def apply(inp, out, mask, *extra, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([cli, "apply", inp, out, "--mask", mask, *extra],
                       capture_output=True, text=True, env=e)
    return r.returncode, (r.stdout + r.stderr).strip()


def rounded(want, dt):
    """SciPy's float64 result as clconv's --out-dtype same writes it."""
    if dt == np.float16:
        return want.astype(np.float16)
    info = np.iinfo(dt)
    return np.clip(np.rint(want), info.min, info.max).astype(dt)


def first_diff(got, want):
    bad = np.argwhere(got != want)
    if not len(bad):
        return ""
    i = tuple(bad[0])
    return f"{len(bad)} differ, first {i}: got {got[i]!r} want {want[i]!r}"


# Dyadic masks: float32 sums of these over 16-bit data are exact.
M121 = np.outer([1, 2, 1], [1, 2, 1]) / 16.0
SHARPEN = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], float)
np.save(f"{tmp}/m121.npy", M121)


def data(dt, shape):
    if dt == np.float16:
        return rng.integers(-2048, 2048, size=shape).astype(np.float16) / 8
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, endpoint=True,
                        dtype=dt)


# 1. .npy of each narrow type, every mode with --out-dtype same, and the
#    default float32 in one mode per type, against SciPy (few runs: each
#    is a process and a build under Oclgrind, make test-oclgrind).
modes = ["constant", "nearest", "reflect", "mirror", "wrap"]
for k, dt in enumerate((np.uint8, np.uint16, np.int16, np.float16)):
    a = data(dt, (37, 45))
    for n, mode in enumerate(modes):
        order = "<" if n % 2 == 0 else ">"  # both byte orders read right
        np.save(f"{tmp}/x.npy", a.astype(a.dtype.newbyteorder(order)))
        want = ndimage.correlate(a.astype(np.float64), M121, mode=mode)
        name = f"{np.dtype(dt).name} {order} {mode} gaussian 1,2,1"
        rc, out = apply(f"{tmp}/x.npy", f"{tmp}/y.npy", f"{tmp}/m121.npy",
                        "--mode", mode, "--out-dtype", "same", "--verify")
        if rc != 0:
            report(False, name + " --out-dtype same", out)
            continue
        got = np.load(f"{tmp}/y.npy")
        tag = re.search(r" (\w+)->(\w+),", out)
        report(got.dtype == dt and np.array_equal(got, rounded(want, dt))
               and tag is not None and tag.group(1) == tag.group(2) != "f32",
               name + " --out-dtype same: on the device as it is, rounded "
               "to even, equals SciPy's result rounded",
               f"dtype {got.dtype}, summary '{out}', "
               + first_diff(got, rounded(want, dt)))
        if mode != modes[k]:  # the float32 default: one mode per type
            continue
        rc, out = apply(f"{tmp}/x.npy", f"{tmp}/y.npy", f"{tmp}/m121.npy",
                        "--mode", mode)
        got = np.load(f"{tmp}/y.npy") if rc == 0 else None
        report(rc == 0 and got.dtype == np.float32
               and np.array_equal(got, want.astype(np.float32)) and "->f32" in out,
               name + " default: float32 out, equal to SciPy's", out)

# 2. Channels, the separable and FFT methods on u8.
a = data(np.uint8, (30, 41, 3))
np.save(f"{tmp}/x.npy", a)
want = np.stack([ndimage.correlate(a[..., c].astype(np.float64), M121, mode="reflect")
                 for c in range(3)], axis=-1)
for method in ("direct", "separable", "fft"):
    rc, out = apply(f"{tmp}/x.npy", f"{tmp}/y.npy", f"{tmp}/m121.npy", "--mode",
                    "reflect", "--channel-axis", "2", "--method", method,
                    "--out-dtype", "same", "--verify")
    got = np.load(f"{tmp}/y.npy") if rc == 0 else None
    exact = rc == 0 and np.array_equal(got, rounded(want, np.uint8))
    # The FFT's float32 error can move a tie by one level.
    close = rc == 0 and np.abs(got.astype(int) - rounded(want, np.uint8)).max() <= 1
    report(rc == 0 and got.dtype == np.uint8 and (exact or method == "fft" and close),
           f"u8 (30, 41, 3) --channel-axis 2 --method {method}", out)

# 3. Saturation at both ends: sharpen on random u8 and u16 goes below 0
#    and above the maximum; clconv saturates, SciPy's integer output
#    truncates and wraps (so they differ there, as documented).
for dt in (np.uint8, np.uint16):
    a = data(dt, (40, 40))
    np.save(f"{tmp}/x.npy", a)
    want = ndimage.correlate(a.astype(np.float64), SHARPEN, mode="nearest")
    rc, out = apply(f"{tmp}/x.npy", f"{tmp}/y.npy", "sharpen", "--mode", "nearest",
                    "--out-dtype", "same")
    got = np.load(f"{tmp}/y.npy") if rc == 0 else None
    top = np.iinfo(dt).max
    both = (want < 0).any() and (want > top).any()
    report(rc == 0 and both and np.array_equal(got, rounded(want, dt))
           and (got[want < 0] == 0).all() and (got[want > top] == top).all(),
           f"{np.dtype(dt).name} sharpen saturates at 0 and {top}", out)
    sp = ndimage.correlate(a, SHARPEN, mode="nearest")
    report(sp.dtype == dt and not np.array_equal(sp, got),
           f"{np.dtype(dt).name}: SciPy's own {np.dtype(dt).name} output "
           "(truncated, wrapped) differs where clconv saturates")

# 4. The host-to-host path in slabs (an allocation smaller than the
#    array) writes the same bytes as one launch.
for dt in (np.uint8, np.uint16):
    a = data(dt, (120, 97))
    np.save(f"{tmp}/x.npy", a)
    rc1, out1 = apply(f"{tmp}/x.npy", f"{tmp}/one.npy", f"{tmp}/m121.npy",
                      "--mode", "mirror", "--out-dtype", "same")
    rc2, out2 = apply(f"{tmp}/x.npy", f"{tmp}/slabs.npy", f"{tmp}/m121.npy",
                      "--mode", "mirror", "--out-dtype", "same", "--verify",
                      env={"CLCONV_MAX_ALLOC_BYTES": "8192"})
    slabs = re.search(r"in (\d+) slab", out2)
    same = rc1 == 0 and rc2 == 0 and \
        open(f"{tmp}/one.npy", "rb").read() == open(f"{tmp}/slabs.npy", "rb").read()
    report(same and slabs is not None and int(slabs.group(1)) > 1 and "slab" not in out1,
           f"{np.dtype(dt).name} (120, 97) in slabs bit-identical to one launch",
           f"{out1} | {out2}")


# 5. PNG, 8-bit RGB and 16-bit gray: the device rounds and saturates.
def png_write(path, a):
    h, w = a.shape[:2]
    ch = 1 if a.ndim == 2 else a.shape[2]
    deep = a.dtype == np.uint16
    rows = a.reshape(h, w * ch).astype(">u2" if deep else "u1")
    raw = b"".join(b"\0" + r.tobytes() for r in rows)

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    hdr = struct.pack(">IIBBBBB", w, h, 16 if deep else 8, {1: 0, 3: 2}[ch], 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", hdr) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def png_read(path):
    d = open(path, "rb").read()
    pos, idat, hdr = 8, b"", None
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos + 8])
        if t == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", d[pos + 8:pos + 21])
        elif t == b"IDAT":
            idat += d[pos + 8:pos + 8 + n]
        pos += 12 + n
    w, h, depth, ctype = hdr[:4]
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    bpp = ch * depth // 8
    raw = zlib.decompress(idat)
    stride = w * bpp
    out, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    a = np.frombuffer(b"".join(out), ">u2" if depth == 16 else "u1")
    return a.reshape((h, w) if ch == 1 else (h, w, ch)).astype(np.uint16 if depth == 16 else np.uint8)


for dt, shape, mask, m in ((np.uint8, (33, 47, 3), f"{tmp}/m121.npy", M121),
                           (np.uint16, (29, 38), "sharpen", SHARPEN)):
    img = data(dt, shape)
    png_write(f"{tmp}/in.png", img)
    planes = [img] if img.ndim == 2 else [img[..., c] for c in range(3)]
    want = [ndimage.correlate(p.astype(np.float64), m, mode="reflect") for p in planes]
    want = want[0] if img.ndim == 2 else np.stack(want, axis=-1)
    name = f"PNG {np.dtype(dt).name} {shape} {os.path.basename(mask)}"
    rc, out = apply(f"{tmp}/in.png", f"{tmp}/out.png", mask, "--mode", "reflect", "--verify")
    got = png_read(f"{tmp}/out.png") if rc == 0 else None
    t = "u8" if dt == np.uint8 else "u16"
    report(rc == 0 and f"{t}->{t}" in out and np.array_equal(got, rounded(want, dt)),
           name + ": on the device as it is, rounded to even and saturated",
           out + (" " + first_diff(got, rounded(want, dt)) if got is not None else ""))
    rc, out = apply(f"{tmp}/in.png", f"{tmp}/out.png", mask, "--mode", "reflect",
                    "--out-dtype", "f32")
    got = png_read(f"{tmp}/out.png") if rc == 0 else None
    top = np.iinfo(dt).max
    up = np.clip(np.floor(want + 0.5), 0, top).astype(dt)
    report(rc == 0 and f"{t}->f32" in out and np.array_equal(got, up),
           name + " --out-dtype f32: float32 from the device, rounded ties up on the host",
           out + (" " + first_diff(got, up) if got is not None else ""))

# 6. Refusals: one line, exit 2.
np.save(f"{tmp}/i32.npy", rng.integers(0, 9, size=(5, 6), dtype=np.int32))
for args, why in (((f"{tmp}/i32.npy", f"{tmp}/y.npy", "box:3", "--out-dtype", "same"),
                   "no device type"),
                  ((f"{tmp}/x.npy", f"{tmp}/y.npy", "box:3", "--out-dtype", "u8"),
                   "same or f32")):
    r = subprocess.run([cli, "apply", *args[:2], "--mask", *args[2:]],
                       capture_output=True, text=True)
    report(r.returncode == 2 and why in r.stderr and len(r.stderr.strip().splitlines()) == 1,
           f"apply {' '.join(args[2:])} on {os.path.basename(args[0])}: exit 2, one line",
           f"exit {r.returncode}: {r.stderr.strip()}")
# int32 in, float32 out: converted on the host as before.
rc, out = apply(f"{tmp}/i32.npy", f"{tmp}/y.npy", "1")
got = np.load(f"{tmp}/y.npy") if rc == 0 else None
report(rc == 0 and got.dtype == np.float32 and "->" not in out
       and np.array_equal(got, np.load(f"{tmp}/i32.npy").astype(np.float32)),
       "int32 .npy: converted to float32 on the host, float32 out", out)

print(f"apply_dtype_scipy.sh: {'all passed' if failures == 0 else f'{failures} failure(s)'}")
sys.exit(1 if failures else 0)
EOF
