"""clconv.correlate against cv2.filter2D on the CPU, NumPy float32 in and
out, the standard 2D problems in SciPy's 'constant' and 'reflect' modes
(OpenCV's BORDER_CONSTANT and BORDER_REFLECT): the two calls alternate,
REPS times each after one untimed call, so that load drift falls on both;
each result is checked against the other first. Prints median ms and
cv2 / clconv. Usage: python3 py_cv2.py [REPS]"""
import statistics, sys, time

import cv2
import numpy as np

import clconv

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
BORDER = {"constant": cv2.BORDER_CONSTANT, "reflect": cv2.BORDER_REFLECT}
rng = np.random.default_rng(1)
print(f"clconv {clconv.__version__ if hasattr(clconv, '__version__') else ''} "
      f"on {clconv.devices()[0].name}; cv2 {cv2.__version__}, "
      f"{cv2.getNumThreads()} threads; {REPS} alternating calls each")
for h, w in ((1080, 1920), (8192, 8192)):
    x = rng.uniform(-1, 1, (h, w)).astype(np.float32)
    for m in (3, 5, 9):
        k = rng.uniform(-1, 1, (m, m)).astype(np.float32)
        for mode in ("constant", "reflect"):
            out = np.empty_like(x)
            def ours():
                return clconv.correlate(x, k, output=out, mode=mode)
            def theirs():
                return cv2.filter2D(x, -1, k, borderType=BORDER[mode])
            a, b = ours().copy(), theirs()
            err = float(np.max(np.abs(a - b)))
            assert err < 1e-4 * m * m, (h, w, m, mode, err)
            t = {"clconv": [], "cv2": []}
            for _ in range(REPS):
                for name, f in (("clconv", ours), ("cv2", theirs)):
                    t0 = time.perf_counter()
                    f()
                    t[name].append(1e3 * (time.perf_counter() - t0))
            c, o = statistics.median(t["clconv"]), statistics.median(t["cv2"])
            print(f"2D {w}x{h} W={m} {mode:8s}: clconv {c:8.2f} ms  "
                  f"cv2 {o:8.2f} ms  cv2/clconv {o / c:5.2f}x  "
                  f"(max diff {err:.1e})", flush=True)
