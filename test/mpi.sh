#!/bin/sh
# clconv over MPI (issue 19): `mpirun -n N clconv apply` writes exactly the
# bytes of the one-process `clconv apply` (same variant, same device) for
# N = 1..6, uneven splits, more ranks than rows, halos wider than a rank's
# block (read from IN or exchanged), 1D, 2D and 3D, several dtypes (int64
# among them), every border mode, cval, origins, convolution, per-axis
# widths, a channel axis, --axes, OUT in the input's type (rounded,
# saturated), empty arrays (rank 0 as one process); usage errors said once,
# not once per rank (a Fortran-order file among them); a failure on one
# rank (cannot open IN, no such device, truncated IN, another header than
# rank 0's, another --mask file than rank 0's) ends the whole job within seconds, non-zero, with that rank's
# message and no OUT; a failed MPI call on one rank (the halo exchange's,
# an agreement's: build/preload_mpi_fault.so) ends the job at once,
# naming the call; IN a FIFO or `-` is exit 2 at once; a signal to the
# ranks while they write (SIGKILL to rank 0 too) leaves no temporary file
# and the old OUT; a read-only OUT is replaced with its mode (and owner, as
# root); --verify counts NaN outputs; the MPI library given NULL
# (test/mpi_null_args.c); bench --mpi writes its JSON and checks its FILE
# first. Skips when mpirun or clconv-mpi is missing. Usage: test/mpi.sh
# build/clconv
set -u
CLI=${1:-build/clconv}
MPI_CLI=$(dirname "$CLI")/clconv-mpi
abs_mpi_cli=$(cd "$(dirname "$MPI_CLI")" && pwd)/$(basename "$MPI_CLI")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v mpirun >/dev/null 2>&1; then
    echo "mpi.sh: skipped: no mpirun (apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
if [ ! -x "$MPI_CLI" ]; then
    echo "mpi.sh: skipped: $MPI_CLI was not built (no OpenMPI at build time: make MPI=1)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "mpi.sh: skipped: no python3 to write the test arrays"
    exit 0
fi
export CLCONV_KERNEL_DIR="${CLCONV_KERNEL_DIR:-$ROOT/cl}"
# Under `make sanitize`: OpenMPI's components leak by design and unload
# before LeakSanitizer can name them, so the ranks run without leak
# checks (ASan's memory errors and UBSan stay on; the other tests check
# clconv's leaks).
if [ -n "${ASAN_OPTIONS:-}" ]; then
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    echo "mpi.sh: AddressSanitizer's leak checks off in MPI ranks"
fi
# Root in CI containers; more ranks than the 2 cores.
RUN="mpirun --allow-run-as-root --oversubscribe"
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# .npy arrays of random values: NAME DTYPE SHAPE (Python's struct alone).
python3 - "$tmp" <<'EOF'
import random, struct, sys
random.seed(19)
def npy(path, code, shape):
    n = 1
    for e in shape:
        n *= e
    d = "{'descr': '<%s', 'fortran_order': False, 'shape': (%s), }" % (
        code, "".join("%d, " % e for e in shape))
    pad = (64 - (10 + len(d) + 1) % 64) % 64
    head = d + " " * pad + "\n"
    if code[0] == "f":
        vals = [random.uniform(-1, 1) for _ in range(n)]
    elif code == "i8":  # beyond float32's 24 bits: rounded on the host
        vals = [random.randint(-2**62, 2**62) for _ in range(n)]
    else:
        vals = [random.randint(-300, 300) for _ in range(n)]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)))
        f.write(head.encode())
        f.write(struct.pack("<%d%s" % (n, {"f4": "f", "f8": "d", "i2": "h",
                                           "i8": "q"}[code]), *vals))
d = sys.argv[1]
npy(d + "/v3.npy", "f4", (13, 17, 19))   # 13 planes: uneven over 2, 3, 4
npy(d + "/thin3.npy", "f4", (3, 9, 11))  # fewer planes than 4 ranks
npy(d + "/i2.npy", "f8", (23, 31))
npy(d + "/l1.npy", "i2", (101,))
npy(d + "/v70.npy", "f4", (70, 24, 40))  # 70 planes: 16-plane work-groups
npy(d + "/l8.npy", "i8", (11, 7, 9))     # int64, NumPy's default integer
# masks of ranks that read different files: two of one shape (other
# values), a wider one, one 1 wide
npy(d + "/ma.npy", "f4", (3, 3, 3))
npy(d + "/mb.npy", "f4", (3, 3, 3))
npy(d + "/m5.npy", "f4", (5, 5, 5))
npy(d + "/m1.npy", "f4", (1, 1, 1))
EOF

# same NAME IN MASK RANKS HALO [apply options]: N ranks give the
# one-process bytes.
same() {
    name=$1 in=$2 mask=$3 n=$4 halo=$5; shift 5
    ref=$tmp/ref-$name.npy out=$tmp/out-$name.npy
    [ -e "$ref" ] || "$CLI" apply "$tmp/$in" "$ref" --mask "$mask" "$@" \
        >/dev/null 2>"$tmp/err" || { fail "$name: one process"; cat "$tmp/err"; return; }
    if ! timeout 120 $RUN -n "$n" "$MPI_CLI" apply "$tmp/$in" "$out" \
        --mask "$mask" --halo "$halo" "$@" >/dev/null 2>"$tmp/err"; then
        fail "$name: $n ranks ($halo) failed"; sed 's/^/  | /' "$tmp/err"
    elif cmp -s "$ref" "$out"; then
        echo "ok   $name: $n ranks, halo $halo: identical bytes"
    else
        fail "$name: $n ranks ($halo) differ from one process"
    fi
    rm -f "$out"
}

for n in 1 2 3 4; do
    same 3d-box3 v3.npy box:3 "$n" read
    same 3d-gauss5 v3.npy gaussian:5 "$n" exchange
done
same 3d-gauss5 v3.npy gaussian:5 3 read
# Halos of 3 planes over blocks of 3-4 (4 ranks) and of 1 plane (thin).
same 3d-box7 v3.npy box:7 4 exchange
same 3d-box7 v3.npy box:7 4 read
same thin-box5 thin3.npy box:5 4 exchange
same thin-box5 thin3.npy box:5 3 read
same 2d-gauss7 i2.npy gaussian:7 3 exchange
same 2d-gauss7 i2.npy gaussian:7 4 read
# 1D: 101 elements over 4 ranks (25-26 each) with a halo of 27.
same 1d-box55 l1.npy box:55 4 exchange
same 1d-box55 l1.npy box:55 3 read
for s in naive output_tile coarse; do
    same "3d-$s" v3.npy box:5 3 exchange --strategy "$s"
done
same 3d-verify v3.npy box:3 2 exchange --verify
# Work-items along z sharing a work-group's planes (GPUs' 3D default at
# masks 3-5, forced here): outputs at their boundaries add two partial
# sums, so a rank's launch starts where one of the whole's work-groups
# does, before its block (clconv_convolve_part); blocks from 70 planes
# start at every phase against the 16-plane work-groups. Before, ranks
# differed from one process in the last bit.
export CLCONV_COARSE_GZ=4 CLCONV_COARSE_XV=2
for n in 2 3 5; do
    same 3d-gz4 v70.npy gaussian:5 "$n" exchange --strategy coarse \
        --method direct
done
same 3d-gz4-wrap v70.npy box:5x3x4 3 read --strategy coarse --method direct \
    --mode wrap --origin 0,0,1
same 3d-gz4-const v70.npy box:3x3x5 4 exchange --strategy coarse \
    --method direct --cval 2 --convolve
unset CLCONV_COARSE_GZ CLCONV_COARSE_XV

# clconv itself under mpirun runs clconv-mpi.
if timeout 120 $RUN -n 2 "$CLI" apply "$tmp/v3.npy" "$tmp/o.npy" --mask box:3 \
    >/dev/null 2>"$tmp/err" && cmp -s "$tmp/o.npy" "$tmp/ref-3d-box3.npy"; then
    echo "ok   clconv under mpirun runs clconv-mpi"
else
    fail "clconv under mpirun"; sed 's/^/  | /' "$tmp/err"
fi
rm -f "$tmp/o.npy"

# fault NAME WANT-IN-MESSAGE mpirun-arguments...: non-zero within 30 s,
# the rank's message on stderr, no OUT and no temporary left.
fault() {
    name=$1 want=$2; shift 2
    start=$(date +%s)
    timeout 60 $RUN "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$? took=$(( $(date +%s) - start ))
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
        fail "$name: exit $rc"
    elif [ "$took" -gt 30 ]; then
        fail "$name: took $took s"
    elif ! grep -q -- "$want" "$tmp/err"; then
        fail "$name: no '$want' in:"; sed 's/^/  | /' "$tmp/err"
    elif [ -e "$tmp/o.npy" ] || ls -a "$tmp" | grep -q '^\.clconv-'; then
        fail "$name: an output was left behind"
    else
        echo "ok   $name: exit $rc in $took s: $(grep -m1 rank "$tmp/err")"
    fi
}
A="apply $tmp/v3.npy $tmp/o.npy --mask box:3"
fault "rank 1 cannot open IN" "rank 1 .*missing.npy" \
    -n 1 "$MPI_CLI" $A : -n 1 "$MPI_CLI" apply "$tmp/missing.npy" "$tmp/o.npy" --mask box:3
fault "rank 2 has no device" "rank 2 .*no device matches" \
    -n 2 "$MPI_CLI" $A : -n 1 "$MPI_CLI" $A --device no-such-device
head -c 9000 "$tmp/v3.npy" >"$tmp/cut.npy"
fault "truncated IN" "truncated" -n 3 "$MPI_CLI" apply "$tmp/cut.npy" "$tmp/o.npy" --mask box:3
# IN differs between the ranks (another host's or folder's file of the
# same name): the ranks once mixed their rows into an OUT whose header
# did not match its size, exit 0.
mkdir "$tmp/wa" "$tmp/wb"
cp "$tmp/v3.npy" "$tmp/wa/in.npy"
cp "$tmp/thin3.npy" "$tmp/wb/in.npy"
for halo in read exchange; do
    fault "ranks reading different headers ($halo)" "different headers" \
        -n 1 --wdir "$tmp/wa" "$abs_mpi_cli" apply in.npy "$tmp/o.npy" --mask box:3 --halo $halo : \
        -n 2 --wdir "$tmp/wb" "$abs_mpi_cli" apply in.npy "$tmp/o.npy" --mask box:3 --halo $halo
done
# --mask a file that differs between the ranks (another host's or
# folder's mask.npy): agreed, exit 2 naming the first rank whose mask is
# not rank 0's. Ranks with different masks once mixed their rows (exit
# 0, read), sent halos of other widths (MPI_ERR_TRUNCATE, exchange), or
# hung where the origin fitted rank 0's mask alone (rank 1 returned, rank
# 0 waited in the next agreement).
cp "$tmp/ma.npy" "$tmp/wa/m.npy"
cp "$tmp/mb.npy" "$tmp/wb/m.npy"
cp "$tmp/m5.npy" "$tmp/m1.npy" "$tmp/wb/"
for halo in read exchange; do
    for mb in m.npy m5.npy; do
        fault "rank 1's mask $mb differs ($halo)" "rank 1 .*another mask than rank 0" \
            -n 1 --wdir "$tmp/wa" "$abs_mpi_cli" apply "$tmp/v3.npy" "$tmp/o.npy" --mask m.npy --halo $halo : \
            -n 2 --wdir "$tmp/wb" "$abs_mpi_cli" apply "$tmp/v3.npy" "$tmp/o.npy" --mask $mb --halo $halo
    done
done
fault "rank 1's mask fits no --origin" "rank 1 .*another mask than rank 0" \
    -n 1 --wdir "$tmp/wa" "$abs_mpi_cli" apply "$tmp/v3.npy" "$tmp/o.npy" --mask m.npy --origin 1 : \
    -n 1 --wdir "$tmp/wb" "$abs_mpi_cli" apply "$tmp/v3.npy" "$tmp/o.npy" --mask m1.npy --origin 1
rm -rf "$tmp/wa" "$tmp/wb"

# MPI calls that fail on rank 1 alone (build/preload_mpi_fault.so,
# preloaded there, fails its N-th call of one kind) while the other
# ranks wait in theirs: the halo exchange's posts, the agreements (the
# first, the input's header, the mask's digest, the temporary's name)
# and the summary's reduction. Rank 1 says which call failed and ends
# the job (MPI_Abort), no OUT; bench --mpi as well. They hung: rank 1
# went on to its next collective while the others waited (for its
# halos, or in the one it left), or ended without a word (MPI_Abort).
PRELOAD=$(cd "$(dirname "$CLI")" && pwd)/preload_mpi_fault.so
# under `make sanitize` the preload comes before ASan's runtime
pre_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:verify_asan_link_order=0}
if [ ! -f "$PRELOAD" ]; then
    fail "$PRELOAD was not built (make test-programs)"
else
    for call in MPI_Isend:1 MPI_Isend:2 MPI_Irecv:1 MPI_Irecv:2 \
        MPI_Allreduce:2 MPI_Allreduce:3 MPI_Bcast:1 MPI_Bcast:2 MPI_Reduce:1; do
        E="apply $tmp/v3.npy $tmp/o.npy --mask box:5 --halo exchange"
        fault "rank 1's $call fails" "${call%:*}(.*) failed" \
            -n 1 "$MPI_CLI" $E : \
            -n 1 env LD_PRELOAD="$PRELOAD" CLCONV_TEST_MPI_FAIL=$call \
                ${pre_asan:+ASAN_OPTIONS="$pre_asan"} "$MPI_CLI" $E : \
            -n 2 "$MPI_CLI" $E
    done
    B="bench --mpi --size 12 --mask 3 --reps 1 --warmup 0"
    fault "bench --mpi, rank 1's MPI_Isend:1 fails" "MPI_Isend(.*) failed" \
        -n 1 "$MPI_CLI" $B : \
        -n 1 env LD_PRELOAD="$PRELOAD" CLCONV_TEST_MPI_FAIL=MPI_Isend:1 \
            ${pre_asan:+ASAN_OPTIONS="$pre_asan"} "$MPI_CLI" $B
fi

# OUT as one process takes it (doc/apply.md "Where the outputs go"): a
# symlink's target replaced (the link stays), a dangling link's target
# created, the old file's mode kept; a stream (a FIFO, "-", a device), a
# folder or an image name refused with exit 2 before any work. The ranks
# once renamed over the literal path: a device node or FIFO became a
# regular file, "-" a file named "-".
mo="$tmp/mpiout"
mkdir -p "$mo"
echo old >"$mo/tgt.npy"
chmod 600 "$mo/tgt.npy"
ln -s tgt.npy "$mo/link.npy"
ln -s new.npy "$mo/dangling.npy"
for out in link.npy dangling.npy; do
    if timeout 120 $RUN -n 2 "$MPI_CLI" apply "$tmp/v3.npy" "$mo/$out" \
        --mask box:3 >/dev/null 2>"$tmp/err" && [ -L "$mo/$out" ]; then
        echo "ok   OUT $out: its target replaced, the link kept"
    else
        fail "OUT $out"; sed 's/^/  | /' "$tmp/err"
    fi
done
cmp -s "$mo/tgt.npy" "$tmp/ref-3d-box3.npy" || fail "the link's target is not the result"
cmp -s "$mo/new.npy" "$tmp/ref-3d-box3.npy" || fail "the dangling link's target is not the result"
[ "$(stat -c %a "$mo/tgt.npy")" = 600 ] || fail "the replaced file lost its mode 600"
# A read-only OUT is replaced as one process replaces it (the mode is
# given at the rename: the ranks open the temporary first), and as root
# its owner is kept.
echo old >"$mo/ro.npy"
chmod 444 "$mo/ro.npy"
owner=""
if [ "$(id -u)" -eq 0 ] && chown nobody "$mo/ro.npy" 2>/dev/null; then
    owner=nobody
fi
if timeout 120 $RUN -n 3 "$MPI_CLI" apply "$tmp/v3.npy" "$mo/ro.npy" \
    --mask box:3 >/dev/null 2>"$tmp/err" &&
    cmp -s "$mo/ro.npy" "$tmp/ref-3d-box3.npy" &&
    [ "$(stat -c %a "$mo/ro.npy")" = 444 ] &&
    { [ -z "$owner" ] || [ "$(stat -c %U "$mo/ro.npy")" = "$owner" ]; }; then
    echo "ok   a read-only OUT${owner:+ of $owner} replaced by 3 ranks, its mode${owner:+ and owner} kept"
else
    fail "read-only OUT: $(stat -c '%a %U' "$mo/ro.npy")"; sed 's/^/  | /' "$tmp/err"
fi
mkfifo "$mo/fifo"
mkdir "$mo/folder"
for out in "$mo/fifo" - "$mo/folder" "$mo/o.png" /dev/null; do
    (cd "$mo" && timeout 60 $RUN -n 2 "$abs_mpi_cli" apply "$tmp/v3.npy" "$out" \
        --mask box:3 >"$tmp/out" 2>"$tmp/err")
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "OUT $out under MPI: exit $rc, expected 2"; sed 's/^/  | /' "$tmp/err"
    elif [ -e "$mo/-" ] || [ ! -p "$mo/fifo" ] || [ ! -c /dev/null ] ||
        ls -a "$mo" | grep -q '^\.clconv-'; then
        fail "OUT $out under MPI: a file was replaced or left behind"
    else
        echo "ok   OUT $out under MPI: exit 2: $(grep -m1 apply "$tmp/err")"
    fi
done
rm -rf "$mo"

# Every filter: the halos past the array's ends per the border mode
# (wrap's from the far end's ranks, reflections folding more than once
# where the halo is wider than the array), cval, origins, convolution,
# per-axis widths, a channel axis and --axes.
same 3d-reflect v3.npy gaussian:5 4 read --mode reflect
same 3d-wrap v3.npy gaussian:5 3 exchange --mode wrap
same thin-wrap thin3.npy box:5 4 exchange --mode wrap
same thin-mirror7 thin3.npy box:7 5 read --mode mirror
same 2d-origin i2.npy box:5x3 3 exchange --mode wrap --origin 2,-1 --convolve
same 1d-wrap l1.npy box:55 6 exchange --mode wrap --origin 27
same 3d-chan0 v3.npy gaussian:5 3 exchange --channel-axis 0 --mode reflect
same 3d-sep v3.npy gaussian:5 3 exchange --mode mirror --method separable --verify
# OUT in the input's type (int16), rounded, and saturated at both ends
same 1d-same l1.npy 0.5,-0.25,0.125 4 exchange --out-dtype same --mode reflect
same 1d-saturated l1.npy 200,-150,90 3 read --out-dtype same
# int64 (NumPy's default integer), converted to float32 as one process
# converts it (it was refused: "unsupported dtype '<i8'")
same 3d-int64 l8.npy gaussian:3 3 exchange

# Empty arrays (an axis of length 0): rank 0 writes what one process
# writes (an empty .npy of IN's shape, float32 or --out-dtype same's
# dtype), the others agree, exit 0 (they were refused, "empty array").
# Any rank and either order: there are no rows to split.
python3 - "$tmp" <<'EOF_EMPTY'
import struct, sys
def empty(path, code, shape, fortran=False):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        code, fortran, "".join("%d, " % e for e in shape))
    head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)))
        f.write(head.encode())
d = sys.argv[1]
empty(d + "/e1.npy", "<f8", (0,))
empty(d + "/e2.npy", "<f4", (0, 5))
empty(d + "/e3.npy", "<i2", (4, 0, 3))
empty(d + "/e3f.npy", ">f4", (3, 0, 4), fortran=True)
empty(d + "/e4.npy", "<u2", (2, 0, 3, 5))
EOF_EMPTY
for n in 2 3; do
    same empty-1d e1.npy box:3 "$n" read
    same empty-2d e2.npy gaussian:5 "$n" exchange
    same empty-3d-same e3.npy box:3 "$n" read --dims 3 --out-dtype same
    same empty-fortran e3f.npy box:3 "$n" exchange --dims 3
    same empty-4d e4.npy box:3 "$n" read --axes 1,2 --out-dtype same
done
if timeout 120 $RUN -n 3 "$MPI_CLI" apply "$tmp/e2.npy" "$tmp/o.npy" \
    --mask box:3 >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
    [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "empty: nothing to compute" "$tmp/out"; then
    echo "ok   empty IN over 3 ranks: one summary, one process's"
else
    fail "empty IN over 3 ranks: the summary"; sed 's/^/  | /' "$tmp/out" "$tmp/err"
fi
rm -f "$tmp/o.npy"

# NaN and Inf in IN: no rank transforms its slab (the FFT would spread
# them over it). auto, which takes the FFT for finite data of this shape,
# then gives one process's bytes; an asked-for FFT fails on every rank.
python3 - "$tmp" <<'EOF3'
import random, struct, sys
random.seed(23)
def npy(path, shape, vals):
    d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % e for e in shape))
    head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)))
        f.write(head.encode() + struct.pack("<%df" % len(vals), *vals))
vals = [random.uniform(-1, 1) for _ in range(96 * 96)]
vals[40 * 96 + 50], vals[90 * 96 + 7] = float("nan"), float("inf")
npy(sys.argv[1] + "/nan2.npy", (96, 96), vals)
npy(sys.argv[1] + "/m31.npy", (31, 31),
    [random.uniform(-1, 1) for _ in range(31 * 31)])
npy(sys.argv[1] + "/s100k.npy", (100000,),
    [random.uniform(0, 1) for _ in range(100000)])
npy(sys.argv[1] + "/m1001.npy", (1001,),
    [random.uniform(-0.5, 0.5) for _ in range(1001)])
EOF3
same 2d-nan-auto nan2.npy "$tmp/m31.npy" 3 read
fault "NaN in IN, --method fft" "NaN or Inf" \
    -n 3 "$MPI_CLI" apply "$tmp/nan2.npy" "$tmp/o.npy" --mask "$tmp/m31.npy" --method fft

# An FFT auto chose that the device refuses (PoCL: VkFFT's 1D transforms
# of 101250 points take work-groups too wide for a CPU): every rank takes
# the direct path, one process's bytes (one rank was exit 3).
same 1d-fft-refused s100k.npy "$tmp/m1001.npy" 1 read
same 1d-fft-refused s100k.npy "$tmp/m1001.npy" 1 exchange

# usage NAME WANT-IN-MESSAGE apply-arguments...: exit 2 with one message
# (not one per rank) and no OUT.
usage() {
    name=$1 want=$2; shift 2
    timeout 60 $RUN -n 3 "$MPI_CLI" apply "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit $rc, expected 2"; sed 's/^/  | /' "$tmp/err"
    elif [ "$(grep -c "$want" "$tmp/err")" -ne 1 ]; then
        fail "$name: '$want' not said once:"; sed 's/^/  | /' "$tmp/err"
    elif [ -e "$tmp/o.npy" ]; then
        fail "$name: an output was left behind"
    else
        echo "ok   $name: exit 2, said once"
    fi
}
python3 - "$tmp" <<'EOF2'
import struct, sys
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 5, 3), }"
head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/rgb.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<60f", *range(60)))
d = d.replace("False", "True")
head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/fortran.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<60f", *range(60)))
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 3, 5), }"
head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/four.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<60f", *range(60)))
EOF2
usage "an image or a volume?" "an image with 3 channels or a volume" \
    "$tmp/rgb.npy" "$tmp/o.npy" --mask box:3
usage "--channel-axis out of range" "out of range" \
    "$tmp/v3.npy" "$tmp/o.npy" --mask box:3 --channel-axis -4
usage "a Fortran-order file (rows not in one piece)" "ascontiguousarray" \
    "$tmp/fortran.npy" "$tmp/o.npy" --mask box:3 --dims 3
# 4 dimensions: the message names clconv-mpi as the limit (it once said
# "this reader takes 1 to 3", as if no clconv took more).
usage "a 4D array" "4D array: clconv-mpi reads arrays of 1 to 3" \
    "$tmp/four.npy" "$tmp/o.npy" --mask box:3 --axes 0,1
# IN a FIFO: refused at once (it once blocked every rank in open(), or
# read the writer's bytes as a file of size 0).
mkfifo "$tmp/fifo.npy"
usage "IN a FIFO" "not a regular file" "$tmp/fifo.npy" "$tmp/o.npy" --mask box:3
usage "IN standard input" "cannot be standard input" - "$tmp/o.npy" --mask box:3
# An empty --device (or CLCONV_DEVICE set empty) is refused as one process
# refuses it (the ranks once took it for no selector and ran).
usage "an empty --device" "empty device selector" "$tmp/v3.npy" "$tmp/o.npy" \
    --mask box:3 --device ""
# An empty IN is still checked as any input: an origin beyond the mask
# (SciPy refuses it on an empty array too), a 2D mask for 1D data.
usage "an empty IN, an origin beyond the mask" "origin" \
    "$tmp/e2.npy" "$tmp/o.npy" --mask box:3 --origin 2
usage "an empty IN, a 2D mask for 1D data" "mask" \
    "$tmp/e1.npy" "$tmp/o.npy" --mask box:3x3
rm -f "$tmp/fifo.npy"

# --verify over the ranks says what one process says: the largest error
# and how many outputs are NaN or Inf as in the reference (it once said
# nothing, a silent pass).
if timeout 120 $RUN -n 3 "$MPI_CLI" apply "$tmp/nan2.npy" "$tmp/o.npy" \
    --mask box:3 --verify >"$tmp/out" 2>"$tmp/err" &&
    grep -q "verified max_err .* output(s) NaN or Inf" "$tmp/out"; then
    echo "ok   --verify over 3 ranks counts NaN or Inf outputs"
else
    fail "--verify with NaN in IN"; sed 's/^/  | /' "$tmp/out" "$tmp/err"
fi
rm -f "$tmp/o.npy"
# --verify on each rank takes the bound of the method it ran: an FFT's
# result on data of a wide range (one element 1e4, the rest in [0, 1))
# failed the direct method's bound (exit 1), which one process passes.
python3 - "$tmp" <<'EOF_WIDE'
import random, struct, sys
random.seed(5)
vals = [random.random() for _ in range(21 * 6)]
vals[0] = 1e4
d = "{'descr': '<f4', 'fortran_order': False, 'shape': (21, 6), }"
head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/wide.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<126f", *vals))
EOF_WIDE
if timeout 120 $RUN -n 2 "$MPI_CLI" apply "$tmp/wide.npy" "$tmp/o.npy" \
    --mask '1;3;-2' --method fft --verify >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   --method fft --verify over 2 ranks on data of a wide range"
else
    fail "--method fft --verify over 2 ranks on data of a wide range"
    sed 's/^/  | /' "$tmp/out" "$tmp/err"
fi
rm -f "$tmp/o.npy"
# A float64 beyond float32's range: its index in the whole array (it was
# once its index in the rank's rows).
python3 - "$tmp" <<'EOF4'
import struct, sys
d = "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 5), }"
head = d + " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
vals = [0.5] * 30
vals[27] = 1e300
with open(sys.argv[1] + "/big8.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<30d", *vals))
EOF4
usage "a float64 beyond float32's range" "element 27 is 1e+300" \
    "$tmp/big8.npy" "$tmp/o.npy" --mask box:3
# --halo under mpirun -n 1 (a script's N of 1): clconv-mpi with one rank.
if timeout 120 $RUN -n 1 "$CLI" apply "$tmp/v3.npy" "$tmp/o.npy" --mask box:3 \
    --halo exchange >/dev/null 2>"$tmp/err" &&
    cmp -s "$tmp/o.npy" "$tmp/ref-3d-box3.npy"; then
    echo "ok   --halo exchange under mpirun -n 1"
else
    fail "--halo under mpirun -n 1"; sed 's/^/  | /' "$tmp/err"
fi
rm -f "$tmp/o.npy"

# The MPI library given NULL (clconv_mpi.h's rule): test/mpi_null_args.c,
# a cmocka program, over 2 ranks (the local calls crashed; a collective
# one given NULL on one rank crashed or left the others waiting).
NULL_ARGS=$(dirname "$CLI")/mpi_null_args
if [ ! -x "$NULL_ARGS" ]; then
    fail "$NULL_ARGS was not built (make test-programs)"
elif timeout 60 $RUN -n 2 "$NULL_ARGS" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   the MPI library given NULL: $(grep -c '\[       OK \]' "$tmp/out") test(s) over 2 ranks"
else
    fail "the MPI library given NULL"; sed 's/^/  | /' "$tmp/out" "$tmp/err"
fi

# Random filters, dtypes, rank counts and halo ways (seed printed;
# $CLCONV_MPI_FUZZ cases, default 3: each mpirun is seconds; numpy
# needed).
. "$ROOT/test/lib/check.sh"
if NPY_PY=$(numpy_python); then
    "$NPY_PY" "$ROOT/test/mpi_fuzz.py" "$CLI" "$MPI_CLI" "$RUN" \
        "${CLCONV_MPI_FUZZ:-3}" ${CLCONV_SEED:+"$CLCONV_SEED"} >"$tmp/fuzz.log" 2>&1 \
        || fail "mpi_fuzz.py"
    cat "$tmp/fuzz.log"
else
    echo "skip mpi_fuzz.py: no numpy"
fi

# A signal to every rank while they write OUT (as a terminal's Ctrl-C or a
# batch system sends it): the temporary file goes with them and the old
# OUT stays (every rank watches it, clconv_temp_watch). The
# ranks are signalled as soon as the temporary file exists; a job that
# finished first must have left OUT new and whole.
mkdir "$tmp/sig"
if python3 - "$MPI_CLI" "$tmp/sig" "$RUN" <<'EOF_PY'; then
import os, signal, subprocess, sys, time
cli, d, run = sys.argv[1], sys.argv[2], sys.argv[3].split()
shape = (256, 256, 256)  # 64 MiB: the write takes a while
head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d, %d), }" % shape
pad = (64 - (10 + len(head) + 1) % 64) % 64
head = b"\x93NUMPY\x01\x00" + (len(head) + pad + 1).to_bytes(2, "little") + \
    (head + " " * pad + "\n").encode()
with open(f"{d}/in.npy", "wb") as f:
    f.write(head + bytes(4 * shape[0] * shape[1] * shape[2]))
def ranks():
    pids = []
    for p in os.listdir("/proc"):
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                a = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        if a and a[0].endswith(b"clconv-mpi") and f"{d}/in.npy".encode() in a:
            pids.append(int(p))
    return pids
def rank0(pids):
    for p in pids:
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                if b"OMPI_COMM_WORLD_RANK=0" in f.read().split(b"\0"):
                    return [p]
        except OSError:
            pass
    return []
bad = 0
# SIGKILL to rank 0 alone (which created the temporary): mpirun then
# stops the others with SIGTERM, and they remove it. SIGKILL to mpirun
# itself (a batch system's hard kill): the ranks, whose launcher is gone,
# take SIGTERM (they were ended with _exit and left the temporary).
for sig, who, name in ((signal.SIGINT, ranks, "every rank"),
                       (signal.SIGTERM, ranks, "every rank"),
                       (signal.SIGHUP, ranks, "every rank"),
                       (signal.SIGKILL, lambda: rank0(ranks()), "rank 0"),
                       (signal.SIGKILL, lambda: [p.pid], "mpirun")):
    with open(f"{d}/out.npy", "w") as f:
        f.write("old")
    p = subprocess.Popen(run + ["-n", "3", cli, "apply", f"{d}/in.npy",
                         f"{d}/out.npy", "--mask", "box:3"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while (p.poll() is None and time.time() - t0 < 120 and
           not any(n.startswith(".clconv-") for n in os.listdir(d))):
        time.sleep(0.0002)
    for pid in who():
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    p.wait()
    t1 = time.time()  # the other ranks' ends (mpirun's may come first)
    while ranks() and time.time() - t1 < 20:
        time.sleep(0.05)
    time.sleep(0.2)
    left = [n for n in os.listdir(d) if n.startswith(".clconv-")]
    size = os.path.getsize(f"{d}/out.npy")
    ok = not left and (size == 3 or (p.returncode == 0 and
                                      size == len(head) + 4 * 256 ** 3))
    print(("ok  " if ok else "FAIL") + f" {sig.name} to {name} during "
          f"the write: exit {p.returncode}, left {left}, OUT {size} bytes")
    bad += not ok
    for n in left:
        os.unlink(f"{d}/{n}")
sys.exit(1 if bad else 0)
EOF_PY
    :
else
    fail "a signal during the write left the temporary file or harmed OUT"
fi
rm -rf "$tmp/sig"

# bench --mpi: one row per rank, the output identical to one rank's.
if timeout 120 $RUN -n 2 "$MPI_CLI" bench --mpi --size 24 --mask 3 --reps 1 \
    --io "$tmp" --json "$tmp/b.json" >"$tmp/out" 2>"$tmp/err" &&
    [ "$(grep -c '"rank": ' "$tmp/b.json")" -eq 4 ] &&
    grep -q '"identical": true' "$tmp/b.json" && grep -q '"end_to_end_ms"' "$tmp/b.json"; then
    echo "ok   bench --mpi: strong and weak rows of 2 ranks, identical, end to end"
else
    fail "bench --mpi"; sed 's/^/  | /' "$tmp/err" "$tmp/out"
fi

# bench --mpi --json FOLDER: exit 3 before any work, as one process
# (it once ran the whole benchmark first).
mkdir "$tmp/jdir"
timeout 120 $RUN -n 2 "$MPI_CLI" bench --mpi --size 24 --mask 3 --json "$tmp/jdir" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ] && [ ! -s "$tmp/out" ] && grep -q "folder" "$tmp/err"; then
    echo "ok   bench --mpi --json FOLDER: exit 3 before any work"
else
    fail "bench --mpi --json FOLDER: exit $rc"; sed 's/^/  | /' "$tmp/out" "$tmp/err"
fi
rmdir "$tmp/jdir"

# bench --mpi's bad options: exit 2, one line from rank 0 (every rank
# parses them).
for bad in "--scaling strongest" "--scaling strong," "--size 24,,32"; do
    # shellcheck disable=SC2086 # the option and its value
    timeout 120 $RUN -n 2 "$MPI_CLI" bench --mpi --size 24 --mask 3 $bad \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    n=$(grep -c '^clconv: ' "$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && [ ! -s "$tmp/out" ]; then
        echo "ok   bench --mpi $bad: exit 2, one line"
    else
        fail "bench --mpi $bad: exit $rc, $n lines"
        sed 's/^/  | /' "$tmp/err" | head -n 5
    fi
done

[ "$fails" -eq 0 ] || { echo "mpi.sh: $fails failure(s)"; exit 1; }
echo "mpi.sh: all passed"
