#!/bin/bash
# Session 30's device call (one H200): issue 17's direct targets at the
# defaults (gpu_targets), then sweeps on the H200 of the knobs the
# defaults were tuned with on the H100 (bench/PERF.md items 33, 40):
#   2D 8192^2 W=9 float32 coarse: columns per work-item (XV 2, 4, 8) x
#   tile x rows per work-item x work-group height, baked mask;
#   1D 2^26 W=55 coarse: tile x outputs per work-item x spans per
#   work-group.
# Each sweep row is `clconv run` (verified, median of 20 launches); the
# bench rows of gpu_targets give the floor the percentages use. Then the
# targets once more (the same machine's drift). Usage on the device
# machine: OUT=... STEP=sweep|ab bash scripts/gpu-s30.sh
# STEP=sweep (call 1): the above. STEP=ab (call 2): the sweep's fastest
# against the defaults, interleaved over three rounds: 2D W=9 and W=7
# with 4 columns, 4 rows, tile 32 at work-group heights 4 and 8 (the
# default); 1D W=55 at tiles 64 and 128 (the default).
. scripts/gpu-env.sh
gpu_call_begin
gpu_build
RUN="timeout 60 build/clconv run --device gpu --reps 20 --warmup 3 --seed 1 --strategy coarse --mask-mode baked"
case ${STEP:-sweep} in
sweep)
gpu_targets
mv "$R/targets.log" "$R/targets-1.log"
for xv in 4 8 2; do
    CLCONV_COARSE_XV=$xv $RUN --dims 2 --size 8192x8192 --mask 9 \
        --tile 32,64 --coarsen 2,4,8 --group-y 4,8,16 2>&1 \
        | grep -E " ok | FAIL|unsupported" | sed "s/^/w9 xv$xv /"
done 2>&1 | tee "$R/sweep-w9.log"
el "2D W=9 sweep done"
for sp in 4 8 16; do
    CLCONV_COARSE_SPANS=$sp $RUN --dims 1 --size 67108864 --mask 55 \
        --tile 64,128,256 --coarsen 8,16,32 2>&1 \
        | grep -E " ok | FAIL|unsupported" | sed "s/^/w55 spans$sp /"
done 2>&1 | tee "$R/sweep-w55.log"
el "1D W=55 sweep done"
for f in "$R/sweep-w9.log" "$R/sweep-w55.log"; do
    echo "== fastest of $(basename "$f")"
    awk '{ for (i = 1; i <= NF; i++) if ($i == "ms") print $(i - 1), $0 }' "$f" \
        | sort -n | head -6 | cut -d' ' -f2-
done
gpu_targets
    ;;
ab)
    for r in 1 2 3; do
        for w in 9 7; do
            for g in 4 8; do
                CLCONV_COARSE_XV=4 $RUN --dims 2 --size 8192x8192 --mask $w \
                    --tile 32 --coarsen 4 --group-y $g 2>&1 \
                    | grep -E " ok | FAIL|unsupported" | sed "s/^/ab r$r /"
            done
        done
        for t in 64 128; do
            $RUN --dims 1 --size 67108864 --mask 55 --tile $t 2>&1 \
                | grep -E " ok | FAIL|unsupported" | sed "s/^/ab r$r /"
        done
    done 2>&1 | tee "$R/ab.log"
    el "a/b done"
    gpu_targets
    ;;
esac
