#!/bin/sh
CLI=$1
orders="constant,nearest,reflect,mirror,wrap nearest,reflect,mirror,wrap,constant reflect,mirror,wrap,constant,nearest mirror,wrap,constant,nearest,reflect wrap,constant,nearest,reflect,mirror"
for round in 1 2 3 4 5; do
  order=$(echo $orders | cut -d' ' -f$round)
  for prob in "2 1024x1024 5" "3 128x128x128 3" "3 128x128x128 5"; do
    set -- $prob
    for v in before after; do
      dir=/tmp/modes9/before-cl; [ $v = after ] && dir=/tmp/modes9/after/cl
      CLCONV_KERNEL_DIR=$dir "$CLI" run --device cpu --strategy vector --dims $1 --size $2 --mask $3 \
        --mode $order --reps 30 --warmup 5 --seed 1 2>&1 | grep " ok \| FAIL" | sed "s/^/r$round D$1 $2 W$3 $v /"
    done
  done
done
