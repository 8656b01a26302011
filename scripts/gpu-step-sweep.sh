#!/bin/bash
# Sweep the coarse variant's knobs on the full-suite problems on the GPU,
# beside the textbook strategies (their default tiles), verified each.
set -u
OUT=${OUT:-/tmp/out}
R="build/clconv run --device gpu --reps 10 --warmup 3 --seed 5"
{
for w in 5 9 55; do
  $R --dims 1 --size 67108864 --mask $w --strategy all
  $R --dims 1 --size 67108864 --mask $w --strategy coarse --tile 64,128,256 --coarsen 2,4,8,16
done
for w in 3 5 9; do
  $R --dims 2 --size 8192 --mask $w --strategy all --tile 8,16
  $R --dims 2 --size 8192 --mask $w --strategy coarse --tile 32,64,128 --group-y 1,2,4,8 --coarsen 4,8,16
done
for w in 3 5; do
  $R --dims 3 --size 512 --mask $w --strategy all --tile 4
  $R --dims 3 --size 512 --mask $w --strategy coarse --tile 32,64 --group-y 2,4,8 --coarsen 8,16,32
done
} 2>&1 | tee "$OUT/sweep.log" | grep -v "^clconv: seed" | sort -t' ' -k1,1 > /dev/null
# Best ok row per problem (dims, size, mask) by ms.
grep " ok " "$OUT/sweep.log" | awk '{
  match($0, / [123]D [0-9x]+ +W=[0-9]+/); key=substr($0, RSTART, RLENGTH);
  ms=0; for(i=1;i<=NF;i++) if($i=="ms") ms=$(i-1)+0;
  if (!(key in best) || ms < best[key]) { best[key]=ms; line[key]=$0 } }
  END { for (k in line) print line[k] }' | sort -k5
grep -c " ok " "$OUT/sweep.log"; grep -E "FAIL|error" "$OUT/sweep.log" | head
