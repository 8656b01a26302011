#!/bin/sh
# Hostile inputs that once gave a wrong answer or a misleading message
# (issue 14): degenerate masks, float64 beyond float32, `clconv model` at
# sizes that overflow, CLCONV_SEED, the device selector's syntax and an
# unusable cache folder. Each must give its documented exit code and one
# line on stderr naming the real problem, on any OpenCL implementation.
# Usage: test/robust_cli.sh build/clconv
set -u
CLI=${1:-build/clconv}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SAMPLE=$ROOT/assets/sample.png
fails=0
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib/check.sh"

# Exit 2 (or 3), exactly one line on stderr that holds TEXT.
check_line() { # name exit text command...
    name=$1; want=$2; text=$3; shift 3
    check "$name" "$want" "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || { fail "$name: stderr is not one line"; sed 's/^/  | /' "$tmp/err"; }
    grep -q -- "$text" "$tmp/err" || { fail "$name: stderr lacks '$text'"; sed 's/^/  | /' "$tmp/err"; }
}

# A little-endian float64 .npy of shape (2,): npy_f8 FILE BYTES
npy_f8() {
    dict="{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    len=$(( ${#dict} + 1 ))
    pad=$(( (64 - (10 + len) % 64) % 64 ))
    hlen=$(( len + pad ))
    { printf '\223NUMPY\001\000'
      printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
      printf '%s' "$dict"; printf "%${pad}s\n" ''
      printf "$2"; } >"$1"
}

# The float32 values of a .npy written by clconv (data after the header).
npy_values() {
    off=$(( 10 + $(od -An -tu2 -j8 -N2 "$1" | tr -d ' ') ))
    od -An -tf4 -v -j"$off" "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

ONE='\000\000\000\000\000\000\360\077'
TWO='\000\000\000\000\000\000\000\100'
E300='\234\165\000\210\074\344\067\176'

# --- degenerate masks (defect 3) -----------------------------------------
# sigma^2 underflowed to 0: an all-NaN mask that --verify passed.
npy_f8 "$tmp/12.npy" "$ONE$TWO"
check "gaussian with a tiny sigma is the identity" 0 "$CLI" apply "$tmp/12.npy" "$tmp/tiny.npy" --mask gaussian:3:1e-300 --verify
[ "$(npy_values "$tmp/tiny.npy")" = "1 2" ] || fail "tiny sigma: got '$(npy_values "$tmp/tiny.npy")', expected '1 2'"
check "gaussian with a huge sigma is the box" 0 "$CLI" apply "$tmp/12.npy" "$tmp/huge.npy" --mask gaussian:3:1e308 --verify
[ "$(npy_values "$tmp/huge.npy")" = "1 1" ] || fail "huge sigma: got '$(npy_values "$tmp/huge.npy")', expected '1 1'"
if [ -f "$SAMPLE" ]; then
    check "the sample PNG with gaussian:5:1e-200 verifies" 0 "$CLI" apply "$SAMPLE" "$tmp/g.png" --mask gaussian:5:1e-200 --verify
    check "the sample PNG with gaussian:5:1e308 verifies" 0 "$CLI" apply "$SAMPLE" "$tmp/g.png" --mask gaussian:5:1e308 --verify
fi
check_line "gaussian with sigma 0" 2 "sigma must be positive" "$CLI" apply "$tmp/12.npy" "$tmp/never" --mask gaussian:3:0
check_line "gaussian with sigma beyond double" 2 "positive finite" "$CLI" apply "$tmp/12.npy" "$tmp/never" --mask gaussian:3:1e999
check_line "gaussian with sigma nan" 2 "not a number" "$CLI" apply "$tmp/12.npy" "$tmp/never" --mask gaussian:3:nan
[ ! -e "$tmp/never" ] || fail "a refused mask left OUT behind"

# --- float64 beyond float32 (defect 8) ------------------------------------
npy_f8 "$tmp/big.npy" "$ONE$E300"
check_line "float64 input beyond float32's range is refused" 2 "beyond float32" "$CLI" apply "$tmp/big.npy" "$tmp/never" --mask 1
[ ! -e "$tmp/never" ] || fail "a refused input left OUT behind"

# --- clconv model at any accepted size (defect 4) -------------------------
# Once: signed overflow (negative loads, reduction -1.2, exit 0) and a loop
# over every tile (over 10 minutes).
T40=1099511627776
check "model --size 2^40 answers" 0 timeout 10 "$CLI" model --dims 1 --mask 5 --size $T40
grep -q "total *4294967296 *$T40 " "$tmp/out" || { fail "model 2^40: no exact total"; sed 's/^/  | /' "$tmp/out"; }
grep -q -- "-[0-9]" "$tmp/out" && fail "model 2^40: a negative count"
check "model --size 2^40x4x4 answers" 0 timeout 10 "$CLI" model --dims 3 --mask 3 --size ${T40}x4x4 --json
check_line "model --size 2^40x2^40 is refused" 2 "overflow 64 bits" timeout 10 "$CLI" model --dims 2 --mask 9 --size ${T40}x$T40
[ -s "$tmp/out" ] && fail "model overflow: something on stdout"
check_line "model --size 2^40^3 is refused" 2 "overflow 64 bits" timeout 10 "$CLI" model --dims 3 --mask 3 --size ${T40}x${T40}x$T40
check_line "model with a 2^32-item group is refused" 2 "warp analysis" timeout 10 "$CLI" model --dims 2 --mask 5 --tile 65536 --strategy input_tile

# --- misleading messages (defect 8) ---------------------------------------
R="$CLI run --dims 1 --size 10 --strategy naive --reps 0"
# The selector's syntax is checked before any device is matched, so these
# answer the same on a machine with no CPU device (or no device at all).
for sel in "" "," "cpu," " , gpu" "cpu,,gpu" "no-such-device-xyz,"; do
    check_line "--device '$sel' is an empty term" 2 "empty" $R --device "$sel"
done
CLCONV_SEED=abc check_line "CLCONV_SEED=abc is a usage error" 2 "CLCONV_SEED" $R
CLCONV_SEED=abc check_line "CLCONV_SEED=abc is a usage error (tune)" 2 "CLCONV_SEED" "$CLI" tune --dims 1 --size 10
CLCONV_SEED=12 check "CLCONV_SEED=12 is taken" 0 $R
grep -q "seed 12\b" "$tmp/err" "$tmp/out" || fail "CLCONV_SEED=12: seed not printed"
# XDG_CACHE_HOME a file: PoCL exposes no device; say why, not "install".
: >"$tmp/file"
XDG_CACHE_HOME="$tmp/file" check "XDG_CACHE_HOME a file" "$(XDG_CACHE_HOME="$tmp/file" "$CLI" devices >/dev/null 2>&1; echo $?)" "$CLI" devices
if [ "$(cat "$tmp/err")" != "" ]; then
    grep -q "XDG_CACHE_HOME=$tmp/file is not a folder" "$tmp/err" || { fail "XDG_CACHE_HOME a file: the reason is not named"; sed 's/^/  | /' "$tmp/err"; }
    grep -q "apt-get install" "$tmp/err" && fail "XDG_CACHE_HOME a file: says to install a driver"
fi
# clconv's own cache unusable (the driver's elsewhere): clconv still runs.
mkdir -p "$tmp/drivercache"
XDG_CACHE_HOME="$tmp/file" POCL_CACHE_DIR="$tmp/drivercache" check "clconv's own cache unusable: still runs" 0 $R

# Standard output that cannot be written (/dev/full; a full disk): the text
# is the command's output, so exit 3 with one line, as coreutils' "write
# error" (the table, summary or help was lost with exit 0).
if [ -w /dev/full ]; then
    # clconv-mpi's commands too (bench --mpi runs it: its help and table
    # were lost with exit 0).
    set -- "bench --mpi --help" "bench --mpi --size 8 --mask 3 --reps 1 --warmup 0"
    [ -x "$(dirname "$CLI")/clconv-mpi" ] || set --
    # Texts beyond stdio's 4 KiB buffer too (run, bench and model --help, a
    # model table of 9 KB), whose failed write left nothing to flush: the
    # line lost its reason.
    for c in "devices" "run --dims 1 --size 10 --strategy naive --reps 0 --seed 1" "--help" \
        "apply $SAMPLE $tmp/full.png --mask 1" "run --help" "bench --help" "model --help" \
        "model --dims 3 --mask 5 --size 1000x700x33" "$@"; do
        # Under `make sanitize`, clconv-mpi runs without leak checks:
        # OpenMPI's components leak by design (test/mpi.sh says more).
        ao=${ASAN_OPTIONS:-}
        case "$c" in *--mpi*) [ -n "$ao" ] && ao="$ao:detect_leaks=0" ;; esac
        ASAN_OPTIONS=$ao $CLI $c >/dev/full 2>"$tmp/err"
        rc=$?
        grep -v '^clconv: seed ' "$tmp/err" >"$tmp/err2"
        [ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/err2")" -eq 1 ] &&
            grep -q "write error on standard output: No space left on device" "$tmp/err2" &&
            ok "clconv ${c%% *} with stdout /dev/full: exit 3, one line" ||
            { fail "clconv ${c%% *} with stdout /dev/full: exit $rc"; sed 's/^/  | /' "$tmp/err"; }
    done
fi

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all robustness checks passed"
