#!/bin/bash
# Session 13's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs and JSON under $OUT/r, returned as
# one tarball. "base" rows run the kernels of .cl-base/cl (the commit
# before the change, carried), "new" rows the working tree's cl/, with
# the same binary ($CLCONV_KERNEL_DIR):
#   tests  on the GPU: test_paths' 1D coarse marches, test_matrix's 1D
#          coarse groups, test_counted_loads
#   ab1d   1D 2^26 W=55 (two rounds), 5 and 9: the coarse kernel's queue
#          march (1) against its window march (2, PERF.md item 39)
#   sw1d   1D 2^26 W=55 window march at 4, 8, 16 and 32 outputs per
#          work-item (clconv run)
#   absep  2D 8192^2 Gaussian W=101 and 31, method separable: the x pass
#          through the shared window march, base against new
#   w1001  1D 2^26 random W=1001: auto (the recounted FFT model) and
#          direct, separable
#   spans2 W=55 at 1-32 spans, queue and window; W=17 and 31 at 1 and 8
#   spans  1D 2^26 W=55, 5 and 9, coarse defaults: 1 span per work-group
#          against 2, 4 and 8, the next span's tile prefetched (item 40)
#   final13 the new defaults: 1D W=55 (8 spans), W=1001 direct and
#          separable, W=55 separable, W=17 at 4 and 8 outputs a work-item
#   final13b 1D W=17 default, W=31 at 4 and 8, W=1001 auto
#   cpu1d  the 16-core CPU (PoCL): 1D 2^26 W=55 coarse, queue against window
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths build/test_matrix build/test_counted_loads
NEW=$PWD/cl BASE=$PWD/.cl-base/cl
kdir() { [ "$1" = base ] && echo "$BASE" || echo "$NEW"; }
# bench1d dev march W tag: a coarse full-suite row of 1D 2^26 ($SPANS
# spans per work-group where set)
bench1d() {
    local dev=$1 m=$2 w=$3 tag=$4
    CLCONV_KERNEL_DIR=$NEW CLCONV_COARSE_MARCH=$m CLCONV_COARSE_SPANS=${SPANS:-} \
        timeout ${BT:-90} build/clconv bench \
        --device $dev --dims 1 --size 67108864 --mask $w --strategy coarse \
        --tiles default --seed 1 --quiet --json "$R/$tag-m$m.json" >"$R/$tag-m$m.txt" 2>&1
    echo "march ${m:-default} $tag: exit $? $(tail -1 "$R/$tag-m$m.txt")"
}
# large KDIR-tag device tag args...: one bench --suite large row set
large() {
    local k=$1 dev=$2 tag=$3; shift 3
    CLCONV_KERNEL_DIR=$(kdir $k) timeout ${LT:-120} build/clconv bench --suite large \
        --device $dev --seed 1 "$@" >"$R/$tag-$k.txt" 2>&1
    echo "$k $tag: exit $?"; grep -v "warning" "$R/$tag-$k.txt" | tail -4
}
for step in ${STEPS:-tests ab1d sw1d absep w1001}; do
    case $step in
    tests)
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER='*1d_coarse*' timeout 150 build/test_paths \
            >"$R/test_paths-1dcoarse-gpu.log" 2>&1
        el "test_paths 1D coarse marches on the GPU: exit $?"; tail -1 "$R/test_paths-1dcoarse-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv1d*coarse*' timeout 150 \
            build/test_matrix >"$R/test_matrix-1dcoarse-gpu.log" 2>&1
        el "test_matrix 1D coarse on the GPU: exit $?"; tail -2 "$R/test_matrix-1dcoarse-gpu.log"
        CLCONV_DEVICE=gpu timeout 90 build/test_counted_loads >"$R/test_counted_loads-gpu.log" 2>&1
        el "test_counted_loads on the GPU: exit $?"; tail -1 "$R/test_counted_loads-gpu.log" ;;
    ab1d)
        for p in "55 r1" "5 r1" "9 r1" "55 r2"; do
            set -- $p
            for m in 1 2; do bench1d gpu $m $1 "1d-w$1-$2"; done
        done 2>&1 | tee "$R/ab1d.log"; el "ab1d" ;;
    sw1d)
        for c in ${SW:-16 32 4 8}; do
            CLCONV_KERNEL_DIR=$NEW timeout 60 build/clconv run --device gpu --dims 1 \
                --size 67108864 --mask 55 --strategy coarse --coarsen $c --reps 10 \
                --seed 1 2>&1 | grep -E "coarse|error" | tail -1
        done 2>&1 | tee "$R/sw1d.log"; el "sw1d" ;;
    absep)
        for w in ${WSEP:-101 31}; do
            for k in base new; do
                large $k gpu "sep-w$w" --dims 2 --size 8192x8192 --mask $w \
                    --kind gaussian --method separable --reps 10
            done
        done 2>&1 | tee "$R/absep.log"; el "absep" ;;
    w1001)
        for m in auto separable; do
            LT=60 large new gpu "w1001-$m" --dims 1 --size 67108864 --mask 1001 \
                --method $m --reps 10
        done 2>&1 | tee "$R/w1001.log"; el "w1001" ;;
    spans)
        for r in 1 2; do
            for w in ${WSP:-55 5 9}; do
                for sp in 1 ${SPL:-2 4 8}; do
                    [ $w != 55 ] && [ $sp = 2 -o $sp = 8 ] && continue
                    SPANS=$sp bench1d gpu 1 $w "spans-w$w-s$sp-r$r"
                done
            done
        done 2>&1 | tee "$R/spans.log"; el "spans" ;;
    spans2)
        # W=55: more spans, and the window march with spans; where spans
        # start to pay (W=17, 31); W=1001 direct at every tile
        for p in "55 1 1" "55 1 8" "55 1 16" "55 1 32" "55 2 8" "55 2 16" \
                 "17 1 1" "17 1 8" "31 1 1" "31 1 8" "55 1 16"; do
            set -- $p
            SPANS=$3 bench1d gpu $2 $1 "spans2-w$1-s$3"
        done 2>&1 | tee "$R/spans2.log"
        CLCONV_KERNEL_DIR=$NEW timeout 120 build/clconv bench --device gpu --dims 1 \
            --size 67108864 --mask 1001 --strategy coarse --seed 1 --quiet \
            --json "$R/w1001-tiles.json" >"$R/w1001-tiles.txt" 2>&1
        el "w1001 tiles: exit $?"; tail -5 "$R/w1001-tiles.txt"; el "spans2" ;;
    final13)
        # the new defaults: 1D W=55 (8 spans), W=1001 direct (256 wide)
        # beside the separable pass; W=17 at 4 and 8 outputs a work-item
        {
        bench1d gpu "" 55 final-w55
        for m in direct separable; do
            LT=60 large new gpu "final-w1001-$m" --dims 1 --size 67108864 --mask 1001 \
                --method $m --reps 10
        done
        LT=60 large new gpu "final-w55-separable" --dims 1 --size 67108864 --mask 55 \
            --method separable --reps 10
        for c in 4 8; do
            CLCONV_KERNEL_DIR=$NEW timeout 60 build/clconv run --device gpu --dims 1 \
                --size 67108864 --mask 17 --strategy coarse --coarsen $c --reps 10 \
                --seed 1 2>&1 | grep -E "coarse|error" | tail -1
        done
        bench1d gpu "" 55 final-w55-again
        } 2>&1 | tee "$R/final13.log"; el "final13" ;;
    final13b)
        # 1D W=17 at its new default (4 outputs a work-item), W=31 at 4
        # and 8, W=1001 auto (one separable pass on GPUs)
        {
        bench1d gpu "" 17 final-w17
        for c in 4 8; do
            CLCONV_KERNEL_DIR=$NEW timeout 60 build/clconv run --device gpu --dims 1 \
                --size 67108864 --mask 31 --strategy coarse --coarsen $c --reps 10 \
                --seed 1 2>&1 | grep -E "coarse|error" | tail -1
        done
        LT=60 large new gpu "final-w1001-auto" --dims 1 --size 67108864 --mask 1001 \
            --method auto --reps 10
        } 2>&1 | tee "$R/final13b.log"; el "final13b" ;;
    cpu1d)
        for m in 1 2; do BT=150 bench1d cpu $m 55 "cpu-1d-w55"; done 2>&1 | tee "$R/cpu1d.log"
        el "cpu1d" ;;
    esac
    finish
done
el "done"
