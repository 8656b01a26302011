#!/bin/sh
# Run every kernel variant of every dimension under Oclgrind, the OpenCL
# device simulator, and fail on any diagnostic it prints.
#
# usage: scripts/check-kernels.sh [CLCONV]   (default build/clconv)
#
# The matrix: dims 1, 2, 3; masks 1, 3, 5; two tiles per dims that fit
# Oclgrind's 1024 work-items for every strategy; sizes that are not a
# multiple of the tile (partial boundary tiles on every side), one size
# smaller than the mask (halo wider than the data), and in 2D/3D one wide
# size (x 77: interior x spans of vector's 32 outputs between border ones).
# Each `clconv run` runs every strategy and verifies every element against
# the reference.
#
# Every case runs twice:
#   1. the kernels as the driver compiles them (optimised), with
#      --data-races (races in local and global memory, barrier divergence)
#      and Oclgrind's always-on memory checks (out-of-bounds reads and
#      writes in every address space, invalid API use with --check-api);
#   2. the kernels built with -cl-opt-disable, adding --uninitialized.
#      Oclgrind 21.10's uninitialized-value plugin aborts with "Unsupported
#      instruction: freeze" on LLVM's optimised code, so that pass runs on
#      unoptimised code, which has no freeze instruction.
# Oclgrind never changes its exit status for a diagnostic, so its log
# (--log) must come back empty and `clconv run` must exit 0.
#
# First, the checker checks itself: a copy of cl/ whose 1D output_tile
# kernel lost its barrier must be caught (a data race), or a silent
# Oclgrind would pass everything.
# CHECK_KERNELS_QUICK=1 runs a single case.
set -eu

CLCONV=${1:-build/clconv}
OCLGRIND=${OCLGRIND:-oclgrind}
if ! command -v "$OCLGRIND" >/dev/null 2>&1; then
    echo "check-kernels: oclgrind not found; on Debian/Ubuntu: sudo apt-get install oclgrind" >&2
    exit 2
fi
if [ ! -x "$CLCONV" ]; then
    echo "check-kernels: $CLCONV is not an executable (run make first)" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# dims:size:tile, each run with masks 1, 3 and 5.
cases='1:37:4 1:37:16 1:3:4 2:13x11:4 2:13x11:8 2:2x3:4 2:77x5:8 3:7x6x5:2 3:7x6x5:4 3:2x1x3:2 3:77x4x3:2'
masks='1 3 5'
# Border modes and mask shapes (issue 15), dims:size:mask:tile:flags with
# ',' for spaces and '/' for a comma inside a value (--origin -3/1): every mode, even and anisotropic masks, origins, masks
# wider than the data, convolution, a non-zero cval; rows of an even
# length in 3D (coarse takes 2 columns there on Oclgrind's GPU, so 2
# work-items along z share a work-group's planes through local memory:
# cl/conv3d_coarse.cl's GROUP_Z, the last group past the last plane);
# then the separable
# passes (cl/sep_pass.cl, every axis; then a mode, anisotropic and even
# masks, origins, convolution, a cval, a width-1 axis) and the FFT path
# (cl/fft_ops.cl and VkFFT's kernels; then every mode's padding, wrap
# padded and on its unpadded period, anisotropic and even masks wider than
# the data, origins, convolution, a cval) of issue 17; then batches, whose
# members run the lower-dimensional kernels one NDRange dimension deeper
# (a mask 1 wide along the slowest axes is a batch too).
filter_cases='1:37:4:4:--mode,reflect,--origin,1
1:3:7:4:--mode,wrap,--convolve
2:13x11:5x2:4:--mode,mirror,--convolve
2:2x3:7x4:4:--mode,wrap,--origin,-3/1
2:77x5:3x5:8:--mode,reflect
3:7x6x5:3x2x4:2:--mode,nearest,--origin,-1/0/1
3:2x1x3:5x3x3:2:--mode,constant,--cval,0.5
3:16x7x13:5:4:--mode,reflect
3:8x5x30:3x3x4:4:--mode,constant,--cval,0.5,--convolve
1:37:5:4:--method,separable
2:13x11:3:4:--method,separable
2:2x3:5:4:--method,separable
3:7x6x5:3:2:--method,separable
3:77x4x3:5:2:--method,separable
2:13x11:5:4:--method,separable,--mode,reflect
2:2x3:7x4:4:--method,separable,--mode,wrap,--origin,-3/1,--convolve
3:7x6x5:3x2x4:2:--method,separable,--mode,constant,--cval,0.5,--origin,-1/0/1
3:77x4x3:4x1x3:2:--method,separable,--mode,mirror
1:37:5:4:--method,fft
2:13x11:3:4:--method,fft
3:7x6x5:3:2:--method,fft
1:37:6:4:--method,fft,--mode,reflect,--origin,2
2:13x11:5x2:4:--method,fft,--mode,mirror,--convolve
2:2x3:7x4:4:--method,fft,--mode,wrap,--origin,-3/1
2:16x10:21x4:4:--method,fft,--mode,wrap
3:7x6x5:3x2x4:2:--method,fft,--mode,nearest,--origin,-1/0/1
3:2x1x3:5x3x3:2:--method,fft,--mode,constant,--cval,0.5
1:37:5:4:--batch,3
2:13x11:3x5:4:--mode,reflect,--batch,3
2:13x11:5x1:4:--mode,wrap
3:7x6x5:3x2x1:2:--mode,mirror
1:37:5:4:--dtype,u8,--mode,reflect
2:77x5:3x5:8:--dtype,u16,--mode,wrap
2:13x11:5x2:4:--dtype,f16,--mode,mirror
3:7x6x5:3x2x4:2:--dtype,i16,--out-dtype,f32,--mode,nearest
2:13x11:5:4:--method,separable,--dtype,u8,--mode,reflect
2:13x11:5x2:4:--method,fft,--dtype,i16,--mode,mirror'
# The CPUs' fused separable pass (cl/sep_xy.cl; Oclgrind's device is a
# GPU, so forced with $CLCONV_SEP_FUSE=1), geom:dims:size:mask:tile:flags,
# geom its $CLCONV_SEP_FUSE_GEOM (blocks,rows,chunk; - the defaults, every
# block at a row's end here): interior blocks, chunks cut short, modes, a
# cval, origins, convolution, 3D and a stack of planes.
fused_cases='-:2:13x11:5:4:--method,separable
1,3,6:2:37x9:7x4:4:--method,separable,--mode,wrap,--origin,-3/1,--convolve
2,2,4:3:7x6x5:3x2x4:2:--method,separable,--mode,constant,--cval,0.5
1,4,4:3:40x7x3:3x5x1:2:--method,separable,--mode,mirror'
if [ "${CHECK_KERNELS_QUICK:-0}" = 1 ]; then
    cases='1:37:4'
    masks='3'
    filter_cases='2:13x11:5x2:4:--mode,mirror,--convolve'
    fused_cases=
fi

failed=0
count=0
self_test() {
    mkdir "$tmp/cl"
    cp "$(dirname "$0")/../cl/"* "$tmp/cl/"
    sed -i 's/barrier(CLK_LOCAL_MEM_FENCE);//' "$tmp/cl/conv1d_output_tile.cl"
    : >"$tmp/self.log"
    XDG_CACHE_HOME="$tmp/cache-self" CLCONV_KERNEL_DIR="$tmp/cl" \
        "$OCLGRIND" --data-races --log "$tmp/self.log" \
        "$CLCONV" run --dims 1 --size 37 --mask 3 --tile 4 \
        --strategy output_tile --reps 0 --seed 7 >/dev/null 2>&1 || true
    if ! grep -q "data race" "$tmp/self.log"; then
        echo "check-kernels: Oclgrind did not report the race of a kernel without its barrier" >&2
        exit 1
    fi
    echo "check-kernels: ok   self-test: a kernel without its barrier is caught"
}
self_test
run_case() { # pass dims size mask tile [filter flags...]
    pass=$1 dims=$2 size=$3 mask=$4 tile=$5
    shift 5
    extra="$*"
    log="$tmp/log"
    out="$tmp/out"
    : >"$log"
    # VkFFT's in-place kernels (--method fft) read and write the same
    # global words from different work-items of one group, ordered by
    # barriers with a local fence only, which Oclgrind reports as a global
    # race: the race check is off for the fft cases (VkFFT's code; clconv's
    # own fft_ops kernels touch each word from one work-item); the memory
    # and API checks and --uninitialized stay on.
    races=--data-races
    case "$extra" in *fft*) races= ;; esac
    if [ "$pass" = 1 ]; then
        set -- $races --check-api
    else
        set -- $races --uninitialized --check-api \
            --build-options -cl-opt-disable
    fi
    # The FFT and the separable passes take no --tile (clconv run refuses
    # one there: it set nothing); the case's tile names it all the same.
    tile_opt="--tile $tile"
    case " $extra " in
    *" --method separable "* | *" --method fft "*) tile_opt= ;;
    esac
    rc=0
    # A cache folder per pass: clconv's program-binary cache keys on its
    # own options, not on those Oclgrind appends (-cl-opt-disable), so a
    # shared cache would hand pass 2 the optimised binaries of pass 1.
    XDG_CACHE_HOME="$tmp/cache$pass" \
    "$OCLGRIND" "$@" --log "$log" "$CLCONV" run --dims "$dims" \
        --size "$size" --mask "$mask" $tile_opt --strategy all \
        --device all --reps 0 --seed 7 $extra >"$out" 2>&1 || rc=$?
    count=$((count + 1))
    what="pass $pass: ${dims}D size $size mask $mask tile $tile${extra:+ $extra}"
    if [ "$rc" -ne 0 ] || [ -s "$log" ] || ! grep -q Oclgrind "$out"; then
        failed=$((failed + 1))
        echo "check-kernels: FAIL $what (clconv exit $rc)" >&2
        sed 's/^/  | /' "$out" >&2
        head -n 60 "$log" | sed 's/^/  oclgrind| /' >&2
    else
        echo "check-kernels: ok   $what"
    fi
}

for pass in 1 2; do
    for c in $cases; do
        dims=${c%%:*}
        rest=${c#*:}
        size=${rest%%:*}
        tile=${rest#*:}
        for mask in $masks; do
            run_case "$pass" "$dims" "$size" "$mask" "$tile"
        done
    done
    for c in $filter_cases; do
        IFS=: read -r dims size mask tile flags <<EOF_CASE
$c
EOF_CASE
        # shellcheck disable=SC2046 # the flags split on purpose
        run_case "$pass" "$dims" "$size" "$mask" "$tile" $(echo "$flags" | tr , ' ' | tr / ,)
    done
    for c in $fused_cases; do
        IFS=: read -r geom dims size mask tile flags <<EOF_CASE
$c
EOF_CASE
        [ "$geom" = - ] && geom=
        export CLCONV_SEP_FUSE=1 CLCONV_SEP_FUSE_GEOM="$geom"
        # shellcheck disable=SC2046 # the flags split on purpose
        run_case "$pass" "$dims" "$size" "$mask" "$tile" $(echo "$flags" | tr , ' ' | tr / ,)
        unset CLCONV_SEP_FUSE CLCONV_SEP_FUSE_GEOM
    done
done
echo "check-kernels: $count runs of every strategy under Oclgrind, $failed failed"
[ "$failed" -eq 0 ]
