#!/bin/bash
# Step "large" of scripts/gpu-session.sh: the large-mask suite of issue 17
# (clconv bench --suite large) on the GPU and on the CPU (PoCL), and the
# peers of bench/peers_large.py on the GPU (OpenCV UMat, cupyx, torch) and
# on the CPU (OpenCV), into $OUT: JSON and logs. Each stage has a deadline
# so the whole step stays under 8 minutes; a stage cut short keeps the
# rows it printed (bench-large-*.txt, one line per row).
set -u
OUT=${OUT:-/tmp/out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
t0=$(date +%s)
stage() { # name seconds command...
    name=$1 secs=$2
    shift 2
    s=$(date +%s)
    timeout "$secs" "$@" >"$OUT/$name.json" 2>"$OUT/$name.txt"
    echo "$name: exit $?, $(( $(date +%s) - s )) s"
    grep -v "warning generated\|warnings generated" "$OUT/$name.txt" | tail -40
}
stage bench-large-gpu 150 build/clconv bench --suite large --device gpu \
    --seed 1 --reps 5 --json
stage bench-large-cpu 130 build/clconv bench --suite large --device cpu \
    --seed 1 --reps 3 --max-ms 1500 --json
export OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:GPU:0}
stage peers-large-gpu 120 "$PY" bench/peers_large.py --suite large \
    --peers cv2-sep-umat,cv2-filter2d-umat,cupyx-sep,cupyx-gauss,cupyx-fft,torch \
    --seed 1 --reps 5 --max-s 3
stage peers-large-cpu 60 "$PY" bench/peers_large.py --suite large \
    --peers cv2-sep,cv2-filter2d --seed 1 --reps 3 --max-s 2
# The cost model's crossover on the GPU's measured ceilings, and its plot.
for d in "2 8192" "3 512"; do
    set -- $d
    build/clconv model --methods --dims "$1" --size "$2" --device gpu \
        --measure --csv >"$OUT/model-methods-${1}d.csv" 2>>"$OUT/model.err"
    "$PY" bench/crossover.py "$OUT/model-methods-${1}d.csv" \
        "$OUT/crossover-${1}d.png" --title "clconv methods, ${1}D $2^$1" \
        2>>"$OUT/model.err"
done
build/clconv model --methods --dims 2 --size 8192 --mask 31 --device gpu \
    --measure | tee "$OUT/model-methods.txt"
echo "large: $(( $(date +%s) - t0 )) s"
