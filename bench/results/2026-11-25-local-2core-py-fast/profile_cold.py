"""Why main's Python argument handling costs more inside a run of calls
than on its own: its steps (clconv._filters of main, 1920x1080 float32,
3x3 mask, reflect) timed one by one, medians of 140 in us, with nothing
before them, right after a library call (clconvpy_correlate_ex with
prebuilt arguments), after an 8 MB np.copyto, and after a call plus a
0.5 ms busy loop. Then PoCL's worker threads' CPU time (clock ticks) over
300 back-to-back calls and over 300 calls each followed by a 2 ms sleep:
equal if the workers do not spin between calls.
Run with main's package first on the path (PYTHONPATH=<its folder>).
Usage: python3 profile_cold.py"""
import os
import statistics
import time

import numpy as np

import clconv
from clconv import _filters as F
from clconv import _native, _session


def main() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1080, 1920)).astype(np.float32)
    k = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    out, other = np.empty_like(x), np.empty_like(x)
    nat = _session.resolve(None).native
    args = nat._problem((1080, 1920), k, [0, 1], [0, 0], 1, 2, 0.0)

    def library_call():
        _native._lib.clconvpy_correlate_ex(*args, 0, x.ctypes.data,
                                           k.ctypes.data, out.ctypes.data)

    def busy(ms):
        t0 = time.perf_counter_ns()
        while time.perf_counter_ns() - t0 < ms * 1e6:
            pass
    steps = [
        ("_check_input", lambda: F._check_input(x)),
        ("_mask_args", lambda: F._mask_args(2, k, 0, None, False)),
        ("_get_output", lambda: F._get_output(out, x, lazy=True)),
        ("resolve", lambda: _session.resolve(None)),
        ("_sorted_mask", lambda: F._sorted_mask(k.astype(np.float64), (0, 1),
                                                [0, 0])),
        ("_merge_axes", lambda: F._merge_axes(x.shape, (0, 1))),
        ("_device_array", lambda: F._device_array(x)),
        ("may_share_memory", lambda: np.may_share_memory(out, x)),
        ("_problem", lambda: nat._problem([1080, 1920], k, [0, 1], [0, 0], 1,
                                          2, 0.0)),
        ("3x .ctypes.data", lambda: (x.ctypes.data, k.ctypes.data,
                                     out.ctypes.data)),
        ("_store", lambda: F._store(out, out, x)),
    ]
    befores = [("nothing", None), ("a library call", library_call),
               ("np.copyto 8 MB", lambda: np.copyto(other, x)),
               ("a call + 0.5 ms busy loop",
                lambda: (library_call(), busy(0.5)))]
    print("%s on %s" % (clconv.__file__, nat.device.name))
    print("step: us after " + " | ".join(name for name, _ in befores))
    table = {name: [[] for _ in befores] for name, _ in steps}
    for j, (_, before) in enumerate(befores):
        for i in range(150):
            if before:
                before()
            for name, step in steps:
                t0 = time.perf_counter_ns()
                step()
                table[name][j].append(time.perf_counter_ns() - t0)
    sums = [0.0] * len(befores)
    for name, cols in table.items():
        meds = [statistics.median(c[10:]) / 1e3 for c in cols]
        sums = [s + m for s, m in zip(sums, meds)]
        print("%-18s " % name + " | ".join("%6.2f" % m for m in meds))
    print("%-18s " % "sum" + " | ".join("%6.1f" % s for s in sums))

    def worker_ticks():
        out = {}
        for tid in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/stat" % tid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[tid] = int(fields[11]) + int(fields[12])
        return out
    for label, pause in [("back to back", 0), ("each + 2 ms sleep", 0.002)]:
        c0 = worker_ticks()
        for _ in range(300):
            library_call()
            if pause:
                time.sleep(pause)
        c1 = worker_ticks()
        print("300 calls %s: CPU ticks per thread %s" % (
            label, sorted(c1[t] - c0.get(t, 0) for t in c1)))


if __name__ == "__main__":
    main()
