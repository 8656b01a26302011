#!/bin/bash
# Session 5's run on the GPU machine, one call (under 10 minutes): register
# the NVIDIA ICD beside PoCL, unpack the carried debs into /tmp, build,
# then the steps named in $STEPS (default all), each with a deadline, logs
# and JSON under $OUT/r (returned as one tarball):
#   matrix  the test matrix and the host-to-host tests on the GPU alone;
#           MATRIX_FILTER (a glob, e.g. 'conv3d*') runs part of the
#           matrix: the whole takes over 10 minutes on a cold NVIDIA
#           compiler (session 7: 102 of 108 groups in 420 s);
#           MATRIX_SAMPLE=pairwise runs test_matrix's pairwise sample
#   stream  the host-to-host tests alone; probe: where a call's time goes
#   suite   bench --suite full, coarse with every tile (against session 4)
#   modes   bench --suite full, coarse default tiles, once per border mode
#   batchloop a batch as an NDRange dimension against a loop in the kernel
#   modes2  the same over two GPUs at once (1:0 and 1:1), constant on each
#   matrixbg the matrix in the background (MATRIX_DEVICE), waited for at the end
#   e2e     bench --end-to-end on the GPU and the CPU, and the peers
#   big     a volume larger than the GPU's max allocation, streamed
#   bigapply such a volume through apply's memory-mapped path
#   split2  one problem over two GPUs (the nvidia-h200-x2 kind)
#   dtype   2D 8192^2 W=3 u8 -> u8 against f32 -> f32 (every strategy,
#           default tiles, two interleaved rounds) and cv2.filter2D on
#           CV_8U and CV_32F (UMat on the GPU, and the CPU) beside it;
#           DTYPE_HOST=1 adds host-to-host A/Bs: clconv.correlate on uint8
#           uploaded as it is against CLCONV_PY_UPLOAD=f32 (the package
#           built as the python step builds it), and apply on a uint8
#           .npy (float32 and uint8 out) against the same values as float32
#   large   the large-mask suite (scripts/gpu-large.sh)
#   compute the compute-bound direct problems (issue 17 item 5) on
#           coarse: 2D 8192^2 W=9 and random 31x31 with the 2D march
#           unrolled over a private mask copy (CLCONV_COARSE_MARCH=1, the
#           default) against rolled with the mask read in place (2),
#           alternating, COMPUTE_ROUNDS rounds (default 2); then 1D 2^26
#           W=55 and 3D 512^3 W=5 (kernels without the knob) once, as the
#           baseline of the same machine
#   pyprobe where a Python call's time goes at 8192^2 (scripts/py_e2e_probe.py)
#   pinned  end to end with pinned staging off and on, alternating (PINNED_DEVICE)
#   python  python/bench.py on the GPU (clconv, SciPy, cv2, cupyx end to
#           end from NumPy), the package built offline from ./python
set -u
OUT=${OUT:-/tmp/out}
R=$OUT/r
mkdir -p "$R"
. scripts/gpu-env.sh
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
MK="make -j16 SKIP_DEPS=1 ${CLCONV_GIT_VERSION:+CLCONV_GIT_VERSION=$CLCONV_GIT_VERSION}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$R/gpu.txt"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    $MK all build/test_matrix build/test_stream build/test_enqueue >"$R/build.log" 2>&1 \
        || { tail -30 "$R/build.log"; exit 1; }
    build/clconv devices | tee "$R/devices.txt"
    el "built"
fi
STEPS=${STEPS:-matrix suite modes e2e big}
for step in $STEPS; do
    case $step in
    probe)
        cc -O2 -std=c11 -Iinclude scripts/probe_e2e.c build/libclconv.a \
            -lOpenCL -lpng -lm -fopenmp -o build/probe_e2e
        for dev in cpu gpu; do
            for shape in "1920 1080 3" "1920 1080 5" "1920 1080 9" "8192 8192 3"; do
                timeout 60 build/probe_e2e $dev $shape 2>&1 | tail -1 | tee -a "$R/probe-e2e.txt"
            done
        done ;;
    stream)
        for t in test_stream test_enqueue; do
            CLCONV_DEVICE=gpu timeout 120 build/$t >"$R/$t-gpu.log" 2>&1
            el "$t on the GPU: exit $?"
            grep -E "PASSED|FAILED|ERROR|LINE|in slabs" "$R/$t-gpu.log" | head -12
        done ;;
    matrix)
        for t in test_matrix test_stream test_enqueue; do
            CLCONV_DEVICE=gpu CLCONV_MATRIX_FILTER=${MATRIX_FILTER:-} \
                CLCONV_MATRIX_SAMPLE=${MATRIX_SAMPLE:-} \
                timeout ${MATRIX_TIMEOUT:-240} build/$t >"$R/$t-gpu.log" 2>&1
            el "$t on the GPU: exit $?"
            grep -E "PASSED|FAILED|passed|unsupported" "$R/$t-gpu.log" | tail -3
        done ;;
    suite)
        timeout 200 build/clconv bench --device gpu --suite full --strategy coarse \
            --tiles all --seed 1 --quiet --json "$R/bench-gpu.json" >"$R/bench-gpu.txt" 2>&1
        el "suite: exit $?"; tail -12 "$R/bench-gpu.txt" ;;
    modes2)
        # Two GPUs (nvidia-h200-x2): the border modes shared between them,
        # each GPU running constant first so every ratio is within one GPU
        # and one process sequence: 1:0 constant reflect nearest, 1:1
        # constant mirror wrap.
        modes_on() {
            local dev=$1 tag=${1/:/-}; shift
            for m in "$@"; do
                timeout ${MODE_TIMEOUT:-150} build/clconv bench --device $dev --suite full \
                    --strategy coarse --tiles default --seed 1 --mode $m \
                    --json "$R/bench-gpu$tag-mode-$m.json" >"$R/bench-gpu$tag-mode-$m.txt" 2>&1
                el "$dev mode $m: exit $?"
            done
        }
        modes_on 1:0 constant reflect nearest &
        modes_on 1:1 constant mirror wrap &
        wait ;;
    matrixbg)
        # The matrix in the background on one device (MATRIX_DEVICE,
        # default gpu) while the next steps run; waited for at the end.
        CLCONV_DEVICE=${MATRIX_DEVICE:-gpu} CLCONV_MATRIX_FILTER=${MATRIX_FILTER:-} \
            CLCONV_MATRIX_SAMPLE=${MATRIX_SAMPLE:-} \
            timeout ${MATRIX_TIMEOUT:-240} build/test_matrix >"$R/test_matrix-bg.log" 2>&1 &
        el "matrix started in the background" ;;
    batchloop)
        # A batch as one NDRange dimension (the default) against a loop over
        # its members inside each work-group ($CLCONV_BATCH_LOOP=1), the
        # two alternating per problem and strategy (bench/PERF.md).
        for prob in "1 4096 256 5" "2 64x64 256 5" "2 512x512 32 5" "2 1920x1080 3 5"; do
            set -- $prob
            for s in ${BATCH_STRATEGIES:-coarse cached_halo vector}; do
                for loop in "" 1 "" 1; do
                    CLCONV_BATCH_LOOP=$loop timeout 60 build/clconv run --device ${BATCH_DEVICE:-gpu} \
                        --strategy $s --dims $1 --size $2 --batch $3 --mask $4 --reps 20 \
                        --seed 1 2>&1 | tail -1 | sed "s/^/loop=${loop:-0} /" >>"$R/batchloop.txt"
                done
            done
        done
        el "batchloop: $(grep -c ' ok ' "$R/batchloop.txt") rows ok"; cat "$R/batchloop.txt" ;;
    modes)
        for m in ${MODES:-constant nearest reflect mirror wrap}; do
            timeout ${MODE_TIMEOUT:-150} build/clconv bench --device gpu --suite full \
                --strategy coarse --tiles default --seed 1 --mode $m \
                --json "$R/bench-gpu-mode-$m.json" >"$R/bench-gpu-mode-$m.txt" 2>&1
            el "mode $m: exit $?"
        done ;;
    e2e)
        timeout 120 build/clconv bench --end-to-end --device gpu --reps 10 --seed 1 \
            --json "$R/e2e-gpu.json" >"$R/e2e-gpu.txt" 2>&1
        el "e2e gpu: exit $?"; cat "$R/e2e-gpu.txt"
        timeout 150 build/clconv bench --end-to-end --device cpu --reps 10 --seed 1 \
            --json "$R/e2e-cpu.json" >"$R/e2e-cpu.txt" 2>&1
        el "e2e cpu: exit $?"; cat "$R/e2e-cpu.txt"
        [ "${E2E_PEERS:-1}" = 1 ] || continue
        OPENCV_OPENCL_DEVICE=:GPU:0 timeout 150 python3 bench/peers.py --end-to-end \
            --peers opencv-cpu,opencv-ocl,cupyx,torch-cudnn --reps 10 --seed 1 \
            --json "$R/e2e-peers.json" 2>"$R/e2e-peers.err"
        el "e2e peers: exit $?"; grep "peers:" "$R/e2e-peers.err" | tail -30 ;;
    pinned)
        # Pinned staging against the pageable path (bench/PERF.md item 30):
        # the end-to-end suite on PINNED_DEVICE, CLCONV_PINNED=0 and 1 in
        # alternating processes, PINNED_ROUNDS rounds; each row names both
        # floors (pageable and pinned GB/s measured in that process).
        for r in $(seq 1 "${PINNED_ROUNDS:-2}"); do
            for v in 0 1; do
                CLCONV_PINNED=$v timeout 150 build/clconv bench --end-to-end \
                    --device "${PINNED_DEVICE:-gpu}" --reps 10 --seed 1 \
                    --json "$R/pinned-$v-r$r.json" >"$R/pinned-$v-r$r.txt" 2>&1
                el "pinned $v round $r: exit $?"; cat "$R/pinned-$v-r$r.txt"
            done
        done ;;
    bigapply)
        # A float32 volume beyond the GPU's largest allocation (a quarter
        # of its memory: BIG_N=1800 on an 80 GB H100, 2112 on a 141 GB
        # H200), through apply's memory-mapped path on BIG_DEVICE: size,
        # wall time and peak resident memory; the transfer floor comes from
        # the same run's measured GB/s. The input is a cheap periodic
        # pattern (((7x + 13y + 29z) mod 101) / 101), written plane by plane.
        n=${BIG_N:-1800}
        python3 -c "
import numpy as np
n = $n
a = np.lib.format.open_memmap('/tmp/big.npy', mode='w+', dtype=np.float32, shape=(n, n, n))
y, x = np.mgrid[0:n, 0:n]
xy = ((7 * x + 13 * y) % 101).astype(np.int32)
for z in range(n):
    a[z] = ((xy + 29 * z) % 101).astype(np.float32) / np.float32(101)
a.flush()" && el "generated $n^3"
        ls -la /tmp/big.npy | tee "$R/bigapply.txt"
        /usr/bin/time -v timeout 400 build/clconv apply /tmp/big.npy /tmp/big-out.npy \
            --mask box:3 --device ${BIG_DEVICE:-gpu} >>"$R/bigapply.txt" 2>&1
        el "bigapply: exit $?"; grep -E "apply:|Elapsed|Maximum resident" "$R/bigapply.txt"
        timeout 100 build/clconv bench --end-to-end --device ${BIG_DEVICE:-gpu} --dims 2 \
            --size 8192x8192 --mask 3 --reps 10 --seed 1 >"$R/bigapply-floor.txt" 2>&1
        el "transfer floor: exit $?"; tail -2 "$R/bigapply-floor.txt"
        python3 -c "
import numpy as np, itertools
a = np.load('/tmp/big.npy', mmap_mode='r'); b = np.load('/tmp/big-out.npy', mmap_mode='r')
n = a.shape[0]; worst = 0.0
r = np.random.default_rng(2)
pts = [(0, 0, 0), (n // 2, n // 3, n - 1), (n - 1, n - 1, n - 1), (1, n // 2, 3)]
pts += [tuple(int(v) for v in r.integers(0, n, 3)) for _ in range(300)]
for (z, y, x) in pts:
    s = sum(float(a[z + i, y + j, x + k]) for i, j, k in itertools.product((-1, 0, 1), repeat=3)
            if 0 <= z + i < n and 0 <= y + j < n and 0 <= x + k < n) / 27
    worst = max(worst, abs(s - float(b[z, y, x])))
print('bigapply: spot check of %d outputs against float64 sums: worst error %.3g' % (len(pts), worst))" | tee -a "$R/bigapply.txt"
        rm -f /tmp/big.npy /tmp/big-out.npy ;;
    split2)
        # Two GPUs: one 3D 1024^3 mask 5 problem split over both, against
        # one GPU, whole host-to-host calls; and the kernel of each half
        # against the whole (compute-only scaling).
        timeout 150 build/clconv bench --end-to-end --device 1:0 --dims 3 --size 1024 \
            --mask 5 --reps 10 --seed 1 --json "$R/split-one-gpu.json" >"$R/split-one-gpu.txt" 2>&1
        el "one GPU e2e: exit $?"; cat "$R/split-one-gpu.txt"
        timeout 150 build/clconv run --split --device gpu --dims 3 --size 1024 --mask 5 \
            --reps 5 --seed 1 --json "$R/split-two-gpus.json" >"$R/split-two-gpus.txt" 2>&1
        el "two GPUs split: exit $?"; cat "$R/split-two-gpus.txt"
        for sz in 1024x1024x1024 1024x1024x512; do
            timeout 120 build/clconv run --device 1:0 --strategy coarse --dims 3 --size $sz \
                --mask 5 --reps 10 --seed 1 2>&1 | tail -1 | tee -a "$R/split-kernels.txt"
        done ;;
    dtype)
        # Issue 17 item 4's target: u8 -> u8 at >= 70% of its own floor
        # (2 bytes per output) and faster than OpenCV UMat filter2D on
        # CV_8U; f32 and u8 -> f32 beside it, alternating so that clock
        # and thermal drift fall on all alike (bench/PERF.md).
        for round in $(seq 1 ${DTYPE_ROUNDS:-2}); do
            for t in "f32 same" "u8 same" "u8 f32"; do
                set -- $t
                timeout ${DTYPE_TIMEOUT:-60} build/clconv bench --device ${DTYPE_DEVICE:-gpu} --dims 2 \
                    --size 8192x8192 --mask 3 --strategy all --tiles default \
                    --dtype $1 --out-dtype $2 --seed 1 --quiet \
                    --json "$R/dtype-$1-$2-r$round.json" >"$R/dtype-$1-$2-r$round.txt" 2>&1
                el "dtype $1 -> $2 round $round: exit $?"; tail -2 "$R/dtype-$1-$2-r$round.txt"
            done
            for t in u8 f32; do
                OPENCV_OPENCL_DEVICE=:GPU:${DTYPE_OCL_GPU:-0} timeout 60 python3 bench/peers.py --dims 2 \
                    --size 8192x8192 --mask 3 --dtype $t --peers opencv-ocl,opencv-cpu \
                    --reps 10 --seed 1 --json "$R/dtype-peers-$t-r$round.json" \
                    2>"$R/dtype-peers-$t-r$round.err"
                el "dtype peers $t round $round: exit $?"; grep "peers:" "$R/dtype-peers-$t-r$round.err"
            done
        done
        [ "${DTYPE_HOST:-0}" = 1 ] || continue
        NA=bench/results/2026-11-23-local-2core-narrow-apply
        [ -d /tmp/pyclconv/clconv ] || python3 -m pip install -q --no-build-isolation \
            --no-deps --no-index --target /tmp/pyclconv ./python >"$R/python-build.log" 2>&1
        python3 $NA/make_inputs.py /tmp && python3 -c "
import numpy as np; np.save('/tmp/in-f32.npy', np.load('/tmp/in.npy').astype(np.float32))"
        PYTHONPATH=/tmp/pyclconv ROUNDS=3 timeout 120 python3 $NA/py_correlate.py /tmp/in.npy gpu \
            >"$R/dtype-python-gpu.txt" 2>&1
        el "dtype python: exit $?"; cat "$R/dtype-python-gpu.txt"
        for round in 1 2 3; do
            for t in "in-f32.npy" "in.npy" "in.npy --out-dtype same"; do
                /usr/bin/time -f "wall %e s peak %M KiB" timeout 60 build/clconv apply /tmp/$t \
                    /tmp/dtype-out.npy --mask box:3 --device gpu 2>&1 | tr '\n' ' ' \
                    | sed "s|^|r$round $t: |" >>"$R/dtype-apply-gpu.txt"
                echo >>"$R/dtype-apply-gpu.txt"
            done
        done
        el "dtype apply"; cat "$R/dtype-apply-gpu.txt"
        rm -f /tmp/in.npy /tmp/in.png /tmp/in-f32.npy /tmp/dtype-out.npy ;;
    large)
        [ -x scripts/gpu-large.sh ] && timeout 420 scripts/gpu-large.sh >"$R/large.txt" 2>&1
        el "large: exit $?"; tail -30 "$R/large.txt" ;;
    python)
        # No internet there: the package is built with the machine's own
        # setuptools (no build isolation, no index).
        python3 -m pip install -q --no-build-isolation --no-deps --no-index \
            --target /tmp/pyclconv ./python >"$R/python-build.log" 2>&1
        el "python package: exit $?"
        PYTHONPATH=/tmp/pyclconv PYTHONUNBUFFERED=1 timeout ${PY_TIMEOUT:-300} \
            python3 python/bench.py --device gpu --budget ${PY_BUDGET:-2} \
            --out "$R/python-bench-gpu.json" >"$R/python-bench-gpu.txt" 2>&1
        el "python bench: exit $?"; tail -40 "$R/python-bench-gpu.txt" ;;
    pyprobe)
        # Where a Python call's time goes at 8192^2 (scripts/py_e2e_probe.py)
        [ -d /tmp/pyclconv/clconv ] || python3 -m pip install -q --no-build-isolation \
            --no-deps --no-index --target /tmp/pyclconv ./python >"$R/python-build.log" 2>&1
        PYTHONPATH=/tmp/pyclconv PYTHONUNBUFFERED=1 timeout ${PROBE_TIMEOUT:-200} \
            python3 scripts/py_e2e_probe.py --device ${PROBE_DEVICE:-gpu} \
            >"$R/py-e2e-probe.txt" 2>&1
        el "pyprobe: exit $?"; cat "$R/py-e2e-probe.txt" ;;
    compute)
        # bench/PERF.md "2D coarse: the march rolled, the mask read in place".
        cb() { # tag, then bench's problem arguments
            local tag=$1; shift
            timeout ${COMPUTE_TIMEOUT:-60} build/clconv bench --device ${COMPUTE_DEVICE:-gpu} \
                --strategy coarse --tiles default --seed 1 --quiet "$@" \
                --json "$R/compute-$tag.json" >"$R/compute-$tag.txt" 2>&1
            el "compute $tag: exit $?"; tail -1 "$R/compute-$tag.txt"
        }
        for round in $(seq 1 ${COMPUTE_ROUNDS:-2}); do
            for w in 9 31; do
                for m in 1 2; do
                    CLCONV_COARSE_MARCH=$m cb "2d-w$w-march$m-r$round" --dims 2 \
                        --size 8192x8192 --mask $w
                done
            done
        done
        cb 1d-w55 --dims 1 --size 67108864 --mask 55
        cb 3d-w5 --dims 3 --size 512x512x512 --mask 5 ;;
    big)
        # Larger than one allocation of the GPU (a quarter of its memory):
        # CLCONV_MAX_ALLOC_BYTES is not used; the size follows the device.
        timeout 200 build/clconv run --device gpu --dims 3 --size ${BIG_SIZE:-1800x1800x1800} \
            --mask 3 --reps 2 --warmup 1 --seed 1 --json "$R/big-gpu.json" >"$R/big-gpu.txt" 2>&1
        el "big: exit $?"; cat "$R/big-gpu.txt" ;;
    esac
done
wait
el "done"
tar -C "$OUT" -czf "$OUT/results.tar.gz" r
