#!/bin/sh
# Beyond one device's buffers and beyond one device: `run` streams a
# problem beyond the allocation limit (CLCONV_MAX_ALLOC_BYTES) in slabs;
# where PoCL can expose two CPU devices (POCL_DEVICES="pthread pthread"),
# the split tests (test_split) and `run --split` run over both.
# Usage: test/multi_device.sh build/clconv
set -u
CLI=${1:-build/clconv}
BUILD=$(dirname "$CLI")
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib/check.sh"

check "run beyond the allocation limit streams in slabs" 0 env CLCONV_MAX_ALLOC_BYTES=20000 \
    "$CLI" run --dims 3 --size 24x20x30 --mask 3 --reps 2 --device 0:0 --json -
python3 - "$tmp/out" <<'PYEOF' || { echo "FAIL slab rows JSON"; fails=$((fails + 1)); }
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["status"] == "ok" and r["slabs"] >= 2 for r in rows), rows
PYEOF
check "run --split refuses a tile list" 2 "$CLI" run --split --tile 8 --dims 1 --size 100 --mask 3
# --split with --method: the row names the method it ran (it said the
# strategy, and "auto" in JSON).
check "run --split --method fft names the method" 0 "$CLI" run --split \
    --device 0:0 --method fft --dims 2 --size 40x30 --mask 7 --reps 0 --json -
grep -q '"method": "fft"' "$tmp/out" || fail "run --split --method fft: $(cat "$tmp/out")"
# --split verifies with the bound of the method it ran: the FFT's follows
# the padded data's range (here a cval of 1e6), the direct one's did not
# (a false FAIL, max_err 8.9).
check "run --split --method fft takes the FFT's bound" 0 "$CLI" run --split \
    --device 0:0 --method fft --dims 2 --size 300x200 --mask 31 --cval 1e6 --reps 0 --seed 3
check "a malformed CLCONV_MAX_ALLOC_BYTES is a usage error" 2 env CLCONV_MAX_ALLOC_BYTES=12k \
    "$CLI" run --dims 1 --size 100 --mask 3

if POCL_DEVICES="pthread pthread" "$CLI" devices 2>/dev/null | grep -c pthread | grep -q '^[2-9]'; then
    if POCL_DEVICES="pthread pthread" CLCONV_DEVICE=pthread "$BUILD/test_split" >"$tmp/split" 2>&1; then
        echo "ok   test_split over two PoCL devices"
    else
        echo "FAIL test_split over two PoCL devices"; sed 's/^/  | /' "$tmp/split"
        fails=$((fails + 1))
    fi
    check "run --split over two devices verifies" 0 env POCL_DEVICES="pthread pthread" \
        "$CLI" run --split --device pthread --dims 2 --size 203x150 --mask 5 --reps 2 --json -
    python3 - "$tmp/out" <<'PYEOF' || { echo "FAIL run --split JSON"; fails=$((fails + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == 1 and r[0]["status"] == "ok", r
assert r[0]["devices"].count(";") == 1 and r[0]["slabs"] >= 2, r
assert r[0]["timed"] == "host-to-host", r
PYEOF
    # Typed problems over two devices (they were refused: the split took
    # float32 only): every narrow type in and out, verified; f16 through
    # float32 where a device lacks cl_khr_fp16 (PoCL).
    for dt in u8 u16 i16 f16; do
        for od in same f32; do
            check "run --split over two devices, --dtype $dt --out-dtype $od" 0 \
                env POCL_DEVICES="pthread pthread" "$CLI" run --split --device pthread \
                --dims 2 --size 67x45 --mask 5 --reps 1 --dtype $dt --out-dtype $od --json -
            python3 - "$tmp/out" $dt $od <<'PYEOF' || { echo "FAIL run --split --dtype $dt JSON"; fails=$((fails + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == 1 and r[0]["status"] == "ok", r
assert r[0]["devices"].count(";") == 1, r
assert r[0]["dtype"] == sys.argv[2], r
assert r[0]["out_dtype"] == (sys.argv[2] if sys.argv[3] == "same" else "f32"), r
PYEOF
        done
    done
else
    echo "SKIP two-device checks: PoCL does not expose two pthread devices here"
fi
[ "$fails" -eq 0 ] || { echo "multi_device.sh: $fails failed"; exit 1; }
echo "multi_device.sh: all passed"
