#!/bin/bash
# Session 34's device calls (one H200). STEP=check: the GPU's own default
# for 3D masks 3-5 (work-items along z sharing planes) in slabs
# (CLCONV_MAX_ALLOC_BYTES), mapped chunks (CLCONV_APPLY_CHUNK_BYTES) and
# 3 MPI ranks against one launch, for the tree and for the commit before
# (built from .cl-base/old: `git archive` of it), elements differing and
# the largest difference in $R/parts.log; then test_stream on the GPU
# (sampled). STEP=perf: end-to-end 3D 512^3 W=5 calls, old against new,
# two interleaved rounds ($R/e2e.log); the candidates of AB (gpu_ab_runs,
# as scripts/gpu-s32.sh); issue 17's targets at the defaults. STEP=final:
# the targets, examples/volume_in_parts.c, test_stream (sampled) and
# test_paths' 3D coarse tests on the GPU.
# Usage on the device machine: OUT=... STEP=check|perf bash scripts/gpu-s34.sh.
. scripts/gpu-env.sh
gpu_call_begin
gpu_build ${BUILD_MORE:-}
export XDG_CACHE_HOME=/tmp/xc
[ "${STEP:-check}" = final ] || { make -C .cl-base/old -j16 SKIP_DEPS=1 all \
    >"$R/old-build.log" 2>&1 || { tail -20 "$R/old-build.log"; exit 1; }; }
el "old built"
OLD=.cl-base/old/build/clconv NEW=build/clconv
# mpirun there sets OCL_ICD_FILENAMES=libpocl.so.2 in its ranks
# (scripts/gpu-mpi.sh): the NVIDIA library named again
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x OCL_ICD_FILENAMES=libnvidia-opencl.so.1:libpocl.so.2"
parts() {
    python3 -c "
import numpy as np
rng = np.random.default_rng(3)
np.save('/tmp/v.npy', rng.random((200, 256, 256), dtype=np.float32) - 0.5)
np.save('/tmp/m.npy', rng.random((5, 5, 5), dtype=np.float32) - 0.3)"
    local k bin kd o
    for k in old new; do
        bin=$NEW kd=$PWD/cl
        [ $k = old ] && bin=$OLD kd=$PWD/.cl-base/old/cl
        o="--mask /tmp/m.npy --method direct"
        CLCONV_KERNEL_DIR=$kd timeout 120 $bin apply /tmp/v.npy /tmp/$k-one.npy $o --device gpu
        [ -n "${MPI_ONLY:-}" ] || CLCONV_KERNEL_DIR=$kd CLCONV_MAX_ALLOC_BYTES=20000000 \
            timeout 120 $bin apply /tmp/v.npy /tmp/$k-slabs.npy $o --device gpu
        [ -n "${MPI_ONLY:-}" ] || CLCONV_KERNEL_DIR=$kd CLCONV_APPLY_CHUNK_BYTES=5000000 \
            timeout 120 $bin apply /tmp/v.npy /tmp/$k-chunks.npy $o --device gpu
        CLCONV_KERNEL_DIR=$kd timeout 150 $MPIRUN -n 3 $(dirname $bin)/clconv-mpi \
            apply /tmp/v.npy /tmp/$k-mpi.npy $o --halo exchange --device gpu
        python3 -c "
import numpy as np
one = np.load('/tmp/$k-one.npy')
for w in ('slabs', 'chunks', 'mpi'):
    try:
        x = np.load('/tmp/$k-%s.npy' % w)
    except Exception as e:
        print('$k', w, 'missing', e); continue
    d = one != x
    print('$k', w, 'differing', int(d.sum()), 'of', one.size, 'max', float(np.abs(one - x).max()))"
    done 2>&1 | tee "$R/parts.log"
    el "parts done"
}
# ABBA order (old new new old ...): session 34's first rounds drifted
# upward run after run.
e2e() {
    local r k bin kd
    for r in 1 2 3 4; do
        for k in $([ $((r % 2)) = 1 ] && echo old new || echo new old); do
            bin=$NEW kd=$PWD/cl
            [ $k = old ] && bin=$OLD kd=$PWD/.cl-base/old/cl
            CLCONV_KERNEL_DIR=$kd timeout 120 $bin bench --end-to-end --device gpu \
                --dims 3 --size 512x512x512 --mask 5 --seed 1 --reps 10 --quiet \
                --json "$R/e2e-$k-r$r.json" >"$R/e2e-$k-r$r.txt" 2>&1
            echo "e2e $k r$r: exit $? $(tail -1 "$R/e2e-$k-r$r.txt")"
        done
    done 2>&1 | tee "$R/e2e.log"
    el "e2e done"
}
RUN="timeout 150 build/clconv run --device gpu --reps 20 --warmup 3 --seed 1 --strategy coarse --mask-mode baked"
case ${STEP:-check} in
check)
    parts
    CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout ${TS:-300} \
        build/test_stream >"$R/test_stream-gpu.log" 2>&1
    el "test_stream on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -8 ;;
final)
    gpu_targets
    cc -std=c11 -Iinclude examples/volume_in_parts.c build/libclconv.a \
        -lOpenCL -lpng -lm -fopenmp -o /tmp/vip && CLCONV_KERNEL_DIR=$PWD/cl \
        /tmp/vip gpu 2>&1 | tee "$R/volume_in_parts.log"
    CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout ${TS:-200} \
        build/test_stream >"$R/test_stream-gpu.log" 2>&1
    el "test_stream on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -8
    TP=150 gpu_tests "direct_3d_coarse*" ;;
perf)
    parts
    e2e
    gpu_ab_runs
    [ -z "${TARGETS:-}" ] || gpu_targets ;;
esac
