#!/bin/sh
# usage: ab2.sh SIZE "MASKS" rounds "CONFIGS"; config = cl:width:blocks:coarsen (cl old|new)
cd /work/wt/h-cpu2d
for round in $(seq 1 $3); do
for m in $2; do for cfg in $4; do
  v=${cfg%%:*}; rest=${cfg#*:}; w=${rest%%:*}; rest=${rest#*:}; b=${rest%%:*}; c=${rest#*:}
  dir=$PWD/cl; [ $v = old ] && dir=/tmp/hcpu/cl-old
  co=""; [ "$c" != "-" ] && co="--coarsen $c"
  t=$(CLCONV_KERNEL_DIR=$dir CLCONV_VECTOR_WIDTH=$w CLCONV_VECTOR_BLOCKS=$b ./build-cpu/clconv run --dims 2 --size $1 --mask $m --strategy vector --reps ${REPS:-30} --device cpu --seed 7 $co 2>/dev/null | tail -1)
  echo "r$round W=$m $cfg $t" | awk '{print $1,$2,$3,$12,$14,$16,$17}'
done; done; done
