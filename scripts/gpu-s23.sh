#!/bin/bash
# Session 23's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   ab   3D `coarse` random masks through `clconv run` (every element
#        verified, median of 10 launches) in each of $CONFIGS
#        ("KERNELS:SIZE:W:PLANES:EXP ..."; KERNELS new, the tree's, or
#        base, .cl-base/cl, the commit's before; EXP the value of the
#        kernel's -D CLC_EXP, empty for none, with -D CLC_EXP_N=SIZE:
#        calls 1 and 2 ran the tree with
#        bench/results/2026-11-27-h100-s23/exp-clc-exp.patch applied),
#        $ROUNDS rounds (default 2), 2 work-items along z
#   cpu  bench rows of 3D 512^3 W=5 on the CPU (PoCL): vector (the
#        default), coarse, coarse with 2 work-items along z; two rounds
#   rows bench rows of 3D coarse at the defaults on the GPU, 512^3 W=5
#        and W=3, 256^3 W=5: new against base, two rounds
#   targets bench rows of issue 17's direct targets at the defaults,
#        once: 1D 2^26 W=55, 2D 8192^2 W=9 and u8 -> u8 W=3, 3D 512^3 W=5
#   tests test_paths direct_3d_coarse* and test_mask_mode on the GPU
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths build/test_mask_mode
run3d() { # tag kernel-dir size mask planes [env...]
    local tag=$1 d=$2 size=$3 w=$4 planes=$5
    shift 5
    env "$@" CLCONV_KERNEL_DIR=$d CLCONV_COARSE_GZ=2 timeout 100 \
        build/clconv run --device gpu --dims 3 --size $size --mask $w \
        --strategy coarse --coarsen $planes --seed 1 --reps 10 \
        >"$R/$tag.txt" 2>&1
    echo "$tag: exit $? $(grep -o 'max_err.*' "$R/$tag.txt" | tail -1)"
}
for step in ${STEPS:-ab tests}; do
    case $step in
    ab)
        for r in $(seq ${ROUNDS:-2}); do
            for cf in ${CONFIGS:-base:512:5:32: new:512:5:32:0 new:512:5:32:1 new:512:5:32:3 new:512:5:32:4 new:512:5:32:7}; do
                IFS=: read -r k sz w c x <<<"$cf"
                d=$PWD/cl; [ $k = base ] && d=$PWD/.cl-base/cl
                ev=(X=1)
                [ -n "$x" ] && ev=("CLCONV_BUILD_OPTIONS=-DCLC_EXP=$x -DCLC_EXP_N=$sz")
                run3d ab-$sz-w$w-c$c-x${x:-none}-$k-r$r $d $sz $w $c "${ev[@]}"
            done
        done 2>&1 | tee "$R/ab.log"
        el "ab done" ;;
    cpu)
        for r in 1 2; do
            for s in vector coarse coarse-gz2; do
                e=X=1; [ $s = coarse-gz2 ] && e=CLCONV_COARSE_GZ=2
                LT=150 gpu_row cpu-512-w5-$s-r$r cpu "$e" --dims 3 \
                    --size 512x512x512 --mask 5 --strategy ${s%-gz2}
            done
        done 2>&1 | tee "$R/cpu.log"
        el "cpu done" ;;
    rows)
        gpu_rows3d rows X=1 512x512x512:5 512x512x512:3 256x256x256:5 ;;
    targets)
        gpu_targets ;;
    tests)
        TP=300 gpu_tests 'direct_3d_coarse*'
        CLCONV_DEVICE=gpu timeout 200 build/test_mask_mode \
            >"$R/test_mask_mode-gpu.log" 2>&1
        el "test_mask_mode on the GPU: exit $?" ;;
    esac
done
