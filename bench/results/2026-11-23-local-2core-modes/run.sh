#!/bin/sh
# Issue 15's PoCL target (every mode within 20% of constant): the quick
# suite with the CPU default (vector, default tiles) once per mode, modes
# alternating within each of ROUNDS rounds, JSON per run.
# Usage: run.sh CLI OUTDIR
CLI=${1:-build/clconv}; OUT=${2:-.}
for round in $(seq 1 ${ROUNDS:-3}); do
    for m in constant nearest reflect mirror wrap; do
        "$CLI" bench --device cpu --suite quick --strategy vector --tiles default \
            --mode $m --seed 1 --quiet --json "$OUT/quick-$m-r$round.json" >/dev/null 2>&1
        echo "round $round mode $m: exit $?"
    done
done
