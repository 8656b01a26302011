#!/bin/bash
# GPU machine, first call of a session: correctness of the current kernels
# on both devices, the mask-mode A/B on the standard problems, NVIDIA's
# resource report (-cl-nv-verbose) and PTX of the 3D coarse kernels, FMA
# ceiling shapes, and a first look at the CPU's vector variant against
# OpenCV. Everything goes to $OUT.
set -u
OUT=${OUT:-/tmp/out}
P=$OUT/probe
mkdir -p "$P"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
export CLCONV_SEED=${CLCONV_SEED:-7}
timeout 240 build/test_matrix >"$P/matrix.log" 2>&1; el "matrix exit $?"
grep -A3 "summary" "$P/matrix.log"; grep FAIL "$P/matrix.log" | head
timeout 60 build/test_mask_mode >"$P/mask_mode.log" 2>&1; el "mask modes exit $?"
grep -E "runs|FAIL|PASSED|FAILED" "$P/mask_mode.log"
for p in "1 67108864 5" "1 67108864 9" "1 67108864 55" "2 8192 3" "2 8192 5" \
         "2 8192 9" "3 512 3" "3 512 5"; do
    set -- $p
    timeout 60 build/clconv run --device gpu --dims $1 --size $2 --mask $3 \
        --strategy coarse --mask-mode argument,baked --reps 20 --seed 1 2>&1 |
        tee -a "$P/ab.log" | cut -c30-
done
el "A/B done"
cc -std=c11 scripts/probe_build.c -lOpenCL -o build/probe_build
mask() { python3 -c "import random; random.seed(1); n=$1**$2; print('-D CLCONV_MASK_COUNT=%d -D CLCONV_MASK_VALUES=' % n + ','.join('%.9ef' % random.uniform(-1,1) for _ in range(n)))"; }
for c in "3 3 32 16 8" "3 5 32 8 4" "2 9 64 16 2" "2 5 64 8 4"; do
    set -- $c
    base="-cl-std=CL1.2 -cl-nv-verbose -D MASK_WIDTH=$2 -D TILE_WIDTH=$3 -D COARSEN=$4 -D GROUP_Y=$5"
    build/probe_build gpu conv${1}d_coarse "$base" "$P/conv${1}d_coarse_w$2_arg.ptx" \
        >"$P/nv-verbose-${1}d-w$2-arg.log" 2>&1
    build/probe_build gpu conv${1}d_coarse "$base $(mask $2 $1)" "$P/conv${1}d_coarse_w$2_baked.ptx" \
        >"$P/nv-verbose-${1}d-w$2-baked.log" 2>&1
    echo "${1}D W=$2:"; grep -h -iE "registers|spill|smem|cmem" "$P/nv-verbose-${1}d-w$2-"*.log | head -8
done
el "resource reports done"
for s in 8,64 8,256 16,128 4,512 32,64; do
    echo "FMA shape $s: $(CLCONV_FMA_SHAPE=$s timeout 30 build/clconv bench --device gpu \
        --dims 1 --size 4096 --mask 3 --strategy naive --quiet --seed 1 | grep -o 'FP32.*')"
done
el "FMA shapes done"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$P/clocks.txt"
for m in 3 5 9; do
    timeout 60 build/clconv run --device cpu --dims 2 --size 8192 --mask $m \
        --strategy vector --reps 10 --seed 1 2>&1 | tee -a "$P/cpu-vector.log" | cut -c30-
done
timeout 60 build/clconv run --device cpu --dims 3 --size 512 --mask 3 \
    --strategy vector --reps 10 --seed 1 2>&1 | tee -a "$P/cpu-vector.log" | cut -c30-
timeout 90 python3 bench/peers.py --dims 2 --size 8192x8192 --mask 3 --peers opencv-cpu \
    --json "$P/peers-cpu-2d-w3.json" 2>&1 | tail -2
el "cpu look done"
