#!/bin/sh
# Inputs that are not regular files (issue 14, defect 9): `apply` reads a
# FIFO or a pipe only as far as the format its first bytes show allows,
# never forever: /dev/zero is refused at once, a .npy, PGM or PNG on a
# pipe is read to its declared size, bytes beyond it are refused. IN -
# is standard input, a pipe or a redirected file.
# Usage: test/input_streams.sh build/clconv
set -u
CLI=${1:-build/clconv}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$ROOT/test/lib/check.sh"

# A 1D uint8 .npy of 4 elements.
printf '\223NUMPY\001\000\166\000' >"$tmp/a.npy"
dict="{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }"
printf '%s%*s\n' "$dict" $((117 - ${#dict})) '' >>"$tmp/a.npy"
printf '\001\002\003\004' >>"$tmp/a.npy"
"$CLI" apply "$tmp/a.npy" "$tmp/ref.npy" --mask 1 >/dev/null 2>&1 ||
    fail "the reference apply failed"

check "/dev/zero is refused at once" 2 timeout 20 "$CLI" apply /dev/zero "$tmp/z.npy" --mask 1
grep -q "not a .npy array" "$tmp/err" || fail "/dev/zero: no reason given"
[ -e "$tmp/z.npy" ] && fail "/dev/zero: an output was written"
check "a .npy on a pipe" 0 sh -c "cat '$tmp/a.npy' | '$CLI' apply /dev/stdin '$tmp/p.npy' --mask 1"
cmp -s "$tmp/p.npy" "$tmp/ref.npy" || fail "a .npy on a pipe: other result"
check "IN - reads standard input (a pipe)" 0 sh -c "cat '$tmp/a.npy' | '$CLI' apply - '$tmp/d.npy' --mask 1"
cmp -s "$tmp/d.npy" "$tmp/ref.npy" || fail "IN - (a pipe): other result"
check "IN - reads standard input (a file)" 0 sh -c "'$CLI' apply - '$tmp/d2.npy' --mask 1 <'$tmp/a.npy'"
cmp -s "$tmp/d2.npy" "$tmp/ref.npy" || fail "IN - (a file): other result"
check "IN - and OUT - (a filter in a pipeline)" 0 sh -c "cat '$tmp/a.npy' | '$CLI' apply - - --mask 1 >'$tmp/d3.npy'"
cmp -s "$tmp/d3.npy" "$tmp/ref.npy" || fail "IN - OUT -: other result"
# IN - is read from where standard input stands: a caller that took a
# prefix of the file first leaves the rest (it was reopened as /dev/stdin
# and read from its start: "not a .npy array"), and a socket (ENXIO:
# "cannot open '/dev/stdin': No such device or address").
{ printf 'PREFIX!'; cat "$tmp/a.npy"; } >"$tmp/pre.npy"
check "IN - after a caller read a prefix of the file" 0 sh -c \
    "(dd bs=7 count=1 of=/dev/null 2>/dev/null; '$CLI' apply - '$tmp/d5.npy' --mask 1) <'$tmp/pre.npy'"
cmp -s "$tmp/d5.npy" "$tmp/ref.npy" || fail "IN - after a prefix: other result"
# IN /dev/stdin on a socket is read through descriptor 0 as well (open(2)
# cannot reach a socket: "No such device or address").
if command -v python3 >/dev/null 2>&1; then
    for in in - /dev/stdin; do
        rm -f "$tmp/d6.npy"
        check "IN $in on a socket" 0 python3 -c '
import socket, subprocess, sys
a, b = socket.socketpair()
p = subprocess.Popen(sys.argv[1:], stdin=b)
b.close()
a.sendall(sys.stdin.buffer.read())
a.close()
sys.exit(p.wait())' "$CLI" apply "$in" "$tmp/d6.npy" --mask 1 <"$tmp/a.npy"
        cmp -s "$tmp/d6.npy" "$tmp/ref.npy" || fail "IN $in on a socket: other result"
    done
fi
check "IN - with nothing on standard input is refused" 2 sh -c "'$CLI' apply - '$tmp/d4.npy' --mask 1 </dev/null"
[ -e "$tmp/d4.npy" ] && fail "IN - empty: an output was written"
check "a .npy followed by endless zeros is refused" 2 timeout 20 sh -c "cat '$tmp/a.npy' /dev/zero | '$CLI' apply /dev/stdin '$tmp/q.npy' --mask 1"
grep -q "longer than its header allows" "$tmp/err" || fail "endless .npy: no reason given"
mkfifo "$tmp/fifo"
cat "$tmp/a.npy" >"$tmp/fifo" &
check "a .npy from a FIFO" 0 "$CLI" apply "$tmp/fifo" "$tmp/f.npy" --mask 1
wait
printf 'P5\n2 2\n255\n\001\002\003\004' >"$tmp/g.pgm"
check "a PGM on a pipe" 0 sh -c "cat '$tmp/g.pgm' | '$CLI' apply /dev/stdin '$tmp/g2.pgm' --mask 1"
cmp -s "$tmp/g.pgm" "$tmp/g2.pgm" || fail "a PGM on a pipe: other result"
check "a PGM followed by endless zeros is refused" 2 timeout 20 sh -c "cat '$tmp/g.pgm' /dev/zero | '$CLI' apply /dev/stdin '$tmp/g3.pgm' --mask 1"
# A header past the first 4 KiB read (a long comment; maxval's digits
# across that boundary) is read on: refused before as "not a .npy array
# or a PNG, PGM or PPM image", while the same file as a file was fine.
{ printf 'P5\n# '; head -c 5000 /dev/zero | tr '\0' x; printf '\n2 1\n255\n\001\002'; } >"$tmp/long.pgm"
check "a PGM with a 5000-byte comment on a pipe" 0 sh -c "cat '$tmp/long.pgm' | '$CLI' apply - '$tmp/long2.pgm' --mask 1"
{ printf 'P5\n#'; head -c 4086 /dev/zero | tr '\0' x; printf '\n2 1\n65535\n\001\002\003\004'; } >"$tmp/edge.pgm"
check "a PGM whose maxval ends past the first 4096 bytes, on a pipe" 0 sh -c "cat '$tmp/edge.pgm' | '$CLI' apply - '$tmp/edge2.pgm' --mask 1"
[ "$(tail -c 4 "$tmp/edge2.pgm" | od -An -tu1 | tr -s ' ')" = " 1 2 3 4" ] ||
    fail "edge.pgm: other samples: $(tail -c 4 "$tmp/edge2.pgm" | od -An -tu1)"
# A --mask FIFO is read as IN is: only as far as its .npy header declares,
# refused at once when that is more than a mask holds (it was read whole,
# up to 128 MiB, before a refusal). dd counts what the reader took.
mask_fifo() { # name expected-exit bytes-at-most message stream-command...
    name=$1 want=$2 most=$3 msg=$4
    shift 4
    rm -f "$tmp/m.npy" "$tmp/dd"
    mkfifo "$tmp/m.npy"
    (trap '' PIPE; "$@" 2>/dev/null | dd of="$tmp/m.npy" bs=65536 2>"$tmp/dd") &
    check "$name" "$want" timeout 60 "$CLI" apply "$tmp/a.npy" "$tmp/mo.npy" --mask "$tmp/m.npy"
    wait
    took=$(sed -n 's/^\([0-9]*\) bytes.*/\1/p' "$tmp/dd")
    [ "${took:-0}" -le "$most" ] || fail "$name: the reader took ${took:-?} bytes"
    [ -z "$msg" ] || grep -q "$msg" "$tmp/err" || fail "$name: no '$msg' in: $(cat "$tmp/err")"
}
printf '\223NUMPY\001\000\166\000' >"$tmp/huge.npy"
dict="{'descr': '<f8', 'fortran_order': False, 'shape': (20000000,), }"
printf '%s%*s\n' "$dict" $((117 - ${#dict})) '' >>"$tmp/huge.npy"
mask_fifo "a --mask FIFO goes on past its .npy" 2 1048576 "longer than its header allows" \
    sh -c "cat '$tmp/a.npy'; head -c 50000000 /dev/zero"
mask_fifo "a --mask FIFO declaring more than a mask holds" 2 1048576 "declares more than" \
    sh -c "cat '$tmp/huge.npy'; head -c 50000000 /dev/zero"
mask_fifo "a --mask FIFO of zeros" 2 1048576 "not a .npy array" head -c 50000000 /dev/zero
mask_fifo "a --mask FIFO holding a .npy" 0 1048576 "" cat "$tmp/a.npy"
check "a PNG on a pipe" 0 sh -c "cat '$ROOT/assets/sample.png' | '$CLI' apply /dev/stdin '$tmp/s.png' --mask 1"

[ "$fails" -eq 0 ] && echo "input_streams.sh: all passed" || echo "input_streams.sh: $fails failed"
[ "$fails" -eq 0 ]
