#!/bin/sh
# Issue 15's PoCL target on the full suite: every mode within 20% of
# constant with vector (the CPU default), one `clconv run` process per
# problem and round, the modes' order rotated each round (each mode runs
# first once in five rounds). Usage: ab_full.sh CLI DEVICE [ROUNDS];
# PROBLEMS (a list of "dims size mask" triples, ';'-separated) picks some.
CLI=$1; DEV=$2; R=${3:-5}
ALL="1 67108864 5;1 67108864 9;1 67108864 55;2 8192x8192 3;2 8192x8192 5;2 8192x8192 9;3 512x512x512 3;3 512x512x512 5"
PROBLEMS=${PROBLEMS:-$ALL}
orders="constant,nearest,reflect,mirror,wrap nearest,reflect,mirror,wrap,constant reflect,mirror,wrap,constant,nearest mirror,wrap,constant,nearest,reflect wrap,constant,nearest,reflect,mirror"
for round in $(seq 1 $R); do
  order=$(echo $orders | cut -d' ' -f$(( (round - 1) % 5 + 1 )))
  echo "$PROBLEMS" | tr ';' '\n' | while read -r prob; do
    set -- $prob
    timeout ${PROBLEM_TIMEOUT:-300} "$CLI" run --device "$DEV" --strategy vector --dims $1 --size $2 \
        --mask $3 --mode $order --reps ${REPS:-10} --warmup 3 --seed 1 2>&1 \
        | grep " ok \| FAIL\|error" | sed "s/^/r$round D$1 $2 W$3 /"
  done
done
