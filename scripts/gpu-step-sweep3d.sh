#!/bin/bash
# 3D coarse sweep and 1D/2D refinements on the GPU (see gpu-step-sweep.sh).
set -u
OUT=${OUT:-/tmp/out}
R="build/clconv run --device gpu --reps 10 --warmup 3 --seed 5"
{
for w in 3 5; do
  $R --dims 3 --size 512 --mask $w --strategy coarse --tile 32,64,128 --group-y 1,2,4,8 --coarsen 8,16,32
done
$R --dims 2 --size 8192 --mask 9 --strategy coarse --tile 32,64 --group-y 1,2,4 --coarsen 16,32
$R --dims 1 --size 67108864 --mask 55 --strategy coarse --tile 64,128 --coarsen 8,12,16
} 2>&1 | tee "$OUT/sweep3d.log" >/dev/null
grep " ok " "$OUT/sweep3d.log" | awk '{
  match($0, / [123]D [0-9x]+ +W=[0-9]+/); key=substr($0, RSTART, RLENGTH);
  ms=0; for(i=1;i<=NF;i++) if($i=="ms") ms=$(i-1)+0;
  if (!(key in best) || ms < best[key]) { best[key]=ms; line[key]=$0 } }
  END { for (k in line) print line[k] }' | sort -k5
grep -c " ok " "$OUT/sweep3d.log"; grep -E "FAIL|error" "$OUT/sweep3d.log" | head
