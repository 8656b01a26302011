#!/bin/sh
# The FFT alone (direct skipped by --max-ms 1, auto runs the FFT again),
# 2D 2048x2048 random 63x63, modes constant, reflect and wrap alternating
# every invocation, ROUNDS rounds, 10 timed launches each after 2 warm-up
# ones: the A/B of the modes' padding on the shared 2-core machine.
# Usage: run-fft.sh CLCONV OUTDIR [ROUNDS]
set -eu
CLI=$1; OUT=$2; ROUNDS=${3:-6}
mkdir -p "$OUT"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for mode in constant reflect wrap; do
        date -u +"%H:%M:%S fft round $r $mode" >&2
        "$CLI" bench --suite large --dims 2 --size 2048 --mask 63 \
            --mode "$mode" --reps 10 --warmup 2 --max-ms 1 --seed 7 \
            --device 0:0 --json >"$OUT/fft-r$r-$mode.json" \
            2>"$OUT/fft-r$r-$mode.txt"
    done
    r=$((r + 1))
done
