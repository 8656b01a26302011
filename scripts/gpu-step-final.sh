#!/bin/bash
# The committed benchmark run on the GPU machine, in stages that each fit
# one 10-minute call on the same held machine (STAGE=gpu, then cpu with
# CPU_PROBLEMS naming the problems 1-8 of the full suite, then plot).
# Results gather in $RESULTS_DIR on that machine (default
# /tmp/clconv-results), which outlives a call while the machine is held, so
# every stage adds to the same run; each call returns all of it so far:
#   gpu   the full suite on the GPU (every
#         tile), the peers
#   cpu   the full suite on the CPU (PoCL), one problem per process
#   matrix the test matrix on the GPU alone, then what plot does
#   last  CPU problems, then what plot does
#   plot  the PNGs and the markdown table from every JSON of the run
# Everything returns as $OUT/results-$STAGE.tar.gz (folder results/).
set -u
OUT=${OUT:-/tmp/out}
RD=${RESULTS_DIR:-/tmp/clconv-results}
R=$RD/results
mkdir -p "$R"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
problems=("1 67108864 5" "1 67108864 9" "2 8192x8192 3" "2 8192x8192 5"
          "2 8192x8192 9" "3 512x512x512 3" "1 67108864 55" "3 512x512x512 5")
# Every stage stops starting CPU problems $DEADLINE_S seconds (default 540)
# after it began, so a call ends inside its 10 minutes.
deadline_s=$((t0 + ${DEADLINE_S:-540}))
# The full suite's problems numbered 1-8 on the CPU, one process each; each
# gets $CPU_TIMEOUT seconds (default 500), or what is left before
# $deadline_s (none under 30 s).
cpu_problems() {
    local i left
    for i in "$@"; do
        set -- ${problems[$((i - 1))]}
        left=$((deadline_s - $(date +%s)))
        if [ "$left" -lt 30 ]; then el "cpu $i: no time left"; continue; fi
        [ "$left" -gt "${CPU_TIMEOUT:-500}" ] && left=${CPU_TIMEOUT:-500}
        timeout "$left" build/clconv bench --device cpu --dims $1 --size $2 --mask $3 \
            --tiles default --seed 1 --json "$R/bench-cpu-$i.json" \
            >"$R/bench-cpu-$i.txt" 2>"$R/bench-cpu-$i.err"
        el "cpu $i ($*): exit $?"; tail -2 "$R/bench-cpu-$i.txt"
    done
}
# The plots and the markdown table from every JSON gathered so far.
plot() {
    python3 bench/plot --out "$R" --markdown "$R/table.md" "$R"/bench-*.json \
        $( [ -s "$R/peers.json" ] && echo "$R/peers.json" ) 2>&1 | tail -3
    cat "$R/table.md"
}
case ${STAGE:-gpu} in
gpu)
    timeout 240 build/clconv bench --device gpu --suite full --tiles all --seed 1 \
        --json "$R/bench-gpu.json" --csv "$R/bench-gpu.csv" >"$R/bench-gpu.txt" 2>"$R/bench-gpu.err"
    el "gpu bench: exit $?"; cat "$R/bench-gpu.txt"
    OPENCV_OPENCL_DEVICE=:GPU:0 timeout 100 python3 bench/peers.py --suite full \
        --peers opencv-ocl,opencv-cpu,torch-cudnn,cupyx --seed 1 \
        --json "$R/peers.json" 2>"$R/peers.err"
    el "peers: exit $?"
    cpu_problems ${CPU_PROBLEMS:-} ;;
cpu)
    cpu_problems ${CPU_PROBLEMS:-1 2 3 4 5 6 7 8} ;;
matrix)
    # The test matrix on the GPU alone (PoCL's runs in CI), then the plots.
    CLCONV_DEVICE=gpu timeout ${MATRIX_TIMEOUT:-420} build/test_matrix \
        >"$R/test-matrix-gpu.log" 2>&1
    el "gpu test matrix: exit $?"; grep -E "FAIL|passed|unsupported" "$R/test-matrix-gpu.log" | head -40
    plot ;;
last)
    # A GPU problem whose kernel changed after the suite (GPU_EXTRA), then
    # CPU problems until a deadline, then the plots of everything.
    if [ -n "${GPU_EXTRA:-}" ]; then
        set -- $GPU_EXTRA
        timeout 60 build/clconv bench --device gpu --dims $1 --size $2 --mask $3 \
            --strategy coarse --tiles default --seed 1 --json "$R/extra-gpu.json" \
            >"$R/extra-gpu.txt" 2>&1
        el "gpu extra: exit $?"; tail -2 "$R/extra-gpu.txt"
    fi
    deadline_s=$((deadline_s - 45)) cpu_problems ${CPU_PROBLEMS:-}
    plot ;;
plot)
    plot ;;
esac
# Only a few files come back from a call: the whole run so far travels as
# one tarball.
tar -C "$RD" -czf "$OUT/results-${STAGE:-gpu}.tar.gz" results
