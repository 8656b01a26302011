#!/bin/bash
# Session 35's device call (one H200): `apply`'s memory-mapped path with
# every filter (border modes, cval, origins, convolution; 0f8294e) on the
# GPU: in memory against chunked (CLCONV_APPLY_CHUNK_BYTES), byte for
# byte, and SciPy's bound, including the GPU's 3D default (work-items
# along z sharing planes) in reflect and wrap; a wrap filter split over
# the GPU and PoCL's CPU, verified; test_stream (sampled) and test_split
# on the GPU; issue 17's targets at the defaults.
# STEP=word: u8 and u16 2D rows with the narrow vectors moved as words
# against .cl-base/cl (bench/PERF.md item 75). STEP=final: the split, test_enqueue and test_dtype on the GPU, and
# test_stream (sampled), only.
# Usage on the device machine: OUT=... [STEP=final] bash scripts/gpu-s35.sh
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_stream build/test_split build/test_enqueue build/test_dtype
export XDG_CACHE_HOME=/tmp/xc CLCONV_KERNEL_DIR=$PWD/cl
arrays() {
    python3 -c "
import numpy as np
rng = np.random.default_rng(7)
np.save('/tmp/a1.npy', rng.random(300001, dtype=np.float32) - 0.5)
np.save('/tmp/a2.npy', rng.random((1031, 777), dtype=np.float32) - 0.5)
np.save('/tmp/a3.npy', rng.random((200, 256, 256), dtype=np.float32) - 0.5)
np.save('/tmp/k1.npy', rng.random(55, dtype=np.float32))
np.save('/tmp/k2.npy', rng.random((9, 8), dtype=np.float32))
np.save('/tmp/k3.npy', rng.random((5, 5, 5), dtype=np.float32))"
}
mapped() {
    arrays
    local c d m x n=0 bad=0
    for c in "1 reflect --origin=-3 100000" "1 wrap --convolve 300000" \
             "2 mirror --origin=2 700000" "2 constant --cval=1.5 500000" \
             "2 wrap --convolve 400000" "3 reflect --origin=1 20000000" \
             "3 wrap --convolve 9000000" "3 nearest --origin=-2 5000000" \
             "3 constant --cval=-0.5 7000000"; do
        set -- $c
        o="--mask /tmp/k$1.npy --mode $2 $3 --method direct --device gpu"
        timeout 120 build/clconv apply /tmp/a$1.npy /tmp/mem.npy $o >/dev/null 2>"$R/err.txt" \
            || { echo "FAIL in memory $c: $(cat "$R/err.txt")"; bad=$((bad + 1)); continue; }
        CLCONV_APPLY_CHUNK_BYTES=$4 timeout 120 build/clconv apply /tmp/a$1.npy /tmp/chk.npy $o \
            --verify >"$R/sum.txt" 2>"$R/err.txt" \
            || { echo "FAIL chunked $c: $(cat "$R/err.txt")"; bad=$((bad + 1)); continue; }
        python3 - "$1" "$2" "$3" <<'PY' || bad=$((bad + 1))
import sys, numpy as np, scipy.ndimage as nd
d, mode, extra = sys.argv[1:4]
mem, chk = np.load('/tmp/mem.npy'), np.load('/tmp/chk.npy')
diff = int((mem != chk).sum())
x = np.load('/tmp/a%s.npy' % d).astype(np.float64)
w = np.load('/tmp/k%s.npy' % d).astype(np.float64)
kw = {'mode': mode}
if extra.startswith('--origin='): kw['origin'] = int(extra.split('=')[1])
if extra.startswith('--cval='): kw['cval'] = float(extra.split('=')[1])
f = nd.convolve if extra == '--convolve' else nd.correlate
err = float(np.abs(chk - f(x, w, **kw)).max()) if x.size < 2e7 else float('nan')
print('%sD %s %s: chunked differs from in memory in %d of %d, max err vs SciPy %.3g'
      % (d, mode, extra, diff, mem.size, err))
bound = 8 * np.finfo(np.float32).eps * (np.abs(x).max() + abs(kw.get('cval', 0))) * np.abs(w).sum()
sys.exit(1 if diff or err > bound else 0)
PY
        echo "  $(cat "$R/sum.txt")"
        n=$((n + 1))
    done
    split
    echo "mapped: $n cases, $bad failed"
}
split() {
    timeout 200 build/clconv apply /tmp/a3.npy /tmp/split.npy --mask /tmp/k3.npy --mode wrap \
        --origin=1 --device gpu,cpu --verify 2>&1 | tail -2
}
if [ "${STEP:-check}" = word ]; then
    # narrow vectors moved as words (CLC_WORD_IO), base (.cl-base/cl: the
    # element vectors) against new, ABBA rounds; bench rows at the defaults
    for r in 1 2 3 4; do
        for k in $([ $((r % 2)) = 1 ] && echo base new || echo new base); do
            e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
            for p in "8192x8192 3 u8" "8192x8192 5 u8" "8192x8192 3 u16"; do
                set -- $p
                LT=60 gpu_row word-$3-w$2-$k-r$r gpu $e --dims 2 --size $1 \
                    --mask $2 --dtype $3 --strategy coarse
            done
        done
    done 2>&1 | tee "$R/word.log"
    exit 0
fi
if [ "${STEP:-check}" = final ]; then
    # the tree with the helpers' commits: the split, the C API's tests on
    # the GPU, test_stream; no targets
    arrays
    split 2>&1 | tee "$R/split.log"
    el "split done"
    for t in test_enqueue test_dtype; do
        CLCONV_DEVICE=gpu timeout 150 build/$t >"$R/$t-gpu.log" 2>&1
        el "$t on the GPU: exit $?"
        grep -E "PASSED|FAILED|ERROR" "$R/$t-gpu.log" | head -8
    done
    CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout 200 \
        build/test_stream >"$R/test_stream-gpu.log" 2>&1
    el "test_stream on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -8
    exit 0
fi
mapped 2>&1 | tee "$R/mapped.log"
el "mapped done"
CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout ${TS:-200} \
    build/test_stream >"$R/test_stream-gpu.log" 2>&1
el "test_stream on the GPU: exit $?"
grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -8
timeout 150 build/test_split >"$R/test_split.log" 2>&1
el "test_split (every device): exit $?"
grep -E "PASSED|FAILED|ERROR" "$R/test_split.log" | head -8
gpu_targets
