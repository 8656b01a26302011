#!/bin/bash
# Session 14's call on the GPU machine (under 10 minutes): a build, then
# the steps named in $STEPS, logs and JSON under $OUT/r, returned as one
# tarball. "base" rows run the kernels of .cl-base/cl (the commit before
# the change, carried), "new" rows the working tree's cl/, with the same
# binary ($CLCONV_KERNEL_DIR), so both get this tree's defaults:
#   tests  on the GPU: test_paths' peeled 2D vector march, test_matrix's
#          2D vector group
#   cpu2d  the 16-core CPU (PoCL): 2D 8192^2 vector W=7, 9, 11, base
#          against new (the march's ends peeled, PERF.md item 41), two
#          rounds; W=7 at 4 and 16 rows a work-item (the old and new
#          defaults)
#   cpu3d  the 16-core CPU: 3D 256^3 vector W=7 at 8 and 16 planes
#   gpu3d  the GPU: 3D 512x512x128 coarse W=5 at 16 and 32 planes, two
#          rounds (PERF.md item 34's one-run sweep)
#   cpu9   the 16-core CPU: 2D 8192^2 vector W=9, one block (peeled) at
#          16 and 32 rows, two blocks (not peeled) at 16, base kernels
#          at one block; two rounds
#   cpu3d5 the 16-core CPU: 3D 512^3 vector W=5, a bench row (unchanged
#          kernel: two blocks are not peeled)
#   gpu3dt the GPU: 3D 512x512x128 coarse W=5, work-groups 32 or 64 wide
#          and 2, 4 or 8 high
#   tests3 on the GPU: test_paths' peeled vector marches (2D and 3D),
#          test_matrix's 2D and 3D vector groups
#   cpu3d7 the 16-core CPU: 3D 256^3 vector W=7 (one block, 8 planes),
#          base against new (the 3D ends peeled), two rounds
#   cpu9b  the 16-core CPU: 2D 8192^2 vector W=9 bench rows, base
#          against new, two rounds
#   cpu3d5b the 16-core CPU: 3D 512^3 vector W=5 bench rows, one block
#          (peeled) against two (the default, not peeled), two rounds
#   rows3d the GPU: 3D 512x512x128 coarse W=5 at 2, 3 and 4 rows a
#          work-item and W=3 at 3, base against new (the plane's loops
#          unrolled by pragma), two rounds; then 512^3 W=5 bench rows
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths build/test_matrix
NEW=$PWD/cl BASE=$PWD/.cl-base/cl
kdir() { [ "$1" = base ] && echo "$BASE" || echo "$NEW"; }
# row KDIR-tag device dims size mask tag: one bench row (default knobs)
row() {
    local k=$1 dev=$2 dims=$3 size=$4 w=$5 tag=$6
    CLCONV_KERNEL_DIR=$(kdir $k) timeout ${BT:-120} build/clconv bench \
        --device $dev --dims $dims --size $size --mask $w --strategy vector \
        --tiles default --seed 1 --quiet --json "$R/$tag-$k.json" >"$R/$tag-$k.txt" 2>&1
    echo "$k $tag: exit $? $(tail -1 "$R/$tag-$k.txt")"
}
# knob device strategy dims size mask coarsen tag [run args]: one clconv
# run row ($KDIR: the kernels, default new)
knob() {
    local dev=$1 s=$2 dims=$3 size=$4 w=$5 c=$6 tag=$7; shift 7
    CLCONV_KERNEL_DIR=${KDIR:-$NEW} timeout ${KT:-120} build/clconv run --device $dev \
        --strategy $s --dims $dims --size $size --mask $w --coarsen $c \
        --reps 10 --seed 1 "$@" >"$R/$tag.txt" 2>&1
    echo "$tag: exit $? $(grep ' ok \| FAIL\|unsupported' "$R/$tag.txt" | tail -1)"
}
for step in ${STEPS:-tests cpu2d cpu3d gpu3d}; do
    case $step in
    tests)
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER='*vector*' timeout 150 build/test_paths \
            >"$R/test_paths-vector-gpu.log" 2>&1
        el "test_paths peeled 2D vector on the GPU: exit $?"; tail -1 "$R/test_paths-vector-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv2d_vector*' timeout 200 \
            build/test_matrix >"$R/test_matrix-2dvector-gpu.log" 2>&1
        el "test_matrix 2D vector on the GPU: exit $?"; tail -2 "$R/test_matrix-2dvector-gpu.log" ;;
    cpu2d)
        for r in r1 r2; do for w in 9 7 11; do for k in base new; do
            row $k cpu 2 8192x8192 $w cpu2d-w$w-$r
        done; done; el "cpu2d $r"; done
        for c in 4 16; do knob cpu vector 2 8192x8192 7 $c cpu2d-w7-c$c; done ;;
    cpu3d)
        for r in r1 r2; do for c in 8 16; do
            knob cpu vector 3 256x256x256 7 $c cpu3d-w7-c$c-$r
        done; done ;;
    gpu3d)
        for r in r1 r2; do for c in 16 32; do
            knob gpu coarse 3 512x512x128 5 $c gpu3d-w5-c$c-$r
        done; done ;;
    cpu9)
        for r in r1 r2; do
            for c in 16 32; do
                CLCONV_VECTOR_BLOCKS=1 knob cpu vector 2 8192x8192 9 $c cpu9-b1-c$c-$r
            done
            CLCONV_VECTOR_BLOCKS=2 knob cpu vector 2 8192x8192 9 16 cpu9-b2-c16-$r
            KDIR=$BASE CLCONV_VECTOR_BLOCKS=1 knob cpu vector 2 8192x8192 9 16 cpu9-base-b1-c16-$r
        done ;;
    cpu3d5)
        BT=200 row new cpu 3 512x512x512 5 cpu3d5 ;;
    tests3)
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER='*vector*' timeout 150 build/test_paths \
            >"$R/test_paths-vector3-gpu.log" 2>&1
        el "test_paths peeled vector marches on the GPU: exit $?"; tail -1 "$R/test_paths-vector3-gpu.log"
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='conv[23]d_vector*' timeout 300 \
            build/test_matrix >"$R/test_matrix-vector-gpu.log" 2>&1
        el "test_matrix 2D, 3D vector on the GPU: exit $?"; tail -2 "$R/test_matrix-vector-gpu.log" ;;
    cpu3d7)
        for r in r1 r2; do for k in base new; do
            KDIR=$(kdir $k) knob cpu vector 3 256x256x256 7 8 cpu3d7-$k-$r
        done; done ;;
    cpu9b)
        for r in r1 r2; do for k in base new; do
            row $k cpu 2 8192x8192 9 cpu9b-$r
        done; done ;;
    cpu3d5b)
        for r in r1 r2; do
            CLCONV_VECTOR_BLOCKS=1 BT=200 row new cpu 3 512x512x512 5 cpu3d5b-b1-$r
            BT=200 row new cpu 3 512x512x512 5 cpu3d5b-b2-$r
        done ;;
    rows3d)
        for r in r1 r2; do for k in base new; do
            for rows in 2 3 4; do
                KDIR=$(kdir $k) CLCONV_COARSE_ROWS=$rows KT=60 knob gpu coarse 3 \
                    512x512x128 5 16 rows3d-w5-r$rows-$k-$r
            done
            KDIR=$(kdir $k) knob gpu coarse 3 512x512x128 3 16 rows3d-w3-$k-$r
        done; done
        for k in base new; do
            CLCONV_KERNEL_DIR=$(kdir $k) timeout 120 build/clconv bench --device gpu \
                --dims 3 --size 512x512x512 --mask 5 --strategy coarse --tiles default \
                --seed 1 --quiet >"$R/rows3d-bench-$k.txt" 2>&1
            echo "$k bench 512^3 W=5: $(tail -1 "$R/rows3d-bench-$k.txt")"
        done ;;
    gpu3dt)
        for t in 32 64; do for g in 2 4 8; do
            knob gpu coarse 3 512x512x128 5 16 gpu3dt-t$t-g$g --tile $t --group-y $g
        done; done ;;
    esac
    el "step $step done"
done
