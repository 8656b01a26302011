"""Where a clconv.correlate call's time goes at 1920x1080 float32, 3x3
mask, mode 'reflect', output=: the Python before the library's call, the
call (clconvpy_correlate_ex through ctypes), the Python after it (medians
of 200 back-to-back calls, us). The library's function is wrapped to
time-stamp it (the wrapper's own cost, under 1 us, falls on "call").
Which clconv is measured is whichever ``import clconv`` finds (for main's,
PYTHONPATH=<folder holding main's installed clconv>).
Usage: python3 profile_steps.py"""
import statistics
import time

import numpy as np

import clconv
from clconv import _native

STAMPS = []


class Stamped:
    """The native function, time-stamping each call."""

    def __init__(self, f):
        self.f = f

    def __call__(self, *args):
        t1 = time.perf_counter_ns()
        status = self.f(*args)
        STAMPS.append((t1, time.perf_counter_ns()))
        return status


def main() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1080, 1920)).astype(np.float32)
    k = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    out = np.empty_like(x)
    _native._lib.clconvpy_correlate_ex = Stamped(_native._lib.clconvpy_correlate_ex)
    pre, call, post, total = [], [], [], []
    for i in range(201):
        t0 = time.perf_counter_ns()
        clconv.correlate(x, k, mode="reflect", output=out)
        t3 = time.perf_counter_ns()
        t1, t2 = STAMPS[-1]
        if i:  # the first call is untimed
            pre.append(t1 - t0)
            call.append(t2 - t1)
            post.append(t3 - t2)
            total.append(t3 - t0)
    med = lambda v: statistics.median(v) / 1e3
    print("%s: before the call %.1f us, the call %.1f, after it %.1f, "
          "total %.1f" % (clconv.__file__, med(pre), med(call), med(post),
                          med(total)))


if __name__ == "__main__":
    main()
