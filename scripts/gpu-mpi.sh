#!/bin/bash
# The MPI scaling measurement (issue 19) on the 2-GPU machine
# (nvidia-h200-x2): 3D 1024^3 and 2048^3, masks 3 and 5, on 1 and 2 ranks
# (one GPU each), strong scaling, with the end-to-end time through .npy
# files; JSON, text and (with matplotlib) a plot into $OUT.
#   scripts/gpu-mpi.sh [SIZE...]            (default: 1024 2048)
# Environment: OUT (default /tmp/out), MASKS (default 3,5), REPS (5),
# IO_DIR (default /tmp/clconv-mpi-io: room for 2 x SIZE^3 x 4 bytes),
# RANKS (default "1 2"), CALL_TIMEOUT seconds per mpirun (default 560).
# Build: as scripts/gpu-session.sh (NVIDIA ICD, carried debs) with MPI=1;
# run it after `scripts/gpu-session.sh` has built once, or alone: it
# builds what is missing.
set -u
OUT=${OUT:-/tmp/out}
MASKS=${MASKS:-3,5}
REPS=${REPS:-5}
IO_DIR=${IO_DIR:-/tmp/clconv-mpi-io}
SIZES=${*:-1024 2048}
mkdir -p "$OUT" "$IO_DIR" /tmp/v
echo libnvidia-opencl.so.1 > /tmp/v/nvidia.icd
export OCL_ICD_VENDORS=/tmp/v
if [ -d .deps-carry ]; then
    D=/tmp/carry L=/tmp/carry/usr/lib/x86_64-linux-gnu
    mkdir -p $D
    for f in .deps-carry/*.deb; do dpkg -x "$f" $D; done
    export C_INCLUDE_PATH=$D/usr/include LIBRARY_PATH=$L LD_LIBRARY_PATH=$L
fi
command -v mpirun >/dev/null || { echo "gpu-mpi.sh: no mpirun on this machine"; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,pcie.link.gen.max,pcie.link.width.max \
    --format=csv | tee "$OUT/mpi-gpus.txt"
nvidia-smi topo -m >> "$OUT/mpi-gpus.txt" 2>&1
mpirun --version | head -1 | tee -a "$OUT/mpi-gpus.txt"
make -j16 SKIP_DEPS=1 MPI=1 build/clconv build/clconv-mpi >"$OUT/mpi-build.log" 2>&1 ||
    { tail -30 "$OUT/mpi-build.log"; exit 1; }
# mpirun there sets OCL_ICD_FILENAMES=libpocl.so.2 in its ranks (seen in
# session 8: the ranks saw no GPU), which hides the NVIDIA ICD: name both.
RUN="mpirun --allow-run-as-root --bind-to none -x OCL_ICD_FILENAMES=libnvidia-opencl.so.1:libpocl.so.2"
for s in $SIZES; do
    for n in ${RANKS:-1 2}; do
        name=mpi-n$n-$s
        echo "== $n rank(s), $s^3, masks $MASKS"
        start=$(date +%s)
        timeout "${CALL_TIMEOUT:-560}" $RUN -n "$n" build/clconv bench --mpi \
            --device gpu --size "$s" --mask "$MASKS" --scaling strong \
            --reps "$REPS" --seed 1 --io "$IO_DIR" --json "$OUT/$name.json" \
            >"$OUT/$name.txt" 2>"$OUT/$name.err"
        echo "exit $? in $(( $(date +%s) - start )) s"
        cat "$OUT/$name.txt"; tail -3 "$OUT/$name.err"
        rm -f "$IO_DIR"/clconv-bench-mpi-*.npy
    done
done
python3 bench/plot-mpi --out "$OUT" "$OUT"/mpi-n*.json 2>&1 | tail -2
