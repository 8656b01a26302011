#!/bin/bash
# Session 29's device call (one H200): can anything move the bytes of
# issue 17's u8 -> u8 target (2D 8192^2 W=3) at the floor's bandwidth?
# scripts/probe_copy.c copies the same bytes in float4, uchar16, uchar8
# and uchar4 per work-item and runs a skeleton of the 2D coarse kernel's
# memory traffic (4, 8, 16 rows); then issue 17's four direct targets at
# the defaults (gpu_targets). Usage on the device machine:
# OUT=... bash scripts/gpu-s29.sh
. scripts/gpu-env.sh
gpu_call_begin
cc -std=c11 -O2 scripts/probe_copy.c -lOpenCL -o /tmp/probe_copy
timeout 120 /tmp/probe_copy 8192 NVIDIA | tee "$R/probe_copy.txt"
el "probe_copy: exit $?"
gpu_build
gpu_targets
timeout 120 /tmp/probe_copy 8192 NVIDIA | tee "$R/probe_copy-2.txt"
el "probe_copy again: exit $?"
