#!/bin/sh
# Every bad input of `clconv run` (and `clconv devices`) is answered: the
# documented exit code, one line on stderr naming the problem (plus the
# build log for a kernel that fails to build), no crash, no output rows.
# TESTING.md lists these cases with the other tests that cover bad input.
# Usage: test/bad_input.sh build/clconv
set -u
CLI=${1:-build/clconv}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
here=$(cd "$(dirname "$0")/.." && pwd)

fail() {
    echo "FAIL $*"
    fails=$((fails + 1))
}

# name exit stderr-pattern command...: the exit code, no crash (a signal is
# exit > 128), no output on stdout, exactly one stderr line (the seed line
# aside) that matches the pattern (grep -E, case-insensitive).
check() {
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    grep -v '^clconv: seed ' "$tmp/err" >"$tmp/msg"
    lines=$(wc -l <"$tmp/msg")
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit $got, expected $want"
        sed 's/^/  | /' "$tmp/err" | head -n 5
    elif [ -s "$tmp/out" ]; then
        fail "$name: wrote to stdout"
        sed 's/^/  | /' "$tmp/out" | head -n 5
    elif [ "$lines" -ne 1 ]; then
        fail "$name: $lines stderr lines, expected 1"
        sed 's/^/  | /' "$tmp/err" | head -n 5
    elif ! grep -qiE "$pattern" "$tmp/msg"; then
        fail "$name: stderr does not match /$pattern/"
        sed 's/^/  | /' "$tmp/msg"
    else
        echo "ok   $name"
    fi
}

# name pattern command...: exit 3 and every variant row (stdout) says
# "unsupported" with a reason matching pattern; no row ran.
check_unsupported() {
    name=$1 pattern=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 3 ]; then
        fail "$name: exit $got, expected 3"
        sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -n 5
    elif ! grep -qiE "unsupported: .*($pattern)" "$tmp/out" ||
        grep -qE ' (ok|FAIL) ' "$tmp/out"; then
        fail "$name: rows do not all say unsupported: $pattern"
        sed 's/^/  | /' "$tmp/out" | head -n 5
    else
        echo "ok   $name"
    fi
}

R="$CLI run --reps 0 --seed 1"

# --- masks -----------------------------------------------------------------
check "mask with more axes than the data" 2 'mask.*more axes' $R --dims 1 --size 100 --mask 3x3
check "mask widths do not match the dims" 2 'mask.*3 widths' $R --dims 2 --size 100 --mask 3x3x3
check "zero-width mask axis" 2 'mask.*0.*range' $R --dims 2 --size 100 --mask 3x0
check "origin out of range" 2 'origin.*range' $R --dims 2 --size 100 --mask 4x3 --origin 2,0
check "origin out of range below" 2 'origin.*range' $R --dims 1 --size 100 --mask 4 --origin -3
check "origin for more axes than the data" 2 'origin.*3 values' $R --dims 2 --size 100 --mask 3 --origin 0,0,0
check "origin needs --dims" 2 'origin.*--dims' $R --origin 1
check "unknown border mode" 2 'mode.*unknown border mode' $R --dims 1 --size 100 --mode reflect101
check "non-finite cval" 2 'cval.*finite' $R --dims 1 --size 100 --cval inf
check "cval nan" 2 'cval.*finite' $R --dims 1 --size 100 --cval nan
check "cval not a number" 2 'cval.*not a number' $R --dims 1 --size 100 --cval 1.5x
check "cval in hexadecimal" 2 'cval.*not a number' $R --dims 1 --size 100 --cval 0x10
check "unknown bench suite" 2 "unknown suite 'nope' \\(full, quick, large, large-quick\\)" "$CLI" bench --suite nope
check "unknown bench suite beginning with large" 2 "unknown suite 'large-x'.*large-quick" "$CLI" bench --suite large-x
check "run --method fft with a knob list" 2 "run: --tile, --coarsen and --group-y set the direct kernel's knobs; --method fft runs none" "$CLI" run --dims 2 --size 64x64 --mask 31 --method fft --tile 8,16 --reps 0
# apply the same: the variant and tile were ignored without a word.
check "apply --method separable with --tile" 2 "apply: --strategy and --tile choose the direct kernel; --method separable runs none" "$CLI" apply "$tmp/none.npy" "$tmp/never.npy" --mask box:3 --method separable --tile 8
check "apply --method fft with --strategy" 2 "apply: --strategy and --tile choose the direct kernel; --method fft runs none" "$CLI" apply "$tmp/none.npy" "$tmp/never.npy" --mask box:3 --method fft --strategy naive
check "run --method separable with --coarsen" 2 "knobs; --method separable runs none" "$CLI" run --dims 2 --size 64x64 --mask 31 --method separable --coarsen 8 --reps 0
check "tune with a suite of bench's methods" 2 'tune: --suite large-quick is one of bench.s; tune takes quick or full' "$CLI" tune --suite large-quick --budget 0
# --axes that do not fit the problem: the filter's line alone (tune added
# "out of memory" and exit 3 for everything but --mask WxH and --origin).
check "tune --axes out of range" 2 '^clconv: --axes: 5 is out of range for 2D data$' "$CLI" tune --dims 2 --size 8 --axes 5 --budget 0
check "tune --axes of the suite's 1D problem" 2 '^clconv: --axes: 1 is out of range for 1D data$' "$CLI" tune --suite quick --axes 1 --budget 0
check "origin list ending in a comma" 2 'origin.*empty entry' $R --dims 2 --size 100 --mask 4x4 --origin 1,
check "origin list with an empty entry" 2 'origin.*empty entry' $R --dims 3 --size 10 --mask 4 --origin 1,,0
check "mode list beginning with a comma" 2 'mode.*empty entry' $R --dims 1 --size 100 --mode ,reflect
check "mask-mode list ending in a comma" 2 'mask-mode.*empty entry' $R --dims 1 --size 100 --mask 3 --mask-mode baked,
check "tile list with an empty entry" 2 'tile.*empty entry' $R --dims 2 --size 10 --tile 8,,16
check "axes list ending in a comma" 2 'axes.*empty entry' $R --dims 2 --size 100 --mask 3 --axes 0,
check "an empty origin" 2 'origin.*empty list' $R --dims 1 --size 100 --origin ''
check "an axis given twice" 2 'axes.*twice' $R --dims 2 --size 100 --mask 3 --axes 1,1
check "an axis out of range" 2 'axes.*out of range' $R --dims 2 --size 100 --mask 3 --axes 2
check "axes not increasing" 2 'axes.*increasing' $R --dims 3 --size 10 --mask 3 --axes 2,0
check "a mask with more widths than axes" 2 'mask.*2 widths for 1 axes' $R --dims 2 --size 100 --mask 3x3 --axes 0
check "a batch of 3D problems" 2 'batch.*3D' $R --dims 3 --size 10 --batch 2
check "a batch of 0" 2 'batch.*range' $R --dims 1 --size 10 --batch 0
check "zero mask width" 2 'mask.*(0|range)' $R --dims 1 --size 100 --mask 0
check "negative mask width" 2 'mask.*-3' $R --dims 1 --size 100 --mask -3
check "absurd mask width 1025" 2 'mask.*(range|absurd)' $R --dims 1 --size 100 --mask 1025
check "absurd mask width beyond long" 2 'mask' $R --dims 1 --size 100 --mask 99999999999999999999999
check "non-numeric mask width" 2 'mask.*not an integer' $R --dims 1 --size 100 --mask three
check "unknown mask mode" 2 "mask-mode.*unknown mask mode" $R --dims 1 --size 100 --mask 3 --mask-mode register
check "one mask mode for bench" 2 "one mode" $CLI bench --dims 1 --size 100 --mask 3 --mask-mode argument,baked
# A --block outside the grid was refused after the header (or JSON's
# "[") had gone to stdout.
check "model block outside the grid" 2 'block index 9 is outside the grid' "$CLI" model --dims 2 --mask 5 --size 64 --block 9,9
check "model block outside the grid (JSON)" 2 'outside the grid' "$CLI" model --dims 3 --mask 3 --size 16 --block 0,0,5 --json

# --- tiles -------------------------------------------------------------------
check "tile 0" 2 'tile.*(0|range)' $R --dims 2 --size 10 --tile 0
check "negative tile" 2 'tile' $R --dims 2 --size 10 --tile -8
check_unsupported "tile too large for any device's work-group" 'work-group' \
    $R --dims 2 --size 10 --mask 3 --tile 1024 --strategy output_tile
check_unsupported "3D tile too large for the device" 'work-group|local memory' \
    $R --dims 3 --size 8 --mask 3 --tile 64 --strategy input_tile

# --- sizes -------------------------------------------------------------------
check "size 0" 2 'size.*>= 1' $R --dims 1 --size 0
check "size 0 in one extent" 2 'size.*>= 1' $R --dims 2 --size 7x0
check "non-numeric size" 2 'size.*not X' $R --dims 1 --size abc
check "size with a trailing x" 2 'size' $R --dims 2 --size 10x
check "size in scientific notation" 2 'size' $R --dims 1 --size 1e6
check "negative size" 2 'size' $R --dims 1 --size -5
check "size with too many extents" 2 'extents' $R --dims 2 --size 4x4x4
check "size overflowing 64 bits" 2 'too large' $R --dims 1 --size 99999999999999999999999
check "an extent beyond int" 2 'too large' $R --dims 1 --size 2147483648
# More elements than one launch indexes is a valid problem (host arrays
# stream it in slabs that fit): 10^15 elements are refused for the host's
# memory, before any is allocated.
check "more elements than the host can hold" 3 'host memory' $R --dims 3 --size 100000x100000x100000
check "size whose bytes overflow size_t" 2 'too large' $R --dims 2 --size 4294967296x4294967296

# A buffer of INT_MAX floats (8 GiB) is the largest valid problem. Where
# device 0:0 has less global memory, it is beyond the maximum allocation;
# where the host has less than the 52 GB the dataset takes, it is beyond
# the host. Either way it is refused before the host memory is filled.
global=$("$CLI" devices 2>/dev/null | awk '$1 == "0:0" { print $(NF-1), $NF }')
host_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
case "$global" in
*" MiB" | *" KiB" | [0-7].*" GiB" | [0-7]" GiB") small=1 ;;
*) small=0 ;;
esac
if [ "$small" = 1 ] || [ "${host_kb:-0}" -lt 50000000 ]; then
    check "size beyond the device's allocation or the host's memory" 3 \
        'maximum allocation|host memory' \
        $R --dims 1 --size 2147483647 --device 0:0 --strategy naive
else
    echo "skip size beyond max allocation: 0:0 has $global, the host ${host_kb} kB"
fi

# --- strategies and devices ---------------------------------------------------
check "unknown strategy" 2 'unknown strategy' $R --dims 1 --size 10 --strategy fastest
# The list names what each command takes (run listed "all" but not
# auto, which it takes; apply, bench --mpi and the library list no "all").
check "run's unknown strategy lists all and auto" 2 "unknown strategy 'fastest' \\(naive, .*vector, all or auto\\)$" "$CLI" run --strategy fastest
check "bench --strategy auto lists what bench takes" 2 "unknown strategy 'auto' \\(naive, .*vector, all\\)$" "$CLI" bench --strategy auto
check "apply --strategy all lists what apply takes" 2 "unknown strategy 'all' \\(naive, .*vector or auto\\)$" "$CLI" apply "$tmp/none.npy" "$tmp/never.npy" --mask 1 --strategy all
check "empty strategy" 2 'strategy' $R --dims 1 --size 10 --strategy ""
check "unknown device" 2 'no device matches' $R --dims 1 --size 10 --device no-such-device-xyz
check "device index out of range" 2 'no device matches' $R --dims 1 --size 10 --device 99:99
check "empty device term" 2 'empty term' $R --dims 1 --size 10 --device "cpu,,gpu"

# --- element types ---------------------------------------------------------
check "unknown dtype" 2 "unknown dtype 'u32'.*u8, u16, i16, f16, f32" $R --dims 1 --size 10 --dtype u32
check "empty dtype" 2 "unknown dtype" $R --dims 1 --size 10 --dtype ""
check "dtype in capitals" 2 "unknown dtype 'U8'" $R --dims 1 --size 10 --dtype U8
check "bad out-dtype" 2 "out-dtype: same or f32" $R --dims 1 --size 10 --dtype u8 --out-dtype u16
check "bench: unknown dtype" 2 "unknown dtype" $CLI bench --dims 1 --size 10 --mask 3 --dtype int8
check "bench --end-to-end with a dtype" 2 "end-to-end" $CLI bench --dims 1 --size 10 --mask 3 --dtype u8 --end-to-end
check "bench --end-to-end with --tiles" 2 "tiles and --mask-mode are for the kernel rows" $CLI bench --dims 1 --size 10 --mask 3 --tiles all --end-to-end
check "bench --end-to-end with --mask-mode" 2 "tiles and --mask-mode are for the kernel rows" $CLI bench --end-to-end --mask-mode baked --dims 2 --size 16x16

# --- the environment ----------------------------------------------------------
mkdir "$tmp/no-vendors"
OCL_ICD_VENDORS="$tmp/no-vendors" check "no OpenCL platform (run)" 3 \
    'no OpenCL platform.*apt-get install pocl-opencl-icd' $R --dims 1 --size 10
OCL_ICD_VENDORS="$tmp/no-vendors" check "no OpenCL platform (devices)" 3 \
    'no OpenCL platform.*apt-get install pocl-opencl-icd' "$CLI" devices
CLCONV_KERNEL_DIR=/nonexistent check "missing kernel folder" 3 \
    'CLCONV_KERNEL_DIR=/nonexistent.*not found' $R --dims 1 --size 10

# A .cl that fails to build: exit 3, and stderr shows the file, the full
# options and the compiler's build log (with file:line:column; the log's
# file name is the driver's: PoCL and Intel write conv1d_naive.cl,
# Oclgrind input.cl, so clconv's own line is what names the file).
mkdir "$tmp/cl"
cp "$here/cl/"* "$tmp/cl/"
printf '\nthis_is_not_opencl_c(;\n' >>"$tmp/cl/conv1d_naive.cl"
CLCONV_KERNEL_DIR="$tmp/cl" "$CLI" run --dims 1 --size 10 --mask 3 \
    --strategy naive --reps 0 >"$tmp/out" 2>"$tmp/err"
got=$?
if [ "$got" -ne 3 ]; then
    fail "kernel that fails to build: exit $got, expected 3"
elif ! grep -q 'conv1d_naive.cl' "$tmp/err" ||
    ! grep -q -- '-D MASK_WIDTH=3 -D TILE_WIDTH=' "$tmp/err" ||
    ! grep -qi 'build log' "$tmp/err" ||
    ! grep -q '\.cl:[0-9]*:[0-9]*:' "$tmp/err"; then
    fail "kernel that fails to build: stderr lacks the file, options or build log"
    sed 's/^/  | /' "$tmp/err" | head -n 20
else
    echo "ok   kernel that fails to build shows its file, options and build log"
fi

if [ "$fails" -ne 0 ]; then
    echo "bad_input.sh: $fails failure(s)"
    exit 1
fi
echo "bad_input.sh: all passed"
