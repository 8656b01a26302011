#!/bin/bash
# GPU machine: the test matrix and the mask-mode test on both devices (GPU
# and PoCL), then the 3D coarse rows-per-work-item sweep (bench/PERF.md
# item 11) on the two 3D standard problems. Logs to $OUT/rows.
set -u
OUT=${OUT:-/tmp/out}
P=$OUT/rows
mkdir -p "$P"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
export CLCONV_SEED=${CLCONV_SEED:-7}
make -j16 SKIP_DEPS=1 build/test_matrix build/test_mask_mode >"$P/build-tests.log" 2>&1 ||
    tail -20 "$P/build-tests.log"
for r in 1 2 3 4; do
    for m in 3 5; do
        CLCONV_COARSE_ROWS=$r timeout 60 build/clconv run --device gpu --dims 3 --size 512 \
            --mask $m --strategy coarse --reps 20 --seed 1 2>&1 | sed "s/^/rows=$r /" |
            tee -a "$P/rows.log" | cut -c1-8,37-
    done
done
el "rows sweep done"
for r in 2 3; do
    CLCONV_COARSE_ROWS=$r timeout 100 build/clconv run --device gpu --dims 3 --size 512 \
        --mask 5 --strategy coarse --coarsen 4,8,16 --group-y 2,4,8 --reps 10 --seed 1 2>&1 |
        sed "s/^/rows=$r /" | tee -a "$P/knobs-w5.log" | cut -c1-8,37-
    CLCONV_COARSE_ROWS=$r timeout 100 build/clconv run --device gpu --dims 3 --size 512 \
        --mask 3 --strategy coarse --coarsen 8,16,32 --group-y 2,4,8 --reps 10 --seed 1 2>&1 |
        sed "s/^/rows=$r /" | tee -a "$P/knobs-w3.log" | cut -c1-8,37-
done
el "knob sweep done"
timeout 250 build/test_matrix >"$P/matrix.log" 2>&1; el "matrix exit $?"
grep -A8 "summary" "$P/matrix.log"; grep FAIL "$P/matrix.log" | head
timeout 60 build/test_mask_mode >"$P/mask_mode.log" 2>&1; el "mask modes exit $?"
grep -E "runs|FAIL|PASSED|FAILED" "$P/mask_mode.log"
