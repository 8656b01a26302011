#!/bin/sh
cd /work/wt/h-cpu2d
export CLCONV_KERNEL_DIR=$PWD/cl
fail=0
for b in 1 2; do
for c in "13x11 1" "13x11 3" "13x11 5" "2x3 3" "77x5 5" "77x5 3"; do
  set -- $c
  for flags in "" "--mode reflect" "--mode wrap --convolve" "--mode constant --cval 0.5"; do
  for pass in 1 2; do
    if [ $pass = 1 ]; then o="--data-races --check-api"; else o="--data-races --uninitialized --check-api --build-options -cl-opt-disable"; fi
    rm -f /tmp/hcpu/ocl.log; : > /tmp/hcpu/ocl.log
    XDG_CACHE_HOME=/tmp/hcpu/oclcache$pass CLCONV_VECTOR_WIDTH=8 CLCONV_VECTOR_BLOCKS=$b oclgrind $o --log /tmp/hcpu/ocl.log ./build-cpu/clconv run --dims 2 --size $1 --mask $2 --tile 8 --strategy vector --device all --reps 0 --seed 7 $flags > /tmp/hcpu/ocl.out 2>&1; rc=$?
    if [ $rc -ne 0 ] || [ -s /tmp/hcpu/ocl.log ] || ! grep -q Oclgrind /tmp/hcpu/ocl.out; then echo "FAIL b=$b $c $flags pass $pass rc=$rc"; cat /tmp/hcpu/ocl.out /tmp/hcpu/ocl.log | head -20; fail=1; else echo "ok b=$b $c $flags pass $pass"; fi
  done; done
done; done
echo "oclgrind-fail=$fail"
