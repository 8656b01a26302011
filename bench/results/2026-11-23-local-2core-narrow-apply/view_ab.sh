#!/bin/sh
# One plane read where it lies (no copy into a plane buffer) against the
# copy: apply on the 8192^2 uint8 .npy, float32 and uint8 out, the build
# at PREV (with the copy) and NEW alternating ROUNDS times.
# Usage (repository root): sh .../view_ab.sh PREV_ROOT NEW_CLI
set -eu
PREV=$1 NEW=$2
ROUNDS=${ROUNDS:-3}
here=$(dirname "$0")
w=/tmp/narrow-view
mkdir -p $w
/usr/bin/python3 "$here/make_inputs.py" $w
: >"$here/view.log"
for r in $(seq 1 "$ROUNDS"); do
    for out in f32 same; do
        for b in prev new; do
            if [ $b = prev ]; then kd=$PREV/cl cli=$PREV/build/clconv; else kd=cl cli=$NEW; fi
            CLCONV_KERNEL_DIR=$kd /usr/bin/time -f "r$r $b $out wall %e s peak %M KiB" \
                "$cli" apply $w/in.npy $w/o-$b-$out.npy --mask box:3 --device cpu \
                --out-dtype $out >/dev/null 2>>"$here/view.log"
        done
        cmp $w/o-prev-$out.npy $w/o-new-$out.npy
    done
done
echo "outputs of prev and new identical (f32 and same)" >>"$here/view.log"
cat "$here/view.log"
rm -rf $w
