#!/bin/sh
# usage: ab.sh SIZE "MASKS" "BLOCKS" rounds ; A=/tmp/hcpu/cl-old B=$PWD/cl
cd /work/wt/h-cpu2d
for round in $(seq 1 $4); do
for m in $2; do for b in $3; do for v in old new; do
  dir=$PWD/cl; [ $v = old ] && dir=/tmp/hcpu/cl-old
  t=$(CLCONV_KERNEL_DIR=$dir CLCONV_VECTOR_BLOCKS=$b ./build-cpu/clconv run --dims 2 --size $1 --mask $m --strategy vector --reps ${REPS:-30} --device cpu --seed 7 ${EXTRA:-} 2>/dev/null | tail -1)
  echo "r$round $v blocks=$b $t" | awk '{print $1,$2,$3,$7,$8,$10,$11,$12,$16,$17}'
done; done; done; done
