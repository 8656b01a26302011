#!/bin/bash
# Session 11's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs and JSON under $OUT/r, returned as
# one tarball. "base" rows run the kernels of .cl-base/cl (the commit
# before the change, carried), "new" rows the working tree's cl/, with
# the same binary ($CLCONV_KERNEL_DIR), in interleaved rounds ($ROUNDS,
# default 3):
#   tests  on the GPU: test_matrix_dtype's XV groups (the halo from the
#          neighbouring vectors), test_matrix's 3D and 2D coarse groups
#   u8     2D 8192^2 u8 -> u8 coarse defaults at masks 3 and 5 (XV 8 and
#          4: halo from vectors in new), base against new
#   w9     2D 8192^2 W=9 float32 coarse: the default (XV 1) and XV 2, 4
#          (4: halo from vectors in new), base against new; then a sweep
#          of XV 2 and 4 over tiles, rows per work-item and heights
#   w9b    2D 8192^2 W=9 float32: XV 4 and 8 at fewer rows per
#          work-item and taller work-groups (clconv run)
#   ab3d   3D 512^3 W=5 coarse default (16 planes of 2 rows: the rolled
#          march, peeled in new), base against new; then planes x rows x
#          heights on new ($SWEEP3D)
#   tests3d test_matrix's 3D coarse groups on the GPU
#   x3d    3D W=5 with XV columns per work-item: a sweep at 512x512x128
#          ($X3D), bench rows at 512^3, the 2D defaults again, and the XV
#          test groups (2D and 3D) on the GPU
#   final  the new float32 defaults at 2D W=9 and W=7 (4 columns, 4 rows,
#          32 x 8) against one column; test_variants, test_matrix's 2D
#          coarse groups and test_matrix_dtype's XV=4 group on the GPU
#   w55    1D 2^26 W=55 coarse: outputs per work-item 8 (default) to 64
#          over tiles 64-256 (clconv run), then bench rows
set -u
. scripts/gpu-env.sh
gpu_call_begin
make -j16 SKIP_DEPS=1 all build/test_matrix_dtype build/test_matrix build/test_variants >"$R/build.log" 2>&1 \
    || { tail -30 "$R/build.log"; exit 1; }
build/clconv devices | tee "$R/devices.txt"
el "built"
NEW=$PWD/cl BASE=$PWD/.cl-base/cl
# bench KDIR-tag dims size mask dtype out-dtype tag [env...]
bench() {
    local k=$1 d=$2 sz=$3 w=$4 dt=$5 od=$6 tag=$7; shift 7
    local kd=$NEW; [ "$k" = base ] && kd=$BASE
    env CLCONV_KERNEL_DIR=$kd "$@" timeout 90 build/clconv bench --device gpu --dims $d \
        --size $sz --mask $w --strategy coarse --tiles default \
        --dtype $dt --out-dtype $od --seed 1 --quiet \
        --json "$R/$tag-$k.json" >"$R/$tag-$k.txt" 2>&1
    echo "$k $tag $*: exit $? $(tail -1 "$R/$tag-$k.txt")"
}
# ab dims size mask dtype out-dtype tag: bench base and new in $ROUNDS
# interleaved rounds (tag gains -rN)
ab() {
    for r in $(seq 1 ${ROUNDS:-3}); do
        for k in base new; do bench $k "${@:1:5}" "$6-r$r"; done
    done
}
# sweep tag dims size mask dtype tile coarsen gy [env...]
sweep() {
    local tag=$1 d=$2 sz=$3 w=$4 dt=$5 t=$6 c=$7 g=$8; shift 8
    env CLCONV_KERNEL_DIR=$NEW "$@" timeout 40 build/clconv run --device gpu --dims $d \
        --size $sz --mask $w --strategy coarse --dtype $dt --out-dtype same \
        --tile $t --coarsen $c --group-y $g --reps 20 --warmup 3 --seed 1 2>&1 \
        | grep -E " ok | FAIL|unsupported" | sed "s/^/$tag t$t c$c g$g $* /"
}
for step in ${STEPS:-tests u8 w9}; do
    case $step in
    tests)
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='*xv*' timeout 150 \
            build/test_matrix_dtype >"$R/test_matrix_dtype-xv-gpu.log" 2>&1
        el "test_matrix_dtype XV groups on the GPU: exit $?"
        grep -E "seed|PASSED|FAILED|FAIL " "$R/test_matrix_dtype-xv-gpu.log" | head -8
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv3d*coarse*' timeout 150 \
            build/test_matrix >"$R/test_matrix-3dcoarse-gpu.log" 2>&1
        el "test_matrix 3D coarse on the GPU: exit $?"; tail -3 "$R/test_matrix-3dcoarse-gpu.log" ;;
    u8)
        { ab 2 8192x8192 3 u8 same u8-w3; ab 2 8192x8192 5 u8 same u8-w5; } 2>&1 \
            | tee "$R/u8.log"; el "u8" ;;
    w9)
        for r in $(seq 1 ${ROUNDS:-3}); do
            for k in base new; do
                bench $k 2 8192x8192 9 f32 same "w9-xv1-r$r"
                bench $k 2 8192x8192 9 f32 same "w9-xv4-r$r" CLCONV_COARSE_XV=4
            done
            bench new 2 8192x8192 9 f32 same "w9-xv2-r$r" CLCONV_COARSE_XV=2
        done 2>&1 | tee "$R/w9.log"; el "w9 bench"
        for xv in 4 2; do
            for t in 16 32 64; do
                for c in 8 16; do
                    for g in 1 2 4; do
                        sweep w9 2 8192x8192 9 f32 $t $c $g CLCONV_COARSE_XV=$xv
                    done
                done
            done
        done >"$R/w9-sweep.log" 2>&1
        el "w9 sweep: $(grep -c ' ok ' "$R/w9-sweep.log") ok"
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $3, $4, $5}' "$R/w9-sweep.log" | sort -n | head -8 ;;
    w9b)
        for cfg in "4 32 4 8" "4 32 8 4" "4 32 8 8" "8 32 4 4" "8 16 8 4" "4 16 4 4"; do
            set -- $cfg
            sweep w9b 2 8192x8192 9 f32 $2 $3 $4 CLCONV_COARSE_XV=$1
        done >"$R/w9b-sweep.log" 2>&1
        el "w9b sweep"
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $3, $4, $5}' "$R/w9b-sweep.log" | sort -n ;;
    tests3d)
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv3d*coarse*' timeout ${T3D:-200} \
            build/test_matrix >"$R/test_matrix-3dcoarse-gpu.log" 2>&1
        el "test_matrix 3D coarse on the GPU: exit $?"; tail -3 "$R/test_matrix-3dcoarse-gpu.log" ;;
    final)
        for r in 1 2; do
            bench new 2 8192x8192 9 f32 same "final-w9-xv1-r$r" CLCONV_COARSE_XV=1
            bench new 2 8192x8192 9 f32 same "final-w9-default-r$r"
        done 2>&1 | tee "$R/final.log"
        bench new 2 8192x8192 7 f32 same "final-w7-xv1" CLCONV_COARSE_XV=1 2>&1 | tee -a "$R/final.log"
        bench new 2 8192x8192 7 f32 same "final-w7-default" 2>&1 | tee -a "$R/final.log"
        el "final bench"
        CLCONV_DEVICE=gpu timeout 60 build/test_variants >"$R/test_variants-gpu.log" 2>&1
        el "test_variants on the GPU: exit $?"; tail -1 "$R/test_variants-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv2d*coarse*' timeout ${T2D:-200} \
            build/test_matrix >"$R/test_matrix-2dcoarse-gpu.log" 2>&1
        el "test_matrix 2D coarse on the GPU: exit $?"; tail -3 "$R/test_matrix-2dcoarse-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='*xv4*' timeout 100 \
            build/test_matrix_dtype >"$R/test_matrix_dtype-xv4-gpu.log" 2>&1
        el "test_matrix_dtype XV=4 on the GPU: exit $?"; tail -1 "$R/test_matrix_dtype-xv4-gpu.log" ;;
    x3d)
        # 3D W=5 with XV columns per work-item (XV ROWS COARSEN GROUP_Y),
        # 512x512x128 (the reference of 512^3 takes 18 s a run); then the
        # default and XV 2 and 4 as bench rows at 512^3, and the 2D
        # defaults (u8 W=3, f32 W=9) after the shared window code
        for cfg in ${X3D:-"1 2 16 4" "2 2 16 4" "4 1 16 4" "4 2 8 4" "4 1 32 4" "2 1 32 8" "4 2 16 4" "2 2 32 4"}; do
            set -- $cfg
            sweep x3d 3 512x512x128 5 f32 32 $3 $4 CLCONV_COARSE_XV=$1 CLCONV_COARSE_ROWS=$2
        done >"$R/x3d-sweep.log" 2>&1
        el "x3d sweep: $(grep -c ' ok ' "$R/x3d-sweep.log") ok"
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $3, $4, $5, $6}' "$R/x3d-sweep.log" | sort -n
        bench new 3 512x512x512 5 f32 same x3d-default 2>&1 | tee "$R/x3d.log"
        bench new 3 512x512x512 5 f32 same x3d-xv${X3D_BEST:-4} CLCONV_COARSE_XV=${X3D_BEST:-4} \
            CLCONV_COARSE_ROWS=${X3D_ROWS:-1} 2>&1 | tee -a "$R/x3d.log"
        bench new 2 8192x8192 3 u8 same x3d-2d-u8-w3 2>&1 | tee -a "$R/x3d.log"
        bench new 2 8192x8192 9 f32 same x3d-2d-f32-w9 2>&1 | tee -a "$R/x3d.log"
        el "x3d bench"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='*xv*' timeout ${TXV:-110} \
            build/test_matrix_dtype >"$R/test_matrix_dtype-xv-gpu.log" 2>&1
        el "test_matrix_dtype XV groups (2D and 3D) on the GPU: exit $?"
        grep -E "PASSED|FAILED|FAIL " "$R/test_matrix_dtype-xv-gpu.log" | head -8 ;;
    ab3d)
        ab 3 512x512x512 5 f32 same 3d-w5 2>&1 | tee "$R/ab3d.log"; el "ab3d bench"
        for cfg in ${SWEEP3D:-"16 2 4" "32 2 4" "16 4 4" "32 1 8"}; do
            set -- $cfg
            sweep 3d 3 512x512x512 5 f32 32 $1 $3 CLCONV_COARSE_ROWS=$2
        done >"$R/3d-sweep.log" 2>&1
        el "3d sweep: $(grep -c ' ok ' "$R/3d-sweep.log") ok"
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $3, $4, $5}' "$R/3d-sweep.log" | sort -n | head -8 ;;
    w55)
        for t in 64 128 256; do
            for c in 8 16 32 64; do
                sweep w55 1 67108864 55 f32 $t $c 1
            done
        done >"$R/w55-sweep.log" 2>&1
        el "w55 sweep: $(grep -c ' ok ' "$R/w55-sweep.log") ok"
        awk '{for(i=1;i<=NF;i++) if($i=="ms") print $(i-1), $1, $2, $3, $4}' "$R/w55-sweep.log" | sort -n | head -8
        for r in 1 2; do bench new 1 67108864 55 f32 same "w55-r$r"; done 2>&1 | tee "$R/w55.log" ;;
    esac
    finish
done
el "done"
