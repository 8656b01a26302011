#!/bin/sh
# usage: spill.sh MASK "configs" [COARSEN]: fma and stack moves of the conv2d_vector kernel, per config
cd /work/wt/h-cpu2d
for cfg in $2; do
  v=${cfg%%:*}; rest=${cfg#*:}; w=${rest%%:*}; b=${rest#*:}
  dir=$PWD/cl; [ $v = old ] && dir=/tmp/hcpu/cl-old
  rm -rf /tmp/hcpu/pc; mkdir -p /tmp/hcpu/pc
  co=""; [ -n "$3" ] && co="--coarsen $3"
  POCL_CACHE_DIR=/tmp/hcpu/pc CLCONV_KERNEL_DIR=$dir CLCONV_VECTOR_WIDTH=$w CLCONV_VECTOR_BLOCKS=$b ./build-cpu/clconv run --dims 2 --size 256x64 --mask $1 --strategy vector --reps 10 --device cpu --seed 7 $co >/dev/null 2>&1
  so=$(find /tmp/hcpu/pc -path "*goffs0*" -name "*.so" | head -1)
  objdump -d --no-show-raw-insn $so > /tmp/hcpu/dis.txt
  echo "W=$1 $cfg fma=$(grep -c vfmadd /tmp/hcpu/dis.txt) stack=$(grep -cE 'vmov[au]ps.*\(%r[sb]p\)|vmov[au]ps.*%ymm[0-9]+,.*\(%r[sb]p' /tmp/hcpu/dis.txt) insns=$(grep -c '^ ' /tmp/hcpu/dis.txt)"
done
