#!/bin/sh
# Session 27's device call: the test programs whose host code session 27
# changed, on the GPU and on the CPU (PoCL) of the GPU machine: slabs that
# gather their halo rows in every border mode (GPUs stream through pinned
# staging), enqueues of one plan in order on out-of-order queues,
# sub-buffer regions, destroying a session on an application's queue, the
# output over the input; a split over the GPU and the CPU in every mode;
# PNG transparency. Usage on the device machine: OUT=... bash
# scripts/gpu-s27.sh
. scripts/gpu-env.sh
gpu_call_begin
gpu_build test-programs
for dev in gpu cpu; do
    for t in test_stream test_enqueue test_image; do
        CLCONV_DEVICE=$dev timeout ${TT:-300} build/$t \
            >"$R/$t-$dev.log" 2>&1
        el "$t on $dev: exit $?"
        grep -E "PASSED|FAILED|ERROR|skipped" "$R/$t-$dev.log" | head -4
    done
done
# Both devices (no selector): the split over the GPU and the CPU.
timeout 300 build/test_split >"$R/test_split-gpu-cpu.log" 2>&1
el "test_split over the GPU and the CPU: exit $?"
grep -E "PASSED|FAILED|ERROR|split:" "$R/test_split-gpu-cpu.log" | head -12
# The back-to-back enqueues five times on the GPU (a race).
for k in 1 2 3 4 5; do
    CLCONV_DEVICE=gpu timeout 120 build/test_enqueue \
        >"$R/enqueue-$k.log" 2>&1
    el "test_enqueue round $k on the GPU: exit $?"
done
