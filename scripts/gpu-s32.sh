#!/bin/bash
# Session 32's device calls (one H200): the candidates named in AB (one
# per line, "tag|env|run args"; each `clconv run`, every element verified,
# median of 20 launches), ROUNDS interleaved rounds (3; gpu_ab_runs); the
# bench rows named in ROWS (below); issue 17's targets at the defaults
# (gpu_targets) where TARGETS is set; Nsight Compute on the kernels whose
# program label matches each regular expression of PROF ("tag|regex|shape",
# shape as ncu_kernels.py takes it, e.g. "67108864" or "512 512 512": its
# details and instruction mix in $R/prof-tag-*); test_paths on the GPU for
# each cmocka filter in TESTS (BUILD_MORE=test-programs builds it). Every
# program goes to one cache, $XDG_CACHE_HOME, which ncu_kernels.py reads.
# Usage on the device machine: OUT=... AB=... bash scripts/gpu-s32.sh.
. scripts/gpu-env.sh
gpu_call_begin
gpu_build ${BUILD_MORE:-}
export XDG_CACHE_HOME=/tmp/xc
RUN="timeout 150 build/clconv run --device gpu --reps 20 --warmup 3 --seed 1 --strategy coarse --mask-mode baked"
gpu_ab_runs
# ROWS: bench rows, one per line "tag|env|bench args" (gpu_row: env X=1
# for none; CLCONV_KERNEL_DIR=$PWD/.cl-base/cl for the kernels before)
while IFS='|' read -r tag e args; do
    [ -n "$tag" ] || continue
    LT=150 gpu_row "$tag" gpu "${e//@/$PWD}" $args
done <<<"${ROWS:-}" 2>&1 | tee "$R/rows.log"
[ -z "${TARGETS:-}" ] || gpu_targets
NCU=/usr/local/cuda/bin/ncu
while IFS='|' read -r tag only shape; do
    [ -n "$tag" ] || continue
    NCU_ONLY="$only" timeout 200 $NCU --set full -k regex:conv -c 1 \
        -o "$R/prof-$tag" -f python3 scripts/ncu_kernels.py $XDG_CACHE_HOME \
        $shape >"$R/prof-$tag-ncu.log" 2>&1
    el "prof $tag: exit $?"; grep -v "^==" "$R/prof-$tag-ncu.log" | tail -2
    $NCU --import "$R/prof-$tag.ncu-rep" --page details >"$R/prof-$tag-details.txt" 2>&1
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|No Eligible|Warp Cycles Per Issued" "$R/prof-$tag-details.txt" | head -14
    $NCU --import "$R/prof-$tag.ncu-rep" --page source --print-source sass --csv 2>/dev/null \
        | tee >(gzip >"$R/prof-$tag-sass.csv.gz") | python3 scripts/ncu_mix.py >"$R/prof-$tag-mix.txt" 2>&1
    head -12 "$R/prof-$tag-mix.txt"
done <<<"${PROF:-}"
[ -z "${TESTS:-}" ] || gpu_tests $TESTS
