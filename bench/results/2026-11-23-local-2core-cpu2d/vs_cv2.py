"""clconv.correlate against cv2.filter2D (BORDER_CONSTANT), float32 host
arrays in and out, one problem per call of this script: prints
'<size> W=<w> clconv <median ms> cv2 <median ms> ratio <cv2/clconv>'.
Both results are checked against each other first.
Usage: python vs_cv2.py NX NY W REPS"""
import statistics
import sys
import time

import cv2
import numpy as np

import clconv

nx, ny, w, reps = (int(a) for a in sys.argv[1:5])
rng = np.random.default_rng(7)
x = rng.random((ny, nx), dtype=np.float32)
k = rng.random((w, w), dtype=np.float32)
ours = lambda: clconv.correlate(x, k, mode="constant", device="cpu")
theirs = lambda: cv2.filter2D(x, -1, k, borderType=cv2.BORDER_CONSTANT)
a, b = ours(), theirs()
err = float(np.max(np.abs(a - b)))
assert err <= 1e-5 * w * w, err


def med(fn):
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        fn()
        t.append((time.perf_counter() - s) * 1e3)
    return statistics.median(t)


# interleaved: ours, theirs, ours, theirs; the medians of both halves
o1, t1 = med(ours), med(theirs)
o2, t2 = med(ours), med(theirs)
o, t = min(o1, o2), min(t1, t2)
print(f"{nx}x{ny} W={w} clconv {o:.3f} ms cv2 {t:.3f} ms ratio {t / o:.2f} "
      f"(halves clconv {o1:.3f}/{o2:.3f} cv2 {t1:.3f}/{t2:.3f}, err {err:.1e}, "
      f"threads cv2 {cv2.getNumThreads()})")
