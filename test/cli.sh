#!/bin/sh
# The CLI's contract: commands, --help, JSON keys, exit codes.
# Usage: test/cli.sh build/clconv
set -u
CLI=${1:-build/clconv}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib/check.sh"

check "clconv --help exits 0" 0 "$CLI" --help
check "devices --help exits 0" 0 "$CLI" devices --help
check "run --help exits 0" 0 "$CLI" run --help
# clconv help COMMAND is COMMAND --help (it printed clconv's own usage
# for any COMMAND, exit 0); an unknown one is a usage error.
check "help run is run --help" 0 "$CLI" help run
head -1 "$tmp/out" | grep -q '^usage: clconv run ' || fail "help run printed: $(head -1 "$tmp/out")"
check "help of an unknown command" 2 "$CLI" help nope
grep -q "unknown command 'nope'" "$tmp/err" || fail "help nope: $(cat "$tmp/err")"
check "devices lists at least one device" 0 "$CLI" devices
grep -q '^0:0 ' "$tmp/out" || { echo "FAIL devices: no 0:0 line"; fails=$((fails + 1)); }

check "run of one 2D variant verifies" 0 "$CLI" run --dims 2 --size 37x23 --mask 5 --tile 8 --strategy output_tile --device 0:0 --reps 2 --seed 7
grep -q 'ok' "$tmp/out" || { echo "FAIL run: no ok line"; fails=$((fails + 1)); }
grep -q 'seed 7' "$tmp/err" || { echo "FAIL run: seed not printed"; fails=$((fails + 1)); }

check "run --json prints every key" 0 "$CLI" run --dims 3 --size 9x7x5 --mask 3 --tile 4 --device 0:0 --reps 1 --json
for key in device strategy dims size mask tile status max_err ms gbs mode cval mask_size origin convolve; do
    grep -q "\"$key\":" "$tmp/out" || { echo "FAIL json: key $key missing"; fails=$((fails + 1)); }
done
if command -v /usr/bin/python3 >/dev/null 2>&1; then
    /usr/bin/python3 -c 'import json,sys; rows=json.load(open(sys.argv[1])); assert len(rows)>=4 and all(r["status"]=="ok" for r in rows), rows' "$tmp/out" \
        || { echo "FAIL json: not valid or not all ok"; fails=$((fails + 1)); }
fi

check "an even mask runs (SciPy's centring)" 0 "$CLI" run --dims 1 --size 100 --mask 4 --strategy naive --device 0:0 --reps 0
check "run --json carries the filter" 0 "$CLI" run --dims 2 --size 19x7 --mask 5x2 --origin 1,-1 --mode reflect,wrap --convolve --strategy naive --device 0:0 --reps 0 --json
for key in mode cval mask_size origin convolve; do
    grep -q "\"$key\":" "$tmp/out" || { echo "FAIL json: key $key missing"; fails=$((fails + 1)); }
done
grep -q '"mode": "wrap"' "$tmp/out" && grep -q '"mask_size": "5x2"' "$tmp/out" &&
    grep -q '"origin": "1,-1"' "$tmp/out" ||
    { echo "FAIL json: mode rows or per-axis values missing"; fails=$((fails + 1)); }
check "run --batch runs N problems in one launch" 0 "$CLI" run --dims 2 --size 21x9 --mask 3x2 --batch 5 --mode mirror --strategy vector --device 0:0 --reps 0 --json
grep -q '"batch": 5' "$tmp/out" && grep -q '"size": "21x9x5"' "$tmp/out" && grep -q '"mask_size": "3x2x1"' "$tmp/out" ||
    { echo "FAIL json: the batch is not one stacked problem"; fails=$((fails + 1)); }
# bench --batch: the table, JSON and CSV show the stacked problem (they
# showed --size alone, beside an element count of the whole stack).
check "bench --batch shows the stacked size" 0 "$CLI" bench --dims 2 --size 21x9 --mask 3 --batch 5 --strategy naive --tiles default --device 0:0 --quiet --json "$tmp/b.json" --csv "$tmp/b.csv"
grep -q '^3D 21x9x5 W=3 ' "$tmp/out" && grep -q '"dims": 3, "size": \[21, 9, 5\]' "$tmp/b.json" &&
    grep -q ',3,21,9,5,3,clconv,naive,' "$tmp/b.csv" ||
    { echo "FAIL bench --batch: not the stacked size"; cat "$tmp/out"; fails=$((fails + 1)); }
check "run --axes puts a 1D mask along y" 0 "$CLI" run --dims 3 --size 9x8x7 --mask 4 --axes 1 --origin -2 --mode wrap --strategy coarse --device 0:0 --reps 0 --json
grep -q '"mask_size": "1x4x1"' "$tmp/out" && grep -q '"origin": "0,-2,0"' "$tmp/out" ||
    { echo "FAIL json: --axes did not place the mask"; fails=$((fails + 1)); }
check "zero size is a usage error" 2 "$CLI" run --dims 2 --size 0x5
check "unknown strategy is a usage error" 2 "$CLI" run --dims 1 --strategy fastest
check "unknown device is a usage error" 2 "$CLI" run --dims 1 --device no-such-device-xyz
check "unknown option is a usage error" 2 "$CLI" run --bogus
check "unknown command is a usage error" 2 "$CLI" frobnicate
check "a work-group beyond the device is unsupported" 3 "$CLI" run --dims 3 --size 8 --mask 3 --tile 64 --strategy naive --device 0:0
grep -q 'unsupported: work-group' "$tmp/out" || { echo "FAIL: no unsupported reason"; fails=$((fails + 1)); }
n=$(wc -l <"$tmp/err")
[ "$n" -le 1 ] || { echo "FAIL: usage errors must be one line, got $n"; fails=$((fails + 1)); }

# An OpenCL failure names the call that failed: a kernel file whose kernel
# has another name makes clCreateKernel fail.
cp -rL "$(dirname "$0")/../cl" "$tmp/cl" # -L: never edit the real kernels through a link
sed -i 's/void conv1d_naive(/void conv1d_naive_renamed(/' "$tmp/cl/conv1d_naive.cl"
CLCONV_NO_CACHE=1 CLCONV_KERNEL_DIR="$tmp/cl" check "an OpenCL error is exit 3" 3 "$CLI" run --dims 1 --size 100 --strategy naive --device 0:0 --reps 1
grep -q 'clCreateKernel failed: CL_INVALID_KERNEL_NAME' "$tmp/out" || { echo "FAIL: the OpenCL error does not name clCreateKernel"; fails=$((fails + 1)); }

# $CLCONV_BUILD_LOG: a good build names its file and full options (the
# extra options of $CLCONV_BUILD_OPTIONS last) on stderr; without it, or
# at 0, no such line.
CLCONV_BUILD_LOG=1 CLCONV_NO_CACHE=1 CLCONV_BUILD_OPTIONS=-DCLCONV_PROBE=1 check "CLCONV_BUILD_LOG prints the build" 0 "$CLI" run --dims 1 --size 100 --strategy naive --device 0:0 --reps 0
grep -q '^clconv: built .*conv1d_naive\.cl on .*options: .*MASK_WIDTH=9.* -DCLCONV_PROBE=1$' "$tmp/err" || { echo "FAIL: CLCONV_BUILD_LOG: no build line with the options"; fails=$((fails + 1)); }
CLCONV_BUILD_LOG=0 CLCONV_NO_CACHE=1 check "CLCONV_BUILD_LOG=0 is off" 0 "$CLI" run --dims 1 --size 100 --strategy naive --device 0:0 --reps 0
if grep -q '^clconv: built' "$tmp/err"; then echo "FAIL: CLCONV_BUILD_LOG=0 printed a build"; fails=$((fails + 1)); fi

# model --methods per border mode: wrap transforms the period (2048 is a
# transform size), the other modes pad to n + W - 1, so wrap's FFT is
# predicted faster; an unknown mode is exit 2 naming the flag.
fft_ms() { sed -n 's/.* fft *\([0-9.e+-]*\) ms.*/\1/p' "$tmp/out" | head -1; }
check "model --methods --mode reflect" 0 "$CLI" model --methods --dims 2 --size 2048 --mask 63 --mode reflect
reflect_ms=$(fft_ms)
check "model --methods --mode wrap" 0 "$CLI" model --methods --dims 2 --size 2048 --mask 63 --mode wrap
wrap_ms=$(fft_ms)
if [ -n "$wrap_ms" ] && [ -n "$reflect_ms" ] && awk "BEGIN { exit !($wrap_ms < $reflect_ms) }"; then
    ok "the FFT in wrap mode is predicted faster ($wrap_ms < $reflect_ms ms)"
else
    fail "wrap's FFT ($wrap_ms ms) not predicted below reflect's ($reflect_ms ms)"
fi
check "model --methods --mode bogus is a usage error" 2 "$CLI" model --methods --dims 2 --size 64 --mode bogus
grep -q -- '--mode' "$tmp/err" || fail "the --mode error does not name the flag"
# Ceilings as bench prints them (decimals) are taken; others are exit 2.
check "model --methods takes decimal ceilings" 0 "$CLI" model --methods --dims 2 --size 8192 --bandwidth 4196.4 --peak-gflops 65076.5
grep -q 'copy 4196.4 GB/s, FP32 65076.5 GFLOP/s)' "$tmp/out" || fail "model --methods does not print the given ceilings"
# Without ceilings it prints the estimates it uses (it printed "copy 0
# GB/s"), saying they are estimated and how to give real ones.
check "model --methods without ceilings" 0 "$CLI" model --methods --dims 2 --size 512 --mask 9
grep -q 'copy 1500.0 GB/s estimated, FP32 [0-9.]* GFLOP/s estimated; give --device' "$tmp/out" || fail "model --methods without ceilings does not print its estimates"
check "model --methods --device without --measure" 0 "$CLI" model --methods --dims 2 --size 512 --mask 9 --device 0:0
grep -q 'GFLOP/s estimated from [0-9]* compute units at [0-9]* MHz)' "$tmp/out" || fail "model --methods --device does not say what it estimated from"
for bad in 0 -1 nan 5x 1e9; do
    check "model --methods --bandwidth $bad is a usage error" 2 "$CLI" model --methods --dims 2 --size 64 --bandwidth "$bad" --peak-gflops 100
    grep -q -- '--bandwidth' "$tmp/err" || fail "the --bandwidth $bad error does not name the flag"
done
# Measuring overrides are named on stderr, in effect or ignored, by run
# and by bench, its large-mask suites too (they said nothing).
for c in "run --dims 2 --size 16 --strategy coarse --reps 0" \
         "bench --suite large-quick --dims 2 --size 16 --mask 3 --method direct --reps 1 --warmup 0"; do
    check "${c%% *} names an override in effect" 0 env CLCONV_COARSE_XV=4 "$CLI" $c --device 0:0
    grep -q '^clconv: measuring overrides in effect: CLCONV_COARSE_XV=4$' "$tmp/err" || fail "${c%% --size*}: CLCONV_COARSE_XV=4 not named"
    check "${c%% *} names an override ignored" 0 env CLCONV_COARSE_XV=3 "$CLI" $c --device 0:0
    grep -q '^clconv: measuring overrides ignored (not a value they take; the defaults apply): CLCONV_COARSE_XV=3$' "$tmp/err" || fail "${c%% --size*}: CLCONV_COARSE_XV=3 not named as ignored"
done

# The instrumented kernels of --dtype count as the model (the input was
# handed to the float entry point: exit 2 for every type but f32).
for t in u8 u16 i16 f16; do
    check "model --device --dtype $t counts the typed kernels" 0 "$CLI" model --dims 2 --mask 3 --size 9x7 --dtype $t --device 0:0
    [ "$(grep -c '^counted .* equal on 0:0' "$tmp/out")" -eq 4 ] || fail "model --dtype $t: not four counted rows equal to the model"
done

if [ "$fails" -ne 0 ]; then echo "cli.sh: $fails failure(s)"; exit 1; fi
echo "cli.sh: all passed"
