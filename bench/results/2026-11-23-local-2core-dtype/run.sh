#!/bin/sh
# 2D 8192x8192 W=3 on PoCL (the shared 2-core machine): clconv u8 -> u8
# against f32 -> f32 (the vector variant, its default tile) and
# cv2.filter2D on CV_8U and CV_32F, interleaved ROUNDS times so that the
# machine's load falls on all of them alike. Raw output beside this file.
# Usage (from the repository root): sh bench/results/2026-11-23-local-2core-dtype/run.sh build-dtype/clconv
set -eu
CLI=${1:-build/clconv}
ROUNDS=${ROUNDS:-3}
here=$(dirname "$0")
for r in $(seq 1 "$ROUNDS"); do
    for t in f32 u8; do
        "$CLI" bench --dims 2 --size 8192 --mask 3 --strategy vector \
            --tiles default --device cpu --dtype "$t" --seed 1 --quiet \
            --json "$here/bench-$t-round$r.json" > "$here/bench-$t-round$r.txt"
    done
    python3 "$here/cv2_filter2d.py" > "$here/cv2-round$r.txt"
done
python3 "$here/summary.py" "$here" "$ROUNDS" | tee "$here/summary.txt"
