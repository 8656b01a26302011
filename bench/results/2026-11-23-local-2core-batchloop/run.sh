#!/bin/sh
# bench/PERF.md item 27 on the local CPU (PoCL): each batch problem and
# strategy with the batch as an NDRange dimension (loop=0) and as a loop in
# the kernel (CLCONV_BATCH_LOOP=1, loop=1), alternating, ROUNDS rounds.
# Usage: run.sh CLI > log
CLI=${1:-build/clconv}
for round in $(seq 1 ${ROUNDS:-3}); do
    for prob in "1 4096 256 5" "2 64x64 256 5" "2 512x512 32 5" "2 1920x1080 3 5"; do
        set -- $prob
        for s in vector cached_halo coarse; do
            for loop in "" 1; do
                CLCONV_BATCH_LOOP=$loop "$CLI" run --device cpu --strategy $s --dims $1 \
                    --size $2 --batch $3 --mask $4 --reps 20 --seed 1 2>&1 | tail -1 |
                    sed "s/^/round=$round loop=${loop:-0} /"
            done
        done
    done
done
