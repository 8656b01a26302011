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
#   zin  bench rows, new against base (.cl-base/cl: the kernels of
#        7667070), two rounds: 3D coarse at the defaults, constant mode
#        at 512^3 W=5, 3, 7 and 256^3 W=5 (gpu_rows3d), and 512^3 W=5 in
#        the reflect mode
#   prof Nsight Compute on the tree's 3D coarse kernel at 512^3 W=5 (the
#        defaults: extents baked), through scripts/ncu_kernels.py: details,
#        instruction mix, the SASS with each instruction's executed count
#        (prof-sass.csv.gz), and ptxas's static SASS (prof-sass.txt)
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
    zin)
        gpu_rows3d zin X=1 512x512x512:5 512x512x512:3 512x512x512:7 \
            256x256x256:5
        for r in 1 2; do
            for k in base new; do
                e=X=1; [ $k = base ] && e="CLCONV_KERNEL_DIR=$PWD/.cl-base/cl"
                gpu_row reflect-512-w5-$k-r$r gpu "$e" --dims 3 \
                    --size 512x512x512 --mask 5 --strategy coarse --mode reflect
            done
        done 2>&1 | tee "$R/reflect.log" ;;
    prof)
        NCU=/usr/local/cuda/bin/ncu
        export XDG_CACHE_HOME=/tmp/xc-prof
        timeout 100 build/clconv run --device gpu --dims 3 --size 512 \
            --mask 5 --strategy coarse --seed 1 --reps 3 >"$R/prof-run.txt" 2>&1
        tail -1 "$R/prof-run.txt"
        NCU_ONLY=conv3d_coarse timeout 240 $NCU --set full -k regex:conv3d \
            -c 1 -o "$R/prof" -f python3 scripts/ncu_kernels.py \
            $XDG_CACHE_HOME 512 512 512 >"$R/prof-ncu.log" 2>&1
        el "ncu: exit $?"
        $NCU --import "$R/prof.ncu-rep" --page details >"$R/prof-details.txt" 2>&1
        grep -E "Duration|Executed Instructions  |Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per|No Eligible|Warp Cycles Per Issued|Block Limit|Waves Per SM" \
            "$R/prof-details.txt" | head -30
        $NCU --import "$R/prof.ncu-rep" --page source --print-source sass \
            --csv 2>/dev/null >"$R/prof-sass.csv"
        python3 scripts/ncu_mix.py <"$R/prof-sass.csv" >"$R/prof-mix.txt" 2>&1
        gzip -9 "$R/prof-sass.csv"
        head -24 "$R/prof-mix.txt"
        $NCU --import "$R/prof.ncu-rep" --page raw --csv >"$R/prof-raw.csv" 2>&1
        /usr/local/cuda/bin/ptxas -arch=sm_90 -O3 /tmp/ncu_conv3d_coarse.ptx \
            -o /tmp/c3.cubin && /usr/local/cuda/bin/cuobjdump -sass /tmp/c3.cubin \
            >"$R/prof-sass.txt" 2>&1
        el "sass: $(grep -c FFMA "$R/prof-sass.txt") FFMA lines of $(wc -l <"$R/prof-sass.txt")"
        rm -f "$R/prof.ncu-rep" ;;
    tests)
        TP=300 gpu_tests 'direct_3d_coarse*'
        CLCONV_DEVICE=gpu timeout 200 build/test_mask_mode \
            >"$R/test_mask_mode-gpu.log" 2>&1
        el "test_mask_mode on the GPU: exit $?" ;;
    esac
done
