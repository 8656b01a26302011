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

if "$CLI" run --dims 1 --size 1 --reps 0 --device 'Portable Computing' >/dev/null 2>&1; then
    "$CLI" run --dims 2 --size 40 --tile 32 --strategy naive --reps 0 \
        --device 'Portable Computing' >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 3 ] || ! grep -q 'unsupported: work-group of 32x32' "$tmp/out"; then
        echo "FAIL explicit 32x32 tile on 256 work-items: exit $got, expected 3 and the reason"
        sed 's/^/  | /' "$tmp/out" | head -n 3
        fails=$((fails + 1))
    else
        echo "ok   an explicit tile that cannot fit stays unsupported with its reason"
    fi
fi

[ "$fails" -eq 0 ] && echo "small_workgroups.sh: all passed"
exit "$((fails > 0))"
