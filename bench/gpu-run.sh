#!/bin/bash
# The full suite on every device (all tiles on GPUs, each strategy's default
# tile on CPUs), the peers, the plots and the Markdown table, into $OUT.
# Expects a built build/clconv and the OpenCL ICDs set up (as
# scripts/gpu-session.sh does). About 5-8 minutes on an H200 + 16-core CPU.
# scipy is left out of the peers here: single-threaded on 512^3 it alone
# would take minutes (bench/peers.py --suite quick --peers scipy shows it).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
t0=$(date +%s)
build/clconv bench --device all --suite full --tiles gpu --seed 1 \
    --json "$OUT/bench.json" --csv "$OUT/bench.csv" \
    >"$OUT/bench.txt" 2>"$OUT/bench.err"
echo "clconv bench: exit $?, $(( $(date +%s) - t0 )) s"
cat "$OUT/bench.txt"
tail -3 "$OUT/bench.err"
t1=$(date +%s)
OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:GPU:0} timeout 240 "$PY" bench/peers.py \
    --suite full --peers opencv-ocl,opencv-cpu,torch-cudnn,cupyx --seed 1 \
    --json "$OUT/peers.json" 2>"$OUT/peers.err"
echo "peers: exit $?, $(( $(date +%s) - t1 )) s"
cat "$OUT/peers.err"
files="$OUT/bench.json"
[ -s "$OUT/peers.json" ] && files="$files $OUT/peers.json"
"$PY" bench/plot --out "$OUT" --markdown "$OUT/table.md" $files
cat "$OUT/table.md"
echo "total: $(( $(date +%s) - t0 )) s"
