#!/usr/bin/env python3
"""End-to-end timings from NumPy arrays: clconv.correlate against
scipy.ndimage.correlate, cv2.filter2D (2D, and 1D as a one-row image) and
cupyx.scipy.ndimage.correlate (where CuPy and a CUDA GPU are present; its
host-device transfers included), on the standard problems.

Every implementation's result is checked against SciPy's before it is
timed; each is run once untimed, then timed (min/median/max of the timed
runs). Each implementation runs in each mode of --modes: 'constant'
(zero borders) and SciPy's default 'reflect' (OpenCV's BORDER_CONSTANT
and BORDER_REFLECT, the same extensions), checked against SciPy in the
same mode.

Usage: python3 bench.py [--out FILE.json] [--quick] [--device SELECTOR]
                        [--modes constant,reflect]
"""
import argparse
import datetime
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

# Import the installed clconv (pip install ./python), not the source folder
# beside this script, which has no built library.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

PROBLEMS = [  # (name, shape (NumPy order), mask widths)
    ("2D 1920x1080", (1080, 1920), (3, 5, 9)),
    ("2D 8192x8192", (8192, 8192), (3, 5, 9)),
    ("3D 256^3", (256, 256, 256), (3, 5)),
    ("1D 2^24", (1 << 24,), (5, 55)),
]


def timed(fn, budget_s=20.0, max_reps=7):
    """Untimed warm-up (its result returned), then up to max_reps timed
    runs within about budget_s seconds (at least one)."""
    t = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t
    reps = max(1, min(max_reps, int(budget_s / max(first, 1e-6))))
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return result, {"min_ms": min(times), "median_ms": statistics.median(times),
                    "max_ms": max(times), "reps": reps}


def implementations(device):
    """name -> fn(x, w, mode): the result, or None where it does not apply."""
    import scipy.ndimage as nd

    import clconv
    session = clconv.Session(device)
    impls = {
        "scipy.ndimage.correlate": lambda x, w, mode: nd.correlate(x, w, mode=mode),
        "clconv.correlate": lambda x, w, mode: clconv.correlate(
            x, w, mode=mode, device=session),
    }
    try:
        import cv2
        borders = {"constant": cv2.BORDER_CONSTANT, "reflect": cv2.BORDER_REFLECT,
                   "nearest": cv2.BORDER_REPLICATE, "mirror": cv2.BORDER_REFLECT_101,
                   "wrap": cv2.BORDER_WRAP}

        def filter2d(x, w, mode):
            if x.ndim == 1:
                return cv2.filter2D(x[None, :], -1, w[None, :],
                                    borderType=borders[mode])[0]
            if x.ndim != 2:
                return None
            return cv2.filter2D(x, -1, w, borderType=borders[mode])
        impls["cv2.filter2D"] = filter2d
    except ImportError:
        pass
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cnd
        cp.cuda.runtime.getDeviceCount()

        def cupyx(x, w, mode):
            y = cnd.correlate(cp.asarray(x), cp.asarray(w), mode=mode).get()
            return y
        impls["cupyx.scipy.ndimage.correlate"] = cupyx
    except Exception:  # no CuPy or no CUDA device
        pass
    return session, impls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="the 1920x1080 problem only")
    ap.add_argument("--device", help="clconv device selector")
    ap.add_argument("--budget", type=float, default=10.0,
                    help="seconds of timed runs per implementation and problem")
    ap.add_argument("--modes", default="constant,reflect",
                    help="border modes, comma-separated (SciPy's names)")
    args = ap.parse_args()
    session, impls = implementations(args.device)
    dev = session.device
    rng = np.random.default_rng(1)
    rows = []
    problems = PROBLEMS[:1] if args.quick else PROBLEMS
    for name, shape, widths in problems:
        x = (rng.random(shape, dtype=np.float32) * 2 - 1)
        for width, mode in itertools.product(widths, args.modes.split(",")):
            w = (rng.random((width,) * len(shape)) * 2 - 1).astype(np.float32)
            ref = None
            for impl, fn in impls.items():
                result, t = timed(lambda: fn(x, w, mode), args.budget)
                if result is None:
                    continue
                if ref is None:
                    ref = result  # SciPy's, the first implementation
                err = float(np.abs(result - ref).max())
                # the library's bound, 4 * taps * FLT_EPSILON * sum|x * w|,
                # with |x|, |w| <= 1 so that sum <= taps
                taps = width ** len(shape)
                bound = 4 * taps * np.finfo(np.float32).eps * taps
                row = {"problem": name, "shape": list(shape), "mask": width,
                       "mode": mode, "impl": impl, "max_abs_err_vs_scipy": err,
                       "verified": bool(err <= bound), **t}
                rows.append(row)
                print("%-14s mask %-3d %-8s %-32s median %10.2f ms  (min %.2f, %d runs, err %.1e)"
                      % (name, width, mode, impl, t["median_ms"], t["min_ms"], t["reps"], err),
                      flush=True)
                if not row["verified"]:
                    print("  NOT VERIFIED: error %.3g above %.3g" % (err, bound), flush=True)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=HERE
                                ).stdout.strip()
    except OSError:
        commit = ""
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": commit, "host": platform.node(), "cpus": os.cpu_count(),
           "python": sys.version.split()[0], "numpy": np.__version__,
           "device": dev._asdict(), "rows": rows}
    for mod in ["scipy", "cv2", "cupy"]:
        try:
            doc[mod] = __import__(mod).__version__
        except ImportError:
            pass
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
    session.close()


if __name__ == "__main__":
    main()
