#!/bin/bash
# Session 24's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   cpuinfo  the CPU's topology and caches (lscpu), PoCL's device line
#   cpusync  3D 512^3 W=5 `vector` on the CPU (PoCL) through `clconv run`
#            (every element verified, median of 10 launches): each
#            "NAME:COARSEN:ENV" of $CONFIGS (ENV: comma-separated
#            settings, - for none), $ROUNDS rounds (default 2); call 2
#            ran the tree with bench/results/2026-11-27-h100-s24/
#            exp-vector-sync.patch applied (-DVEC_SYNC=1), call 3 with
#            exp-vector-rows.patch ($CLCONV_VECTOR_ROWS)
#   prefetch (call 7) 3D 512x512x64 W=5 `vector`, VEC_PREFETCH 0/1/2/4
#            (the rows of the plane that many ahead prefetched), on core 0
#            alone and on all 16 (taskset), two rounds; call 7 gave it as
#            CLCONV_BUILD_OPTIONS=-DVEC_PREFETCH=N, the tree then having
#            the kernel side only, now $CLCONV_VECTOR_PREFETCH
#   pfrows   (call 8) bench rows of 3D 512^3 W=5 on the CPU at the
#            defaults (VEC_PREFETCH=1) against CLCONV_VECTOR_PREFETCH=0,
#            two rounds interleaved
# Calls 5 and 6 (POCL_CPU_MAX_CU_NUM, not honoured by PoCL 5.0, and
# `taskset` runs of 512x512x64 W=5) were one-line commands; their logs are
# in the results folder.
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
gpu_call_begin
gpu_build
runcpu() { # tag size mask coarsen env...
    local tag=$1 size=$2 w=$3 c=$4
    shift 4
    env "$@" timeout 150 build/clconv run --device cpu --dims 3 --size $size \
        --mask $w --strategy vector --coarsen $c --seed 1 --reps 10 \
        >"$R/$tag.txt" 2>&1
    echo "$tag: exit $? $(grep -o 'max_err.*' "$R/$tag.txt" | tail -1)"
}
for step in ${STEPS:-cpuinfo cpusync}; do
    case $step in
    cpuinfo)
        lscpu >"$R/lscpu.txt"
        grep -E "Thread|Core|Socket|MHz|cache|NUMA" "$R/lscpu.txt"
        grep -m1 -o "avx512[a-z_]*" /proc/cpuinfo | sort -u | head -3
        build/clconv bench --device cpu --dims 3 --size 128 --mask 5 \
            --strategy vector --tiles default --seed 1 --reps 10 2>&1 | tail -3 ;;
    cpusync)
        for r in $(seq ${ROUNDS:-2}); do
            for cf in ${CONFIGS:-def:8:- b1:16:CLCONV_VECTOR_BLOCKS=1 sync-b1:16:CLCONV_VECTOR_BLOCKS=1,CLCONV_BUILD_OPTIONS=-DVEC_SYNC=1}; do
                IFS=: read -r name c ev <<<"$cf"
                [ "$ev" = - ] && ev=X=1
                runcpu cpu-${SIZE:-512}-w${W:-5}-$name-c$c-r$r ${SIZE:-512} ${W:-5} $c ${ev//,/ }
            done
        done 2>&1 | tee "$R/cpusync.log"
        el "cpusync done" ;;
    prefetch)
        for r in 1 2; do
            for cores in 0 0-15; do
                for pf in 0 1 2 4; do
                    t=pf$pf-cores$cores-r$r
                    CLCONV_VECTOR_PREFETCH=$pf taskset -c $cores \
                        timeout 120 build/clconv run --device cpu --dims 3 \
                        --size 512x512x64 --mask 5 --strategy vector \
                        --seed 1 --reps 10 >"$R/$t.txt" 2>&1
                    echo "$t: exit $? $(grep -o 'max_err.*' "$R/$t.txt" | tail -1)"
                done
            done
        done 2>&1 | tee "$R/prefetch.log" ;;
    pfrows)
        for r in 1 2; do
            for k in off on; do
                e=X=1; [ $k = off ] && e=CLCONV_VECTOR_PREFETCH=0
                LT=150 gpu_row cpu-512-w5-prefetch-$k-r$r cpu "$e" --dims 3 \
                    --size 512x512x512 --mask 5 --strategy vector
            done
        done 2>&1 | tee "$R/pfrows.log" ;;
    esac
done
