#!/bin/bash
# Session 17's calls on the GPU machine (each under 10 minutes): a build,
# then the steps named in $STEPS, logs under $OUT/r, returned as one
# tarball:
#   ncu    Nsight Compute (scripts/ncu_kernels.py: the PTX of clconv's
#          program cache launched through cupy) on the direct kernels of
#          1D 2^26 random W=55 and 3D 512^3 random W=5 and on the x and y
#          passes of 2D 8192^2 Gaussian W=101: each kernel's details and
#          its instruction mix (scripts/ncu_mix.py; the SASS with each
#          instruction's count in TAG-sass.csv.gz); $NCUP overrides the
#          problems ("TAG DIMS SIZE W METHOD KIND NCU_ONLY [BENCH_ARGS];
#          ...", the arguments of `bench`'s standard suite with _ for
#          spaces, else the large suite's)
#   ab     base (.cl-base/cl, the kernels of the commit before) against
#          new: 1D 2^26 random W=5, 9, 17, 55 direct, W=101 separable (the
#          x pass); 2D 8192^2 Gaussian W=31, W=101 and 3D 512^3 W=15
#          separable; two rounds ($ABP: other problems, "D SIZE W METHOD
#          KIND ...", each with _ for spaces)
#   sweep  2D 8192^2 Gaussian W=101 and 1D 2^26 W=101 separable: outputs
#          per work-item of the x and y passes ($CLCONV_SEP_COARSEN 16,16
#          32,16 16,32 32,32 24,16) and the x pass's work-group (SEP_TILE
#          64, 256), two rounds
#   xtile  the x pass's work-group ($CLCONV_SEP_TILE 32, 64, 128; 64
#          with 8 and 24 outputs per work-item): 2D 8192^2 Gaussian W=101
#          and W=31, 1D 2^26 W=101 and W=31 separable, two rounds
#   rows   the defaults' bench rows: 1D 2^26 random W=5, 9, 17, 55 direct
#          and W=101 separable; 2D 8192^2 Gaussian W=31, W=101 and 3D
#          512^3 W=15 (method auto); 3D W=15 also with the x pass at 128
#          work-items ($CLCONV_SEP_TILE=128,128); 2D 8192^2 f32 W=9
#          direct; 2D 8192^2 W=3 u8 -> u8 and f32 (`bench`'s standard
#          suite); two rounds, JSON
#   x3d    3D 512^3 random W=5 direct (coarse, default tile): XV columns
#          per work-item x rows ($CLCONV_COARSE_XV, $CLCONV_COARSE_ROWS;
#          $X3D: "XV:ROWS ..."), two rounds; then 512x512x128 with `run`
#          at tile 16 (XV 2 and 4)
#   x3dr   3D 512x512x256 random W=5 coarse through `run` (every element
#          verified), "XV:ROWS:COARSEN:GROUP_Y:TILE" in $X3DR, two rounds
#   d3x    3D random direct, bench rows: 512^3 and 256^3 W=5 at the new
#          default (2 columns of 3 rows, 16 x 4 work-items) against one
#          column of 2 rows; W=3 and W=7 at their defaults against 2
#          columns (3 rows); two rounds
#   cpuxb  the 16-core CPU (PoCL): 2D 8192^2 Gaussian W=31 and W=101
#          separable, the x pass's float16 blocks sharing loads (-D SEP_XB
#          1, 2, 4 through $CLCONV_BUILD_OPTIONS) against base
#          (.cl-base), two rounds; OpenCV's sepFilter2D beside them
#   peel   3D 512^3 random W=5 direct, the march's ends peeled or not
#          (-D PEEL_LIMIT through $CLCONV_BUILD_OPTIONS) at 2 columns of 3
#          and 2 rows, two rounds; $PEELC "ROWS:LIMIT[:RUNTIME_FOLD] ...",
#          RUNTIME_FOLD 1: the rolled march skips the slots outside the
#          work-item's planes by a run-time test; both knobs were
#          reverted: the step needs
#          bench/results/2026-11-26-h100-s17/peel-knobs.diff applied
#   regs   NVIDIA's register cap (-cl-nv-maxrregcount through
#          $CLCONV_BUILD_OPTIONS: none, 64, 48, 40) on 2D 8192^2 W=3 u8 -> u8
#          (`bench`'s standard suite), 3D 512^3 W=5, 1D 2^26 W=55, 2D
#          8192^2 W=9 direct and 2D W=101 separable, two rounds
#   card   whatever card the call got: 2D 8192^2 W=3 u8 -> u8 and f32
#          (`bench`'s standard suite) and the bench rows of 1D W=55, 2D W=9
#          and 3D W=5 direct, 2D W=101 separable, two rounds
#   u8sw   2D 8192^2 W=3 u8 -> u8 through `run`: columns (XV 8, 16) x
#          tile (16, 32) x rows per work-item (4, 8, 16) x work-group
#          height (4, 8), one run each
#   final  the large suite's seven problems at their defaults (method
#          auto), JSON
#   tests  on the GPU: test_paths' tests named by $TF ($TP seconds each)
set -u
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_paths
NCU=/usr/local/cuda/bin/ncu
for step in ${STEPS:-ncu}; do
    case $step in
    ncu)
        IFS=';' read -ra probs <<<"${NCUP:-d1w55 1 67108864 55 direct random conv1d;\
d3w5 3 512x512x512 5 direct random conv3d;\
sx101 2 8192x8192 101 separable gaussian AXIS=0;\
sy101 2 8192x8192 101 separable gaussian AXIS=1}"
        for p in "${probs[@]}"; do
            set -- $p
            export XDG_CACHE_HOME=/tmp/xc-$2-$3-$4-$5-${8:-}
            if [ -n "${8:-}" ]; then  # bench's standard suite (--dtype)
                timeout 120 build/clconv bench --dims $2 --size $3 --mask $4 \
                    --device gpu --seed 1 --reps 10 ${8//_/ } >"$R/$1-bench.txt" 2>&1
                echo "$1-bench: exit $? $(tail -1 "$R/$1-bench.txt")"
            else
                LT=120 gpu_large "$1-bench" X=1 -- --dims $2 --size $3 --mask $4 \
                    --method $5 --kind $6 --reps 10
            fi
            NCU_ONLY="$7" timeout 240 $NCU --set full -k regex:'conv|sep' -c 1 \
                -o "$R/$1" -f python3 scripts/ncu_kernels.py $XDG_CACHE_HOME \
                $(echo $3 | tr x ' ') >"$R/$1-ncu.log" 2>&1
            el "$1 ncu: exit $?"; grep -v "^==PROF==" "$R/$1-ncu.log" | grep -v "^==WARN" | tail -3
            $NCU --import "$R/$1.ncu-rep" --page details >"$R/$1-details.txt" 2>&1
            grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots Busy|Executed Ipc A|No Eligible|Warp Cycles Per Issued|Block Limit|stalled" "$R/$1-details.txt" | head -20
            $NCU --import "$R/$1.ncu-rep" --page source --print-source sass --csv 2>/dev/null \
                | tee >(gzip >"$R/$1-sass.csv.gz") | python3 scripts/ncu_mix.py >"$R/$1-mix.txt" 2>&1
            head -14 "$R/$1-mix.txt"
        done ;;
    ab)
        LT=60 gpu_ab ab ${ABP:-1_67108864_5_direct_random 1_67108864_9_direct_random \
            1_67108864_17_direct_random 1_67108864_55_direct_random \
            1_67108864_101_separable_random 2_8192x8192_31_separable_gaussian \
            2_8192x8192_101_separable_gaussian 3_512x512x512_15_separable_gaussian}
        el "ab" ;;
    sweep)
        for r in 1 2; do
            for e in CLCONV_SEP_COARSEN=16,16 CLCONV_SEP_COARSEN=32,16 \
                     CLCONV_SEP_COARSEN=16,32 CLCONV_SEP_COARSEN=32,32 \
                     CLCONV_SEP_COARSEN=24,16 CLCONV_SEP_TILE=64,32 CLCONV_SEP_TILE=256,32; do
                for p in "2 8192x8192" "1 67108864"; do
                    set -- $p
                    LT=60 gpu_large "sweep-${1}d-${e#CLCONV_}-r$r" $e -- --dims $1 --size $2 \
                        --mask 101 --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/sweep.log"; el "sweep" ;;
    xtile)
        for r in 1 2; do
            for e in CLCONV_SEP_TILE=32,32 CLCONV_SEP_TILE=64,32 CLCONV_SEP_TILE=128,32 \
                     "CLCONV_SEP_TILE=64,32 CLCONV_SEP_COARSEN=8,16" \
                     "CLCONV_SEP_TILE=64,32 CLCONV_SEP_COARSEN=24,16"; do
                for p in "2 8192x8192 101" "1 67108864 101" "2 8192x8192 31" "1 67108864 31"; do
                    set -- $p
                    t=$(echo "$e" | tr -d 'A-Z_=' | tr ' ,' '-_')
                    LT=60 gpu_large "xtile-${1}d-w$3-$t-r$r" $e -- --dims $1 --size $2 \
                        --mask $3 --kind gaussian --method separable --reps 10
                done
            done
        done 2>&1 | tee "$R/xtile.log"; el "xtile" ;;
    rows)
        for r in 1 2; do
            for p in "1:67108864:5:direct:random" "1:67108864:9:direct:random" \
                     "1:67108864:17:direct:random" "1:67108864:55:direct:random" \
                     "1:67108864:101:separable:random" "2:8192x8192:31:auto:gaussian" \
                     "2:8192x8192:101:auto:gaussian" "3:512x512x512:15:auto:gaussian" \
                     "3:512x512x512:15:auto:gaussian:CLCONV_SEP_TILE=128,128" \
                     "2:8192x8192:9:direct:random"; do
                IFS=: read -r d sz w m k e extra <<<"$p"
                t="${d}d-w$w-$m${e:+-${e#CLCONV_}}${extra:+-u8}"
                LT=60 gpu_large "rows-${t//[=,]/_}-r$r" ${e:-X=1} -- --dims $d --size $sz \
                    --mask $w --kind $k --method $m --reps 10 $extra --json
            done
            for d in u8 f32; do
                timeout 60 build/clconv bench --dims 2 --size 8192x8192 --mask 3 \
                    --dtype $d --out-dtype same --device gpu --seed 1 --reps 10 --json \
                    >"$R/rows-2d-w3-$d-r$r.txt" 2>&1
                echo "rows-2d-w3-$d: exit $? $(grep ' W=3 ' "$R/rows-2d-w3-$d-r$r.txt" | tail -1)"
            done
        done 2>&1 | tee "$R/rows.log"; el "rows" ;;
    x3d)
        for r in 1 2; do
            for c in ${X3D:-1:2 2:2 2:1 4:1 2:3 4:2 8:1}; do
                IFS=: read -r xv rows <<<"$c"
                CLCONV_COARSE_XV=$xv CLCONV_COARSE_ROWS=$rows timeout 90 build/clconv bench \
                    --dims 3 --size 512x512x512 --mask 5 --strategy coarse --tiles default \
                    --device gpu --seed 1 --reps 10 >"$R/x3d-xv$xv-rows$rows-r$r.txt" 2>&1
                echo "x3d xv $xv rows $rows: exit $? $(grep ' W=5 ' "$R/x3d-xv$xv-rows$rows-r$r.txt" | tail -1)"
            done
        done 2>&1 | tee "$R/x3d.log"
        for c in 1:2:32 2:2:16 2:1:16 4:1:16 2:2:32; do
            IFS=: read -r xv rows t <<<"$c"
            CLCONV_COARSE_XV=$xv CLCONV_COARSE_ROWS=$rows timeout 90 build/clconv run \
                --dims 3 --size 512x512x128 --mask 5 --strategy coarse --tile $t \
                --device gpu --seed 1 --reps 10 2>&1 | grep -E "coarse|rror" | tail -1
        done 2>&1 | tee -a "$R/x3d.log"; el "x3d" ;;
    x3dr)
        for r in 1 2; do
            for c in ${X3DR:-1:2:16:4:32 2:3:16:4:32 2:3:32:4:32 2:3:16:8:32 2:3:16:2:32 \
                              2:3:16:4:16 2:4:16:4:32 4:3:16:4:32 2:3:8:4:32 1:3:16:4:32 2:2:16:4:32}; do
                IFS=: read -r xv rows cz gy t <<<"$c"
                echo "xv $xv rows $rows coarsen $cz group_y $gy tile $t r$r:" \
                    $(CLCONV_COARSE_XV=$xv CLCONV_COARSE_ROWS=$rows timeout 90 build/clconv run \
                    --dims 3 --size ${X3DS:-512x512x256} --mask 5 --strategy coarse --tile $t \
                    --coarsen $cz --group-y $gy --device gpu --seed 1 --reps 10 2>&1 \
                    | grep -E "coarse|rror" | tail -1 | grep -o "ok.*ms\|FAIL.*\|rror.*")
            done
        done 2>&1 | tee "$R/x3dr.log"; el "x3dr" ;;
    d3x)
        for r in 1 2; do
            for p in "512x512x512:5:X=1" "512x512x512:5:CLCONV_COARSE_XV=1 CLCONV_COARSE_ROWS=2" \
                     "256x256x256:5:X=1" "256x256x256:5:CLCONV_COARSE_XV=1 CLCONV_COARSE_ROWS=2" \
                     "512x512x512:3:X=1" "512x512x512:3:CLCONV_COARSE_XV=2 CLCONV_COARSE_ROWS=3" \
                     "256x256x256:7:X=1" "256x256x256:7:CLCONV_COARSE_XV=2 CLCONV_COARSE_ROWS=3" \
                     "256x256x256:7:CLCONV_COARSE_XV=2 CLCONV_COARSE_ROWS=2"; do
                IFS=: read -r sz w e <<<"$p"
                t=$(echo "$e" | tr -d 'A-Z_=' | tr ' ' '-')
                LT=90 gpu_large "d3x-$sz-w$w-$t-r$r" $e -- --dims 3 --size $sz --mask $w \
                    --method direct --reps 10
            done
        done 2>&1 | tee "$R/d3x.log"; el "d3x" ;;
    cpuxb)
        for r in 1 2; do
            for w in 31 101; do
                DEV=cpu LT=100 gpu_large "cpuxb-w$w-base-r$r" \
                    CLCONV_KERNEL_DIR=$PWD/.cl-base/cl -- --dims 2 --size 8192x8192 \
                    --mask $w --kind gaussian --method separable --reps 5
                for xb in 1 2 4; do
                    DEV=cpu LT=100 gpu_large "cpuxb-w$w-xb$xb-r$r" \
                        "CLCONV_BUILD_OPTIONS=-D SEP_XB=$xb" -- --dims 2 --size 8192x8192 \
                        --mask $w --kind gaussian --method separable --reps 5
                done
            done
        done 2>&1 | sed -e 's/CLCONV_KERNEL_DIR=[^ ]*//' | tee "$R/cpuxb.log"
        gpu_peers cpuxb cv2-sep gaussian ;;
    peel)
        for r in 1 2; do
            for c in ${PEELC:-"3:4096" "3:8192" "2:4096" "2:0"}; do
                IFS=: read -r rows lim fold <<<"$c"
                LT=120 gpu_large "peel-rows$rows-lim$lim-fold${fold:-0}-r$r" \
                    CLCONV_COARSE_ROWS=$rows \
                    "CLCONV_BUILD_OPTIONS=-D PEEL_LIMIT=$lim -D RUNTIME_FOLD=${fold:-0}" -- \
                    --dims 3 --size 512x512x512 --mask 5 --method direct --reps 10
            done
        done 2>&1 | tee "$R/peel.log"; el "peel" ;;
    regs)
        for r in 1 2; do
            for cap in none 64 48 40; do
                o=; [ $cap != none ] && o=-cl-nv-maxrregcount=$cap
                CLCONV_BUILD_OPTIONS="$o" timeout 60 build/clconv bench --dims 2 --size 8192x8192 \
                    --mask 3 --dtype u8 --out-dtype same --device gpu --seed 1 --reps 10 \
                    >"$R/regs-u8-$cap-r$r.txt" 2>&1
                echo "regs u8 W=3 cap $cap: $(grep ' W=3 ' "$R/regs-u8-$cap-r$r.txt" | tail -1)"
                for p in "3:512x512x512:5:direct:random" "1:67108864:55:direct:random" \
                         "2:8192x8192:9:direct:random" "2:8192x8192:101:separable:gaussian"; do
                    IFS=: read -r d sz w m k <<<"$p"
                    LT=90 gpu_large "regs-${d}d-w$w-$cap-r$r" "CLCONV_BUILD_OPTIONS=$o" -- \
                        --dims $d --size $sz --mask $w --kind $k --method $m --reps 10
                done
            done
        done 2>&1 | tee "$R/regs.log"; el "regs" ;;
    card)
        for r in 1 2; do
            for d in u8 f32; do
                timeout 60 build/clconv bench --dims 2 --size 8192x8192 --mask 3 --dtype $d \
                    --out-dtype same --device gpu --seed 1 --reps 10 >"$R/card-w3-$d-r$r.txt" 2>&1
                echo "card W=3 $d: $(grep ' W=3 ' "$R/card-w3-$d-r$r.txt" | tail -1)"
            done
            for p in "1:67108864:55:direct:random" "2:8192x8192:9:direct:random" \
                     "3:512x512x512:5:direct:random" "2:8192x8192:101:separable:gaussian"; do
                IFS=: read -r d sz w m k <<<"$p"
                LT=90 gpu_large "card-${d}d-w$w-r$r" X=1 -- --dims $d --size $sz --mask $w \
                    --kind $k --method $m --reps 10
            done
        done 2>&1 | tee "$R/card.log"; el "card" ;;
    u8sw)
        for xv in 8 16; do for t in 16 32; do for c in 4 8 16; do for g in 4 8; do
            echo "u8 xv $xv tile $t coarsen $c group_y $g:" $(CLCONV_COARSE_XV=$xv timeout 40 \
                build/clconv run --dims 2 --size 8192x8192 --mask 3 --dtype u8 --out-dtype same \
                --strategy coarse --tile $t --coarsen $c --group-y $g --device gpu --seed 1 \
                --reps 20 2>&1 | grep -E "coarse|rror" | tail -1 | grep -o "ok.*ms\|FAIL.*\|rror.*")
        done; done; done; done 2>&1 | tee "$R/u8sw.log"; el "u8sw" ;;
    final)
        for p in "2:8192x8192:31:gaussian" "2:8192x8192:101:gaussian" "2:8192x8192:31:random" \
                 "2:8192x8192:63:random" "3:512x512x512:15:gaussian" "3:512x512x512:15:random" \
                 "1:67108864:1001:random"; do
            IFS=: read -r d sz w k <<<"$p"
            LT=150 gpu_large "final-${d}d-w$w-$k" X=1 -- --dims $d --size $sz --mask $w \
                --kind $k --method auto --reps 10 --json
        done 2>&1 | tee "$R/final.log"; el "final" ;;
    tests)
        gpu_tests ${TF:-'direct_1d*' 'separable_gpu_form*'} ;;
    esac
done
