#!/bin/sh
# 3D vector (float16, taps one by one on the interior path) under Oclgrind, both passes
cd /work/wt/h-cpu2d
export CLCONV_KERNEL_DIR=$PWD/cl
fail=0
for c in "7x6x5 3" "77x4x3 3" "20x5x4 5" "2x1x3 3"; do
  set -- $c
  for flags in "" "--mode reflect"; do
  for pass in 1 2; do
    if [ $pass = 1 ]; then o="--data-races --check-api"; else o="--data-races --uninitialized --check-api --build-options -cl-opt-disable"; fi
    : > /tmp/hcpu/ocl3.log
    XDG_CACHE_HOME=/tmp/hcpu/ocl3cache$pass oclgrind $o --log /tmp/hcpu/ocl3.log ./build-cpu/clconv run --dims 3 --size $1 --mask $2 --tile 2 --strategy vector --device all --reps 0 --seed 7 $flags > /tmp/hcpu/ocl3.out 2>&1; rc=$?
    if [ $rc -ne 0 ] || [ -s /tmp/hcpu/ocl3.log ] || ! grep -q Oclgrind /tmp/hcpu/ocl3.out; then echo "FAIL $c $flags pass $pass rc=$rc"; cat /tmp/hcpu/ocl3.out /tmp/hcpu/ocl3.log | head -20; fail=1; else echo "ok 3D $c $flags pass $pass"; fi
  done; done
done
echo "oclgrind-fail=$fail"
