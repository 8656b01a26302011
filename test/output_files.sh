#!/bin/sh
# Output files as users expect (issue 14, defects 1, 6 and 9): `apply` and
# `bench --json/--csv` replace a regular file atomically, follow a symlink
# and keep it, write a FIFO, /dev/null or - straight through without
# replacing it, report /dev/full as exit 3 "No space left on device",
# refuse a folder, a missing or read-only folder before any work (apply:
# exit 2, as a bad OUT always was; bench's reports: exit 3, as cli_output.sh
# has it for every command's --json/--csv FILE),
# write an image in the format its extension names or refuse it, and a
# bench whose report cannot be written keeps the old file.
# Usage: test/output_files.sh build/clconv
set -u
CLI=${1:-build/clconv}
fails=0
tmp=$(mktemp -d)
cleanup() {
    for m in "$tmp/ro" "$tmp/full"; do
        mountpoint -q "$m" 2>/dev/null && umount "$m"
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

one_line_with() { # name text: stderr is one line containing text
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$2" "$tmp/err" ||
        { fail "$1: stderr is not one line with '$2'"; sed 's/^/  | /' "$tmp/err"; }
}

# A 1D uint8 .npy of 4 elements, and what apply writes for it.
printf '\223NUMPY\001\000\166\000' >"$tmp/a.npy"
dict="{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }"
printf '%s%*s\n' "$dict" $((117 - ${#dict})) '' >>"$tmp/a.npy"
printf '\001\002\003\004' >>"$tmp/a.npy"
apply() { "$CLI" apply "$tmp/a.npy" "$@" --mask 1; }
check "a regular output" 0 apply "$tmp/ref.npy"

# --- regular files and symlinks -------------------------------------------
echo old >"$tmp/kept.npy"; chmod 640 "$tmp/kept.npy"
check "a regular file is replaced" 0 apply "$tmp/kept.npy"
cmp -s "$tmp/kept.npy" "$tmp/ref.npy" || fail "regular file: wrong bytes"
[ "$(stat -c %a "$tmp/kept.npy")" = 640 ] || fail "regular file: mode not kept"
ln -s target.npy "$tmp/link.npy"
check "a symlink's target is replaced" 0 apply "$tmp/link.npy"
[ -L "$tmp/link.npy" ] || fail "symlink: the link was replaced"
cmp -s "$tmp/target.npy" "$tmp/ref.npy" || fail "symlink: target not written"
long=$(printf 'n%.0s' $(seq 1 251)).npy
check "an OUT name of 255 bytes" 0 apply "$tmp/$long"
ls -A "$tmp" | grep -q '^\.clconv-' && fail "a temporary file was left behind"

# --- written through, never replaced -----------------------------------------
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
check "a FIFO is written through" 0 apply "$tmp/fifo"
wait
[ -p "$tmp/fifo" ] || fail "FIFO: no longer a FIFO"
cmp -s "$tmp/from-fifo" "$tmp/ref.npy" || fail "FIFO: the reader got other bytes"
check "/dev/null is written through" 0 apply /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
"$CLI" apply "$tmp/a.npy" - --mask 1 >"$tmp/stdout" 2>"$tmp/err"
cmp -s "$tmp/stdout" "$tmp/ref.npy" && ok "- writes the array to stdout" ||
    fail "-: stdout is not the array"
grep -q "^apply:" "$tmp/err" || fail "-: the summary is not on stderr"
# - with stdout appended to IN (`>> in.npy`), as /dev/stdout there is: IN
# is the output (it was exit 0, IN grown by a second array).
cp "$tmp/a.npy" "$tmp/self.npy"
"$CLI" apply "$tmp/self.npy" - --mask 1 >>"$tmp/self.npy" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && cmp -s "$tmp/self.npy" "$tmp/a.npy" &&
    ok "- appended to IN is refused, IN kept" ||
    fail "- appended to IN: exit $rc, IN $(wc -c <"$tmp/self.npy") bytes"
one_line_with "- appended to IN" "is the input"
# IN - redirected from a file is that file, as a named IN is: OUT - appended
# to it (it was exit 0, IN grown by a second array), both on one file
# (`<>`: the input overwritten in place) and OUT naming it (replaced) are
# refused as `apply in.npy in.npy` is; another OUT still works.
self="'$tmp/self.npy'"
for how in "- - <$self >>$self" "- - <>$self >&0" "- $self <$self" \
    "- /dev/stdout <$self >>$self"; do
    sh -c "'$CLI' apply $how --mask 3" 2>"$tmp/err" >/dev/null
    rc=$?
    [ "$rc" -eq 2 ] && cmp -s "$tmp/self.npy" "$tmp/a.npy" &&
        ok "apply $how is refused, IN kept" ||
        fail "apply $how: exit $rc, IN $(wc -c <"$tmp/self.npy") bytes"
    one_line_with "apply $how" "is the input"
    cp "$tmp/a.npy" "$tmp/self.npy"
done
check "IN - from a file, OUT another file" 0 sh -c "'$CLI' apply - '$tmp/other.npy' --mask 1 <'$tmp/self.npy'"
cmp -s "$tmp/other.npy" "$tmp/ref.npy" || fail "IN - from a file: other result"
# /dev/stdout into a pipe (/proc/self/fd/1, whose link reads "pipe:[N]",
# no path: it was refused after the work, "cannot create a file in its
# folder"), and into a file: the bytes of -, the summary on stderr.
if [ -e /dev/stdout ]; then
    { "$CLI" apply "$tmp/a.npy" /dev/stdout --mask 1 2>"$tmp/err"; echo "rc=$?" >"$tmp/rc"; } |
        cat >"$tmp/stdout"
    cmp -s "$tmp/stdout" "$tmp/ref.npy" && grep -q "^rc=0" "$tmp/rc" &&
        grep -q "^apply:" "$tmp/err" && ok "/dev/stdout into a pipe is written through" ||
        { fail "/dev/stdout into a pipe: $(cat "$tmp/rc"), stdout $(wc -c <"$tmp/stdout") bytes"; sed 's/^/  | /' "$tmp/err"; }
    "$CLI" apply "$tmp/a.npy" /dev/stdout --mask 1 >"$tmp/stdout" 2>"$tmp/err"
    cmp -s "$tmp/stdout" "$tmp/ref.npy" && grep -q "^apply:" "$tmp/err" &&
        ok "/dev/stdout into a file gets the array, the summary on stderr" ||
        fail "/dev/stdout into a file: $(wc -c <"$tmp/stdout") bytes, stderr '$(cat "$tmp/err")'"
fi
# OUT - with stdout closed (`>&-`): descriptor 1 was free, so --float's
# temporary file took it and OUT's bytes went into F (exit 0, a PGM
# inside the .npy). Now exit 3 "Bad file descriptor" and no F.
printf 'P5\n2 2\n255\n\001\002\003\004' >"$tmp/c.pgm"
"$CLI" apply "$tmp/c.pgm" - --mask 1 --float "$tmp/c.npy" >&- 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] && [ ! -e "$tmp/c.npy" ] && ok "OUT - with stdout closed is exit 3, no --float file" ||
    fail "OUT - with stdout closed: exit $rc, --float file: $(od -An -c "$tmp/c.npy" 2>&1 | head -1)"
one_line_with "OUT - with stdout closed" "cannot write '-': Bad file descriptor"
check "OUT a file with stderr closed" 0 sh -c "'$CLI' apply '$tmp/a.npy' '$tmp/e.npy' --mask 1 2>&-"
cmp -s "$tmp/e.npy" "$tmp/ref.npy" || fail "stderr closed: other bytes"
if [ -w /dev/full ]; then
    check "/dev/full is exit 3" 3 apply /dev/full
    one_line_with "/dev/full" "No space left on device"
    [ -c /dev/full ] || fail "/dev/full is no longer a character device"
    [ -s "$tmp/out" ] && fail "/dev/full: a summary was printed"
fi

# --- refused before any work ---------------------------------------------------
mkdir "$tmp/dir"
check "OUT is a folder" 2 apply "$tmp/dir"
one_line_with "OUT is a folder" "is a folder"
mkdir "$tmp/ro"
if [ "$(id -u)" = 0 ]; then
    mount --bind "$tmp/ro" "$tmp/ro" 2>/dev/null &&
        mount -o remount,ro,bind "$tmp/ro" 2>/dev/null
else
    chmod 555 "$tmp/ro"
fi
if touch "$tmp/ro/probe" 2>/dev/null; then
    echo "skip a read-only folder: cannot make one here"
    rm -f "$tmp/ro/probe"
else
    check "OUT in a read-only folder" 2 apply "$tmp/ro/out.npy"
    one_line_with "read-only folder" "not writable"
fi

# --- images: the format OUT's extension names ----------------------------------
printf 'P5\n2 2\n255\n\001\002\003\004' >"$tmp/g.pgm"
check "a PGM written as .png" 0 "$CLI" apply "$tmp/g.pgm" "$tmp/g.png" --mask 1
[ "$(head -c 4 "$tmp/g.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
    fail "g.png is not a PNG"
check "a PNG written as .pgm" 0 "$CLI" apply "$tmp/g.png" "$tmp/g2.pgm" --mask 1
cmp -s "$tmp/g.pgm" "$tmp/g2.pgm" || fail "PGM -> PNG -> PGM changed the image"
check "an image written as .jpg is refused" 2 "$CLI" apply "$tmp/g.pgm" "$tmp/g.jpg" --mask 1
one_line_with ".jpg" ".png, .pgm, .ppm or .pnm"
[ -e "$tmp/g.jpg" ] && fail ".jpg: a file was written"
check "a gray image written as .ppm is refused" 2 "$CLI" apply "$tmp/g.pgm" "$tmp/g.ppm" --mask 1
# --float a dangling link to OUT's new path, and OUT a dangling link to
# --float's: both outputs are one file (it held the last one renamed, the
# float .npy under the name .pgm, exit 0); refused before any work.
ln -s g-new.pgm "$tmp/f-link.npy"
check "--float a dangling link to OUT is refused" 2 "$CLI" apply "$tmp/g.pgm" "$tmp/g-new.pgm" \
    --mask 1 --float "$tmp/f-link.npy"
one_line_with "--float a link to OUT" "name the same file"
ln -s f-new.npy "$tmp/o-link.pgm"
check "OUT a dangling link to --float is refused" 2 "$CLI" apply "$tmp/g.pgm" "$tmp/o-link.pgm" \
    --mask 1 --float "$tmp/./f-new.npy"
[ -e "$tmp/g-new.pgm" ] || [ -e "$tmp/f-new.npy" ] && fail "dangling links: a file was written"
# OUT - and --float a link to /dev/stdout: one file (into a pipe both
# arrays were mixed, into a file the PGM dropped by F's rename; exit 0).
ln -s /dev/stdout "$tmp/so.npy"
"$CLI" apply "$tmp/g.pgm" - --mask 1 --float "$tmp/so.npy" 2>"$tmp/err" | cat >"$tmp/mixed"
[ ! -s "$tmp/mixed" ] && grep -q "name the same file" "$tmp/err" &&
    ok "OUT - and --float a link to /dev/stdout (a pipe) are refused" ||
    fail "OUT - and --float a link to /dev/stdout (a pipe): $(wc -c <"$tmp/mixed") bytes, '$(cat "$tmp/err")'"
check "OUT - and --float a link to /dev/stdout (a file) are refused" 2 \
    sh -c "'$CLI' apply '$tmp/g.pgm' - --mask 1 --float '$tmp/so.npy' >'$tmp/mixed'"
one_line_with "OUT - and --float to stdout's file" "name the same file"

# --- bench reports ----------------------------------------------------------------
bench() { "$CLI" bench --dims 1 --size 64 --mask 3 --strategy naive --tiles default --quiet "$@"; }
start=$(date +%s)
check "bench --json in a missing folder" 3 bench --json "$tmp/nodir/r.json"
one_line_with "bench missing folder" "does not exist"
check "bench --csv naming a folder" 3 bench --csv "$tmp/dir"
[ $(( $(date +%s) - start )) -le 1 ] || fail "bench: the path checks took over a second"
mkdir "$tmp/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
    echo old >"$tmp/full/r.json"
    head -c 120000 /dev/zero >"$tmp/full/filler" 2>/dev/null
    check "bench on a full disk is exit 3" 3 bench --json "$tmp/full/r.json"
    one_line_with "bench full disk" "No space left on device"
    [ "$(cat "$tmp/full/r.json")" = old ] || fail "bench full disk: the old report was lost"
    ls -A "$tmp/full" | grep -q '^\.clconv-' && fail "bench full disk: a temporary file was left"
else
    echo "skip bench on a full disk: cannot mount a small tmpfs (needs root)"
fi
check "bench --csv to a regular file" 0 bench --csv "$tmp/r.csv"
head -1 "$tmp/r.csv" | grep -q '^clconv_version,' || fail "bench --csv: no header"

# --- a FIFO --float whose reader goes away ----------------------------------
# Its reader reads 10 bytes and leaves: the rest of the float32 .npy (360
# KB, more than a pipe holds) gets SIGPIPE or EPIPE. OUT's temporary file,
# open next to it, is removed and the old OUT kept (a SIGPIPE left the
# temporary file behind: the signal handler did not cover it).
mkdir "$tmp/pipe"
{ printf 'P5\n300 300\n255\n'; head -c 90000 /dev/zero; } >"$tmp/pipe/in.pgm"
echo old >"$tmp/pipe/o.pgm"
mkfifo "$tmp/pipe/f.npy"
head -c 10 "$tmp/pipe/f.npy" >/dev/null &
"$CLI" apply "$tmp/pipe/in.pgm" "$tmp/pipe/o.pgm" --mask 1 --float "$tmp/pipe/f.npy" \
    >/dev/null 2>"$tmp/err"
rc=$?
wait
if [ "$rc" -ne 0 ] && [ "$(cat "$tmp/pipe/o.pgm")" = old ] &&
    ! ls -A "$tmp/pipe" | grep -q '^\.clconv-'; then
    echo "ok   a --float FIFO closed early: exit $rc, old OUT kept, no temporary file"
else
    fail "a --float FIFO closed early: exit $rc, OUT '$(head -c 8 "$tmp/pipe/o.pgm")', left: $(ls -A "$tmp/pipe" | grep '^\.clconv-')"
fi

# --- a signal while apply writes, after the device's compiler ran --------
# PoCL's LLVM installs its own SIGINT/SIGTERM/SIGHUP handlers when it
# compiles; clconv's, installed before, must still remove the temporary
# file (the old OUT kept). Signalled as soon as the temporary file exists.
PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
    "$PY" - "$CLI" "$tmp/sig" <<'EOF_PY' || fails=$((fails + 1))
import os, signal, subprocess, sys, time
import numpy as np
cli, d = sys.argv[1], sys.argv[2]
os.makedirs(d)
np.save(f"{d}/in.npy", np.ones((96, 128, 128), np.float32))
bad = 0
# SIGALRM (timeout -s ALRM) left the temporary file (no handler took it)
# SIGUSR2 (mpirun forwards it, Slurm's --signal) left it too
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM,
            signal.SIGUSR2):
    with open(f"{d}/out.npy", "w") as f:
        f.write("old")
    p = subprocess.Popen([cli, "apply", f"{d}/in.npy", f"{d}/out.npy",
                          "--mask", "box:3"], stderr=subprocess.DEVNULL)
    t0 = time.time()
    while (p.poll() is None and time.time() - t0 < 120 and
           not any(n.startswith(".clconv-") for n in os.listdir(d))):
        time.sleep(0.0002)
    p.send_signal(sig)
    p.wait()
    left = [n for n in os.listdir(d) if n.startswith(".clconv-")]
    old = open(f"{d}/out.npy", "rb").read() == b"old"
    ok = p.returncode == -sig and not left and old
    # the run may have finished before the signal: then OUT is new, whole
    if p.returncode == 0:
        ok = not left and np.load(f"{d}/out.npy").shape == (96, 128, 128)
    print(("ok  " if ok else "FAIL") + f" {sig.name} during apply's write:"
          f" exit {p.returncode}, left {left}, old OUT kept {old}")
    bad += not ok
sys.exit(1 if bad else 0)
EOF_PY
else
    echo "skip signals during apply's write: $PY with numpy is not installed"
fi

[ "$fails" -eq 0 ] && echo "output_files.sh: all passed" || echo "output_files.sh: $fails failed"
[ "$fails" -eq 0 ]
