#!/bin/bash
# Session 31's device calls (one H200): issue 17's direct targets at the
# defaults (gpu_targets: bench rows, now at session 30's new 2D W=9 and
# 1D W=55 defaults), and the H200's own sweeps of the knobs the other
# two unmet targets were tuned with on the H100 (bench/PERF.md items 53,
# 61, 64 for 3D; 67, 68 for u8):
#   3D 512^3 W=5 float32 coarse: tile x work-group height x planes per
#   work-item at the defaults' columns, rows and work-items along z; then
#   work-items along z (4), rows (2, 4) and 4 columns each alone;
#   2D 8192^2 W=3 u8 -> u8 coarse: columns (8, 16) x rows x height;
#   1D 2^26 W=55: the window marches (2, 3) at tiles 64 and 128, and the
#   queue (the default) under NVIDIA register caps of 64 and 80.
# Each sweep row is `clconv run` (every element verified, median of 20
# launches). Usage on the device machine: OUT=... STEP=sweep|ab bash
# scripts/gpu-s31.sh. STEP=ab: the candidates named in AB (one per line,
# "tag|env|run args"), ROUNDS interleaved rounds (3); then test_paths on the
# GPU for each cmocka filter in TESTS (BUILD_MORE=test-programs builds
# it), and the targets at the defaults.
. scripts/gpu-env.sh
gpu_call_begin
gpu_build ${BUILD_MORE:-}
RUN="timeout 120 build/clconv run --device gpu --reps 20 --warmup 3 --seed 1 --strategy coarse --mask-mode baked"
pick() { grep -E " ok | FAIL|unsupported|rror" | sed "s/^/$1 /"; }
case ${STEP:-sweep} in
sweep)
gpu_targets
mv "$R/targets.log" "$R/targets-1.log"
{
$RUN --dims 3 --size 512 --mask 5 --tile 8,16,32 --group-y 2,4,8 \
    --coarsen 16,32,48 2>&1 | pick "w5 default-cols"
CLCONV_COARSE_GZ=4 $RUN --dims 3 --size 512 --mask 5 --tile 16 \
    --group-y 2,4 --coarsen 16,32 2>&1 | pick "w5 gz4"
CLCONV_COARSE_GZ=1 $RUN --dims 3 --size 512 --mask 5 --tile 16 \
    --group-y 4 --coarsen 16,32 2>&1 | pick "w5 gz1"
for rows in 2 4; do
    CLCONV_COARSE_ROWS=$rows $RUN --dims 3 --size 512 --mask 5 \
        --tile 16,32 --group-y 2,4 --coarsen 32 2>&1 | pick "w5 rows$rows"
done
CLCONV_COARSE_XV=4 CLCONV_COARSE_ROWS=2 $RUN --dims 3 --size 512 --mask 5 \
    --tile 8,16 --group-y 4 --coarsen 32 2>&1 | pick "w5 xv4rows2"
} | tee "$R/sweep-3d.log"
el "3D sweep done"
for xv in 8 16; do
    CLCONV_COARSE_XV=$xv $RUN --dims 2 --size 8192 --mask 3 --dtype u8 \
        --tile 16,32,64 --coarsen 4,8,16 --group-y 2,4,8 2>&1 | pick "u8 xv$xv"
done | tee "$R/sweep-u8.log"
el "u8 sweep done"
{
for m in 2 3; do
    CLCONV_COARSE_MARCH=$m $RUN --dims 1 --size 67108864 --mask 55 \
        --tile 64,128 --coarsen 8,16 2>&1 | pick "w55 march$m"
done
for cap in 64 80; do
    CLCONV_BUILD_OPTIONS=-cl-nv-maxrregcount=$cap $RUN --dims 1 \
        --size 67108864 --mask 55 2>&1 | pick "w55 cap$cap"
done
$RUN --dims 1 --size 67108864 --mask 55 2>&1 | pick "w55 default"
} | tee "$R/sweep-w55.log"
el "1D sweep done"
for f in "$R"/sweep-*.log; do
    echo "== fastest of $(basename "$f")"
    awk '{ for (i = 1; i <= NF; i++) if ($i == "ms") print $(i - 1), $0 }' "$f" \
        | sort -n | head -6 | cut -d' ' -f2-
done
grep -h -E "FAIL|unsupported|rror" "$R"/sweep-*.log | head
gpu_targets
    ;;
ab)
    gpu_ab_runs
    [ -z "${TESTS:-}" ] || gpu_tests $TESTS
    gpu_targets
    ;;
esac
