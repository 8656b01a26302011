#!/bin/bash
# Session 12's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs and JSON under $OUT/r, returned as
# one tarball. "base" rows run the kernels of .cl-base/cl (the commit
# before the change, carried), "new" rows the working tree's cl/, with
# the same binary ($CLCONV_KERNEL_DIR), in interleaved rounds ($ROUNDS,
# default 2):
#   tests  on the GPU: test_paths (the separable passes in both forms),
#          test_matrix's 1D coarse groups, test_counted_loads
#   ab1d   1D 2^26 W=5, 9, 55 coarse defaults (new: outputs stored through
#          a local staging row, PERF.md item 36), base against new
#   absep  2D 8192^2 Gaussian W=31 and 101, method separable (new: the x
#          pass from a register window, staged stores, taps unrolled;
#          item 37), base against new
#   large  the whole large suite on the GPU (new), and the 3D and 1D peers
#   large2 the large suite's 3D and 1D problems, method auto
#   sweep12 GPU separable: outputs per work-item at 2D W=101, 1D W=1001
#          one pass against the FFT, verified runs of wide masks
#   final12 the GPU x pass at 16 outputs per work-item against 8
#   cpusep the CPU's separable 2D rows beside cv2.sepFilter2D
#   cpu    the 16-core CPU (PoCL): full-suite rows 2D 8192^2 W=9 and 3D
#          512^3 W=5 (vector, the CPU default), and the large suite's 2D
#          problems against cv2.sepFilter2D / cv2.filter2D
set -u
. scripts/gpu-env.sh
gpu_call_begin
make -j16 SKIP_DEPS=1 all build/test_paths build/test_matrix build/test_counted_loads >"$R/build.log" 2>&1 \
    || { tail -30 "$R/build.log"; exit 1; }
build/clconv devices | tee "$R/devices.txt"
el "built"
NEW=$PWD/cl BASE=$PWD/.cl-base/cl
PY=${PYTHON:-python3}
kdir() { [ "$1" = base ] && echo "$BASE" || echo "$NEW"; }
# bench KDIR-tag dims size mask tag [env...]: a coarse full-suite row
bench() {
    local k=$1 d=$2 sz=$3 w=$4 tag=$5; shift 5
    env CLCONV_KERNEL_DIR=$(kdir $k) "$@" timeout 90 build/clconv bench --device gpu \
        --dims $d --size $sz --mask $w --strategy coarse --tiles default \
        --seed 1 --quiet --json "$R/$tag-$k.json" >"$R/$tag-$k.txt" 2>&1
    echo "$k $tag $*: exit $? $(tail -1 "$R/$tag-$k.txt")"
}
# large KDIR-tag device tag args...: one bench --suite large row set
large() {
    local k=$1 dev=$2 tag=$3; shift 3
    CLCONV_KERNEL_DIR=$(kdir $k) timeout ${LT:-120} build/clconv bench --suite large \
        --device $dev --seed 1 "$@" >"$R/$tag-$k.txt" 2>&1
    echo "$k $tag: exit $?"; grep -v "warning" "$R/$tag-$k.txt" | tail -4
}
for step in ${STEPS:-tests ab1d absep}; do
    case $step in
    tests)
        CLCONV_DEVICE=gpu timeout ${TP:-240} build/test_paths >"$R/test_paths-gpu.log" 2>&1
        el "test_paths on the GPU: exit $?"; grep -E "PASSED|FAILED|LANES" "$R/test_paths-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv1d*coarse*' timeout 150 \
            build/test_matrix >"$R/test_matrix-1dcoarse-gpu.log" 2>&1
        el "test_matrix 1D coarse on the GPU: exit $?"; tail -2 "$R/test_matrix-1dcoarse-gpu.log"
        CLCONV_DEVICE=gpu timeout 90 build/test_counted_loads >"$R/test_counted_loads-gpu.log" 2>&1
        el "test_counted_loads on the GPU: exit $?"; tail -1 "$R/test_counted_loads-gpu.log" ;;
    ab1d)
        for r in $(seq 1 ${ROUNDS:-2}); do
            for w in ${W1D:-55 5 9}; do
                for k in base new; do bench $k 1 67108864 $w "1d-w$w-r$r"; done
            done
        done 2>&1 | tee "$R/ab1d.log"; el "ab1d" ;;
    absep)
        for r in $(seq 1 ${ROUNDS:-2}); do
            for w in ${WSEP:-101 31}; do
                for k in base new; do
                    large $k gpu "sep-w$w-r$r" --dims 2 --size 8192x8192 --mask $w \
                        --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/absep.log"; el "absep" ;;
    large)
        LT=300 large new gpu bench-large-gpu --reps 5 --max-ms 500 --json | tee "$R/large.log"
        el "large suite"
        OPENCV_OPENCL_DEVICE=:GPU:0 timeout 150 "$PY" bench/peers_large.py --suite large \
            --dims 1,3 --peers cupyx-sep,cupyx-gauss,cupyx-fft,torch --seed 1 --reps 5 \
            --max-s 3 --json "$R/peers-large-gpu-1d3d.json" 2>"$R/peers-large-gpu-1d3d.txt"
        el "peers 1D 3D: exit $?"; cat "$R/peers-large-gpu-1d3d.txt" | tail -12 ;;
    large2)
        # the large suite's 3D and 1D problems, method auto only (the
        # whole suite's direct rows of 2D W=101 took its 300 s in call 2)
        for p in "3 512x512x512 15 gaussian" "3 512x512x512 15 random" "1 67108864 1001 random"; do
            set -- $p
            LT=70 large new gpu "large-${1}d-$4-w$3" --dims $1 --size $2 --mask $3 \
                --kind $4 --method auto --reps 5
        done 2>&1 | tee "$R/large2.log"; el "large2" ;;
    cpu)
        for p in "2 8192x8192 9" "3 512x512x512 5"; do
            set -- $p
            timeout 150 build/clconv bench --device cpu --dims $1 --size $2 --mask $3 \
                --strategy vector --tiles default --seed 1 --quiet \
                --json "$R/cpu-${1}d-w$3.json" >"$R/cpu-${1}d-w$3.txt" 2>&1
            el "cpu ${1}D W=$3: exit $? $(tail -1 "$R/cpu-${1}d-w$3.txt")"
        done
        for p in "31 gaussian separable" "101 gaussian separable" "31 random fft" "63 random fft"; do
            set -- $p
            LT=100 large new cpu "cpu-large-$2-w$1" --dims 2 --size 8192x8192 --mask $1 \
                --kind $2 --method $3 --reps 3
        done 2>&1 | tee "$R/cpu-large.log"
        timeout 150 "$PY" bench/peers_large.py --suite large --dims 2 \
            --peers cv2-sep,cv2-filter2d --seed 1 --reps 3 --max-s 3 \
            --json "$R/peers-large-cpu-2d.json" 2>"$R/peers-large-cpu-2d.txt"
        el "cpu peers: exit $?"; tail -8 "$R/peers-large-cpu-2d.txt" ;;
    sweep12)
        # the GPU separable passes' outputs per work-item ($CLCONV_SEP_COARSEN
        # X,Y) at 2D W=101, 1D W=1001 as one pass (taps in rolled blocks)
        # against the FFT, and verified runs of the blocked x pass
        for cx in ${SWEEPSEP:-"8,16" "16,16" "4,16" "8,32" "8,8"}; do
            CLCONV_SEP_COARSEN=$cx LT=40 large new gpu "sweep-w101-c$cx" --dims 2 \
                --size 8192x8192 --mask 101 --kind gaussian --method separable --reps 10
        done 2>&1 | tee "$R/sweep12.log"
        for cx in "8,16" "16,16" "4,16"; do
            CLCONV_SEP_COARSEN=$cx LT=40 large new gpu "w1001-sep-c$cx" --dims 1 \
                --size 67108864 --mask 1001 --method separable --reps 10
        done 2>&1 | tee -a "$R/sweep12.log"
        LT=40 large new gpu "w1001-fft" --dims 1 --size 67108864 --mask 1001 \
            --method fft --reps 10 2>&1 | tee -a "$R/sweep12.log"
        for p in "1 1000000 1001 reflect" "2 3000x40 523x7 wrap" "1 77777 601 constant"; do
            set -- $p
            timeout 40 build/clconv run --dims $1 --size $2 --mask $3 --mode $4 \
                --method separable --device gpu --reps 3 --seed 1 2>&1 | tail -1
        done 2>&1 | tee -a "$R/sweep12.log"; el "sweep12" ;;
    final12)
        # the GPU x pass at 16 outputs per work-item (the new default)
        # against 8 at W=31 and W=101; 1D W=55 one pass against coarse
        for r in 1 2; do
            for cx in "8,16" "16,16"; do
                for w in 31 101; do
                    CLCONV_SEP_COARSEN=$cx LT=40 large new gpu "final-w$w-c$cx-r$r" --dims 2 \
                        --size 8192x8192 --mask $w --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/final12.log"
        LT=40 large new gpu "final-w1001-auto" --dims 1 --size 67108864 --mask 1001 \
            --method separable --reps 10 2>&1 | tee -a "$R/final12.log"
        LT=60 large new gpu "final-w55-1d" --dims 1 --size 67108864 --mask 55 \
            --reps 10 --max-ms 100 2>&1 | tee -a "$R/final12.log"; el "final12" ;;
    cpusep)
        # the CPU's separable rows after the passes' CPU changes, beside
        # OpenCV in the same call
        for w in 31 101; do
            LT=100 large new cpu "cpusep-gaussian-w$w" --dims 2 --size 8192x8192 --mask $w \
                --kind gaussian --method separable --reps 5
        done 2>&1 | tee "$R/cpusep.log"
        timeout 100 "$PY" bench/peers_large.py --suite large --dims 2 \
            --peers cv2-sep --seed 1 --reps 5 --max-s 3 \
            --json "$R/peers-cpusep.json" 2>"$R/peers-cpusep.txt"
        el "cpu sep peers: exit $?"; tail -3 "$R/peers-cpusep.txt"
        for w in 31 101; do
            LT=100 large new cpu "cpusep2-gaussian-w$w" --dims 2 --size 8192x8192 --mask $w \
                --kind gaussian --method separable --reps 5
        done 2>&1 | tee -a "$R/cpusep.log" ;;
    esac
    finish
done
el "done"
