"""clconv.correlate before (main's package) and after (this branch's fast
path) against cv2.filter2D, NumPy float32 in, a reused float32 output=
(cv2: dst=), modes 'constant' and 'reflect' (OpenCV's BORDER_CONSTANT and
BORDER_REFLECT, SciPy's meanings).

Both packages live in one process: this branch's as ``clconv`` (installed),
main's loaded from MAIN_DIR (a folder holding main's installed ``clconv``
package, its own libclconv_py.so included) as ``clconv_main``. Per round,
problem and mode, after one untimed call of each and a check (before and
after bit-identical, cv2 within 1e-4 * taps):

- alone: REPS calls of before, then of after, then of cv2;
- alternating: before and cv2 alternating, REPS calls each, then after
  and cv2 the same way.

Prints one line per round, problem and mode with the medians in ms, and
a summary per problem and mode over the rounds (the median of the rounds'
medians, and their range).

Usage: python3 py_fast.py MAIN_DIR [REPS] [ROUNDS] [PROBLEMS]
PROBLEMS: "all" (default: 1920x1080 W=3,5,9 and 8192x8192 W=3) or "small"
(the 1920x1080 ones).
"""
import importlib.util
import os
import statistics
import sys
import time

import cv2
import numpy as np

import clconv

MAIN_DIR = sys.argv[1]
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 60
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
WHICH = sys.argv[4] if len(sys.argv) > 4 else "all"
PROBLEMS = [((1080, 1920), 3), ((1080, 1920), 5), ((1080, 1920), 9),
            ((8192, 8192), 3)]
if WHICH == "small":
    PROBLEMS = PROBLEMS[:3]
MODES = {"constant": cv2.BORDER_CONSTANT, "reflect": cv2.BORDER_REFLECT}
COLUMNS = ["before", "after", "cv2", "before|alt", "cv2|alt-before",
           "after|alt", "cv2|alt-after"]


def load_main(folder: str):
    """main's clconv package from folder/clconv, as module clconv_main."""
    spec = importlib.util.spec_from_file_location(
        "clconv_main", os.path.join(folder, "clconv", "__init__.py"),
        submodule_search_locations=[os.path.join(folder, "clconv")])
    module = importlib.util.module_from_spec(spec)
    sys.modules["clconv_main"] = module
    spec.loader.exec_module(module)
    return module


def timed(f) -> float:
    t0 = time.perf_counter_ns()
    f()
    return (time.perf_counter_ns() - t0) / 1e6


def alone(f) -> float:
    return statistics.median(timed(f) for _ in range(REPS))


def alternating(f, g):
    tf, tg = [], []
    for _ in range(REPS):
        tf.append(timed(f))
        tg.append(timed(g))
    return statistics.median(tf), statistics.median(tg)


def one(before_mod, x, k, mode):
    """The seven medians of one problem and mode (COLUMNS' order)."""
    out_b, out_a, out_c = (np.empty_like(x) for _ in range(3))
    border = MODES[mode]

    def before():
        before_mod.correlate(x, k, output=out_b, mode=mode)

    def after():
        clconv.correlate(x, k, output=out_a, mode=mode)

    def theirs():
        cv2.filter2D(x, -1, k, dst=out_c, borderType=border)
    before(), after(), theirs()
    assert np.array_equal(out_b.view(np.uint32), out_a.view(np.uint32))
    err = float(np.max(np.abs(out_a - out_c)))
    assert err < 1e-4 * k.size, (x.shape, k.shape, mode, err)
    row = [alone(before), alone(after), alone(theirs)]
    row += alternating(before, theirs)
    row += alternating(after, theirs)
    return row


def main() -> None:
    before_mod = load_main(MAIN_DIR)
    rng = np.random.default_rng(1)
    print("after: %s; before: %s; %s; cv2 %s, %d threads, OPENCV env: %s; "
          "%d calls per median, %d rounds" % (
              clconv.__file__, before_mod.__file__, clconv.devices()[0].name,
              cv2.__version__, cv2.getNumThreads(),
              {k: v for k, v in os.environ.items() if k.startswith("OPENCV")},
              REPS, ROUNDS))
    print("round problem mode " + " ".join(COLUMNS) + "  (ms)")
    inputs = {shape: rng.uniform(-1, 1, shape).astype(np.float32)
              for shape, _ in PROBLEMS}
    masks = {m: rng.uniform(-1, 1, (m, m)).astype(np.float32)
             for _, m in PROBLEMS}
    results = {}
    for r in range(ROUNDS):
        for shape, m in PROBLEMS:
            for mode in MODES:
                row = one(before_mod, inputs[shape], masks[m], mode)
                name = "%dx%d W=%d" % (shape[1], shape[0], m)
                results.setdefault((name, mode), []).append(row)
                print(r + 1, name, mode, " ".join("%.3f" % v for v in row),
                      flush=True)
    print("\nsummary: median of the %d rounds' medians [min-max], ms" % ROUNDS)
    print("problem mode " + " | ".join(COLUMNS) +
          " | cv2/before alone | cv2/after alone | cv2/after alt")
    for (name, mode), rows in results.items():
        cols = list(zip(*rows))
        med = [statistics.median(c) for c in cols]
        cells = ["%.3f [%.3f-%.3f]" % (mm, min(c), max(c))
                 for mm, c in zip(med, cols)]
        print(name, mode, " | ".join(cells), "| %.2f | %.2f | %.2f" % (
            med[2] / med[0], med[2] / med[1], med[6] / med[5]))


if __name__ == "__main__":
    main()
