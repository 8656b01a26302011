#!/bin/bash
# Session 20's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   yz      3D `coarse`: work-groups inside along x but at the y or z
#           border run the x-interior march at folded rows and planes
#           (new) against the checked march (.cl-base/cl, the kernels
#           before): bench rows (% of the floor) of 512^3 W=5 at the
#           defaults, two rounds interleaved; then `clconv run` at 32
#           planes a work-item, once each
#   tests   test_paths direct_3d_coarse_columns* on the GPU
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
for step in ${STEPS:-yz}; do
    case $step in
    yz)
        for r in 1 2; do
            for k in base new; do
                e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                tag=yz-bench-w5-$k-r$r
                env $e timeout 100 build/clconv bench --device gpu --dims 3 \
                    --size 512x512x512 --mask 5 --strategy coarse \
                    --tiles default --seed 1 --quiet \
                    --json "$R/$tag.json" >"$R/$tag.txt" 2>&1
                echo "$tag: exit $? $(tail -1 "$R/$tag.txt")"
            done
        done 2>&1 | tee "$R/yz.log"
        el "bench rows done"
        for k in base new; do
            e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
            tag=yz-run-c32-$k
            env $e timeout 100 build/clconv run --device gpu --dims 3 \
                --size 512 --mask 5 --strategy coarse --coarsen 32 \
                --seed 1 --reps 10 >"$R/$tag.txt" 2>&1
            echo "$tag: exit $? $(grep ' ms' "$R/$tag.txt" | grep -o 'max_err.*' | tail -1)"
        done 2>&1 | tee -a "$R/yz.log" ;;
    tests)
        gpu_tests 'direct_3d_coarse_columns*' ;;
    esac
done
