#!/bin/sh
# Run `clconv run` (and its error paths) under valgrind's memcheck and fail
# on any error that belongs to clconv's own code.
#
# usage: scripts/valgrind-run.sh [CLCONV]   (default build/clconv)
#
# The OpenCL runtime (PoCL, its LLVM, the ICD loader, glibc's dlopen and
# thread-local storage) keeps memory until exit and trips memcheck on its
# own; those reports are not ours. An error is clconv's when:
#   - it is an invalid read/write/free, an overlap, a bad syscall argument
#     or a bad jump, and any frame of its stack is in the clconv executable
#     (so a bad pointer that clconv hands to the runtime still counts),
#     except errors raised inside the dynamic loader itself (glibc's
#     word-at-a-time strncmp in dlopen, a known false positive);
#   - it is a leak or a use of an uninitialised value, and the innermost
#     frame outside the allocator and glibc is in the clconv executable (so
#     a leak inside PoCL that merely happened under a clconv call does not
#     count, while a malloc that clconv never frees does).
# Each kernel compiles again under valgrind (PoCL sees a different CPU
# there, so neither its cache nor clconv's from native runs applies), at
# about a minute per kernel on 2 cores: the runs below build two kernels.
# Add --track-origins=yes by hand to find where an uninitialised value
# came from.
set -eu

CLCONV=${1:-build/clconv}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind-run: valgrind not found; on Debian/Ubuntu: sudo apt-get install valgrind" >&2
    exit 2
fi
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    echo "valgrind-run: python3 not found (needed to read valgrind's XML)" >&2
    exit 2
fi
if [ ! -x "$CLCONV" ]; then
    echo "valgrind-run: $CLCONV is not an executable (run make first)" >&2
    exit 2
fi
exe=$(cd "$(dirname "$CLCONV")" && pwd)/$(basename "$CLCONV")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

failed=0
n=0
# name expected-exit clconv-arguments...
check() {
    name=$1 want=$2
    shift 2
    n=$((n + 1))
    xml="$tmp/$n.xml"
    rc=0
    valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all \
        --num-callers=50 --xml=yes --xml-file="$xml" \
        "$exe" "$@" >"$tmp/out" 2>&1 || rc=$?
    ours=0
    "$PY" - "$xml" "$exe" >"$tmp/report" <<'EOF' || ours=$?
import sys
import xml.etree.ElementTree as ET

xml, exe = sys.argv[1], sys.argv[2]
root = ET.parse(xml).getroot()
SYSTEM = ("vgpreload_", "/ld-linux", "/libc.so", "/libc-", "/libm.so")
MEMORY = ("InvalidRead", "InvalidWrite", "InvalidFree", "MismatchedFree",
          "Overlap", "SyscallParam", "InvalidJump", "InvalidMemPool",
          "FishyValue", "ClientCheck")
ours = 0
for err in root.findall("error"):
    kind = err.findtext("kind", "")
    frames = err.find("stack").findall("frame") if err.find("stack") is not None else []
    objs = [f.findtext("obj", "") for f in frames]
    if kind in MEMORY:
        # The dynamic loader's own string scans (glibc's strncmp reading
        # 8 bytes at a time in is_dst) are a known memcheck false positive
        # of every dlopen, and no pointer of ours reaches them.
        hit = exe in objs and "/ld-linux" not in objs[0]
    else:
        inner = [o for o in objs if not any(s in o for s in SYSTEM)]
        hit = bool(inner) and inner[0] == exe
    if not hit:
        continue
    ours += 1
    what = err.findtext("xwhat/text") or err.findtext("what") or ""
    print(f"{kind}: {what}")
    for f in frames[:12]:
        loc = f.findtext("file")
        loc = f"{loc}:{f.findtext('line')}" if loc else f.findtext("obj", "?")
        print(f"    {f.findtext('fn', '?')} ({loc})")
sys.exit(1 if ours else 0)
EOF
    if [ "$rc" -ne "$want" ] || [ "$ours" -ne 0 ]; then
        failed=$((failed + 1))
        echo "valgrind-run: FAIL $name: exit $rc (want $want)" >&2
        sed 's/^/  | /' "$tmp/out" >&2
        sed 's/^/  memcheck| /' "$tmp/report" >&2
    else
        echo "valgrind-run: ok   $name (exit $rc, no memcheck error in clconv's code)"
    fi
}

# One strategy per run: every kernel compiles again under valgrind (minutes
# for all of them), and the host path (plan, buffers, launch, verify, time,
# release) is the same code for each; output_tile has the local tile.
check "run 2D output_tile, verified and timed" 0 \
    run --dims 2 --size 33x17 --mask 3 --tile 8 --strategy output_tile \
    --reps 2 --warmup 1 --seed 3
check "run with a tile too large for the device (unsupported)" 3 \
    run --dims 2 --size 33x17 --mask 3 --tile 1024 --strategy output_tile \
    --reps 0 --seed 3
check "run with an unknown device (usage error)" 2 \
    run --dims 1 --size 100 --device no-such-device --reps 0
mkdir "$tmp/cl"
cp "$(dirname "$0")/../cl/"* "$tmp/cl/"
echo 'this is not OpenCL C;' >>"$tmp/cl/conv1d_naive.cl"
export CLCONV_KERNEL_DIR="$tmp/cl"
check "run with a kernel that fails to build" 3 \
    run --dims 1 --size 100 --mask 3 --strategy naive --reps 0
unset CLCONV_KERNEL_DIR
check "devices" 0 devices
echo "valgrind-run: $n runs, $failed failed"
[ "$failed" -eq 0 ]
