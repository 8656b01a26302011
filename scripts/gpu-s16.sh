#!/bin/bash
# Session 16's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs and JSON under $OUT/r, returned as
# one tarball (bench/PERF.md items 48-49):
#   tests  on the GPU: test_paths' 3D coarse wide-mask test and the
#          separable passes in the other form (4 work-items along y, z)
#   d3     3D direct (coarse) random masks, 256^3 W=5, 7, 9 and 512^3
#          W=5: base (.cl-base/cl, the plane's loops left to the
#          compiler) against new (#pragma unroll on them), two rounds;
#          then rows per work-item 1, 2, 3 at W=7 and 9 (new)
#   nvv    NVIDIA's registers and spills (-cl-nv-verbose) of the 3D W=7
#          kernel, base and new, and the separable passes at W=101
#   sepga  2D 8192^2 Gaussian W=101 and W=31, 3D 512^3 W=15: the y and z
#          passes' work-items along their axis ($CLCONV_SEP_GROUP_A 1, 2,
#          4, 8, 16) at 128 and 32 across x; 1D 2^26 W=101 (the x pass
#          alone), two rounds
#   ahead  2D 8192^2 Gaussian W=101 and W=31, 3D 512^3 W=15: the y and z
#          passes' rows loaded ahead ($CLCONV_SEP_AHEAD 0, 2, 4, 8, 16),
#          two rounds; the knob was reverted: it needs
#          bench/results/2026-11-26-h100-s16/sep-ahead.diff applied
#   spans  1D 2^26 random W=101 direct (coarse, the window with staged
#          stores: the separable x pass's march) at 1, 2, 4, 8 spans per
#          work-group, the next span's tile prefetched ($CLCONV_COARSE_SPANS),
#          against the separable x pass, two rounds
#   yga    2D 8192^2 Gaussian W=31 and W=101, 3D 512^3 W=15: the y pass
#          at its new default (32 x 4 in 2D) against the previous one
#          ($CLCONV_SEP_TILE=128,128 $CLCONV_SEP_GROUP_A=1), two rounds
#   septest on the GPU: every test_paths separable test ($TP seconds)
#   model  direct against the FFT where the cost model's choice is close
#          or under-filled: 3D 128^3 and 256^3 random W=5, 7, 9; 2D 256^2,
#          512^2, 1024^2 random 15x15 and 31x31 (method direct, fft, auto)
#   pad    base (.cl-base/cl: local rows padded one float per 32, the y
#          pass's rows indexed) against new (padded one per COARSEN, read at
#          constant offsets; a pointer walking the y pass's rows): 1D 2^26
#          random W=5, 9, 17, 55 direct, W=101 separable (the x pass); 2D
#          8192^2 Gaussian W=31, W=101 and 3D 512^3 W=15 separable; two
#          rounds ($PADP: other problems, "D_SIZE_W_METHOD_KIND ...";
#          scripts/gpu-env.sh gpu_ab)
#   large  the large suite's separable rows and 3D direct (method auto)
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
for step in ${STEPS:-tests d3}; do
    case $step in
    tests)
        for f in ${TF:-'direct_3d*' 'separable_passes_in*'}; do
            CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER="$f" timeout ${TP:-200} \
                build/test_paths >"$R/test_paths-${f%\*}-gpu.log" 2>&1
            el "test_paths $f on the GPU: exit $?"
            grep -E "PASSED|FAILED|LANES|ERROR" "$R/test_paths-${f%\*}-gpu.log" | head -8
        done ;;
    d3)
        for r in 1 2; do
            for p in "256x256x256 5" "256x256x256 7" "256x256x256 9" "512x512x512 5"; do
                set -- $p
                LT=90 gpu_large "d3-w$2-$1-base-r$r" CLCONV_KERNEL_DIR=$PWD/.cl-base/cl -- \
                    --dims 3 --size $1 --mask $2 --method direct --reps 10
                LT=90 gpu_large "d3-w$2-$1-new-r$r" X=1 -- \
                    --dims 3 --size $1 --mask $2 --method direct --reps 10
            done
        done 2>&1 | tee "$R/d3.log"
        for w in 7 9; do
            for rows in 1 2 3; do
                LT=90 gpu_large "d3-w$w-rows$rows" CLCONV_COARSE_ROWS=$rows -- \
                    --dims 3 --size 256x256x256 --mask $w --method direct --reps 10
            done
        done 2>&1 | tee -a "$R/d3.log"; el "d3" ;;
    nvv)
        for k in base new; do
            dir=$PWD/cl; [ $k = base ] && dir=$PWD/.cl-base/cl
            CLCONV_KERNEL_DIR=$dir CLCONV_BUILD_LOG=1 CLCONV_NO_CACHE=1 \
                CLCONV_BUILD_OPTIONS=-cl-nv-verbose timeout 120 build/clconv run \
                --device gpu --dims 3 --size 64 --mask 7 --strategy coarse \
                --reps 1 --seed 1 >"$R/nvv-3d-w7-$k.log" 2>&1
            echo "3D W=7 $k:"; grep -iE "registers|spill|stack" "$R/nvv-3d-w7-$k.log" | head -6
        done
        CLCONV_BUILD_LOG=1 CLCONV_NO_CACHE=1 CLCONV_BUILD_OPTIONS=-cl-nv-verbose \
            timeout 120 build/clconv run --device gpu --dims 2 --size 512 --mask 101 \
            --method separable --reps 1 --seed 1 >"$R/nvv-sep-w101.log" 2>&1
        echo "separable W=101:"; grep -iE "options|registers|spill" "$R/nvv-sep-w101.log" | cut -c1-160 | head -12
        el "nvv" ;;
    sepga)
        for r in 1 2; do
            for p in "2 8192x8192 101" "2 8192x8192 31" "3 512x512x512 15"; do
                set -- $p
                for t in 128 32; do
                    for ga in 1 2 4 8 16; do
                        [ $t = 128 ] && [ $ga = 16 ] && continue
                        LT=40 gpu_large "sepga-${1}d-w$3-t$t-ga$ga-r$r" \
                            CLCONV_SEP_TILE=128,$t CLCONV_SEP_GROUP_A=$ga -- \
                            --dims $1 --size $2 --mask $3 --kind gaussian \
                            --method separable --reps 10
                    done
                done
            done
            LT=40 gpu_large "sepga-1d-w101-r$r" X=1 -- --dims 1 --size 67108864 \
                --mask 101 --method separable --reps 10
        done 2>&1 | tee "$R/sepga.log"; el "sepga" ;;
    ahead)
        for r in 1 2; do
            for p in "2 8192x8192 101" "2 8192x8192 31" "3 512x512x512 15"; do
                set -- $p
                for a in 0 2 4 8 16; do
                    LT=40 gpu_large "ahead-${1}d-w$3-a$a-r$r" CLCONV_SEP_AHEAD=$a -- \
                        --dims $1 --size $2 --mask $3 --kind gaussian \
                        --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/ahead.log"; el "ahead" ;;
    spans)
        for r in 1 2; do
            for sp in 1 2 4 8; do
                LT=40 gpu_large "spans-w101-s$sp-r$r" CLCONV_COARSE_MARCH=3 \
                    CLCONV_COARSE_SPANS=$sp -- --dims 1 --size 67108864 --mask 101 \
                    --method direct --reps 10
            done
            LT=40 gpu_large "spans-w101-sep-r$r" X=1 -- --dims 1 --size 67108864 \
                --mask 101 --method separable --reps 10
        done 2>&1 | tee "$R/spans.log"; el "spans" ;;
    yga)
        for r in 1 2; do
            for p in "2 8192x8192 31" "2 8192x8192 101" "3 512x512x512 15"; do
                set -- $p
                LT=40 gpu_large "yga-${1}d-w$3-prev-r$r" CLCONV_SEP_TILE=128,128 \
                    CLCONV_SEP_GROUP_A=1 -- --dims $1 --size $2 --mask $3 \
                    --kind gaussian --method separable --reps 10
                LT=40 gpu_large "yga-${1}d-w$3-new-r$r" X=1 -- --dims $1 --size $2 \
                    --mask $3 --kind gaussian --method separable --reps 10
            done
        done 2>&1 | tee "$R/yga.log"; el "yga" ;;
    septest)
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER="separable*" timeout ${TP:-500} \
            build/test_paths >"$R/test_paths-separable-gpu.log" 2>&1
        el "test_paths separable* on the GPU: exit $?"
        grep -E "OK|PASSED|FAILED|LANES|ERROR" "$R/test_paths-separable-gpu.log" | head -12 ;;
    model)
        for p in "3 128x128x128 5" "3 128x128x128 7" "3 128x128x128 9" \
                 "3 256x256x256 5" "3 256x256x256 7" "3 256x256x256 9" \
                 "2 256x256 15" "2 256x256 31" "2 512x512 15" "2 512x512 31" \
                 "2 1024x1024 15" "2 1024x1024 31" "2 4096x4096 31"; do
            set -- $p
            for m in direct fft auto; do
                LT=60 gpu_large "model-${1}d-$2-w$3-$m" X=1 -- --dims $1 --size $2 \
                    --mask $3 --method $m --reps 10
            done
        done 2>&1 | tee "$R/model.log"; el "model" ;;
    pad)
        LT=40 gpu_ab pad ${PADP:-1_67108864_5_direct_random 1_67108864_9_direct_random \
            1_67108864_17_direct_random 1_67108864_55_direct_random \
            1_67108864_101_separable_random 2_8192x8192_31_separable_gaussian \
            2_8192x8192_101_separable_gaussian 3_512x512x512_15_separable_gaussian}
        el "pad" ;;
    large)
        for p in "2 8192x8192 31" "2 8192x8192 101" "3 512x512x512 15"; do
            set -- $p
            LT=90 gpu_large "large-${1}d-w$3" X=1 -- --dims $1 --size $2 --mask $3 \
                --kind gaussian --method auto --reps 10 --json
        done 2>&1 | tee "$R/large.log"; el "large" ;;
    esac
done
