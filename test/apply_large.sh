#!/bin/sh
# `clconv apply` the mapped, chunked way (a .npy too large to hold
# twice; forced here with CLCONV_APPLY_CHUNK_BYTES) and over several
# devices (--device A,B): the output equals the in-memory path's bit for
# bit, --verify checks each chunk, the summary says slabs and devices, a
# truncated input is refused before any work and leaves no output.
# Usage: test/apply_large.sh build/clconv
set -u
CLI=${1:-build/clconv}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib/check.sh"
PY=$(numpy_python) || PY=python3
same() { # name a b
    if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: outputs differ"; fails=$((fails + 1)); fi
}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "SKIP apply_large.sh: numpy is missing"; exit 0
fi
"$PY" - "$tmp" <<'PYEOF'
import sys, numpy as np
rng = np.random.default_rng(5)
d = sys.argv[1]
np.save(f"{d}/a1.npy", rng.random(5000, dtype=np.float32))
np.save(f"{d}/a2.npy", rng.random((61, 47), dtype=np.float32))
np.save(f"{d}/a3.npy", rng.random((23, 19, 17), dtype=np.float32))
np.save(f"{d}/thin.npy", rng.random((3, 40), dtype=np.float32))
np.save(f"{d}/a70.npy", rng.random((70, 24, 40), dtype=np.float32) - 0.5)
np.save(f"{d}/rgb.npy", rng.random((9, 7, 3), dtype=np.float32))
nan = rng.random((600, 600), dtype=np.float32)
nan[300, 300] = np.nan
np.save(f"{d}/nan.npy", nan)
np.save(f"{d}/m63.npy", rng.random((63, 63), dtype=np.float32))
np.save(f"{d}/s100k.npy", rng.random(100000, dtype=np.float32))
np.save(f"{d}/m1001.npy", rng.random(1001, dtype=np.float32) - 0.5)
wide = rng.random((21, 6), dtype=np.float32)
wide[0, 0] = 1e4  # a wide range: the FFT's error is relative to it
np.save(f"{d}/wide.npy", wide)
np.save(f"{d}/k1.npy", rng.random(7, dtype=np.float32))
np.save(f"{d}/k2.npy", rng.random((5, 4), dtype=np.float32))
np.save(f"{d}/k3.npy", rng.random((4, 3, 5), dtype=np.float32))
np.save(f"{d}/n8.npy", rng.integers(0, 256, (53, 41), dtype=np.uint8))
np.save(f"{d}/n16.npy", rng.integers(0, 65536, (19, 13, 11), dtype=np.uint16))
np.save(f"{d}/s16.npy", rng.integers(-32768, 32768, 3001, dtype=np.int16))
np.save(f"{d}/h16.npy", (rng.standard_normal((37, 29)) * 300).astype(np.float16))
PYEOF
for case in "a1 gaussian:9 400" "a2 box:5 600" "a3 gaussian:5 2000" "a3 laplacian 1" "thin box:7 100"; do
    set -- $case
    # Outputs named by input and mask: one in-memory result per case.
    case_name=$1-$(echo "$2" | tr ':' '_')
    check "$1 $2 in memory" 0 "$CLI" apply "$tmp/$1.npy" "$tmp/$case_name-mem.npy" --mask "$2" --device 0:0
    check "$1 $2 mapped in chunks of $3 bytes, verified" 0 env CLCONV_APPLY_CHUNK_BYTES=$3 \
        "$CLI" apply "$tmp/$1.npy" "$tmp/$case_name-big.npy" --mask "$2" --device 0:0 --verify
    grep -q "slab(s) on 1 device(s).*memory-mapped, peak resident" "$tmp/out" \
        || { echo "FAIL $1: summary lacks slabs, devices or memory"; fails=$((fails + 1)); }
    same "$1 $2: chunked equals in memory" "$tmp/$case_name-mem.npy" "$tmp/$case_name-big.npy"
done
check "chunked output to standard output" 0 sh -c "CLCONV_APPLY_CHUNK_BYTES=999 '$CLI' apply '$tmp/a2.npy' - --mask box:5 --device 0:0 > '$tmp/stdout.npy'"
same "standard output equals the file" "$tmp/a2-box_5-mem.npy" "$tmp/stdout.npy"
head -c 300 "$tmp/a2.npy" > "$tmp/trunc.npy"
check "a truncated input is refused" 2 env CLCONV_APPLY_CHUNK_BYTES=999 \
    "$CLI" apply "$tmp/trunc.npy" "$tmp/trunc-out.npy" --mask box:3 --device 0:0
grep -q "the file has" "$tmp/err" || { echo "FAIL truncated: message"; fails=$((fails + 1)); }
[ -e "$tmp/trunc-out.npy" ] && { echo "FAIL truncated: an output was left"; fails=$((fails + 1)); }
# An (H, W, 3) array is an image or a volume only when the user says
# which, on this path too (it was filtered as a volume).
check "an (H, W, 3) array mapped is refused" 2 env CLCONV_APPLY_CHUNK_BYTES=999 \
    "$CLI" apply "$tmp/rgb.npy" "$tmp/rgb-out.npy" --mask box:3 --device 0:0
grep -q "an image with 3 channels or a volume" "$tmp/err" || { echo "FAIL rgb: message"; fails=$((fails + 1)); }
[ -e "$tmp/rgb-out.npy" ] && { echo "FAIL rgb: an output was left"; fails=$((fails + 1)); }

# The method on this path is the whole array's, as in memory: --method is
# taken (it was ignored: a laplacian ran with --method separable, exit 0),
# and the FFT is never chosen for an input holding NaN (each chunk's
# transform spread it: 124800 NaN outputs of 360000 where there are 3969,
# exit 0); an asked-for FFT on it is exit 3, as in memory.
check "mapped: --method separable with a laplacian is refused" 2 env CLCONV_APPLY_CHUNK_BYTES=999 \
    "$CLI" apply "$tmp/a2.npy" "$tmp/lap-out.npy" --mask laplacian --method separable --device 0:0
grep -q "not an outer product" "$tmp/err" || { echo "FAIL separable: message"; fails=$((fails + 1)); }
[ -e "$tmp/lap-out.npy" ] && { echo "FAIL separable: an output was left"; fails=$((fails + 1)); }
# ... before OUT is opened: a FIFO with no reader is never opened (an
# open would wait for one; the refusal came after it, so a reader got an
# empty stream).
mkfifo "$tmp/lap-fifo"
check "mapped: --method separable refused before a FIFO OUT is opened" 2 env CLCONV_APPLY_CHUNK_BYTES=999 \
    timeout 60 "$CLI" apply "$tmp/a2.npy" "$tmp/lap-fifo" --mask laplacian --method separable --device 0:0
check "mapped: --method fft on an input holding NaN is refused" 3 env CLCONV_APPLY_CHUNK_BYTES=500000 \
    "$CLI" apply "$tmp/nan.npy" "$tmp/nan-fft.npy" --mask "$tmp/m63.npy" --method fft --device 0:0
grep -q "holds NaN or Inf" "$tmp/err" || { echo "FAIL fft on NaN: message"; fails=$((fails + 1)); }
check "nan.npy 63x63 in memory" 0 "$CLI" apply "$tmp/nan.npy" "$tmp/nan-mem.npy" --mask "$tmp/m63.npy" --device 0:0
check "nan.npy 63x63 mapped in chunks" 0 env CLCONV_APPLY_CHUNK_BYTES=500000 \
    "$CLI" apply "$tmp/nan.npy" "$tmp/nan-big.npy" --mask "$tmp/m63.npy" --device 0:0
same "nan.npy 63x63: chunked equals in memory (no FFT on NaN)" "$tmp/nan-mem.npy" "$tmp/nan-big.npy"
# An FFT that auto chose and the device refuses (PoCL: VkFFT's 1D
# transforms of 101250 points take work-groups too wide for a CPU) falls
# back to the direct path, in memory and mapped, as clconv_convolve does:
# both were exit 3, 'VkFFT's transforms ... gave wrong values'.
check "1D 100000 mask 1001 on auto, in memory" 0 \
    "$CLI" apply "$tmp/s100k.npy" "$tmp/s100k-mem.npy" --mask "$tmp/m1001.npy" --device 0:0 --verify
check "1D 100000 mask 1001 on auto, mapped" 0 env CLCONV_APPLY_CHUNK_BYTES=100000000 \
    "$CLI" apply "$tmp/s100k.npy" "$tmp/s100k-big.npy" --mask "$tmp/m1001.npy" --device 0:0 --verify
same "1D 100000 mask 1001: mapped equals in memory" "$tmp/s100k-mem.npy" "$tmp/s100k-big.npy"
# --verify on this path takes the bound of the method that ran (the
# direct method's failed the FFT's result, exit 1, where in memory passes).
for method in fft separable; do
    check "mapped: --method $method --verify on data of a wide range" 0 env CLCONV_APPLY_CHUNK_BYTES=300 \
        "$CLI" apply "$tmp/wide.npy" "$tmp/wide-$method.npy" --mask "1;3;-2" --method $method --verify --device 0:0
done

# Every filter over the array's own axes takes this path too (border
# modes, cval, origins, convolution: they were read whole, on the first
# device of --device A,B): chunks reaching past an end hold the rows the
# mode reads there (wrap's far end), and equal the in-memory result bit
# for bit and SciPy within float32 rounding.
for case in "a1 k1 reflect 3000 --origin=-2" "a1 k1 wrap 1000 --convolve" \
            "a2 k2 mirror 600 --origin=1" "a2 k2 wrap 400 --convolve" \
            "a2 k2 constant 900 --cval=2.5" "a3 k3 nearest 2000 --origin=-1" \
            "a3 k3 reflect 1300 --convolve" "thin k2 wrap 100 --origin=1"; do
    set -- $case
    fn=$1-$2-$3$5
    check "$fn in memory" 0 "$CLI" apply "$tmp/$1.npy" "$tmp/$fn-mem.npy" \
        --mask "$tmp/$2.npy" --mode $3 $5 --device 0:0
    check "$fn mapped in chunks of $4 bytes, verified" 0 env CLCONV_APPLY_CHUNK_BYTES=$4 \
        "$CLI" apply "$tmp/$1.npy" "$tmp/$fn-big.npy" --mask "$tmp/$2.npy" --mode $3 $5 \
        --device 0:0 --verify
    grep -q "memory-mapped.*verified" "$tmp/out" \
        || { echo "FAIL $fn: not mapped and verified: $(cat "$tmp/out")"; fails=$((fails + 1)); }
    same "$fn: chunked equals in memory" "$tmp/$fn-mem.npy" "$tmp/$fn-big.npy"
    "$PY" - "$tmp" $1 $2 $3 $5 <<'PYEOF' && echo "ok   $fn: SciPy" \
        || { echo "FAIL $fn: differs from SciPy"; fails=$((fails + 1)); }
import sys, numpy as np, scipy.ndimage as nd
t, a, k, mode, extra = sys.argv[1:6]
x = np.load(f"{t}/{a}.npy").astype(np.float64)
w = np.load(f"{t}/{k}.npy").astype(np.float64)
kw = {"mode": mode}
if extra.startswith("--origin="): kw["origin"] = int(extra.split("=")[1])
if extra.startswith("--cval="): kw["cval"] = float(extra.split("=")[1])
f = nd.convolve if extra == "--convolve" else nd.correlate
ref = f(x, w, **kw)
got = np.load(f"{t}/{a}-{k}-{mode}{extra}-big.npy")
bound = 8 * np.finfo(np.float32).eps * (np.abs(x).max() + abs(kw.get("cval", 0))) * np.abs(w).sum()
sys.exit(0 if got.shape == ref.shape and np.abs(got - ref).max() <= bound else 1)
PYEOF
done

# The narrow types stay narrow in the chunks (they were read whole):
# uint8, uint16, int16 and float16 (PoCL has no cl_khr_fp16: converted on
# the host, chunk by chunk), their own type out (rounded and saturated)
# or float32, bit for bit the in-memory result.
for case in "n8 k2 reflect 300 same" "n8 k2 constant 500 f32" \
            "n16 k3 wrap 700 same" "n16 k3 mirror 1100 f32" \
            "s16 k1 nearest 900 same" "s16 k1 constant 2000 f32" \
            "h16 k2 wrap 200 same" "h16 k2 reflect 600 f32"; do
    set -- $case
    fn=$1-$2-$3-$5
    check "$fn in memory" 0 "$CLI" apply "$tmp/$1.npy" "$tmp/$fn-mem.npy" \
        --mask "$tmp/$2.npy" --mode $3 --out-dtype $5 --device 0:0
    check "$fn mapped in chunks of $4 bytes, verified" 0 env CLCONV_APPLY_CHUNK_BYTES=$4 \
        "$CLI" apply "$tmp/$1.npy" "$tmp/$fn-big.npy" --mask "$tmp/$2.npy" --mode $3 \
        --out-dtype $5 --device 0:0 --verify
    grep -q "memory-mapped.*verified" "$tmp/out" \
        || { echo "FAIL $fn: not mapped and verified: $(cat "$tmp/out")"; fails=$((fails + 1)); }
    same "$fn: chunked equals in memory" "$tmp/$fn-mem.npy" "$tmp/$fn-big.npy"
done

# More elements than one launch indexes (2^31 - 1): a uint8 volume of
# 1025x1024x2048 through the host-to-host path in slabs, the identity
# mask giving the input back byte for byte. Needs 5 GB of disk and of
# memory; skipped with the reason where there is less.
free_kb=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)
if [ "${free_kb:-0}" -gt 5000000 ] && [ "${avail_kb:-0}" -gt 5000000 ]; then
    "$PY" - "$tmp" <<'PYEOF'
import sys, numpy as np
a = np.lib.format.open_memmap(f"{sys.argv[1]}/huge.npy", mode="w+",
                              dtype=np.uint8, shape=(1025, 1024, 2048))
row = (np.arange(1024 * 2048, dtype=np.uint32) % 251).astype(np.uint8)
for z in range(1025):
    a[z] = (row + np.uint8(z % 251)).reshape(1024, 2048)
a.flush()
PYEOF
    check "a uint8 volume of 2^31 + 2^21 elements" 0 "$CLI" apply "$tmp/huge.npy" "$tmp/huge-out.npy" \
        --dims 3 --mask box:1 --out-dtype same --device 0:0
    grep -q "slab" "$tmp/out" || { echo "FAIL huge: not through slabs"; fails=$((fails + 1)); }
    "$PY" -c "
import sys, numpy as np
a = np.load('$tmp/huge.npy', mmap_mode='r'); b = np.load('$tmp/huge-out.npy', mmap_mode='r')
sys.exit(0 if b.dtype == np.uint8 and b.shape == a.shape and all(np.array_equal(a[z], b[z]) for z in range(0, 1025, 8)) and np.array_equal(a[-1], b[-1]) else 1)" \
        && echo "ok   huge: the identity gives the input back" \
        || { echo "FAIL huge: output differs from the input"; fails=$((fails + 1)); }
    rm -f "$tmp/huge.npy" "$tmp/huge-out.npy"
else
    echo "SKIP huge: ${free_kb} kB of disk, ${avail_kb} kB of memory available (5 GB needed)"
fi

# Work-items along z sharing a work-group's planes (GPUs' 3D default at
# masks 3-5, forced here): outputs at their boundaries add two partial
# sums, so each chunk's launch starts where one of the whole's 16-plane
# work-groups does (clconv_convolve_part); chunks of 7 planes start at
# every phase. Before, chunks differed from one launch in the last bit.
gz="CLCONV_COARSE_GZ=4 CLCONV_COARSE_XV=2"
gzopts="--mask gaussian:5 --strategy coarse --method direct --device 0:0"
check "a70 planes shared in memory" 0 env $gz "$CLI" apply "$tmp/a70.npy" "$tmp/a70-mem.npy" $gzopts
check "a70 planes shared mapped in chunks of 7 planes" 0 env $gz CLCONV_APPLY_CHUNK_BYTES=27000 \
    "$CLI" apply "$tmp/a70.npy" "$tmp/a70-big.npy" $gzopts
same "a70 planes shared: chunked equals in memory" "$tmp/a70-mem.npy" "$tmp/a70-big.npy"

if POCL_DEVICES="pthread pthread" "$CLI" devices 2>/dev/null | grep -c pthread | grep -q '^[2-9]'; then
    check "--device A,B splits one array over two devices" 0 env POCL_DEVICES="pthread pthread" \
        "$CLI" apply "$tmp/a3.npy" "$tmp/a3-split.npy" --mask gaussian:5 --device 0:0,0:1 --verify
    grep -q "on 2 device(s)" "$tmp/out" || { echo "FAIL split: summary"; fails=$((fails + 1)); }
    same "split equals one device" "$tmp/a3-gaussian_5-mem.npy" "$tmp/a3-split.npy"
    check "a70 planes shared, chunks of 7 planes split over two devices" 0 \
        env $gz POCL_DEVICES="pthread pthread" CLCONV_APPLY_CHUNK_BYTES=27000 \
        "$CLI" apply "$tmp/a70.npy" "$tmp/a70-split.npy" $gzopts,0:1
    same "a70 planes shared: chunks split equal one device in memory" \
        "$tmp/a70-mem.npy" "$tmp/a70-split.npy"
    # A border mode over two devices: wrap's far-end rows in the chunks
    # at both ends (before, the filter ran in memory on 0:0 alone).
    check "wrap with an origin split over two devices" 0 env POCL_DEVICES="pthread pthread" \
        CLCONV_APPLY_CHUNK_BYTES=1300 "$CLI" apply "$tmp/a3.npy" "$tmp/a3-k3-wrap-split.npy" \
        --mask "$tmp/k3.npy" --mode wrap --origin=1 --device 0:0,0:1 --verify
    grep -q "on 2 device(s)" "$tmp/out" || { echo "FAIL wrap split: summary: $(cat "$tmp/out")"; fails=$((fails + 1)); }
    check "wrap with an origin on one device" 0 "$CLI" apply "$tmp/a3.npy" "$tmp/a3-k3-wrap-one.npy" \
        --mask "$tmp/k3.npy" --mode wrap --origin=1 --device 0:0
    same "wrap split equals one device" "$tmp/a3-k3-wrap-one.npy" "$tmp/a3-k3-wrap-split.npy"
    check "a70 planes shared, reflect, chunks of 7 planes over two devices" 0 \
        env $gz POCL_DEVICES="pthread pthread" CLCONV_APPLY_CHUNK_BYTES=27000 \
        "$CLI" apply "$tmp/a70.npy" "$tmp/a70-reflect-split.npy" $gzopts,0:1 --mode reflect
    check "a70 planes shared, reflect, in memory" 0 env $gz \
        "$CLI" apply "$tmp/a70.npy" "$tmp/a70-reflect-mem.npy" $gzopts --mode reflect
    same "a70 planes shared, reflect: chunks split equal one device in memory" \
        "$tmp/a70-reflect-mem.npy" "$tmp/a70-reflect-split.npy"
    # Narrow types over two devices: uint8 in its own type, and float16,
    # which a split converts on the host where a device lacks it.
    for case in "n8 k2 reflect 300 same" "h16 k2 wrap 200 same"; do
        set -- $case
        fn=$1-$2-$3-$5
        check "$fn split over two devices" 0 env POCL_DEVICES="pthread pthread" \
            CLCONV_APPLY_CHUNK_BYTES=$4 "$CLI" apply "$tmp/$1.npy" "$tmp/$fn-split.npy" \
            --mask "$tmp/$2.npy" --mode $3 --out-dtype $5 --device 0:0,0:1 --verify
        grep -q "on 2 device(s).*verified" "$tmp/out" \
            || { echo "FAIL $fn split: summary: $(cat "$tmp/out")"; fails=$((fails + 1)); }
        same "$fn: split equals one device in memory" "$tmp/$fn-mem.npy" "$tmp/$fn-split.npy"
    done
    # An input only the in-memory path takes (--axes here) runs on the
    # first device: a note says so (it was silent).
    check "--axes with two devices runs on the first" 0 env POCL_DEVICES="pthread pthread" \
        "$CLI" apply "$tmp/a3.npy" "$tmp/a3-axes.npy" --mask box:3 --axes 1,2 --device 0:0,0:1
    grep -q "note: --device 0:0,0:1: this input runs on one device, 0:0" "$tmp/err" \
        || { echo "FAIL --axes with two devices: no note"; fails=$((fails + 1)); }
    # A selector of one term, or none, runs on its first match on the
    # mapped path too, as in memory and as apply --help says (it shared
    # the array between every device it matched).
    for sel in "--device cpu" "--device all" ""; do
        check "mapped, selector '$sel': one device" 0 env -u CLCONV_DEVICE \
            POCL_DEVICES="pthread pthread" CLCONV_APPLY_CHUNK_BYTES=1300 \
            "$CLI" apply "$tmp/a3.npy" "$tmp/a3-one-term.npy" --mask gaussian:5 $sel
        grep -q "slab(s) on 1 device(s): 0:0 " "$tmp/out" \
            || { echo "FAIL mapped, selector '$sel': $(cat "$tmp/out")"; fails=$((fails + 1)); }
    done
else
    echo "SKIP split: PoCL does not expose two pthread devices here"
fi
[ "$fails" -eq 0 ] || { echo "apply_large.sh: $fails failed"; exit 1; }
echo "apply_large.sh: all passed"
