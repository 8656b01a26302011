#!/bin/sh
# Every mode against constant with vector (PoCL default) on a quiet machine:
# one process per problem and round, the modes' order rotated each round.
CLI=$1; R=${ROUNDS:-5}
orders="constant,nearest,reflect,mirror,wrap nearest,reflect,mirror,wrap,constant reflect,mirror,wrap,constant,nearest mirror,wrap,constant,nearest,reflect wrap,constant,nearest,reflect,mirror"
for round in $(seq 1 $R); do
  order=$(echo $orders | cut -d' ' -f$(( (round - 1) % 5 + 1 )))
  for prob in "3 128x128x128 3"; do
    set -- $prob
    "$CLI" run --device cpu --strategy vector --dims $1 --size $2 --mask $3 \
        --mode $order --reps ${REPS:-30} --warmup 5 --seed 1 2>&1 \
        | grep " ok \| FAIL" | sed "s/^/r$round D$1 $2 W$3 /"
  done
done
