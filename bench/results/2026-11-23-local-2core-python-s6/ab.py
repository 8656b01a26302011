"""A/B in one process: the old zero-border call (clconvpy_correlate, cubic
mask) against the library-filter call (clconvpy_correlate_ex) in constant
and reflect mode, alternating rounds, medians in ms."""
import statistics, time, sys
import numpy as np, clconv
s = clconv.Session(None)
n = s.native
rng = np.random.default_rng(1)
for shape, wd in [((1080, 1920), 3), ((1080, 1920), 5), ((1080, 1920), 9), ((4096, 4096), 5), ((128, 128, 128), 3)]:
    x = rng.random(shape, dtype=np.float32)
    w = rng.random((wd,) * len(shape)).astype(np.float32)
    o = [0] * len(shape)
    calls = {"old correlate (cval 0)": lambda: n.correlate(x, w),
             "correlate_ex constant": lambda: n.correlate_ex(x, w, o, 0, 0.0),
             "correlate_ex reflect": lambda: n.correlate_ex(x, w, o, 2, 0.0)}
    t = {k: [] for k in calls}
    for f in calls.values():
        f()
    a = calls["old correlate (cval 0)"](); b = calls["correlate_ex constant"]()
    assert np.array_equal(a, b), "old and new constant differ"
    for _ in range(7):
        for k, f in calls.items():
            t0 = time.perf_counter(); f(); t[k].append((time.perf_counter() - t0) * 1e3)
    print(shape, "W=%d" % wd, "  ".join("%s %.2f" % (k, statistics.median(v)) for k, v in t.items()), flush=True)
