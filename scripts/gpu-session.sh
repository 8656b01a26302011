#!/bin/bash
# One call on the lent GPU machine (see README "Running on the GPU machine"):
# register the NVIDIA ICD beside PoCL, unpack the carried cmocka/libpng debs
# into /tmp (never into /), build, then run the steps named as arguments.
# Logs go to $OUT. Steps: test, run, bench, perf (any order).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/v
echo libnvidia-opencl.so.1 > /tmp/v/nvidia.icd
cp /etc/OpenCL/vendors/pocl.icd /tmp/v/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/v
D=/tmp/carry
mkdir -p $D
for f in .deps-carry/*.deb; do dpkg -x "$f" $D; done
L=$D/usr/lib/x86_64-linux-gnu
export CMOCKA_CFLAGS="-I$D/usr/include" CMOCKA_LIBS="-L$L -lcmocka -Wl,-rpath,$L"
export C_INCLUDE_PATH=$D/usr/include LIBRARY_PATH=$L LD_LIBRARY_PATH=$L
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
