#!/bin/bash
# Session 29's device calls (one H200). STEP=targets (calls 1, 2): can
# anything move the bytes of issue 17's u8 -> u8 target (2D 8192^2 W=3)
# at the floor's bandwidth? scripts/probe_copy.c copies the same bytes in
# float4, uchar16, uchar8 and uchar4 per work-item and runs a skeleton of
# the 2D coarse kernel's memory traffic (4, 8, 16 rows); then issue 17's
# four direct targets at the defaults (gpu_targets), then the probe
# again (bench/PERF.md item 67). STEP=u8pipe (call 3): the probe, then
# scripts/probe_u8_pipe.c, the u8 march over a ring of rows loaded ahead
# against the coarse kernel's unrolled form (item 68). STEP=halo (call
# 4): the probe with the halo bytes from the neighbouring vectors too,
# then bench rows of u8 -> u8 W=3 with -D XV_HALO_VECTORS=0 and 1
# against the default, three rounds (item 68). STEP=edge (call 5): the
# 2D coarse kernel's border work-groups loading and storing their own
# columns as vectors, bench rows against the kernels before, two rounds
# (item 68), and test_matrix_dtype's XV group on the GPU. STEP=final
# (call 6): the kept form (narrow inputs only): the targets, u8 W=3 and 5
# rows, test_matrix_dtype's and test_matrix's 2D coarse cases, test_dtype
# and test_paths' 2D tests on the GPU. Usage on the
# device machine: OUT=... STEP=... bash scripts/gpu-s29.sh
. scripts/gpu-env.sh
gpu_call_begin
cc -std=c11 -O2 scripts/probe_copy.c -lOpenCL -o /tmp/probe_copy
timeout 120 /tmp/probe_copy 8192 NVIDIA | tee "$R/probe_copy.txt"
el "probe_copy: exit $?"
case ${STEP:-targets} in
targets)
    gpu_build
    gpu_targets
    timeout 120 /tmp/probe_copy 8192 NVIDIA | tee "$R/probe_copy-2.txt"
    el "probe_copy again: exit $?"
    ;;
u8pipe)
    cc -std=c11 -O2 scripts/probe_u8_pipe.c -lOpenCL -o /tmp/probe_u8
    timeout 300 /tmp/probe_u8 8192 NVIDIA | tee "$R/probe_u8_pipe.txt"
    el "probe_u8_pipe: exit $?"
    ;;
halo)
    cc -std=c11 -O2 scripts/probe_u8_pipe.c -lOpenCL -o /tmp/probe_u8
    timeout 300 /tmp/probe_u8 8192 NVIDIA | tee "$R/probe_u8_pipe.txt"
    el "probe_u8_pipe: exit $?"
    gpu_build
    for r in 1 2 3; do
        for h in default 0 1; do
            e=X=1
            [ $h = default ] || e="CLCONV_BUILD_OPTIONS=-DXV_HALO_VECTORS=$h"
            LT=60 gpu_row u8-halo$h-r$r gpu "$e" --dims 2 --size 8192x8192 \
                --mask 3 --dtype u8 --strategy coarse
        done
    done 2>&1 | tee "$R/u8-halo.log"
    el "u8 halo rows done"
    ;;
edge)
    # base: the kernels of the commit before (.cl-base/cl), new: the tree's
    gpu_build build/test_matrix_dtype
    for r in 1 2; do
        for pr in "8192x8192 3 u8" "8192x8192 5 u8" "8192x8192 9 f32" \
                  "8192x8192 7 f32" "8192x8192 5 f32"; do
            set -- $pr
            for k in base new new-halo0; do
                e=X=1
                [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                [ $k = new-halo0 ] && { [ $3 = u8 ] || continue; \
                    e=CLCONV_BUILD_OPTIONS=-DXV_HALO_VECTORS=0; }
                LT=60 gpu_row edge-w$2-$3-$k-r$r gpu "$e" --dims 2 \
                    --size $1 --mask $2 --dtype $3 --strategy coarse
            done
        done
    done 2>&1 | sed -e 's/CLCONV_KERNEL_DIR=[^ ]*//' | tee "$R/edge.log"
    el "edge rows done"
    CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER='*xv*' timeout 300 \
        build/test_matrix_dtype >"$R/test_matrix_dtype-xv-gpu.log" 2>&1
    el "test_matrix_dtype's XV group on the GPU: exit $?"
    grep -E "PASSED|FAILED|FAIL " "$R/test_matrix_dtype-xv-gpu.log" | head -8
    ;;
final)
    # the kept kernels: targets, the u8 rows, and the 2D coarse tests
    gpu_build build/test_matrix_dtype build/test_matrix build/test_paths \
        build/test_dtype
    gpu_targets
    for w in 3 5; do
        LT=60 gpu_row final-w$w-u8 gpu X=1 --dims 2 --size 8192x8192 \
            --mask $w --dtype u8 --strategy coarse
    done 2>&1 | tee "$R/final-u8.log"
    set -f # the filters are cmocka's globs, not the shell's
    for t in "test_matrix_dtype *coarse* 120" \
             "test_matrix *conv2d_coarse* 100" "test_dtype * 90" \
             "test_paths *2d* 90"; do
        set -- $t
        CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER="$2" CLCONV_PATHS_FILTER="$2" \
            timeout $3 build/$1 >"$R/$1-gpu.log" 2>&1
        el "$1 $2 on the GPU: exit $?"
        grep -E "PASSED|FAILED|FAIL " "$R/$1-gpu.log" | head -6
    done
    set +f
    ;;
esac
