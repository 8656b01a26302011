#!/bin/bash
# Session 36's device call (one H200): `apply`'s memory-mapped path for
# the narrow types (8f9de4d: uint8, uint16, int16, float16 chunked in
# their own type; before, they were read whole): in memory against
# chunked (CLCONV_APPLY_CHUNK_BYTES) on the GPU, byte for byte, each out
# as itself and as float32, including the GPU's 3D default (work-items
# along z sharing planes) and float16 on a device that has it; uint8 and
# float16 split over the GPU and PoCL's CPU, verified; the wall time of
# one 8192^2 uint8 apply in memory and mapped; test_split on every
# device (typed splits and parts), test_dtype and test_stream (sampled)
# on the GPU; issue 17's targets at the defaults.
# STEP=final: the tests, the split and the targets (the tree with
# helpers' commits),
# and bench/PERF.md item 76's wall times of `apply` in memory against
# 84c5197's CLI (.cl-base/old: `git archive 84c5197 Makefile host include
# cl scripts`).
# Usage on the device machine: OUT=... [STEP=final] bash scripts/gpu-s36.sh
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_stream build/test_split build/test_dtype
export XDG_CACHE_HOME=/tmp/xc CLCONV_KERNEL_DIR=$PWD/cl
arrays() {
    python3 -c "
import numpy as np
rng = np.random.default_rng(11)
np.save('/tmp/u8.npy', rng.integers(0, 256, (8192, 8192), dtype=np.uint8))
np.save('/tmp/u16.npy', rng.integers(0, 65536, (160, 256, 256), dtype=np.uint16))
np.save('/tmp/i16.npy', rng.integers(-32768, 32768, 4000003, dtype=np.int16))
np.save('/tmp/f16.npy', (rng.standard_normal((3001, 2049)) * 500).astype(np.float16))
np.save('/tmp/k1.npy', rng.random(55, dtype=np.float32) / 20)
np.save('/tmp/k2.npy', rng.random((3, 3), dtype=np.float32) / 4.5)
np.save('/tmp/k3.npy', rng.random((5, 5, 5), dtype=np.float32) / 62)"
}
mapped() {
    local c n=0 bad=0
    for c in "u8 2 reflect same 9000000" "u8 2 constant f32 20000000" \
             "u16 3 wrap same 5000000" "u16 3 reflect f32 9000000" \
             "u16 3 constant same 3000000" \
             "i16 1 mirror same 1000000" "i16 1 nearest f32 3000000" \
             "f16 2 wrap same 2000000" "f16 2 reflect f32 4000000"; do
        set -- $c
        o="--mask /tmp/k$2.npy --mode $3 --out-dtype $4 --method direct --device gpu"
        timeout 120 build/clconv apply /tmp/$1.npy /tmp/mem.npy $o >/dev/null 2>"$R/err.txt" \
            || { echo "FAIL in memory $c: $(cat "$R/err.txt")"; bad=$((bad + 1)); continue; }
        CLCONV_APPLY_CHUNK_BYTES=$5 timeout 120 build/clconv apply /tmp/$1.npy /tmp/chk.npy $o \
            --verify >"$R/sum.txt" 2>"$R/err.txt" \
            || { echo "FAIL chunked $c: $(cat "$R/err.txt")"; bad=$((bad + 1)); continue; }
        if cmp -s /tmp/mem.npy /tmp/chk.npy; then
            echo "ok   $c: chunked equals in memory byte for byte"
        else
            echo "FAIL $c: chunked differs from in memory"; bad=$((bad + 1))
        fi
        echo "  $(cat "$R/sum.txt")"
        n=$((n + 1))
    done
    echo "mapped: $n cases, $bad failed"
}
split() {
    local c
    for c in "u8 2 reflect same 9000000" "f16 2 wrap same 2000000"; do
        set -- $c
        CLCONV_APPLY_CHUNK_BYTES=$5 timeout 200 build/clconv apply /tmp/$1.npy /tmp/split.npy \
            --mask /tmp/k$2.npy --mode $3 --out-dtype $4 --device gpu,cpu --verify 2>&1 | tail -2
    done
}
wall() {
    # one 8192^2 uint8 apply, from file to file: in memory, then mapped
    # in 64 MiB chunks and in the default 256 MiB ones (forced)
    local e
    for e in X=1 CLCONV_APPLY_CHUNK_BYTES=67108864 CLCONV_APPLY_CHUNK_BYTES=268435456 X=1; do
        local s=$(date +%s%N)
        env $e build/clconv apply /tmp/u8.npy /tmp/w.npy --mask /tmp/k2.npy --out-dtype same \
            --device gpu >"$R/wall.txt" 2>&1
        local rc=$?
        echo "wall $e: exit $rc $(( ($(date +%s%N) - s) / 1000000 )) ms; $(tail -1 "$R/wall.txt")"
    done
}
wall_ab() {
    # bench/PERF.md item 76: one 8192^2 uint8 apply in memory, file to
    # file, with the CLI of 84c5197 (.cl-base/old, built here) and this
    # tree's, interleaved rounds, out uint8 and float32; the mapped path
    # beside them
    (cd .cl-base/old && make -j16 SKIP_DEPS=1 build/clconv >"$R/old-build.log" 2>&1) \
        || { echo "old build failed"; return; }
    local r b od e
    for r in 1 2 3 4; do
        for b in old new mapped; do
            for od in same f32; do
                local C=build/clconv K=$PWD/cl e=X=1
                [ $b = old ] && C=.cl-base/old/build/clconv K=$PWD/.cl-base/old/cl
                [ $b = mapped ] && e=CLCONV_APPLY_CHUNK_BYTES=268435456
                local s=$(date +%s%N)
                env $e CLCONV_KERNEL_DIR=$K $C apply /tmp/u8.npy /tmp/w-$b.npy --mask /tmp/k2.npy \
                    --out-dtype $od --device gpu >"$R/wall.txt" 2>&1
                local rc=$?
                echo "ab r$r $b $od: exit $rc $(( ($(date +%s%N) - s) / 1000000 )) ms"
            done
        done
        cmp -s /tmp/w-old.npy /tmp/w-new.npy && echo "r$r old and new outputs identical"
    done
}
tests() {
    timeout 200 build/test_split >"$R/test_split.log" 2>&1
    el "test_split (every device): exit $?"
    grep -E "^split: (u8|u16|i16|f16)|PASSED|FAILED|ERROR" "$R/test_split.log" | head -14
    CLCONV_DEVICE=gpu timeout 150 build/test_dtype >"$R/test_dtype-gpu.log" 2>&1
    el "test_dtype on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_dtype-gpu.log" | head -8
    CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout 200 \
        build/test_stream >"$R/test_stream-gpu.log" 2>&1
    el "test_stream on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -8
}
arrays
el "arrays"
if [ "${STEP:-check}" = final ]; then
    wall_ab 2>&1 | tee "$R/wall-ab.log"
    el "wall a/b done"
    split 2>&1 | tee "$R/split.log"
    tests
    gpu_targets
    exit 0
fi
mapped 2>&1 | tee "$R/mapped.log"
el "mapped done"
split 2>&1 | tee "$R/split.log"
el "split done"
wall 2>&1 | tee "$R/wall.log"
el "wall done"
tests
gpu_targets
