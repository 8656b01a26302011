#!/bin/sh
# `clconv apply` without Python: known results on hand-made .npy and PGM
# files, the sample PNG, malformed inputs and masks (exit 2, one line, no
# OUT), atomic outputs and an untouched IN.
# Usage: test/apply_cli.sh build/clconv
set -u
CLI=${1:-build/clconv}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SAMPLE=$ROOT/assets/sample.png
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$ROOT/test/lib/check.sh"

# An error: exit 2, exactly one line on stderr, nothing at OUT.
check_error() { # name OUT command...
    name=$1; out=$2; shift 2
    check "$name" 2 "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || { fail "$name: stderr is not one line"; sed 's/^/  | /' "$tmp/err"; }
    [ ! -e "$out" ] || fail "$name: $out was left behind"
}

# A .npy of uint8 bytes: npy_u1 FILE SHAPE BYTES-AS-OCTAL-ESCAPES
npy_u1() {
    dict="{'descr': '|u1', 'fortran_order': False, 'shape': $2, }"
    len=$(( ${#dict} + 1 ))
    pad=$(( (64 - (10 + len) % 64) % 64 ))
    hlen=$(( len + pad ))
    { printf '\223NUMPY\001\000'
      printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
      printf '%s' "$dict"; printf "%${pad}s\n" ''
      printf "$3"; } >"$1"
}

# The float32 values of a .npy written by clconv (data after the header).
npy_values() {
    off=$(( 10 + $(od -An -tu2 -j8 -N2 "$1" | tr -d ' ') ))
    od -An -tf4 -v -j"$off" "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

check "apply --help exits 0" 0 "$CLI" apply --help

# --- .npy: known results -------------------------------------------------
npy_u1 "$tmp/a.npy" "(2, 3)" '\001\002\003\004\005\006'
check "a 2D uint8 .npy with the identity mask" 0 "$CLI" apply "$tmp/a.npy" "$tmp/id.npy" --mask 1 --verify
[ "$(npy_values "$tmp/id.npy")" = "1 2 3 4 5 6" ] || fail "identity: got '$(npy_values "$tmp/id.npy")'"
grep -q "'shape': (2, 3)" "$tmp/id.npy" || fail "identity: shape not kept"
# P[y][x] = N[y-1][x]: the mask's top-centre tap reads the row above.
check "a 2D .npy shifted down one row" 0 "$CLI" apply "$tmp/a.npy" "$tmp/down.npy" --mask "0,1,0;0,0,0;0,0,0" --verify
[ "$(npy_values "$tmp/down.npy")" = "0 0 0 1 2 3" ] || fail "shift: got '$(npy_values "$tmp/down.npy")'"
# "--" ends the options: an IN and OUT that begin with '-' (was exit 2,
# "unknown option '--'"); a third operand after it is still refused.
cp "$tmp/a.npy" "$tmp/-a.npy"
case $CLI in /*) cli=$CLI ;; */*) cli=$PWD/$CLI ;; *) cli=$CLI ;; esac
check "IN and OUT after --" 0 sh -c "cd '$tmp' && '$cli' apply --mask 1 -- -a.npy -id.npy"
cmp -s "$tmp/-id.npy" "$tmp/id.npy" || fail "IN and OUT after --: other bytes"
check_error "a third operand after --" "$tmp/-x.npy" sh -c "cd '$tmp' && '$cli' apply --mask 1 -- -a.npy -x.npy --verify"
npy_u1 "$tmp/b.npy" "(5,)" '\001\002\003\004\005'
check "a 1D .npy with 1,2,1" 0 "$CLI" apply "$tmp/b.npy" "$tmp/b_out.npy" --mask 1,2,1 --verify
[ "$(npy_values "$tmp/b_out.npy")" = "4 8 12 16 14" ] || fail "1D: got '$(npy_values "$tmp/b_out.npy")'"
npy_u1 "$tmp/c.npy" "(2, 2, 2)" '\001\001\001\001\001\001\001\001'
check "a 3D .npy with box:3" 0 "$CLI" apply "$tmp/c.npy" "$tmp/c_out.npy" --mask box:3 --verify
# Every voxel of a 2x2x2 cube of ones sees 8 of the 27 taps.
echo "$(npy_values "$tmp/c_out.npy")" | awk '{ if (NF != 8) exit 1
    for (i = 1; i <= NF; ++i) { d = $i - 8 / 27; if (d > 1e-6 || d < -1e-6) exit 1 } }' \
    && echo "ok   3D box values are 8/27" || fail "3D box: got '$(npy_values "$tmp/c_out.npy")'"
for s in naive output_tile input_tile cached_halo auto; do
    check "--strategy $s verifies" 0 "$CLI" apply "$tmp/a.npy" "$tmp/s_$s.npy" --mask laplacian --strategy $s --tile 4 --verify
done
# SciPy's grid-* names for filters: the same results as their modes.
for pair in grid-mirror:reflect grid-wrap:wrap grid-constant:constant; do
    check "--mode ${pair%:*}" 0 "$CLI" apply "$tmp/a.npy" "$tmp/g_${pair%:*}.npy" --mask laplacian --mode "${pair%:*}" --cval 3 --verify
    "$CLI" apply "$tmp/a.npy" "$tmp/g_${pair#*:}.npy" --mask laplacian --mode "${pair#*:}" --cval 3 >/dev/null 2>&1
    cmp -s "$tmp/g_${pair%:*}.npy" "$tmp/g_${pair#*:}.npy" && echo "ok   ${pair%:*} is ${pair#*:}" \
        || fail "${pair%:*} differs from ${pair#*:}"
done

# A volume beyond the allocation limit runs host to host in slabs: the
# summary names the variant and tile that ran, the ones one launch shows
# (it said "coarse T=0": the tile left to the library; naive with tile 0
# even read as the device's default variant), and the bytes are the same.
# 128 planes of 1 KiB in float32 under a limit of 24: room for the 15
# rows a slab may start early where work-items along z share planes (the
# coarse kernel on Oclgrind; under a tighter limit the slabs start
# anywhere and the last bits may differ, doc/architecture.md).
npy_u1 "$tmp/vol.npy" "(128, 16, 16)" ''
LC_ALL=C awk 'BEGIN { for (i = 0; i < 32768; ++i) printf "%c", (i * 37) % 251 + 1 }' >>"$tmp/vol.npy"
for s in "--strategy coarse" "--strategy naive" "--strategy vector" ""; do
    # shellcheck disable=SC2086 # s is words
    check "one launch: 3D ${s:-auto}" 0 "$CLI" apply "$tmp/vol.npy" "$tmp/vol1.npy" --mask box:3 --method direct $s
    one=$(sed -n 's/.*, \([a-z_]* T=[0-9]*\) on .*/\1/p' "$tmp/out")
    case "$one" in *" T=0" | "") fail "one launch ${s:-auto}: no tile in '$(cat "$tmp/out")'" ;; esac
    # shellcheck disable=SC2086
    check "in slabs: 3D ${s:-auto}" 0 env CLCONV_MAX_ALLOC_BYTES=24576 "$CLI" apply "$tmp/vol.npy" "$tmp/vol2.npy" --mask box:3 --method direct $s
    slabs=$(sed -n 's/.*, \([a-z_]* T=[0-9]*\) on .* in \([0-9]*\) slab(s).*/\1 \2/p' "$tmp/out")
    [ "${slabs% *}" = "$one" ] && [ "${slabs##* }" -gt 1 ] \
        && echo "ok   in slabs the summary shows '$one' as one launch does (${s:-auto})" \
        || fail "slabs ${s:-auto}: '$(cat "$tmp/out")', one launch '$one'"
    cmp -s "$tmp/vol1.npy" "$tmp/vol2.npy" || fail "slabs ${s:-auto}: the output differs from one launch"
done
# What needs slabs counts the output in its own type and the FFT's padded
# array, not the input alone: 64 planes of uint8 (16 KiB) whose float32
# output (64 KiB) passes the limit ran as one launch, its output buffer
# beyond the limit (on a device whose own maximum it passed: exit 3, "a
# buffer of N bytes exceeds the device's maximum allocation"); --method
# fft of the same planes to uint8 (padded array 98 KiB), and of the 128
# planes (slabs of 94 planes by the data alone, their padded arrays 98
# KiB), was exit 3, "the FFT's padded array of N bytes does not fit the
# device". Each now runs in slabs: one launch's bytes, or within the
# FFT's bound.
npy_u1 "$tmp/vol64.npy" "(64, 16, 16)" ''
tail -c 16384 "$tmp/vol.npy" >>"$tmp/vol64.npy"
check "one launch: u8 to f32" 0 "$CLI" apply "$tmp/vol64.npy" "$tmp/v64a.npy" --mask box:3 --method direct
check "in slabs: u8 to f32" 0 env CLCONV_MAX_ALLOC_BYTES=24576 "$CLI" apply "$tmp/vol64.npy" "$tmp/v64b.npy" --mask box:3 --method direct
grep -q "in [0-9]* slab(s)" "$tmp/out" && cmp -s "$tmp/v64a.npy" "$tmp/v64b.npy" \
    && ok "a float32 output beyond the limit runs in slabs, one launch's bytes" \
    || fail "u8 to f32 beyond the limit: '$(cat "$tmp/out")'"
for v in vol64 vol; do
    check "fft in slabs: $v" 0 env CLCONV_MAX_ALLOC_BYTES=24576 "$CLI" apply "$tmp/$v.npy" "$tmp/${v}_fft.npy" --mask box:3 --method fft --out-dtype same --verify
    grep -q "method fft .* in [0-9]* slab(s), verified" "$tmp/out" \
        && ok "an FFT beyond the limit runs in slabs that fit ($v)" \
        || fail "fft $v: '$(cat "$tmp/out")'"
done

# --- images ---------------------------------------------------------------
printf 'P5\n3 3\n255\n\012\012\012\012\012\012\012\012\012' >"$tmp/flat.pgm"
check "a PGM with the identity mask is unchanged" 0 "$CLI" apply "$tmp/flat.pgm" "$tmp/flat_id.pgm" --mask 1
cmp -s "$tmp/flat.pgm" "$tmp/flat_id.pgm" || fail "PGM identity changed the file"
check "a PGM box blur rounds each pixel" 0 "$CLI" apply "$tmp/flat.pgm" "$tmp/flat_box.pgm" --mask box:3 --verify
# 10 * 4/9 = 4.44 -> 4 at corners, 10 * 6/9 = 6.67 -> 7 at edges, 10 centre.
[ "$(od -An -tu1 -j11 "$tmp/flat_box.pgm" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')" = "4 7 4 7 10 7 4 7 4" ] \
    || fail "PGM box: got '$(od -An -tu1 -j11 "$tmp/flat_box.pgm")'"
check "a PGM Laplacian clamps negatives to 0" 0 "$CLI" apply "$tmp/flat.pgm" "$tmp/flat_lap.pgm" --mask laplacian
[ "$(od -An -tu1 -j11 "$tmp/flat_lap.pgm" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')" = "0 0 0 0 0 0 0 0 0" ] \
    || fail "PGM laplacian: got '$(od -An -tu1 -j11 "$tmp/flat_lap.pgm")'"
check "--float keeps the unclamped Laplacian" 0 "$CLI" apply "$tmp/flat.pgm" "$tmp/flat_lap2.pgm" --mask laplacian --float "$tmp/flat_lap.npy"
[ "$(npy_values "$tmp/flat_lap.npy")" = "-20 -10 -20 -10 0 -10 -20 -10 -20" ] || fail "--float: got '$(npy_values "$tmp/flat_lap.npy")'"

# Ties (0.5 1.5 3.5 5.5) round to even on the device (--out-dtype same,
# an 8-bit image's default), also with --float, which makes the device
# return float32: OUT still rounds to even (it rounded half up, as
# --out-dtype f32 does, so adding --float changed OUT).
printf 'P5\n4 1\n255\n\001\002\005\006' >"$tmp/ties.pgm"
for x in "" "--float $tmp/ties.npy" "--out-dtype same --float $tmp/ties.npy"; do
    # shellcheck disable=SC2086 # x is words
    check "ties to even with '$x'" 0 "$CLI" apply "$tmp/ties.pgm" "$tmp/ties_out.pgm" --mask "0,0;0.5,0.5" $x
    got=$(od -An -tu1 -j11 "$tmp/ties_out.pgm" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
    [ "$got" = "0 2 4 6" ] || fail "ties with '$x': got '$got', not 0 2 4 6"
done
check "ties half up with --out-dtype f32" 0 "$CLI" apply "$tmp/ties.pgm" "$tmp/ties_out.pgm" --mask "0,0;0.5,0.5" --out-dtype f32 --float "$tmp/ties.npy"
got=$(od -An -tu1 -j11 "$tmp/ties_out.pgm" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
[ "$got" = "1 2 4 6" ] || fail "--out-dtype f32 ties: got '$got', not 1 2 4 6"
[ "$(npy_values "$tmp/ties.npy")" = "0.5 1.5 3.5 5.5" ] || fail "ties --float: got '$(npy_values "$tmp/ties.npy")'"

if [ -f "$SAMPLE" ]; then
    check "the sample PNG with the identity mask" 0 "$CLI" apply "$SAMPLE" "$tmp/s1.png" --mask 1
    check "its output again with the identity mask" 0 "$CLI" apply "$tmp/s1.png" "$tmp/s2.png" --mask 1
    cmp -s "$tmp/s1.png" "$tmp/s2.png" || fail "PNG identity is not a fixed point"
    check "the sample PNG blurred with --float" 0 "$CLI" apply "$SAMPLE" "$tmp/blur.png" --mask gaussian:5 --verify --float "$tmp/blur.npy"
    grep -q "'shape': (256, 256, 3)" "$tmp/blur.npy" || fail "--float of RGB: shape is not (256, 256, 3)"
    grep -q "PNG 3 channel" "$tmp/out" || fail "summary does not name the PNG"
else
    fail "assets/sample.png is missing"
fi
ls -a "$tmp" | grep -q '^\.clconv-' && fail "temporary files left after success"

# --- malformed inputs: exit 2, one line, nothing at OUT -------------------
: >"$tmp/empty"
printf 'GIF89a.....' >"$tmp/gif"
head -c 60 "$tmp/a.npy" >"$tmp/trunc_header.npy"
head -c 130 "$tmp/a.npy" >"$tmp/trunc_data.npy"
sed 's/fortran_order/fortran_ordre/' "$tmp/a.npy" >"$tmp/bad_key.npy"
sed "s/'|u1'/'<c8'/" "$tmp/a.npy" >"$tmp/bad_dtype.npy"
printf 'P5\n3 3\n0\n\001\001\001\001\001\001\001\001\001' >"$tmp/maxval0.pgm"
printf 'P6\n3 3\n255\n\001\002' >"$tmp/short.ppm"
printf 'P4\n8 1\n\377' >"$tmp/bitmap.pbm"
[ -f "$SAMPLE" ] && head -c 300 "$SAMPLE" >"$tmp/trunc.png"
for f in missing empty gif trunc_header.npy trunc_data.npy bad_key.npy bad_dtype.npy \
         maxval0.pgm short.ppm bitmap.pbm trunc.png; do
    check_error "malformed input '$f' is refused" "$tmp/never" "$CLI" apply "$tmp/$f" "$tmp/never" --mask 1
done

# An empty array: SciPy returns an empty array of its shape, and so does
# apply (test/apply_scipy.sh compares them), with its one-line summary;
# a wrong mask or --device is still refused. An image always has pixels.
npy_u1 "$tmp/empty0.npy" "(0, 5)" ''
check "an empty .npy gives an empty .npy" 0 "$CLI" apply "$tmp/empty0.npy" "$tmp/empty_out.npy" --mask box:3 --verify
grep -q "'descr': '<f4', 'fortran_order': False, 'shape': (0, 5)" "$tmp/empty_out.npy" \
    || fail "empty .npy: OUT is not a float32 (0, 5): $(head -c 80 "$tmp/empty_out.npy")"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "2D 5x0, .*empty: nothing to compute on .*verified" "$tmp/out" \
    || fail "empty .npy: summary '$(cat "$tmp/out")'"
check_error "an empty .npy with a 1D mask is refused" "$tmp/never" "$CLI" apply "$tmp/empty0.npy" "$tmp/never" --mask 1,2,1
check_error "an empty .npy with an unknown device is refused" "$tmp/never" "$CLI" apply "$tmp/empty0.npy" "$tmp/never" --mask box:3 --device no-such-device
check_error "an empty .npy with --method separable and a laplacian is refused" "$tmp/never_sep.npy" "$CLI" apply "$tmp/empty0.npy" "$tmp/never_sep.npy" --mask laplacian --method separable
grep -q "mask laplacian (3^2) is not an outer product" "$tmp/err" || fail "empty .npy: the separable refusal does not say why: $(cat "$tmp/err")"
printf 'P5\n0 3\n255\n' >"$tmp/empty.pgm"
check_error "a PGM of width 0 is refused" "$tmp/never" "$CLI" apply "$tmp/empty.pgm" "$tmp/never" --mask box:3

# --- bad masks and arguments ---------------------------------------------
npy_u1 "$tmp/m1d.npy" "(3,)" '\001\002\001'
npy_u1 "$tmp/m22.npy" "(2, 2)" '\001\001\001\001'
check_error "a 2D list for 1D data" "$tmp/never" "$CLI" apply "$tmp/b.npy" "$tmp/never" --mask "1,1;1,1"
check_error "a 1D list for 2D data" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1,2,1
check_error "a 1D .npy mask for 2D data" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask "$tmp/m1d.npy"
check_error "an origin out of range" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask "$tmp/m22.npy" --origin 1
check_error "an unknown border mode" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1 --mode reflect_101
check_error "a cval that is not finite" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1 --cval -inf
check_error "a channel axis out of range" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1 --channel-axis 2
check_error "a channel axis on an image" "$tmp/never.pgm" "$CLI" apply "$tmp/flat.pgm" "$tmp/never.pgm" --mask 1 --channel-axis 0
check_error "a missing mask file" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask "$tmp/nope.npy"
check_error "an unknown named mask" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask blur
# decimal only, as --cval: strtod read "0x10" as a tap of 16, exit 0
check_error "a hexadecimal mask value" "$tmp/never" "$CLI" apply "$tmp/b.npy" "$tmp/never" --mask 0x10
check_error "a hexadecimal sigma" "$tmp/never" "$CLI" apply "$tmp/b.npy" "$tmp/never" --mask gaussian:5:0x1p-1
check_error "sobel-y on 1D data" "$tmp/never" "$CLI" apply "$tmp/b.npy" "$tmp/never" --mask sobel-y
check_error "no --mask" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never"
check_error "an unknown strategy" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1 --strategy fast
check_error "an image written as .npy" "$tmp/never.npy" "$CLI" apply "$tmp/flat.pgm" "$tmp/never.npy" --mask 1
check_error "a .npy written as PNG" "$tmp/never.png" "$CLI" apply "$tmp/a.npy" "$tmp/never.png" --mask 1
check_error "an unknown device" "$tmp/never" "$CLI" apply "$tmp/a.npy" "$tmp/never" --mask 1 --device no-such-device-xyz
check_error "OUT in a missing folder" "$tmp/nodir/out.npy" "$CLI" apply "$tmp/a.npy" "$tmp/nodir/out.npy" --mask 1

# --- IN is never touched; an existing OUT survives an error --------------
# --- methods (issue 17): each verified with its bound; separable refuses a
# mask that is not an outer product, naming why.
# Under the sanitizers (ASAN_OPTIONS set), LeakSanitizer's exit-time
# tracer crashed (SIGSEGV inside the tracer) on the FFT path's PoCL worker
# threads: leak checking is off for that one command; ASan and UBSan stay on.
# (The cause, fixed for every test since by the Makefile's
# intercept_tls_get_addr=0, is the runtime's dynamic-TLS heuristic; this
# command keeps its own guard because that fix could not be reproduced.)
for m in direct separable fft auto; do
    nolsan=""
    [ "$m" = fft ] && [ -n "${ASAN_OPTIONS:-}" ] && nolsan="ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0"
    check "apply --method $m of gaussian:9 verifies" 0 env $nolsan "$CLI" apply "$SAMPLE" "$tmp/m_$m.png" --mask gaussian:9 --method $m --verify
done
grep -q "method separable" "$tmp/out" || fail "auto did not pick separable for gaussian:9 on the sample"
check_error "apply --method separable with a laplacian" "$tmp/lap.png" "$CLI" apply "$SAMPLE" "$tmp/lap.png" --mask laplacian --method separable
grep -q "not an outer product" "$tmp/err" || fail "separable refusal does not say why"
check_error "apply --method bogus" "$tmp/bogus.png" "$CLI" apply "$SAMPLE" "$tmp/bogus.png" --mask 1 --method bogus

before=$(cksum <"$tmp/a.npy")
check "OUT equal to IN is refused" 2 "$CLI" apply "$tmp/a.npy" "$tmp/a.npy" --mask 1
ln -s a.npy "$tmp/alias.npy"
check "OUT linked to IN is refused" 2 "$CLI" apply "$tmp/a.npy" "$tmp/alias.npy" --mask 1
[ "$(cksum <"$tmp/a.npy")" = "$before" ] || fail "IN was modified"
echo keep >"$tmp/kept.npy"
check "a failed apply" 2 "$CLI" apply "$tmp/a.npy" "$tmp/kept.npy" --mask 1,1
[ "$(cat "$tmp/kept.npy")" = keep ] || fail "an existing OUT was replaced by a failed apply"
ls -a "$tmp" "$tmp"/* 2>/dev/null | grep -q '^\.clconv-' && fail "temporary files left after errors"

# A good call prints its summary and nothing on stderr, also when its
# kernels are built afresh: PoCL's clang printed "5 warnings generated."
# while building the separable passes (the warnings are in the build log).
mkdir -p "$tmp/cold"
check "a first build prints nothing on stderr" 0 env \
    XDG_CACHE_HOME="$tmp/cold" POCL_CACHE_DIR="$tmp/cold/pocl" \
    "$CLI" apply "$tmp/a.npy" "$tmp/cold.npy" --mask box:3
[ -s "$tmp/err" ] && { fail "a good apply wrote to stderr"; sed 's/^/  | /' "$tmp/err"; }
rm -rf "$tmp/cold"

# The device's result is read back where it goes in the output array
# (over the input plane itself when the types agree and nothing reads the
# input after; a separate buffer under --verify, whose reference does):
# slices and volumes, narrow and float32, equal with and without --verify
# and SciPy within float32.
PY=$(numpy_python) || PY=python3
"$PY" - "$tmp" <<'PYEOF'
import sys, numpy as np
r = np.random.default_rng(4)
d = sys.argv[1]
np.save(f"{d}/s8.npy", r.integers(0, 256, (4, 33, 29), dtype=np.uint8))
np.save(f"{d}/sf.npy", r.random((5, 31, 27), dtype=np.float32))
PYEOF
for c in "s8 same --axes=1,2" "s8 f32 --axes=2" "s8 same --dims=3" "sf same --axes=1,2" "sf f32 --dims=3"; do
    set -- $c
    check "apply $c" 0 "$CLI" apply "$tmp/$1.npy" "$tmp/$1-a.npy" --mask box:3 $3 --out-dtype $2
    check "apply $c --verify" 0 "$CLI" apply "$tmp/$1.npy" "$tmp/$1-b.npy" --mask box:3 $3 --out-dtype $2 --verify
    cmp -s "$tmp/$1-a.npy" "$tmp/$1-b.npy" || fail "apply $c: differs with --verify"
    "$PY" - "$tmp" $1 $3 <<'PYEOF' || fail "apply $c: differs from SciPy"
import sys, numpy as np, scipy.ndimage as nd
d, name, how = sys.argv[1:4]
x = np.load(f"{d}/{name}.npy")
got = np.load(f"{d}/{name}-a.npy").astype(np.float64)
w = np.ones((3, 3, 3) if how == "--dims=3" else (1, 3, 3) if how == "--axes=1,2" else (1, 1, 3))
ref = nd.correlate(x.astype(np.float64), w / w.sum(), mode="constant")  # box: a mean
if x.dtype == np.uint8 and got.dtype != np.float64 and np.load(f"{d}/{name}-a.npy").dtype == np.uint8:
    ref = np.clip(np.rint(ref), 0, 255)
sys.exit(0 if np.abs(got - ref).max() <= 1e-4 * np.abs(ref).max() + 0.5 else 1)
PYEOF
done

if [ "$fails" -ne 0 ]; then
    echo "apply_cli.sh: $fails failure(s)"
    exit 1
fi
echo "apply_cli.sh: all passed"
