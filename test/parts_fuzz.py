#!/usr/bin/env python3
"""Random 3D coarse filters computed in parts against one launch, byte for
byte (the planes shared between work-items along z: commit 3fc295a).

Usage: parts_fuzz.py CLCONV CASES [SEED] [oclgrind]

Each case: a random .npy volume (float32, sometimes uint8, uint16, int16
or float16; x extent even or odd, 1 to ~200 planes, small x-y), a random
mask (1-5 per axis, random values, sometimes a named one), sometimes a
random mode, cval, origin and --convolve, `--strategy coarse --method
direct` and random $CLCONV_COARSE_GZ (1-8), _XV (1, 2, 4 or the
default) and _ROWS. `clconv apply` in memory, with no limit, is the
reference; against it, byte for byte:
  slab     $CLCONV_MAX_ALLOC_BYTES small enough for 2-20 slabs of host to
           host streaming, in each binding (zero-copy; copies; pinned
           staging in small chunks);
  chunk    apply's memory-mapped chunks ($CLCONV_APPLY_CHUNK_BYTES: float32
           with the default filter only), sometimes streamed in slabs too;
  mpi      mpirun -n 2-6 clconv-mpi apply, --halo read or exchange,
           sometimes streamed in slabs too;
  split    two PoCL devices (--device 0:0,0:1): chunks where they apply,
           else one array split in memory.
Either both refuse with the same exit code, or the bytes must be equal.
The slab limits keep the rows a slab may start early (the whole's
GROUP_Z x COARSEN, read from `clconv run`) within the allocation: below
that the library lets slabs start anywhere and the last bits may differ
(host/lib/stream.c slab_rows).

With `oclgrind` (OCL_ICD_VENDORS pointing at Oclgrind's ICD) the volumes
are tiny and float32 with the default filter, only the slab and chunk
paths run, Oclgrind checks for races
and API misuse too, and any line on stderr but clconv's own is a failure. $MPIRUN gives the launcher's words (default `mpirun
--allow-run-as-root --oversubscribe`); clconv-mpi is looked for beside
CLCONV. Prints each case's seed and commands; a case is repeated alone
with SEED and CASES 1. Exit 1 if any case failed.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

MODES = ["constant", "nearest", "reflect", "mirror", "wrap", "grid-wrap",
         "grid-mirror", "grid-constant"]
DTYPES = {"f32": "<f4", "u8": "|u1", "u16": "<u2", "i16": "<i2",
          "f16": "<f2"}
# named masks in 3D and their extents (z, y, x)
NAMED = {"laplacian": (3, 3, 3), "sharpen": (3, 3, 3), "emboss": (3, 3, 3),
         "sobel-x": (3, 3, 3), "sobel-y": (3, 3, 3), "sobel-z": (3, 3, 3)}
TIMEOUT = 300


def data(rng_np, dt, shape):
    if dt == "f32":
        return rng_np.uniform(-1, 1, shape).astype("<f4")
    if dt == "f16":
        return rng_np.uniform(-2, 2, shape).astype("<f2")
    info = np.iinfo(DTYPES[dt])
    return rng_np.integers(info.min, info.max, shape, endpoint=True).astype(
        DTYPES[dt])


def problem(rng, tiny):
    """A random case: its description k and its knobs' environment."""
    env = {}
    gz = rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 7, 8])
    env["CLCONV_COARSE_GZ"] = str(gz)
    xv = rng.choice([1, 2, 2, 4, 0])
    if xv:
        env["CLCONV_COARSE_XV"] = str(xv)
    if rng.random() < 0.3:
        env["CLCONV_COARSE_ROWS"] = str(rng.randint(1, 4))
    if tiny:
        nx, ny, nz = rng.randint(1, 12), rng.randint(1, 5), rng.randint(1, 40)
    else:
        nx = rng.choice([rng.randint(1, 24), rng.randint(1, 24),
                         rng.randint(24, 70)])
        ny = rng.choice([rng.randint(1, 8), rng.randint(1, 16),
                         rng.randint(16, 40)])
        nz = rng.choice([rng.randint(1, 6), rng.randint(1, 60),
                         rng.randint(60, 200),
                         rng.randint(60, 200)])
        while nx * ny * nz > 150000:
            ny = max(1, ny // 2)
            if nx * ny * nz > 150000:
                nz = max(1, nz // 2)
    dt = "f32" if tiny or rng.random() < 0.7 else rng.choice(
        ["u8", "u16", "i16", "f16"])
    r = rng.random()
    if r < 0.15:
        name = rng.choice(sorted(NAMED))
        mask, shape = name, NAMED[name]
    elif r < 0.3:
        shape = tuple(rng.randint(1, 5) for _ in range(3))
        if rng.random() < 0.5:
            mask = "box:%dx%dx%d" % shape
        else:
            shape = tuple(rng.choice([1, 3, 5]) for _ in range(3))
            mask = "gaussian:%dx%dx%d" % shape
    else:
        # mostly more than one plane deep (one plane runs as 2D)
        shape = (rng.randint(1 if rng.random() < 0.1 else 2, 5),
                 rng.randint(1, 5), rng.randint(1, 5))
        mask = None  # a random .npy
    k = {"size": (nz, ny, nx), "dtype": dt, "mask": mask, "mshape": shape,
         "same": dt != "f32" and rng.random() < 0.4, "args": []}
    if tiny or rng.random() < 0.5:
        # (the default filter: the mapped chunks take it, and their parts
        # start launches after rows of zeros: Oclgrind's aim)
        k["plain"] = True
    else:
        k["plain"] = False
        mode = rng.choice(MODES)
        k["args"] += ["--mode", mode]
        if "constant" in mode or rng.random() < 0.2:
            k["args"] += ["--cval", rng.choice(["0", "0.5", "-1.25", "3"])]
        if rng.random() < 0.6:
            k["args"] += ["--origin", ",".join(
                str(rng.randint(-(w // 2), (w - 1) // 2)) for w in shape)]
        if rng.random() < 0.3:
            k["args"].append("--convolve")
    if not k["plain"] and not k["args"]:
        k["args"] = ["--mode", "constant"]
    return k, env


def split_rows(clconv, k, env):
    """The whole's GROUP_Z x COARSEN planes (1 where the work-items along z
    do not share planes), from `clconv run`'s C= and the fitting rule
    (host/lib/variant_coarse.c group_z_fitted)."""
    nz, ny, nx = k["size"]
    mz, my, mx = k["mshape"]
    run_dt = k["dtype"]
    cmd = [clconv, "run", "--dims", "3", "--strategy", "coarse", "--reps",
           "0", "--size", "%dx%dx%d" % (nx, ny, nz), "--mask",
           "%dx%dx%d" % (mx, my, mz), "--dtype", run_dt, "--device", "0:0"]
    r = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True,
                       text=True, timeout=TIMEOUT)
    m = re.search(r" C=(\d+) ", r.stdout)
    if not m:
        return 1, 0
    c = int(m.group(1))
    gz = int(env.get("CLCONV_COARSE_GZ", "1"))
    fitted = gz if mz >= 2 and c + (mz - 1) // gz >= mz - 1 else 1
    return (fitted * c if fitted > 1 else 1), c


def run(cmd, env, oclgrind=False):
    try:
        r = subprocess.run(cmd, env=dict(os.environ, **env),
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % TIMEOUT, ""
    err = r.stderr
    if oclgrind and oclgrind_fault(err):
        return 99, err, r.stdout
    return r.returncode, err, r.stdout


def oclgrind_fault(err):
    """Any line but clconv's own (its summary, its overrides, its
    refusals): Oclgrind's reports span several lines of their own."""
    return any(line.strip() and not line.startswith(("apply:", "clconv:"))
               for line in err.splitlines())


def differ(ref, out):
    """'' where the files hold the same bytes, else what differs."""
    if open(ref, "rb").read() == open(out, "rb").read():
        return ""
    try:
        a, b = np.load(ref), np.load(out)
    except Exception as e:  # noqa: BLE001 (a damaged file is the finding)
        return "output unreadable: %s" % e
    if a.shape != b.shape or a.dtype != b.dtype:
        return "shape/dtype %s %s against %s %s" % (b.shape, b.dtype,
                                                      a.shape, a.dtype)
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    bad = ~((a == b) | (np.isnan(a.astype(np.float64)) &
                        np.isnan(b.astype(np.float64))))
    if not bad.any():
        return "bytes differ, values equal (header?)"
    planes = sorted(set(np.nonzero(bad)[0].tolist()))
    shown = planes if len(planes) <= 16 else planes[:16] + ["..."]
    return "%d element(s) differ, max %.3g, planes %s" % (
        int(bad.sum()), float(np.nanmax(np.where(bad, d, 0))), shown)


def main():
    clconv, cases = sys.argv[1], int(sys.argv[2])
    base = (int(sys.argv[3]) if len(sys.argv) > 3
            else random.randrange(1 << 30))
    oclgrind = len(sys.argv) > 4 and sys.argv[4] == "oclgrind"
    if oclgrind:
        # races in local and global memory, and the API's misuse (a fill
        # or a write past a buffer)
        os.environ.update(OCLGRIND_DATA_RACES="1", OCLGRIND_CHECK_API="1")
    mpi_cli = os.path.join(os.path.dirname(os.path.abspath(clconv)),
                           "clconv-mpi")
    mpirun = os.environ.get(
        "MPIRUN", "mpirun --allow-run-as-root --oversubscribe").split()
    have_mpi = not oclgrind and os.access(mpi_cli, os.X_OK)
    counts = {"slab": 0, "chunk": 0, "mpi": 0, "split": 0}
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, msk, ref, out = (os.path.join(tmp, f) for f in (
            "in.npy", "m.npy", "ref.npy", "out.npy"))
        for c in range(cases):
            seed = base + c
            rng = random.Random(seed)
            k, env = problem(rng, oclgrind)
            rng_np = np.random.default_rng(seed)
            nz, ny, nx = k["size"]
            np.save(src, data(rng_np, k["dtype"], k["size"]))
            mask = k["mask"]
            if mask is None:
                np.save(msk, rng_np.uniform(-1, 1, k["mshape"]).astype("<f4"))
                mask = msk
            args = [src, "OUT", "--mask", mask, "--dims", "3", "--strategy",
                    "coarse", "--method", "direct", "--out-dtype",
                    "same" if k["same"] else "f32"] + k["args"]
            split, coarsen = split_rows(clconv, k, env)
            words = " ".join("%s=%s" % e for e in sorted(env.items()))
            print("seed %d: %s %s %dx%dx%d (z,y,x) GZxC=%d (C=%d): %s" % (
                seed, k["dtype"], words, nz, ny, nx, split, coarsen,
                " ".join(a if a != src else "IN.npy" for a in args[2:])),
                flush=True)
            one = [clconv, "apply"] + [a if a != "OUT" else ref
                                        for a in args] + ["--device", "0:0"]
            rc0, err0, out0 = run(one, env, oclgrind)
            if oclgrind and rc0 == 0 and "Oclgrind" not in out0 + err0:
                rc0, err0 = 99, "not on Oclgrind (OCL_ICD_VENDORS?):\n" + out0
            if oclgrind and rc0 == 99:
                failed += 1
                print("  FAIL reference under Oclgrind:\n" + err0[-2000:])
                continue
            # the paths' runs: (path, environment, command)
            # (float16 as float32 on a device without cl_khr_fp16: PoCL's
            # here, clc_convolve_via_f32)
            isz = 4 if k["dtype"] == "f16" else np.dtype(
                DTYPES[k["dtype"]]).itemsize
            osz = isz if k["same"] else 4
            row_bytes = nx * ny * max(isz, osz)
            halo = k["mshape"][0] - 1 + split - 1

            def limit(nslabs):
                most = max(1, -(-nz // nslabs))
                if rng.random() < 0.15:
                    most = 1  # one output plane a slab
                return str((halo + most) * row_bytes +
                           rng.randint(0, row_bytes - 1))

            def bindings():
                return rng.choice([
                    {"CLCONV_ZERO_COPY": "1"},
                    {"CLCONV_ZERO_COPY": "0", "CLCONV_PINNED": "0"},
                    {"CLCONV_ZERO_COPY": "0", "CLCONV_PINNED": "1",
                     "CLCONV_PINNED_CHUNK_BYTES": str(rng.choice(
                         [64, 100, 1024, 4096, 65536]))}])
            runs = []
            nslabs = rng.randint(2, 20)
            lim = limit(nslabs)
            for b in ({"CLCONV_ZERO_COPY": "1"},
                      {"CLCONV_ZERO_COPY": "0", "CLCONV_PINNED": "0"},
                      {"CLCONV_ZERO_COPY": "0", "CLCONV_PINNED": "1",
                       "CLCONV_PINNED_CHUNK_BYTES": str(rng.choice(
                           [64, 100, 1024, 4096, 65536]))}):
                runs.append(("slab", dict(env, CLCONV_MAX_ALLOC_BYTES=lim,
                                          **b), None))
            mappable = k["dtype"] == "f32" and k["plain"]
            if mappable:
                planes = rng.choice([1, 2, 3, rng.randint(1, max(1, nz)),
                                     rng.randint(1, max(1, nz // 3))])
                e = dict(env, CLCONV_APPLY_CHUNK_BYTES=str(
                    planes * nx * ny * 4 + rng.randint(0, nx * ny * 4 - 1)))
                if rng.random() < 0.4:
                    e.update(CLCONV_MAX_ALLOC_BYTES=limit(rng.randint(2, 6)),
                             **bindings())
                runs.append(("chunk", e, None))
            if have_mpi and rng.random() < 0.6:
                n = rng.randint(2, 6)
                e = dict(env)
                if rng.random() < 0.3:
                    e.update(CLCONV_MAX_ALLOC_BYTES=limit(rng.randint(2, 6)),
                             **bindings())
                runs.append(("mpi", e, mpirun + [
                    "-n", str(n), mpi_cli, "apply"] + args[:1] + ["OUT"] +
                    args[2:] + ["--halo", rng.choice(["read", "exchange"]),
                                "--device", "0:0"]))
            if not oclgrind and rng.random() < 0.35:
                e = dict(env, POCL_DEVICES="pthread pthread")
                if mappable and rng.random() < 0.8:
                    e["CLCONV_APPLY_CHUNK_BYTES"] = str(
                        rng.randint(1, max(1, nz // 2)) * nx * ny * 4)
                runs.append(("split", e, [clconv, "apply"] + args +
                             ["--device", "0:0,0:1"]))
            for path, e, cmd in runs:
                counts[path] += 1
                if cmd is None:
                    cmd = [clconv, "apply"] + args + ["--device", "0:0"]
                cmd = [out if a == "OUT" else a for a in cmd]
                if os.path.exists(out):
                    os.remove(out)
                rc, err, so = run(cmd, e, oclgrind)
                extra = " ".join("%s=%s" % i for i in sorted(e.items())
                                 if i not in env.items())
                slabs = re.search(r"in (\d+) slab\(s\)", err + so)
                what = "%-5s %s%s" % (path, extra, " (%s slabs)" % slabs.group(
                    1) if slabs else "")
                if rc or rc0:
                    if rc == rc0:
                        print("  ok   %s: both refused (exit %d)" % (what, rc))
                        continue
                    failed += 1
                    print("  FAIL %s: exit %d in memory, %d here\n    %s" % (
                        what, rc0, rc, (err0 + err).strip()[-1500:]))
                    continue
                d = differ(ref, out)
                if d:
                    failed += 1
                    print("  FAIL %s: %s\n    %s %s" % (what, d, " ".join(
                        "%s='%s'" % i for i in sorted(e.items())),
                        " ".join(cmd)))
                else:
                    print("  ok   %s" % what)
            sys.stdout.flush()
    print("%d failure(s) over seeds %d..%d; runs per path: %s" % (
        failed, base, base + cases - 1,
        ", ".join("%s %d" % i for i in counts.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
