"""Why clconv.correlate is slower when its calls alternate with
cv2.filter2D: 1920x1080 float32, a 3x3 mask, mode 'reflect', output=.

In one process, clconv's time (median and quartiles of REPS calls, ms;
the conditions take turns call by call, so drift falls on all) when each
call follows: nothing but another clconv call (alone); a cv2.filter2D call;
a cv2.filter2D call and a 2 ms sleep; np.copyto of an 8 MB array (the
memory traffic without threads); a 0.7 ms Python spin (time without memory
traffic). For each, how much CPU time (ms per clconv call, from each
thread's CPU clock) OpenCV's pool threads, PoCL's threads and
the main thread used during the clconv calls: a pool that spins after
its job shows up as pool CPU while clconv runs.

Run it with OpenCV's defaults, with OPENCV_THREAD_POOL_ACTIVE_WAIT_*
set to 0 (read when cv2 is imported) to tell OpenCV's pool not to spin,
and with OPENCV_FOR_THREADS_NUM=1 (no pool).
Usage: python3 alt_why.py [REPS]
"""
import ctypes
import os
import statistics
import sys
import time

import cv2
import numpy as np

import clconv

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 100


_libc = ctypes.CDLL(None, use_errno=True)


class _Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def thread_cpu_ns() -> dict:
    """CPU time (ns) of each thread of this process, up to date also for a
    thread running now (clock_gettime on the thread's CPU clock,
    MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED); /proc's schedstat lags
    until the thread is next switched out)."""
    out = {}
    ts = _Timespec()
    for tid in os.listdir("/proc/self/task"):
        clock = ((~int(tid)) << 3) | 6
        if _libc.clock_gettime(ctypes.c_int(clock), ctypes.byref(ts)) == 0:
            out[tid] = ts.sec * 1_000_000_000 + ts.nsec
    return out


def spin(ms: float) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < ms / 1e3:
        pass


def main() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1080, 1920)).astype(np.float32)
    k = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    out, dst, other = (np.empty_like(x) for _ in range(3))
    main_tid = str(os.getpid())
    start = set(thread_cpu_ns())
    clconv.correlate(x, k, output=out)
    pocl = set(thread_cpu_ns()) - start
    cv2.filter2D(x, -1, k, dst=dst, borderType=cv2.BORDER_REFLECT)
    pool = set(thread_cpu_ns()) - start - pocl
    threads = cv2.getNumThreads()

    def cv2_call():
        cv2.filter2D(x, -1, k, dst=dst, borderType=cv2.BORDER_REFLECT)

    def clconv_call():
        clconv.correlate(x, k, output=out)

    conditions = [
        ("after another clconv call", clconv_call),
        ("after cv2.filter2D", cv2_call),
        ("after cv2.filter2D + 2 ms sleep",
         lambda: (cv2_call(), time.sleep(0.002))),
        ("after np.copyto 8 MB", lambda: np.copyto(other, x)),
        ("after a 0.7 ms Python spin", lambda: spin(0.7)),
    ]
    print("%s; cv2 %s (%d threads); %d pool threads, %d PoCL threads; "
          "OPENCV env: %s; %d timed calls per condition, the conditions "
          "taking turns call by call" % (
              clconv.devices()[0].name, cv2.__version__, threads, len(pool),
              len(pocl),
              {k: v for k, v in os.environ.items() if k.startswith("OPENCV")},
              REPS))
    times = {name: [] for name, _ in conditions}
    used = {name: {"pool": 0, "pocl": 0, "main": 0} for name, _ in conditions}
    for i in range(REPS + 1):
        for name, before in conditions:
            before()
            c0 = thread_cpu_ns()
            t0 = time.perf_counter_ns()
            clconv_call()
            t1 = time.perf_counter_ns()
            c1 = thread_cpu_ns()
            if i == 0:
                continue  # untimed
            times[name].append((t1 - t0) / 1e6)
            for tid, ns in c1.items():
                group = ("pool" if tid in pool else "pocl" if tid in pocl
                         else "main" if tid == main_tid else None)
                if group:
                    used[name][group] += ns - c0.get(tid, ns)
    print("condition: clconv ms median [25th-75th percentile] | CPU ms per "
          "clconv call: cv2 pool, PoCL, main")
    for name, _ in conditions:
        q = statistics.quantiles(times[name], n=4)
        u = used[name]
        print("%-34s %.3f [%.3f-%.3f] | %.3f %.3f %.3f" % (
            name, q[1], q[0], q[2], u["pool"] / 1e6 / REPS,
            u["pocl"] / 1e6 / REPS, u["main"] / 1e6 / REPS), flush=True)

if __name__ == "__main__":
    main()
