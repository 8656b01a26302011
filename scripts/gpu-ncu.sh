#!/bin/bash
# GPU machine: Nsight Compute's view of the separable passes of 2D 8192^2
# Gaussian W=101 (scripts/ncu_kernels.py: the PTX of clconv's program
# cache launched through cupy, which ncu sees), and whether ncu sees
# clconv's own OpenCL launches. Reports under $OUT/r. (Session 16 ran it
# through an earlier script that left the PTX's global offset undefined:
# its instruction mix held, its memory figures did not; bench/PERF.md
# item 52.)
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build
export XDG_CACHE_HOME=/tmp/xc
timeout 60 build/clconv bench --suite large --dims 2 --size 8192x8192 --mask 101 \
    --kind gaussian --method separable --device gpu --seed 1 --reps 10 | tee "$R/bench.txt"
ls $XDG_CACHE_HOME/clconv/programs | tee "$R/cache.txt"
NCU=/usr/local/cuda/bin/ncu
timeout 200 $NCU --set full -k regex:sep_pass -c 6 -o "$R/sep" -f \
    python3 scripts/ncu_kernels.py $XDG_CACHE_HOME 8192 8192 >"$R/ncu-run.log" 2>&1
el "ncu: exit $?"; tail -5 "$R/ncu-run.log"
$NCU --import "$R/sep.ncu-rep" --page details >"$R/sep-details.txt" 2>&1
grep -E "axis|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc|SM Busy|Stall|Warp Cycles Per Issued|Eligible" "$R/sep-details.txt" | head -60
$NCU --import "$R/sep.ncu-rep" --page raw --csv --metrics smsp__average_warp_latency_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard >"$R/sep-raw.csv" 2>&1
timeout 60 $NCU -c 2 build/clconv run --dims 1 --size 1048576 --mask 9 --strategy coarse \
    --device gpu --reps 1 --seed 1 >"$R/ncu-opencl.log" 2>&1
el "ncu on OpenCL: exit $?"; grep -iE "==PROF==|No kernels|conv1d" "$R/ncu-opencl.log" | head -5
