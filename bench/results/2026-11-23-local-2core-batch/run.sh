#!/bin/sh
# Batches before and after members ran their own lower-dimensional kernel
# (one launch, one NDRange dimension deeper) instead of the 3D/2D kernel
# with a mask 1 wide: the same problems, A/B interleaved, 3 rounds.
# usage: run.sh OLD_CLCONV OLD_CL_DIR NEW_CLCONV NEW_CL_DIR
old=$1 oldcl=$2 new=$3 newcl=$4
for round in 1 2 3; do
  for c in "2 64x64 256" "2 512x512 32" "2 1920x1080 3" "1 4096 256"; do
    set -- $c
    for strat in vector cached_halo; do
      for which in old new; do
        if [ $which = old ]; then B=$old K=$oldcl; else B=$new K=$newcl; fi
        for b in 1 $3; do
          CLCONV_KERNEL_DIR=$K $B run --dims $1 --size $2 --mask 5 --batch $b \
            --strategy $strat --reps 30 --seed 5 --json - 2>/dev/null |
          python3 -c "
import json,sys
r=json.load(sys.stdin)[0]
print('round $round ${1}D $2 $strat $which batch=$b ms=%.4f %s'%(r['ms'], r['status']))"
        done
      done
    done
  done
done
