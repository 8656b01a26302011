# Sourced (not run) by the GPU machine's scripts (gpu-session.sh,
# gpu-s5.sh, gpu-s10.sh): register the NVIDIA ICD beside PoCL (the
# driver ships OpenCL without an ICD file), unpack the carried debs of
# .deps-carry (cmocka, VkFFT) into /tmp/carry (never into /), and point
# the build and the loader at them. Sets D (the unpacked root) and L (its
# library folder). gpu_call_begin starts a call's record: R ($OUT/r, the
# logs), el (a line with the seconds since), the GPU and CPU in R, and R
# as $OUT/results.tar.gz whenever the script exits (finish); gpu_build
# builds the CLI and the named test programs (a failed build ends the
# call with its log's tail) and lists the devices. gpu_large tag [env...]
# -- args...: one `clconv bench --suite large` row set on $DEV (default
# gpu) under the env settings, its output in $R/tag.txt and a line with
# its exit status and last timed row ($LT: the seconds it may take).
# gpu_row tag device env args...: one row of `clconv bench`'s own suite
# (--tiles default, seed 1, JSON in $R/tag.json) under the env settings
# (one argument, split at spaces; X=1 for none), a line with its exit
# status and row ($LT: the seconds it may take, default 100).
# gpu_ab tag problem...: base (.cl-base/cl, the kernels of the commit
# before) against new (the tree's) on each "D_SIZE_W_METHOD_KIND"
# problem, two rounds interleaved, as gpu_large rows
# tag-Dd-wW-METHOD-{base,new}-rR; the lines also in $R/tag.log.
# gpu_peers tag peers word: bench/peers_large.py's 2D large problems with
# the named peers on the CPU ($PR reps, default 5; $PT seconds, 200),
# JSON and log in $R/peers-tag.*, the rows naming word shown.
# gpu_rows3d tag base-env size:W...: bench rows of 3D coarse at the
# defaults on the GPU (tag-SIZE-wW-{base,new}-rR; base with .cl-base/cl
# and the extra base-env settings, X=1 for none), two rounds, in
# $R/tag.log. gpu_targets: issue 17's direct targets at the defaults
# once (1D 2^26 W=55, 2D 8192^2 W=9 and u8 -> u8 W=3, 3D 512^3 W=5), in
# $R/targets.log.
# gpu_ab_runs: the candidates named in $AB (one per line, "tag|env|run
# args") under $RUN (a `clconv run` command line), $ROUNDS interleaved
# rounds (3), the rows tagged "ab rR tag" in $R/ab.log.
# gpu_tests filter...: test_paths on the GPU, one run per cmocka filter
# ($TP: the seconds each may take), its log in $R.
mkdir -p /tmp/v
echo libnvidia-opencl.so.1 > /tmp/v/nvidia.icd
cp /etc/OpenCL/vendors/pocl.icd /tmp/v/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/v
D=/tmp/carry
mkdir -p $D
for f in .deps-carry/*.deb; do dpkg -x "$f" $D; done
L=$D/usr/lib/x86_64-linux-gnu
export CMOCKA_CFLAGS="-I$D/usr/include" CMOCKA_LIBS="-L$L -lcmocka -Wl,-rpath,$L"
export C_INCLUDE_PATH=$D/usr/include LIBRARY_PATH=$L LD_LIBRARY_PATH=$L

el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
finish() { tar -C "$OUT" -czf "$OUT/results.tar.gz" r; }
gpu_call_begin() {
    OUT=${OUT:-/tmp/out}
    R=$OUT/r
    mkdir -p "$R"
    t0=$(date +%s)
    trap finish EXIT
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$R/gpu.txt"
    lscpu | grep -E "Model name|^CPU\(s\)" | tee "$R/cpu.txt"
}
gpu_build() {
    make -j16 SKIP_DEPS=1 all "$@" >"$R/build.log" 2>&1 \
        || { tail -30 "$R/build.log"; exit 1; }
    build/clconv devices | tee "$R/devices.txt"
    el "built"
}
gpu_large() {
    local tag=$1; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" timeout ${LT:-60} build/clconv bench --suite large \
        --device ${DEV:-gpu} --seed 1 "$@" >"$R/$tag.txt" 2>&1
    echo "$tag ${envs[*]}: exit $? $(grep -v warning "$R/$tag.txt" | grep ' ms\|ms ' | tail -1)"
}
gpu_row() {
    local tag=$1 dev=$2 e=$3
    shift 3
    env $e timeout ${LT:-100} build/clconv bench --device $dev "$@" \
        --tiles default --seed 1 --quiet --json "$R/$tag.json" >"$R/$tag.txt" 2>&1
    echo "$tag: exit $? $(tail -1 "$R/$tag.txt")"
}
gpu_ab() {
    local tag=$1 probs r p k e d sz w m kind
    shift
    probs=("$@")
    for r in 1 2; do
        for p in "${probs[@]}"; do
            read -r d sz w m kind <<<"${p//_/ }"
            for k in base new; do
                e=X=1; [ $k = base ] && e=CLCONV_KERNEL_DIR=$PWD/.cl-base/cl
                gpu_large "$tag-${d}d-w$w-$m-$k-r$r" $e -- --dims $d --size $sz \
                    --mask $w --kind $kind --method $m --reps 10
            done
        done
    done 2>&1 | sed -e 's/CLCONV_KERNEL_DIR=[^ ]*//' | tee "$R/$tag.log"
}
gpu_tests() {
    local f
    for f in "$@"; do
        CLCONV_DEVICE=gpu CLCONV_PATHS_FILTER="$f" timeout ${TP:-200} \
            build/test_paths >"$R/test_paths-${f%\*}-gpu.log" 2>&1
        el "test_paths $f on the GPU: exit $?"
        grep -E "PASSED|FAILED|ERROR|fail" "$R/test_paths-${f%\*}-gpu.log" | head -8
    done
}
gpu_peers() {
    timeout ${PT:-200} python3 bench/peers_large.py --suite large --dims 2 \
        --peers "$2" --seed 1 --reps ${PR:-5} --max-s 3 \
        --json "$R/peers-$1.json" 2>"$R/peers-$1.txt"
    el "$2 peers: exit $?"; grep -i "$3" "$R/peers-$1.txt" | tail -4
}
gpu_rows3d() {
    local tag=$1 benv=$2 r pw k e
    shift 2
    for r in 1 2; do
        for pw in "$@"; do
            for k in base new; do
                e="X=1"
                [ $k = base ] && e="CLCONV_KERNEL_DIR=$PWD/.cl-base/cl $benv"
                gpu_row $tag-${pw%%x*}-w${pw#*:}-$k-r$r gpu "$e" --dims 3 \
                    --size ${pw%:*} --mask ${pw#*:} --strategy coarse
            done
        done
    done 2>&1 | tee "$R/$tag.log"
    el "$tag done"
}
gpu_targets() {
    local p
    for p in "1 67108864 55 f32" "2 8192x8192 9 f32" "2 8192x8192 3 u8" \
             "3 512x512x512 5 f32"; do
        set -- $p
        LT=60 gpu_row targets-${1}d-w$3-$4 gpu X=1 --dims $1 --size $2 \
            --mask $3 --dtype $4 --strategy coarse
    done 2>&1 | tee "$R/targets.log"
    el "targets done"
}
gpu_ab_runs() {
    local r tag e args
    for r in $(seq ${ROUNDS:-3}); do
        while IFS='|' read -r tag e args; do
            [ -n "$tag" ] || continue
            env $e $RUN $args 2>&1 | grep -E " ok | FAIL|unsupported|rror" \
                | sed "s/^/ab r$r $tag /"
        done <<<"$AB"
    done 2>&1 | tee "$R/ab.log"
    el "a/b done"
}
