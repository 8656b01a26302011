#!/usr/bin/env python3
"""Where a Python call's time goes at 8192^2 (issue 18): clconv.correlate
with a fresh output against the same call writing into a preallocated,
already touched output (output=), the cost of touching a fresh array's
pages alone (np.empty + fill), and cupyx end to end beside them; rounds
alternate the forms, medians of REPS per form and round.

usage: py_e2e_probe.py [--device SEL] [--reps N] [--rounds N] [--size N]"""
import argparse
import statistics
import time

import numpy as np


def ms(fn, reps):
    fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=8192)
    a = ap.parse_args()
    import clconv
    s = clconv.Session(a.device)
    r = np.random.default_rng(1)
    x = r.random((a.size, a.size), dtype=np.float32)
    w = r.random((3, 3), dtype=np.float32)
    out = np.empty_like(x)
    out.fill(0)
    forms = {
        "clconv fresh output": lambda m: clconv.correlate(x, w, mode=m, device=s),
        "clconv output= (touched)": lambda m: clconv.correlate(x, w, output=out, mode=m,
                                                            device=s),
        "np.empty + fill (page faults)": lambda m: np.empty_like(x).fill(0),
        "np.empty_like + copyto": lambda m: np.copyto(np.empty_like(x), x),
    }
    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cnd
        wd = cp.asarray(w)
        forms["cupyx end to end"] = lambda m: cp.asnumpy(
            cnd.correlate(cp.asarray(x), wd, mode=m))
        forms["cupyx end to end"]("constant")
        cp.cuda.Device().synchronize()
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        print("cupyx: not run (%s)" % e)
    for m in ("constant", "reflect"):
        got = {k: [] for k in forms}
        for _ in range(a.rounds):
            for k, f in forms.items():
                got[k].append(ms(lambda: f(m), a.reps))
        for k, v in got.items():
            print("%-8s %-32s median %8.2f ms  (rounds: %s)" % (
                m, k, statistics.median(v), ", ".join("%.2f" % t for t in v)))


if __name__ == "__main__":
    main()
