#!/bin/bash
# Session 10's call on the GPU machine (one call, under 10 minutes): the
# NVIDIA ICD beside PoCL, the carried debs unpacked into /tmp, a build,
# then the steps named in $STEPS (default all), logs and JSON under
# $OUT/r, returned as one tarball:
#   xv      2D 8192^2 coarse on the GPU with CLCONV_COARSE_XV 1, 2, 4, 8
#           (columns per work-item, bench/PERF.md item 31): u8 -> u8,
#           u8 -> f32 and f32 -> f32 at mask 3 in XV_ROUNDS interleaved
#           rounds (default 3), u8 -> u8 at masks 5 and 9 with XV 1 and 4,
#           and OpenCV's UMat filter2D on CV_8U beside it
#   tests   test_matrix_dtype's coarse groups (the XV group included) and
#           test_variants on the GPU
#   modes   the PoCL full-suite border modes against constant on the
#           host's CPU (ab_full.sh; MODES_PROBLEMS, MODES_ROUNDS)
#   sweep   u8 -> u8 2D 8192^2 W=3 coarse with XV 4 and 8 over tiles,
#           rows per work-item and work-group heights (clconv run)
#   probemodes the PoCL border modes against constant in one process per
#           problem (scripts/probe_modes.c: a plan per mode, rounds in
#           rotated order), the full suite's eight problems
#   xv16    u8 -> u8 2D 8192^2 W=3 with 16 columns per work-item over
#           tiles 16/32, rows 8/16 and heights 2/4 (clconv run), the
#           default (8 columns, tile 32) beside it, two rounds; then bench
#           rows of the default against XV=16, two rounds
#   xv2     bench u8 -> u8 2D 8192^2 at masks 3 and 5: the default (XV 8
#           and tile 32 at mask 3, XV 4 at mask 5) against XV 4 (mask 3)
#           and 8 (mask 5), XV_ROUNDS interleaved rounds
set -u
. scripts/gpu-env.sh
gpu_call_begin
make -j16 SKIP_DEPS=1 all build/test_matrix_dtype build/test_variants >"$R/build.log" 2>&1 \
    || { tail -30 "$R/build.log"; exit 1; }
build/clconv devices | tee "$R/devices.txt"
el "built"
bench() { # XV (0: the default) in-dtype out-dtype mask tag
    CLCONV_COARSE_XV=${1#0} timeout 60 build/clconv bench --device gpu --dims 2 \
        --size 8192x8192 --mask $4 --strategy coarse --tiles default \
        --dtype $2 --out-dtype $3 --seed 1 --quiet \
        --json "$R/xv-$5.json" >"$R/xv-$5.txt" 2>&1
    echo "XV=$1 $2->$3 W=$4 ($5): exit $? $(grep -E ' ok | FAIL' "$R/xv-$5.txt" | tail -1)"
}
for step in ${STEPS:-xv tests modes}; do
    case $step in
    xv)
        for round in $(seq 1 ${XV_ROUNDS:-3}); do
            for xv in 1 2 4 8; do
                bench $xv u8 same 3 "u8-u8-w3-xv$xv-r$round"
                bench $xv u8 f32 3 "u8-f32-w3-xv$xv-r$round"
                [ $xv = 8 ] || bench $xv f32 same 3 "f32-w3-xv$xv-r$round"
            done 2>&1 | tee -a "$R/xv.log"
            OPENCV_OPENCL_DEVICE=:GPU:0 timeout 60 python3 bench/peers.py --dims 2 \
                --size 8192x8192 --mask 3 --dtype u8 --peers opencv-ocl \
                --reps 10 --seed 1 --json "$R/peers-u8-r$round.json" \
                2>"$R/peers-u8-r$round.err"
            grep "peers:" "$R/peers-u8-r$round.err" | tee -a "$R/xv.log"
            el "xv round $round"
        done
        for round in 1 2; do
            for w in 5 9; do
                for xv in 1 4; do
                    bench $xv u8 same $w "u8-u8-w$w-xv$xv-r$round"
                done
            done 2>&1 | tee -a "$R/xv.log"
        done
        el "xv masks" ;;
    tests)
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv2d_coarse*' timeout 240 \
            build/test_matrix_dtype >"$R/test_matrix_dtype-gpu.log" 2>&1
        el "test_matrix_dtype coarse on the GPU: exit $?"
        grep -E "seed|PASSED|FAILED|FAIL " "$R/test_matrix_dtype-gpu.log" | head -12
        CLCONV_DEVICE=gpu timeout 60 build/test_variants >"$R/test_variants-gpu.log" 2>&1
        el "test_variants on the GPU: exit $?"; tail -2 "$R/test_variants-gpu.log" ;;
    modes)
        CLCONV_KERNEL_DIR=$PWD/cl PROBLEMS=${MODES_PROBLEMS:-"2 8192x8192 9;3 512x512x512 5;2 8192x8192 5"} \
            timeout ${MODES_TIMEOUT:-300} sh bench/results/2026-11-24-xeon-pocl-modes-full/ab_full.sh \
            build/clconv 0:0 ${MODES_ROUNDS:-5} >"$R/ab_full.log" 2>&1
        el "modes: exit $?, $(wc -l <"$R/ab_full.log") rows"
        python3 bench/results/2026-11-24-xeon-pocl-modes-full/summ.py "$R/ab_full.log" | tee "$R/ab_full-summary.txt" ;;
    sweep)
        for xv in 4 8; do
            for t in 32 64 128; do
                for c in 4 8 16 32; do
                    for g in 1 2 4; do
                        CLCONV_COARSE_XV=$xv timeout 30 build/clconv run --device gpu --dims 2 \
                            --size 8192x8192 --mask 3 --strategy coarse --dtype u8 --out-dtype same \
                            --tile $t --coarsen $c --group-y $g --reps 20 --warmup 3 --seed 1 2>&1 \
                            | grep -E " ok | FAIL|unsupported" | sed "s/^/XV=$xv /"
                    done
                done
            done
        done >"$R/sweep.log" 2>&1
        el "sweep: $(grep -c ' ok ' "$R/sweep.log") ok"
        sort -t' ' -k1,1 "$R/sweep.log" | awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $0}' | sort -n | head -8 ;;
    probemodes)
        cc -O2 -std=c11 -Iinclude scripts/probe_modes.c build/libclconv.a \
            -lOpenCL -lpng -lm -fopenmp -o build/probe_modes || exit 1
        echo "${PROBE_PROBLEMS:-1 67108864 5;1 67108864 9;1 67108864 55;2 8192x8192 3;2 8192x8192 5;2 8192x8192 9;3 512x512x512 3;3 512x512x512 5}" \
            | tr ';' '\n' | while read -r d sz w; do
            timeout 120 build/probe_modes 0:0 $d $sz $w ${PROBE_ROUNDS:-5} 10 </dev/null
        done >"$R/probe-modes.log" 2>&1
        el "probemodes"; grep summary "$R/probe-modes.log" ;;
    xv16)
        for round in 1 2; do
            for cfg in "8 32 8 4" "16 16 8 4" "16 16 16 4" "16 16 8 2" "16 32 8 4" "16 32 8 2" "16 32 16 2" "16 16 16 2" "16 32 16 4"; do
                set -- $cfg
                CLCONV_COARSE_XV=$1 timeout 30 build/clconv run --device gpu --dims 2 \
                    --size 8192x8192 --mask 3 --strategy coarse --dtype u8 --out-dtype same \
                    --tile $2 --coarsen $3 --group-y $4 --reps 20 --warmup 3 --seed 1 2>&1 \
                    | grep -E " ok | FAIL|unsupported" | sed "s/^/r$round XV=$1 /"
            done
        done >"$R/xv16.log" 2>&1
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $10, $12, $13}' "$R/xv16.log" | sort -n
        for round in 1 2; do
            bench 0 u8 same 3 "default-w3-r$round"
            bench 16 u8 same 3 "xv16-w3-r$round"
        done 2>&1 | tee -a "$R/xv16-bench.log"
        el "xv16" ;;
    xv2)
        for round in $(seq 1 ${XV_ROUNDS:-3}); do
            bench 0 u8 same 3 "default-w3-r$round"
            bench 4 u8 same 3 "xv4-w3-r$round"
            bench 0 u8 same 5 "default-w5-r$round"
            bench 8 u8 same 5 "xv8-w5-r$round"
        done 2>&1 | tee -a "$R/xv2.log"
        el "xv2" ;;
    esac
    finish
done
el "done"
