#!/bin/bash
# One call on the lent GPU machine (see README "Running on the GPU machine"):
# register the NVIDIA ICD beside PoCL, unpack the carried cmocka/libpng debs
# into /tmp (never into /), build, then run the steps named as arguments.
# Logs go to $OUT. Steps: test, run, bench, perf (any order).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
# $CLCONV_GIT_VERSION names the commit (the copy on that machine may
# carry a stale .git, so bench output would name the wrong one).
MK="make -j16 SKIP_DEPS=1 ${CLCONV_GIT_VERSION:+CLCONV_GIT_VERSION=$CLCONV_GIT_VERSION}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
$MK all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
build/clconv devices | tee "$OUT/devices.txt"
for step in "$@"; do
    case $step in
    test)
        start=$(date +%s)
        $MK test 2>&1 | tee "$OUT/test.log" | grep -E "FAIL|passed|unsupported:|==|seed" | head -150
        echo "test: $(( $(date +%s) - start )) s" ;;
    run)
        build/clconv run 2>&1 | tee "$OUT/run.log" ;;
    *)
        if [ -x "scripts/gpu-step-$step.sh" ]; then "scripts/gpu-step-$step.sh"; else echo "unknown step $step"; fi ;;
    esac
done
