#!/bin/sh
# vector's x-border columns folded once per work-item (after) against per
# row and plane (before, main's kernels): same binary, kernel folder
# switched, alternating; quick-suite 2D and 3D problems, per mode.
CLI=$1; BEFORE=$2; AFTER=$3
for round in 1 2 3; do
  for prob in "3 128x128x128 3" "3 128x128x128 5" "2 1024x1024 5"; do
    set -- $prob
    for m in constant wrap reflect; do
      for v in before after; do
        dir=$BEFORE; [ $v = after ] && dir=$AFTER
        CLCONV_KERNEL_DIR=$dir "$CLI" run --device cpu --strategy vector --dims $1 --size $2 \
            --mask $3 --mode $m --reps 20 --seed 1 2>&1 | tail -1 | sed "s/^/r$round $v $m /"
      done
    done
  done
done
