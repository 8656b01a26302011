#!/bin/sh
# A device that allows fewer work-items than 1024 (AMD's 256, some Intel
# GPUs): every variant's default tile must fit it. PoCL is capped with
# POCL_MAX_WORK_GROUP_SIZE=256 (other implementations ignore the variable
# and run their own limits): the default problems of `clconv run` (that is
# `make run`) verify with no unsupported row, and each row names the tile
# it chose; an explicit --tile that cannot fit stays unsupported (exit 3).
# Usage: test/small_workgroups.sh build/clconv
set -u
CLI=${1:-build/clconv}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_MAX_WORK_GROUP_SIZE=256

# (the smaller tile is checked where the cap applies: PoCL's devices)
"$CLI" run --reps 0 --json >"$tmp/out" 2>"$tmp/err"
got=$?
if [ "$got" -ne 0 ] || grep -q '"unsupported"' "$tmp/out"; then
    echo "FAIL default run with 256 work-items: exit $got, expected 0 and no unsupported row"
    grep '"unsupported"\|"error"' "$tmp/out" | head -n 8 | sed 's/^/  | /'
    sed 's/^/  | /' "$tmp/err" | head -n 5
    fails=$((fails + 1))
elif "$CLI" devices 2>/dev/null | grep -q PoCL &&
    ! grep -q '"strategy": "input_tile", "dims": 3, .*"tile": [1-4],' "$tmp/out"; then
    echo "FAIL default run with 256 work-items: 3D input_tile does not report a smaller tile"
    fails=$((fails + 1))
else
    echo "ok   every default variant fits 256 work-items and reports its tile"
fi

# expect NAME EXIT PATTERN COMMAND...: COMMAND exits EXIT and its stdout
# holds PATTERN.
expect() {
    name=$1; want=$2; pattern=$3; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ] || ! grep -q -- "$pattern" "$tmp/out"; then
        echo "FAIL $name: exit $got, expected $want and '$pattern'"
        sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -n 3
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
}

if "$CLI" run --dims 1 --size 1 --reps 0 --device 'Portable Computing' >/dev/null 2>&1; then
    expect "an explicit tile that cannot fit stays unsupported with its reason" 3 'unsupported: work-group of 32x32' \
        "$CLI" run --dims 2 --size 40 --tile 32 --strategy naive --reps 0 --device 'Portable Computing'
fi

# Far fewer work-items (PoCL capped at 4): kernels launched without a
# work-group of their own (the element-type conversions of the separable
# and FFT paths, the FFT's pad, multiply and crop) aborted the process in
# PoCL's choice ("pocl_local_size.c: upper_divisor: Assertion `limit > 0'
# failed" below its preferred multiple of 8); VkFFT's scheduler looped
# for ever (1 and 8 work-items) or its kernels failed to launch. Now the
# separable path verifies, the FFT is unsupported with the reason (exit
# 3, within seconds) and auto takes another method (it hung with 8).
if "$CLI" devices 2>/dev/null | grep -q PoCL; then
    for wg in 4 8; do
        for d in 1 2; do
            expect "separable u8 ${d}D verifies with $wg work-items" 0 " ok " \
                env POCL_MAX_WORK_GROUP_SIZE=$wg timeout 120 "$CLI" run --dims "$d" --size 64 --method separable \
                --dtype u8 --reps 0 --device 'Portable Computing'
            expect "fft ${d}D with $wg work-items is unsupported, saying why" 3 \
                "unsupported: method fft: VkFFT needs work-groups" \
                env POCL_MAX_WORK_GROUP_SIZE=$wg timeout 120 "$CLI" run --dims "$d" --size 64 --method fft \
                --reps 0 --device 'Portable Computing'
        done
    done
    # coarse's default 4 rows a work-group did not fit 1 to 3 work-items
    # at any tile (unsupported, exit 3): halved to what fits
    for d in 2 3; do
        expect "coarse's default fits 3 work-items in ${d}D" 0 " ok " \
            env POCL_MAX_WORK_GROUP_SIZE=3 timeout 120 "$CLI" run --dims "$d" --size 32 --strategy coarse \
            --reps 0 --device 'Portable Computing'
    done
    expect "auto with 8 work-items takes another method than the FFT" 0 " ok " \
        env POCL_MAX_WORK_GROUP_SIZE=8 timeout 120 "$CLI" run --dims 2 --size 96 --mask 31 --method auto \
        --reps 0 --device 'Portable Computing'
    if grep -q " fft " "$tmp/out"; then
        echo "FAIL auto with 8 work-items ran the FFT"
        fails=$((fails + 1))
    fi
fi

[ "$fails" -eq 0 ] && echo "small_workgroups.sh: all passed"
exit "$((fails > 0))"
