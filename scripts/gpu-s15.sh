#!/bin/bash
# Session 15's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs and JSON under $OUT/r, returned as
# one tarball. Calls 1 and 2 (steps absep, sweep, unroll) ran the tiled
# y/z passes of bench/results/2026-11-26-h100-s15/tiled-y.diff, not kept
# ($CLCONV_SEP_GROUP TX,1: untiled, the previous kernels' form; TX,GA:
# tiled; $CLCONV_SEP_UNROLL: bench/PERF.md items 43 and 44):
#   tests  on the GPU: test_paths' separable tests (the device's form,
#          the other form, the y/z tile at its edges)
#   absep  2D 8192^2 Gaussian W=101 and W=31 and 3D 512^3 Gaussian W=15,
#          method separable, untiled (128,1) against tiled (default),
#          two rounds
#   sweep  2D 8192^2 Gaussian W=101: work-groups TX,GA and the y pass's
#          outputs per work-item ($CLCONV_SEP_COARSEN=16,Y)
#   unroll 2D 8192^2 Gaussian W=101 and 3D 512^3 W=15: the passes' taps
#          unrolled (default) against rolled blocks ($CLCONV_SEP_UNROLL=0),
#          untiled and tiled, two rounds
#   tile   2D 8192^2 Gaussian W=101 and W=31, 3D 512^3 W=15: the passes'
#          work-items across x ($CLCONV_SEP_TILE=X,Y), two rounds
#   xsweep 2D 8192^2 Gaussian W=101 and W=31: the x pass's work-items
#          and outputs per work-item ($CLCONV_SEP_TILE=X,128,
#          $CLCONV_SEP_COARSEN=C,16), and 1D 2^26 W=1001 (one x pass) at
#          128 and 256 work-items, two rounds
#   cpusep the 16-core CPU: 2D 8192^2 Gaussian W=31 and W=101, separable,
#          base (.cl-base/cl, the previous commit's kernels, at its 2 rows
#          per y work-item) against new (8 independent accumulators,
#          PERF.md item 46), two rounds; then OpenCV's sepFilter2D and
#          filter2D on the same problems
#   cpu31  the 16-core CPU: 2D 8192^2 Gaussian W=31 separable, base
#          against new at 8 (default), 4 and 16 rows per y work-item,
#          three rounds, OpenCV's sepFilter2D before and after
#   direct 2D 8192^2 random masks 21-63 on the direct path (the mask read
#          in place beyond 21x21, PERF.md item 47), and 256^2-2048^2
#          31x31 direct against the FFT
#   large  the large suite's separable and 1D rows (method auto)
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
for step in ${STEPS:-tests absep}; do
    case $step in
    tests)
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER="${PF:-separable*}" timeout ${TP:-300} \
            build/test_paths >"$R/test_paths-sep-gpu.log" 2>&1
        el "test_paths separable on the GPU: exit $?"
        grep -E "PASSED|FAILED|LANES|ERROR" "$R/test_paths-sep-gpu.log" | head -20 ;;
    absep)
        for r in 1 2; do
            for p in "2 8192x8192 101" "2 8192x8192 31" "3 512x512x512 15"; do
                set -- $p
                for g in 128,1 default; do
                    e=CLCONV_SEP_GROUP=$g; [ $g = default ] && e=X=1
                    gpu_large "absep-${1}d-w$3-g$g-r$r" $e -- --dims $1 --size $2 \
                        --mask $3 --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/absep.log"; el "absep" ;;
    sweep)
        for g in ${GRPS:-32,4 32,8 32,16 64,4 64,8}; do
            for c in ${YC:-8 16 32}; do
                LT=40 gpu_large "sweep-w101-g$g-c$c" CLCONV_SEP_GROUP=$g \
                    CLCONV_SEP_COARSEN=16,$c -- --dims 2 --size 8192x8192 \
                    --mask 101 --kind gaussian --method separable --reps 10
            done
        done 2>&1 | tee "$R/sweep.log"; el "sweep" ;;
    unroll)
        for r in 1 2; do
            for p in "2 8192x8192 101" "3 512x512x512 15" "2 8192x8192 31"; do
                set -- $p
                for v in "128,1 x" "128,1 0" "32,8 x" "32,8 0" "32,8 0 16,32"; do
                    set -- $p $v
                    u=CLCONV_SEP_UNROLL=$5; [ $5 = x ] && u=X=1
                    c=CLCONV_SEP_COARSEN=${6:-x}; [ -z "${6:-}" ] && c=Y=1
                    LT=40 gpu_large "unroll-${1}d-w$3-g$4-u$5-c${6:-d}-r$r" \
                        CLCONV_SEP_GROUP=$4 $u $c -- --dims $1 --size $2 --mask $3 \
                        --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/unroll.log"; el "unroll" ;;
    tile)
        for r in 1 2; do
            for p in "2 8192x8192 101" "2 8192x8192 31" "3 512x512x512 15"; do
                set -- $p
                for t in 256,128 64,128 128,128 512,128 256,32 256,64 256,256; do
                    LT=40 gpu_large "tile-${1}d-w$3-t$t-r$r" CLCONV_SEP_TILE=$t -- \
                        --dims $1 --size $2 --mask $3 --kind gaussian \
                        --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/tile.log"; el "tile" ;;
    xsweep)
        for r in 1 2; do
            for v in "101 32 16" "101 64 16" "101 128 16" "101 32 32" "101 64 32" \
                     "101 128 32" "101 64 8" "101 128 8" "31 64 8" "31 128 8" \
                     "31 64 16" "31 128 16" "31 256 8"; do
                set -- $v
                LT=40 gpu_large "xsweep-w$1-t$2-c$3-r$r" CLCONV_SEP_TILE=$2,128 \
                    CLCONV_SEP_COARSEN=$3,16 -- --dims 2 --size 8192x8192 --mask $1 \
                    --kind gaussian --method separable --reps 10
            done
            for t in 128 256; do
                LT=40 gpu_large "xsweep-1d-w1001-t$t-r$r" CLCONV_SEP_TILE=$t,128 -- \
                    --dims 1 --size 67108864 --mask 1001 --method separable --reps 10
            done
        done 2>&1 | tee "$R/xsweep.log"; el "xsweep" ;;
    cpusep)
        for r in 1 2; do
            for w in 31 101; do
                DEV=cpu LT=100 gpu_large "cpusep-w$w-base-r$r" \
                    CLCONV_KERNEL_DIR=$PWD/.cl-base/cl CLCONV_SEP_COARSEN=4,2 -- \
                    --dims 2 --size 8192x8192 --mask $w --kind gaussian \
                    --method separable --reps 5
                DEV=cpu LT=100 gpu_large "cpusep-w$w-new-r$r" X=1 -- --dims 2 \
                    --size 8192x8192 --mask $w --kind gaussian --method separable --reps 5
            done
        done 2>&1 | tee "$R/cpusep.log"
        timeout 200 python3 bench/peers_large.py --suite large --dims 2 \
            --peers cv2-sep,cv2-filter2d --seed 1 --reps 5 --max-s 3 \
            --json "$R/peers-cpusep.json" 2>"$R/peers-cpusep.txt"
        el "cpu sep peers: exit $?"; grep -i 'gaussian' "$R/peers-cpusep.txt" | tail -6 ;;
    cpu31)
        for r in 0 1 2 3 4; do
            if [ $r = 0 ] || [ $r = 4 ]; then
                timeout 100 python3 bench/peers_large.py --suite large --dims 2 \
                    --peers cv2-sep --seed 1 --reps 5 --max-s 3 \
                    --json "$R/peers-cpu31-$r.json" 2>"$R/peers-cpu31-$r.txt"
                grep -i 'W=31 ' "$R/peers-cpu31-$r.txt"
                continue
            fi
            DEV=cpu LT=100 gpu_large "cpu31-base-r$r" CLCONV_KERNEL_DIR=$PWD/.cl-base/cl \
                CLCONV_SEP_COARSEN=4,2 -- --dims 2 --size 8192x8192 --mask 31 \
                --kind gaussian --method separable --reps 5
            for c in 8 4 16; do
                DEV=cpu LT=100 gpu_large "cpu31-c$c-r$r" CLCONV_SEP_COARSEN=4,$c -- \
                    --dims 2 --size 8192x8192 --mask 31 --kind gaussian \
                    --method separable --reps 5
            done
        done 2>&1 | tee "$R/cpu31.log"; el "cpu31" ;;
    direct)
        for w in 21 25 31 45 63; do
            LT=90 gpu_large "direct-2d-w$w" X=1 -- --dims 2 --size 8192x8192 --mask $w \
                --kind random --method direct --reps 5
        done 2>&1 | tee "$R/direct.log"
        for s in 256 1024 2048; do
            for m in direct fft; do
                gpu_large "small-$s-$m" X=1 -- --dims 2 --size ${s}x$s --mask 31 \
                    --kind random --method $m --reps 10
            done
        done 2>&1 | tee -a "$R/direct.log"; el "direct" ;;
    large)
        for p in "2 8192x8192 31" "2 8192x8192 101" "3 512x512x512 15"; do
            set -- $p
            LT=90 gpu_large "large-${1}d-w$3" X=1 -- --dims $1 --size $2 --mask $3 \
                --kind gaussian --method auto --reps 10 --json
        done 2>&1 | tee "$R/large.log"; el "large" ;;
    esac
done
