#!/bin/bash
# Session 19's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   cpu3d   the 16-core CPU (PoCL): 3D 512^3 direct `vector` through
#           `clconv run` (every element verified), two rounds
#           interleaved, at W=5 float16 blocks x planes per work-item
#           ($CLCONV_VECTOR_BLOCKS, --coarsen) 2x8 (the default), 2x16,
#           1x8, 1x16, 1x32; W=3 2x8, 2x16, 1x16; W=7 1x8 (the default),
#           1x16; then bench rows (% of the floor) at the defaults for
#           W=5 and W=3, two rounds
#   yg      the 16-core CPU: 3D 512^3 `vector` bench rows at the default
#           against the work-group along y (one x block, TILE_WIDTH
#           consecutive rows: -D VEC_YGROUP=1 and HACK_YG=1, an
#           experiment), W=5 three rounds, W=3 two, interleaved; then
#           `clconv run` W=5 along y at tiles 8 and 32
#   tests   test_paths on the GPU ($TF: the filters, $TP: seconds each)
#   gpubench the GPU's direct targets as bench rows (`coarse`, default
#           tile, two rounds): 1D 2^26 W=55, 2D 8192^2 W=9, 3D 512^3 W=5,
#           2D 8192^2 W=3 u8 -> u8
#   cvt     integer loads and stores by bit arithmetic (dtype.clh's CLC_I2F,
#           CLC_F2I) against the conversion instructions (.cl-base/cl, the
#           kernels before), bench rows, two rounds interleaved: the GPU's
#           2D 8192^2 W=3 u8 -> u8, u16 -> u16, i16 -> i16 and u8 W=5
#           (`coarse`), the CPU's u8 -> u8 W=3 (`vector`); then test_dtype
#           on the GPU
#   u8cpu   the 16-core CPU's u8 -> u8 W=3 at 8192^2, two rounds: bench rows
#           of `vector` and `coarse`, base (.cl-base/cl: conversions) and
#           new (bit arithmetic on PoCL), then `cv2.filter2D` on CV_8U
#           (bench/peers.py)
#   align   the coarse kernels' alignment test (CLC_XV_ALIGNED) against the
#           row-length test alone (.cl-base/cl), H100 bench rows, two
#           rounds interleaved: 3D 512^3 W=5 and 2D 8192^2 W=3 u8 -> u8
#   cpubench bench rows of 3D 512^3 W=3, 5, 7 `vector` at the defaults,
#           two rounds, and 2D 8192^2 W=9
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths build/test_dtype
# cpu_run tag blocks planes mask: one `clconv run` row on the CPU.
cpu_run() {
    CLCONV_VECTOR_BLOCKS=$2 timeout 120 build/clconv run --device cpu \
        --dims 3 --size 512 --mask $4 --strategy vector --coarsen $3 \
        --seed 1 --reps 7 >"$R/$1.txt" 2>&1
    echo "$1: exit $? $(grep ' ms' "$R/$1.txt" | grep -o 'max_err.*' | tail -1)"
}
cpu_bench() {
    timeout 200 build/clconv bench --device cpu --dims $1 --size $2 \
        --mask $3 --strategy vector --tiles default --seed 1 --quiet \
        --json "$R/$4.json" >"$R/$4.txt" 2>&1
    echo "$4: exit $? $(tail -1 "$R/$4.txt")"
}
for step in ${STEPS:-cpu3d}; do
    case $step in
    cpu3d)
        for r in 1 2; do
            for c in "5 2 8" "5 2 16" "5 1 8" "5 1 16" "5 1 32" \
                "3 2 8" "3 2 16" "3 1 16" "7 1 8" "7 1 16"; do
                set -- $c
                cpu_run "cpu3d-w$1-b$2-c$3-r$r" $2 $3 $1
            done
            for w in 5 3; do
                cpu_bench 3 512x512x512 $w "cpu3d-bench-w$w-r$r"
            done
        done 2>&1 | tee "$R/cpu3d.log" ;;
    yg)
        for r in 1 2 3; do
            for w in 5 3; do
                [ $r = 3 ] && [ $w = 3 ] && continue
                cpu_bench 3 512x512x512 $w "yg-w$w-base-r$r"
                HACK_YG=1 CLCONV_BUILD_OPTIONS="-D VEC_YGROUP=1" \
                    cpu_bench 3 512x512x512 $w "yg-w$w-yg-r$r"
            done
        done 2>&1 | tee "$R/yg.log"
        for t in 8 32; do
            HACK_YG=1 CLCONV_BUILD_OPTIONS="-D VEC_YGROUP=1" timeout 120 \
                build/clconv run --device cpu --dims 3 --size 512 --mask 5 \
                --strategy vector --tile $t --seed 1 --reps 7 \
                >"$R/yg-run-t$t.txt" 2>&1
            echo "yg-run-t$t: exit $? $(grep ' ms' "$R/yg-run-t$t.txt" | grep -o 'max_err.*' | tail -1)"
        done 2>&1 | tee -a "$R/yg.log" ;;
    tests)
        gpu_tests ${TF:-'separable_cpu_fused*' 'separable_cpu_x_pass*'} ;;
    gpubench)
        for r in 1 2; do
            for p in "1 67108864 55 f32" "2 8192x8192 9 f32" \
                "3 512x512x512 5 f32" "2 8192x8192 3 u8"; do
                set -- $p
                timeout 200 build/clconv bench --device gpu --dims $1 \
                    --size $2 --mask $3 --dtype $4 --strategy coarse \
                    --tiles default --seed 1 --quiet \
                    --json "$R/gpubench-${1}d-w$3-$4-r$r.json" \
                    >"$R/gpubench-${1}d-w$3-$4-r$r.txt" 2>&1
                echo "gpubench ${1}D W=$3 $4 r$r: exit $? $(tail -1 "$R/gpubench-${1}d-w$3-$4-r$r.txt")"
            done
        done 2>&1 | tee "$R/gpubench.log" ;;
    cvt)
        for r in 1 2; do
            for p in "gpu coarse 3 u8" "gpu coarse 3 u16" "gpu coarse 3 i16" \
                "gpu coarse 5 u8" "cpu vector 3 u8"; do
                set -- $p
                for k in base new; do
                    e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                    LT=150 gpu_row cvt-$1-w$3-$4-$k-r$r $1 $e --dims 2 \
                        --size 8192x8192 --mask $3 --dtype $4 --strategy $2
                done
            done
        done 2>&1 | tee "$R/cvt.log"
        CLCONV_DEVICE=gpu timeout 250 build/test_dtype >"$R/test_dtype-gpu.log" 2>&1
        el "test_dtype on the GPU: exit $?"
        grep -E "PASSED|FAILED|ERROR" "$R/test_dtype-gpu.log" | head -5 ;;
    u8cpu)
        for r in 1 2; do
            for st in vector coarse; do
                for k in base new; do
                    e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                    tag=u8cpu-$st-$k-r$r
                    env $e timeout 150 build/clconv bench --device cpu --dims 2 \
                        --size 8192x8192 --mask 3 --dtype u8 --strategy $st \
                        --tiles default --seed 1 --quiet --json "$R/$tag.json" \
                        >"$R/$tag.txt" 2>&1
                    echo "$tag: exit $? $(tail -1 "$R/$tag.txt")"
                done
            done
            timeout 150 python3 bench/peers.py --dims 2 --size 8192x8192 \
                --mask 3 --dtype u8 --peers opencv-cpu --reps 10 --seed 1 \
                --json "$R/u8cpu-peers-r$r.json" >"$R/u8cpu-peers-r$r.txt" 2>&1
            echo "cv2 r$r: exit $? $(grep -i 'filter2D' "$R/u8cpu-peers-r$r.txt" | tail -1)"
        done 2>&1 | tee "$R/u8cpu.log" ;;
    align)
        for r in 1 2; do
            for p in "3 512x512x512 5 f32" "2 8192x8192 3 u8"; do
                set -- $p
                for k in base new; do
                    e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                    tag=align-${1}d-w$3-$4-$k-r$r
                    env $e timeout 150 build/clconv bench --device gpu \
                        --dims $1 --size $2 --mask $3 --dtype $4 \
                        --strategy coarse --tiles default --seed 1 --quiet \
                        --json "$R/$tag.json" >"$R/$tag.txt" 2>&1
                    echo "$tag: exit $? $(tail -1 "$R/$tag.txt")"
                done
            done
        done 2>&1 | tee "$R/align.log" ;;
    cpubench)
        for r in 1 2; do
            for w in 3 5 7; do
                cpu_bench 3 512x512x512 $w "cpubench-3d-w$w-r$r"
            done
            cpu_bench 2 8192x8192 9 "cpubench-2d-w9-r$r"
        done 2>&1 | tee "$R/cpubench.log" ;;
    esac
done
