#!/bin/sh
# 2D 2048x2048, a random (non-separable) 63x63 mask, on PoCL (the shared
# 2-core machine): each method (direct with the device's default
# strategy, fft, and what auto picks) in modes constant, reflect and wrap
# (the FFT's wrap on its unpadded 2048^2 period, the other modes padded to
# 2048 + 62 -> 2160^2). Each verified at 4096 sampled outputs against the
# double reference with its bound, then timed (warm-up, median of the
# reps). A/B interleaved: ROUNDS rounds, each every mode once (run with
# ROUNDS 3, stopped during round 3 for time: rounds 1 and 2 kept).
# Usage: run.sh CLCONV OUTDIR [ROUNDS]
set -eu
CLI=$1; OUT=$2; ROUNDS=${3:-3}
mkdir -p "$OUT"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for mode in constant reflect wrap; do
        date -u +"%H:%M:%S round $r $mode" >&2
        "$CLI" bench --suite large --dims 2 --size 2048 --mask 63 \
            --mode "$mode" --reps 5 --warmup 1 --max-ms 100000 --seed 7 \
            --device 0:0 --json >"$OUT/r$r-$mode.json" 2>"$OUT/r$r-$mode.txt"
    done
    r=$((r + 1))
done
