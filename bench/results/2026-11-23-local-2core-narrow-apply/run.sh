#!/bin/sh
# clconv apply and clconv.correlate on a 2D 8192x8192 uint8 array, W=3,
# before (host conversion to float32: the build at OLD, and
# CLCONV_PY_UPLOAD=f32) and after (uint8 on the device), interleaved
# ROUNDS times on the shared 2-core machine (PoCL). Wall time and peak
# resident memory from /usr/bin/time; raw output beside this file.
# Usage (repository root): sh bench/results/2026-11-23-local-2core-narrow-apply/run.sh \
#     OLD_ROOT NEW_CLI PYTHONPATH_OF_THE_PACKAGE
set -eu
OLD=$1 NEW=$2 PYP=$3
ROUNDS=${ROUNDS:-3}
here=$(dirname "$0")
w=/tmp/narrow-apply
mkdir -p $w
/usr/bin/python3 "$here/make_inputs.py" $w
run() { # tag kernel-dir cli args...
    tag=$1 kd=$2; shift 2
    CLCONV_KERNEL_DIR=$kd /usr/bin/time -f "$tag wall %e s peak %M KiB" \
        "$@" --mask box:3 --device cpu 2>&1 | sed "s/^/$tag | /" >>"$here/apply.log"
}
: >"$here/apply.log"
for r in $(seq 1 "$ROUNDS"); do
    run "r$r old npy" "$OLD/cl" "$OLD/build/clconv" apply $w/in.npy $w/o-old.npy
    run "r$r new npy" cl "$NEW" apply $w/in.npy $w/o-new.npy
    run "r$r new npy same" cl "$NEW" apply $w/in.npy $w/o-same.npy --out-dtype same
    run "r$r old png" "$OLD/cl" "$OLD/build/clconv" apply $w/in.png $w/o-old.png
    run "r$r new png" cl "$NEW" apply $w/in.png $w/o-new.png
    run "r$r new png f32" cl "$NEW" apply $w/in.png $w/o-f32.png --out-dtype f32
done
cmp $w/o-old.npy $w/o-new.npy && echo "npy: old and new float32 outputs identical" | tee -a "$here/apply.log"
cmp $w/o-old.png $w/o-f32.png && echo "png: old and new --out-dtype f32 identical" | tee -a "$here/apply.log"
CLCONV_KERNEL_DIR=cl PYTHONPATH=$PYP ROUNDS=$ROUNDS /usr/bin/python3 "$here/py_correlate.py" $w/in.npy \
    | tee "$here/python.log"
rm -rf $w
