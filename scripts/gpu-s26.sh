#!/bin/sh
# Session 26's device call: the test programs that session 26 changed, on
# the GPU and on the CPU (PoCL) of the GPU machine, each alone (the FFT on
# an application's out-of-order queue, NULL arguments, the program cache's
# bound and FIFO entries, the tuning file, the measuring overrides, the
# tests' fixed mask seed). Usage on the device machine: OUT=... sh
# scripts/gpu-s26.sh
. scripts/gpu-env.sh
gpu_call_begin
gpu_build test-programs
for dev in gpu cpu; do
    for t in test_enqueue test_stream test_program_cache test_tune \
             test_variants test_mask_mode test_mask_spec test_output; do
        CLCONV_DEVICE=$dev timeout ${TT:-300} build/$t \
            >"$R/$t-$dev.log" 2>&1
        el "$t on $dev: exit $?"
        grep -E "PASSED|FAILED|ERROR|skipped" "$R/$t-$dev.log" | head -4
    done
done
# The out-of-order test alone, five times on the GPU (a race lost at
# random before the fix).
for k in 1 2 3 4 5; do
    CLCONV_DEVICE=gpu timeout 120 build/test_enqueue \
        >"$R/enqueue-ooo-$k.log" 2>&1
    el "test_enqueue round $k on the GPU: exit $?"
done
# test_matrix's mask-mode tests twice on the GPU (masks baked): the second
# run builds nothing new.
for k in 1 2; do
    CLCONV_DEVICE=gpu timeout 300 build/test_mask_mode \
        >"$R/mask-mode-$k.log" 2>&1
    el "test_mask_mode run $k on the GPU: exit $?," \
        "$(ls "${XDG_CACHE_HOME:-$HOME/.cache}/clconv/programs" | wc -l) programs cached"
done
