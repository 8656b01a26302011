#!/bin/bash
# The vector variant's coarsen (float16 blocks in 1D, rows in 2D, planes in
# 3D) on the GPU machine's CPU (PoCL) at the full suite's sizes: every row
# verified, median of 5 launches (bench/PERF.md item 15).
set -u
OUT=${OUT:-/tmp/out}
log=$OUT/vector-knobs.log
: >"$log"
knobs() { # dims size mask coarsen-list
    timeout 120 build/clconv run --device cpu --strategy vector --dims "$1" \
        --size "$2" --mask "$3" --coarsen "$4" --reps 5 --warmup 1 --seed 1 \
        2>&1 | tee -a "$log"
}
knobs 2 8192 5 1,2,4,8,16
knobs 2 8192 3 1,2,4,8
knobs 2 8192 9 2,4,8,16,32
knobs 3 512 3 1,2,4,8,16
knobs 3 512 5 4,8,16,32
knobs 1 67108864 55 1,2,4,8
