#!/usr/bin/env python3
"""Random 3D coarse problems, aimed at work-groups inside along y but not
along x (cl/conv3d_coarse.cl's XEDGE march, XV > 1 columns a work-item).

Usage: coarse3d_fuzz.py CLCONV KIND CASES [SEED]

KIND run: `clconv run --dims 3 --strategy coarse --reps 0` (every element
verified against the double reference, exit 0); KIND apply: `clconv
apply` of a random .npy with a random .npy mask, compared with
scipy.ndimage.correlate. Either takes random extents (tiny, around a
work-group's columns, rows a multiple of XV or not), mask extents 1-5 per
axis, mode, cval, origin, --convolve, dtype, output type, and
$CLCONV_COARSE_XV, _GZ, _ROWS; KIND oclgrind-run and oclgrind-apply keep
the problems small and also leave XV to the device's default (2 on a GPU
at masks 3-5, where the row length is even), failing on any Oclgrind
message in stderr. Prints each case's seed and command; a case is
repeated alone with SEED and CASES 1. Exit 1 if any case failed.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np
import scipy.ndimage as ndi

MODES = ["constant", "nearest", "reflect", "mirror", "wrap"]
RUN_DTYPES = ["f32", "f32", "f32", "u8", "u16", "i16", "f16"]
NPY_DTYPES = {"f32": "<f4", "u8": "|u1", "u16": "<u2", "i16": "<i2",
              "f16": "<f2"}


def extent(rng, small, group):
    """One extent: tiny, around a multiple of the work-group's span, or
    any."""
    r = rng.random()
    if r < 0.3:
        return rng.randint(1, 10)
    if r < 0.65:
        return max(1, group * rng.randint(1, 2) + rng.randint(-3, 3))
    return rng.randint(1, 24 if small else 70)


def problem(rng, small):
    """A random problem: (knobs, run arguments, environment)."""
    env = {}
    xv = rng.choice([2, 2, 4, 2, 4, 8] + ([0, 0, 0] if small else []))
    if xv:
        env["CLCONV_COARSE_XV"] = str(xv)
    rows = rng.choice([0, 1, 2, 3, 4])
    if rows:
        env["CLCONV_COARSE_ROWS"] = str(rows)
    gz = rng.choice([0, 0, 1, 2, 4, 8])
    if gz:
        env["CLCONV_COARSE_GZ"] = str(gz)
    gy = rng.choice([0, 1, 2, 3, 4])
    # (a mask one plane deep runs as 2D or 1D: rarely)
    mask = [rng.randint(1, 5), rng.randint(1, 5),
            rng.randint(1 if rng.random() < 0.1 else 2, 5)]
    if not xv:
        mask[rng.randint(0, 2)] = rng.randint(3, 5)
    span_x = 16 * max(xv, 2)
    span_y = (gy or 4) * (rows or 3)
    nx = extent(rng, small, span_x)
    if not xv and nx % 2 and rng.random() < 0.8:
        nx += 1  # the GPU default takes 2 columns where they divide
    ny = extent(rng, small, span_y)
    if rng.random() < 0.5:
        ny = max(ny, 2 * span_y + rng.randint(0, 6))
    nz = rng.choice([rng.randint(1, 4), rng.randint(1, 40 if small else 90)])
    limit = 60000 if small else 400000
    while nx * ny * nz > limit:
        nz = max(1, nz // 2)
        if nx * ny * nz > limit:
            ny = max(1, ny // 2)
    origin = [rng.choice([-(w // 2), (w - 1) // 2,
                          rng.randint(-(w // 2), (w - 1) // 2)])
              for w in mask]
    k = {
        "size": (nx, ny, nz), "mask": mask, "origin": origin,
        "mode": rng.choice(MODES), "convolve": rng.random() < 0.3,
        "cval": rng.choice([0.0, 0.5, -1.25, 3.0]),
        "dtype": rng.choice(RUN_DTYPES),
        "out32": rng.random() < 0.3, "gy": gy,
        "mask_mode": rng.choice(["", "argument", "baked"]),
        "coarsen": rng.choice([0, 0, 0, 1, 2, 3, 5, 8]),
    }
    return k, env


def run_args(k, seed):
    a = ["run", "--dims", "3", "--strategy", "coarse", "--reps", "0",
         "--seed", str(seed), "--size", "x".join(map(str, k["size"])),
         "--mask", "x".join(map(str, k["mask"])), "--mode", k["mode"],
         "--origin", ",".join(map(str, k["origin"])), "--dtype", k["dtype"]]
    if k["mode"] == "constant":
        a += ["--cval", str(k["cval"])]
    if k["convolve"]:
        a.append("--convolve")
    if k["out32"]:
        a += ["--out-dtype", "f32"]
    if k["gy"]:
        a += ["--group-y", str(k["gy"])]
    if k["mask_mode"]:
        a += ["--mask-mode", k["mask_mode"]]
    if k["coarsen"]:
        a += ["--coarsen", str(k["coarsen"])]
    return a


def xedge_groups(k, env, line, oclgrind):
    """Whether some work-group takes the XEDGE march: inside along y, not
    along x (read from the row's T= and G=; the y halo's left side
    estimated as SciPy places it)."""
    t = re.search(r" T=(\d+) ", line)
    g = re.search(r" G=(\d+) ", line)
    if not t or not g or k["mask"][2] == 1:
        return False
    nx, ny, _ = k["size"]
    w = max(k["mask"])
    xv = int(env.get("CLCONV_COARSE_XV", 0)) or (
        2 if oclgrind and 3 <= w <= 5 and nx % 2 == 0 else 1)
    if xv < 2:
        return False
    rows = int(env.get("CLCONV_COARSE_ROWS", 0))
    if not rows:
        rows = 3 if xv == 2 or w <= 3 else 2
    span_x, span_y = int(t.group(1)) * xv, int(g.group(1)) * rows
    my = k["mask"][1]
    left = min(max(my // 2 + k["origin"][1], 0), my - 1)
    if k["convolve"]:
        left = my - 1 - left
    right = my - 1 - left
    yin = any(oy >= left and oy + span_y + right <= ny
              for oy in range(0, ny, span_y))
    # the x halo, at most a vector (XV) wide on either side
    xin_all = nx % xv == 0 and all(
        ox >= xv and ox + span_x + xv <= nx for ox in range(0, nx, span_x))
    return yin and not xin_all


def oclgrind_fault(err):
    low = err.lower()
    return any(s in low for s in ("invalid read", "invalid write",
                                  "out-of-bounds", "out of bounds",
                                  "uninitialized", "data race"))


def run_case(clconv, k, env, seed, oclgrind):
    cmd = [clconv] + run_args(k, seed)
    r = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True,
                       text=True, timeout=900)
    ok = r.returncode == 0 and not (oclgrind and oclgrind_fault(r.stderr))
    # A usage error (exit 2) for a combination the CLI refuses is no
    # fault, but say so: it tests nothing.
    return ok or r.returncode == 2, cmd, r


def data(rng_np, dt, shape):
    if dt == "f32":
        return rng_np.uniform(-1, 1, shape).astype("<f4")
    if dt == "f16":
        return rng_np.uniform(-2, 2, shape).astype("<f2")
    info = np.iinfo(NPY_DTYPES[dt])
    return rng_np.integers(info.min, info.max, shape, endpoint=True).astype(
        NPY_DTYPES[dt])


def apply_case(clconv, k, env, seed, oclgrind, tmp):
    nx, ny, nz = k["size"]
    # the device's own buffers, and slabs of planes streamed through an
    # allocation a few planes large
    rng = random.Random(seed ^ 0x5eed)
    if rng.random() < 0.3:
        env["CLCONV_ZERO_COPY"] = "0"
    if rng.random() < 0.3 and nz > 2:
        # (a slab's planes with their halo, in float32 in and out: a
        # smaller limit is refused, exit 3)
        env["CLCONV_MAX_ALLOC_BYTES"] = str(
            8 * nx * ny * (k["mask"][2] + rng.randint(1, 6)))
    rng_np = np.random.default_rng(seed)
    a = data(rng_np, k["dtype"], (nz, ny, nx))
    mx, my, mz = k["mask"]
    m = rng_np.uniform(-1, 1, (mz, my, mx)).astype("<f4")
    src, msk, dst = (os.path.join(tmp, f) for f in ("in.npy", "m.npy",
                                                    "out.npy"))
    np.save(src, a)
    np.save(msk, m)
    ox, oy, oz = k["origin"]
    same = not k["out32"] and k["dtype"] != "f32"
    cmd = [clconv, "apply", src, dst, "--mask", msk, "--dims", "3",
           "--strategy", "coarse", "--method", "direct", "--mode", k["mode"],
           "--origin", "%d,%d,%d" % (oz, oy, ox),
           "--out-dtype", "same" if same else "f32"]
    if k["mode"] == "constant":
        cmd += ["--cval", str(k["cval"])]
    if k["convolve"]:
        cmd.append("--convolve")
    r = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True,
                       text=True, timeout=900)
    if r.returncode != 0 or (oclgrind and oclgrind_fault(r.stderr)):
        return False, cmd, r
    f = ndi.convolve if k["convolve"] else ndi.correlate
    want = f(a.astype(np.float64), m.astype(np.float64), mode=k["mode"],
             cval=k["cval"] if k["mode"] == "constant" else 0.0,
             origin=[oz, oy, ox])
    got = np.load(dst)
    scale = float(np.abs(m).sum()) * max(float(np.abs(a.astype(
        np.float64)).max(initial=0)), abs(k["cval"]), 1.0)
    if same:
        info = np.iinfo(a.dtype) if a.dtype.kind in "iu" else None
        if info is not None:
            want = np.clip(np.rint(want), info.min, info.max)
        tol = 1.0 + 2e-6 * scale if info is not None else 2e-3 * scale
    else:
        tol = 2e-6 * scale + 1e-6
    if got.shape != want.shape:
        r.stderr += "\nshape %s against %s" % (got.shape, want.shape)
        return False, cmd, r
    err = np.abs(got.astype(np.float64) - want)
    if err.max(initial=0) > tol:
        i = np.unravel_index(int(err.argmax()), err.shape)
        r.stderr += "\nmismatch at %s: got %r want %r (tol %g), %d bad" % (
            i, float(got[i]), float(want[i]), tol, int((err > tol).sum()))
        return False, cmd, r
    return True, cmd, r


def main():
    clconv, kind, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(1 << 30)
    oclgrind = kind.startswith("oclgrind")
    failed = xedge = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in range(cases):
            seed = base + c
            k, env = problem(random.Random(seed), oclgrind)
            if kind.endswith("apply"):
                ok, cmd, r = apply_case(clconv, k, env, seed, oclgrind, tmp)
            else:
                ok, cmd, r = run_case(clconv, k, env, seed, oclgrind)
            words = " ".join("%s=%s" % e for e in env.items())
            line = r.stdout.strip().splitlines()[-1:] or [""]
            status = "ok" if ok else "FAIL"
            if ok and r.returncode == 2:
                status = "usage"
            elif kind.endswith("run") and xedge_groups(k, env, line[0],
                                                       oclgrind):
                status += " xedge"
                xedge += 1
            print("%s seed %d: %s %s\n    %s" % (status, seed, words,
                                               " ".join(cmd[1:]), line[0]),
                  flush=True)
            if not ok:
                failed += 1
                print(r.stderr[-3000:], flush=True)
    print("%d of %d cases failed (seeds %d..%d)%s" % (
        failed, cases, base, base + cases - 1,
        "; %d with XEDGE work-groups" % xedge if kind.endswith("run")
        else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
