#!/bin/bash
# Session 21's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   ab      3D `coarse` 512^3 random W=5 through `clconv run` (every
#           element verified, median of 10 launches) in each of $CONFIGS
#           ("KERNELS:PLANES:GZ[:SIZE[:W[:ENV[:ARGS]]]] ...": KERNELS new, the tree's,
#           base, .cl-base/cl, the commit's before, or K, .cl-K/cl; PLANES a
#           work-item; GZ work-items along z a work-group,
#           $CLCONV_COARSE_GZ; SIZE 512 and W 5 unless given; ENV more
#           settings and ARGS more `run` arguments, each with + for
#           spaces), $ROUNDS rounds
#           (default 2)
#   prof    Nsight Compute on the base kernel at $PROF planes (default "16
#           64") and the new one at $PROFN (default 64) with $PROFGZ
#           work-items along z (default 1): each launch's details in
#           prof-KERNELS-details.txt (scripts/ncu_kernels.py)
#   rows    bench rows (% of the floor; median of 10 launches, sampled
#           outputs verified) of 3D coarse at the defaults, 512^3 W=5
#           and W=3, 256^3 W=5: new against base (the commit's kernels
#           at one work-item along z a work-group, as before), two rounds
#   targets bench rows of issue 17's direct targets at the defaults, once:
#           1D 2^26 W=55, 2D 8192^2 W=9 and u8 -> u8 W=3, 3D 512^3 W=5
#   tests   test_paths direct_3d_coarse* on the GPU
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
NCU=/usr/local/cuda/bin/ncu
run3d() { # tag kernel-dir planes [size [mask [run args...]]]
    local tag=$1 planes=$3 size=${4:-512} w=${5:-5}
    shift 5 2>/dev/null || shift $#
    timeout 100 build/clconv run --device gpu --dims 3 --size $size \
        --mask $w --strategy coarse --coarsen $planes --seed 1 --reps 10 \
        "$@" >"$R/$tag.txt" 2>&1
    echo "$tag: exit $? $(grep -o 'max_err.*' "$R/$tag.txt" | tail -1)"
}
for step in ${STEPS:-ab tests}; do
    case $step in
    ab)
        for r in $(seq ${ROUNDS:-2}); do
            for cf in ${CONFIGS:-base:16:1 new:16:1 new:32:1 new:64:1}; do
                IFS=: read -r k c gz sz w ev av <<<"$cf"
                d=$PWD/cl; [ $k != new ] && d=$PWD/.cl-$k/cl
                x=$(printf %s "${ev#CLCONV_}$av" | tr -c 'A-Za-z0-9' -)
                (
                    [ -n "$ev" ] && export ${ev//+/ }
                    CLCONV_COARSE_GZ=$gz CLCONV_KERNEL_DIR=$d \
                        run3d ab-${sz:-512}-w${w:-5}-c$c-gz$gz${x:+-$x}-$k-r$r \
                        $d $c ${sz:-512} ${w:-5} ${av//+/ }
                )
            done
        done 2>&1 | tee "$R/ab.log"
        el "ab done" ;;
    prof)
        for k in base new; do
            export XDG_CACHE_HOME=/tmp/xc-prof-$k
            d=$PWD/cl; cs=${PROFN:-64}
            [ $k = base ] && d=$PWD/.cl-base/cl && cs=${PROF:-16 64}
            gz=1; [ $k = new ] && gz=${PROFGZ:-1}
            for c in $cs; do
                CLCONV_COARSE_GZ=$gz CLCONV_KERNEL_DIR=$d \
                    run3d prof-c$c-gz$gz-$k $d $c 128
            done
            NCU_ONLY=conv3d_coarse timeout 200 $NCU --set full \
                -k regex:conv3d -o "$R/prof-$k" -f python3 \
                scripts/ncu_kernels.py $XDG_CACHE_HOME 512 512 512 \
                >"$R/prof-$k-ncu.log" 2>&1
            el "ncu $k: exit $?"; grep "^conv3d" "$R/prof-$k-ncu.log"
            $NCU --import "$R/prof-$k.ncu-rep" --page details \
                >"$R/prof-$k-details.txt" 2>&1
            grep -E "conv3d_coarse|Duration|Executed Instructions  |Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Registers Per|No Eligible|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|DRAM Throughput" \
                "$R/prof-$k-details.txt" | head -80
            $NCU --import "$R/prof-$k.ncu-rep" --page source --print-source sass \
                --csv 2>/dev/null | python3 scripts/ncu_mix.py >"$R/prof-$k-mix.txt" 2>&1
            head -14 "$R/prof-$k-mix.txt"
        done ;;
    rows)
        gpu_rows3d rows CLCONV_COARSE_GZ=1 512x512x512:5 512x512x512:3 256x256x256:5 ;;
    targets)
        gpu_targets ;;
    tests)
        TP=300 gpu_tests 'direct_3d_coarse*' ;;
    esac
done
