#!/usr/bin/env python3
"""Plot the cost model's crossover: each method's predicted time against
the mask width, from the CSV of `clconv model --methods ... --csv`.

usage: clconv model --methods --dims 2 --size 8192 --device gpu --measure \\
           --csv > model.csv
       bench/crossover.py model.csv crossover.png [--title TEXT]"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="clconv methods: predicted time")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("crossover.py: matplotlib is missing")
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"crossover.py: no rows in {a.csv}")
    w = [int(r["width"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label in (("direct_ms", "direct (W^d taps)"),
                       ("separable_ms", "separable (d passes)"),
                       ("fft_ms", "FFT (VkFFT)")):
        ax.plot(w, [float(r[key]) for r in rows], label=label)
    ax.set_xlabel("mask width W")
    ax.set_ylabel("predicted ms per launch")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title(a.title)
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()
