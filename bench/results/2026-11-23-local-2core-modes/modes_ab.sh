#!/bin/sh
# Every mode against constant with vector (the CPU default) on PoCL, main's
# kernels (before) and vector's x-border folded once (after), alternating,
# one run call per problem and version (the modes share its dataset).
CLI=$1; BEFORE=$2; AFTER=$3
for round in 1 2 3; do
  for prob in "3 128x128x128 3" "3 128x128x128 5" "2 1024x1024 5" "2 1024x1024 9" "1 4194304 55"; do
    set -- $prob
    for v in before after; do
      dir=$BEFORE; [ $v = after ] && dir=$AFTER
      CLCONV_KERNEL_DIR=$dir "$CLI" run --device cpu --strategy vector --dims $1 --size $2 \
          --mask $3 --mode constant,nearest,reflect,mirror,wrap --reps 20 --seed 1 2>&1 \
          | grep " ok \| FAIL" | sed "s/^/r$round $v /"
    done
  done
done
