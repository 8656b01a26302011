#!/bin/bash
# The committed benchmark run on the GPU machine, sized for one 10-minute
# call: the full suite on the GPU (every tile), the peers, then the full
# suite on the CPU (PoCL) one problem at a time (default tiles) until a
# deadline, then the plots. Everything goes into $OUT/results.tar.gz.
set -u
OUT=${OUT:-/tmp/out}
R=$OUT/results
mkdir -p "$R"
t0=$(date +%s)
deadline=$((t0 + ${DEADLINE_S:-470}))
timeout 200 build/clconv bench --device gpu --suite full --tiles all --seed 1 \
    --json "$R/bench-gpu.json" --csv "$R/bench-gpu.csv" >"$R/bench-gpu.txt" 2>"$R/bench-gpu.err"
echo "gpu bench: exit $? at $(( $(date +%s) - t0 )) s"; cat "$R/bench-gpu.txt"
OPENCV_OPENCL_DEVICE=:GPU:0 timeout 90 python3 bench/peers.py --suite full \
    --peers opencv-ocl,opencv-cpu,torch-cudnn,cupyx --seed 1 \
    --json "$R/peers.json" 2>"$R/peers.err"
echo "peers: exit $? at $(( $(date +%s) - t0 )) s"
i=0
for p in "1 67108864 5" "1 67108864 9" "2 8192x8192 3" "2 8192x8192 5" \
         "2 8192x8192 9" "3 512x512x512 3" "1 67108864 55" "3 512x512x512 5"; do
    set -- $p; i=$((i + 1))
    left=$((deadline - $(date +%s)))
    if [ "$left" -lt 30 ]; then echo "cpu: no time left for $p"; continue; fi
    timeout "$left" build/clconv bench --device cpu --dims $1 --size $2 --mask $3 \
        --tiles default --seed 1 --json "$R/bench-cpu-$i.json" \
        >"$R/bench-cpu-$i.txt" 2>"$R/bench-cpu-$i.err"
    echo "cpu $p: exit $? at $(( $(date +%s) - t0 )) s"
done
python3 bench/plot --out "$R" --markdown "$R/table.md" "$R"/bench-*.json \
    $( [ -s "$R/peers.json" ] && echo "$R/peers.json" ) 2>&1 | tail -3
cat "$R/table.md"
tar -C "$OUT" -czf "$OUT/results.tar.gz" results && rm -rf "$R"
echo "total $(( $(date +%s) - t0 )) s"
