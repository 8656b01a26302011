#!/bin/bash
# Session 28's device call, on two GPUs (nvidia-h200-x2 or h100-x2):
# test/mpi.sh with each rank on its node-local GPU: every MPI case of the
# session (ranks reading different headers, SIGKILL to rank 0 while it
# writes, a read-only OUT of another owner, IN a FIFO or '-', --verify
# counting NaN outputs, a float64 beyond float32's range, bench --mpi's
# FILE checked first, --halo under mpirun -n 1) beside the earlier ones,
# whose outputs must be the one-process bytes. Usage on the device
# machine: OUT=... bash scripts/gpu-s28.sh
. scripts/gpu-env.sh
gpu_call_begin
nvidia-smi -L | tee "$R/gpus.txt"
gpu_build
[ -x build/clconv-mpi ] || { el "no build/clconv-mpi"; exit 1; }
timeout ${TT:-480} sh test/mpi.sh build/clconv >"$R/mpi.log" 2>&1
el "test/mpi.sh on the GPUs: exit $?"
grep -E "^FAIL|SIGKILL|different headers|read-only|FIFO|standard input|NaN or Inf|float64|--halo|--json|mpi_fuzz|all passed|failure" \
    "$R/mpi.log" | head -40
