#!/bin/bash
# Session 18's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   cpufuse the 16-core CPU (PoCL): 2D 8192^2 Gaussian W=31 and W=101
#           separable, x and y in two passes ($CLCONV_SEP_FUSE=0) against
#           fused (cl/sep_xy.cl) at XB,ROWS,CHUNK 4,8,256 (the default),
#           4,16,256 and 8,8,256 ($CLCONV_SEP_FUSE_GEOM; $FG others as
#           XB,ROWS,CHUNK[:XPAR], XPAR the x pass's order -D SEP_XPAR; $FGW
#           those of W=101), two
#           rounds; 3D 512^3 Gaussian W=15 two passes against fused, one
#           round; OpenCV's sepFilter2D beside them
#   cpurand the 16-core CPU: 2D 8192^2 random 31^2 and 63^2 (method auto)
#           and `cv2.filter2D` beside them
#   final   the 16-core CPU at the defaults, two rounds: 2D 8192^2
#           Gaussian W=31 and W=101 and 3D 512^3 W=15 (method auto), with
#           OpenCV's sepFilter2D beside them; the direct bench rows of 2D
#           8192^2 W=9 and 3D 512^3 W=5 (vector, default tile)
#   tests   test_paths on the GPU ($TF: the filters, $TP: seconds each)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
for step in ${STEPS:-cpufuse}; do
    case $step in
    cpufuse)
        for r in 1 2; do
            for w in 31 101; do
                DEV=cpu LT=100 gpu_large "cpufuse-w$w-two-r$r" CLCONV_SEP_FUSE=0 -- \
                    --dims 2 --size 8192x8192 --mask $w --kind gaussian \
                    --method separable --reps 5
                fg=${FG:-4,8,256 4,16,256 8,8,256}
                [ $w = 101 ] && fg=${FGW:-$fg}
                for g in $fg; do
                    IFS=: read -r geom xpar <<<"$g"
                    DEV=cpu LT=100 gpu_large "cpufuse-w$w-${geom//,/-}-x${xpar:-d}-r$r" \
                        CLCONV_SEP_FUSE_GEOM=$geom \
                        "CLCONV_BUILD_OPTIONS=${xpar:+-D SEP_XPAR=$xpar}" -- \
                        --dims 2 --size 8192x8192 --mask $w --kind gaussian \
                        --method separable --reps 5
                done
            done
        done 2>&1 | tee "$R/cpufuse.log"
        for f in 0 1; do
            DEV=cpu LT=150 gpu_large "cpufuse-3d-w15-fuse$f" CLCONV_SEP_FUSE=$f -- \
                --dims 3 --size 512x512x512 --mask 15 --kind gaussian \
                --method separable --reps 5
        done 2>&1 | tee -a "$R/cpufuse.log"
        gpu_peers cpufuse cv2-sep gaussian ;;
    cpurand)
        for w in 31 63; do
            DEV=cpu LT=200 gpu_large "cpurand-w$w" X=1 -- --dims 2 \
                --size 8192x8192 --mask $w --kind random --method auto --reps 3
        done 2>&1 | tee "$R/cpurand.log"
        PR=3 PT=250 gpu_peers cpurand cv2-filter2d random ;;
    final)
        for r in 1 2; do
            for p in "2 8192x8192 31" "2 8192x8192 101" "3 512x512x512 15"; do
                set -- $p
                DEV=cpu LT=150 gpu_large "final-${1}d-w$3-r$r" X=1 -- --dims $1 \
                    --size $2 --mask $3 --kind gaussian --method auto --reps 5
            done
        done 2>&1 | tee "$R/final.log"
        gpu_peers final cv2-sep gaussian
        for r in 1 2; do
            for p in "2 8192x8192 9" "3 512x512x512 5"; do
                set -- $p
                timeout 200 build/clconv bench --device cpu --dims $1 --size $2 \
                    --mask $3 --strategy vector --tiles default --seed 1 --quiet \
                    --json "$R/final-direct-${1}d-w$3-r$r.json" \
                    >"$R/final-direct-${1}d-w$3-r$r.txt" 2>&1
                echo "direct ${1}D W=$3 r$r: exit $? $(tail -1 "$R/final-direct-${1}d-w$3-r$r.txt")"
            done
        done 2>&1 | tee "$R/final-direct.log" ;;
    tests)
        gpu_tests ${TF:-'separable_cpu_fused*'} ;;
    esac
done
