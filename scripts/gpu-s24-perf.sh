#!/bin/bash
# Session 24, call 4: perf (stat, record, annotate) on the CPU's 3D
# 512x512x128 W=5 `vector` kernel through PoCL, where the machine lets it;
# logs in $OUT/r (bench/PERF.md item 65).
set -u
. scripts/gpu-env.sh
gpu_call_begin
make -j16 SKIP_DEPS=1 build/clconv >"$R/build.log" 2>&1 || { tail -20 "$R/build.log"; exit 1; }
which perf; perf --version; cat /proc/sys/kernel/perf_event_paranoid
export CLCONV_KERNEL_DIR=$PWD/cl POCL_CACHE_DIR=/tmp/pc
A="--device cpu --dims 3 --mask 5 --strategy vector --seed 1"
build/clconv run $A --size 512x512x128 --reps 10 2>&1 | grep -o 'max_err.*'
perf stat -e cycles,instructions,cache-misses,cache-references,L1-dcache-load-misses,LLC-load-misses,dTLB-load-misses -- build/clconv run $A --size 512x512x128 --reps 200 > "$R/perfstat.txt" 2>&1; tail -25 "$R/perfstat.txt"
perf record -o /tmp/perf.data -- build/clconv run $A --size 512x512x128 --reps 200 > /dev/null 2>&1; echo "record $?"
perf report -i /tmp/perf.data --no-children --sort dso,sym 2>/dev/null | head -30 > "$R/perfreport.txt"; head -20 "$R/perfreport.txt"
perf annotate -i /tmp/perf.data --stdio -s _pocl_kernel_conv3d_vector_workgroup > "$R/perfannotate.txt" 2>/dev/null; wc -l "$R/perfannotate.txt"
