#!/bin/sh
# The library package: `make install` into a staging folder, the examples
# compiled from the installed tree with nothing but `pkg-config --cflags
# --libs clconv` (shared, then --static), run with the kernels found beside
# the installed library, then `make uninstall` leaves no file behind.
# Usage: test/install.sh build/clconv   (the build folder is BIN's)
set -u
CLI=${1:-build/clconv}
BUILD=$(dirname "$CLI")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

if ! command -v pkg-config >/dev/null 2>&1; then
    echo "SKIP install.sh: pkg-config not found (apt-get install pkgconf)"
    exit 0
fi
stage=$tmp/stage
# The prefix the build was compiled with (its flags stamp): installing
# with another one would recompile the whole build folder (the prefix is
# a compile flag), under a clconv that CI's other lane may be running.
# DESTDIR stages it, so the prefix itself never has to exist.
prefix=$(sed -n 's/.*-DCLCONV_PREFIX=\([^ ]*\).*/\1/p' "$BUILD/.cflags" 2>/dev/null)
prefix=${prefix:-/usr/local}
built=$(ls -l --time-style=+%s.%N "$CLI" "$BUILD/libclconv.a" 2>/dev/null)
if make -s -C "$ROOT" BUILD="$BUILD" PREFIX="$prefix" DESTDIR="$stage" \
        install >"$tmp/install.log" 2>&1; then
    ok "make install into a staging folder"
else
    fail "make install"; sed 's/^/  | /' "$tmp/install.log"; exit 1
fi
[ "$(ls -l --time-style=+%s.%N "$CLI" "$BUILD/libclconv.a" 2>/dev/null)" = "$built" ] &&
    ok "make install rebuilt nothing in $BUILD" ||
    fail "make install rebuilt $CLI or its library"
lib=$stage$prefix/lib
for f in bin/clconv lib/libclconv.a lib/libclconv.so lib/pkgconfig/clconv.pc \
         include/clconv.h share/clconv/cl/common.clh; do
    [ -e "$stage$prefix/$f" ] || fail "installed tree lacks $f"
done
soname=$(objdump -p "$lib/libclconv.so" | awk '/SONAME/ {print $2}')
case $soname in
libclconv.so.[0-9]*) [ -e "$lib/$soname" ] && ok "soname $soname installed" \
                         || fail "soname link $soname missing" ;;
*) fail "libclconv.so has no versioned soname ($soname)" ;;
esac
leaked=$(nm -D --defined-only "$lib/libclconv.so" | awk '$2 == "T" && $3 !~ /^clconv_/' | head -3)
[ -z "$leaked" ] && ok "the shared library exports only clconv_ symbols" \
    || fail "internal symbols exported: $leaked"

# A sanitizer build's library needs the same runtime in the program.
san=""
nm -D "$lib/libclconv.so" | grep -q __asan_ && san="-fsanitize=address,undefined"
export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
unset CLCONV_KERNEL_DIR
for ex in "$ROOT"/examples/*.c; do
    name=$(basename "$ex" .c)
    # Built as its header says (` *   cc NAME.c $(pkg-config --cflags
    # --libs clconv) [LIBS] -o OUT`): the libraries it names beyond
    # pkg-config's, for its own calls (OpenCL, libm), and no others (every
    # example was given -lOpenCL -lm, so a header without -lm passed here
    # and failed for a user: "DSO missing from command line").
    line=$(grep '^ \*   cc .*\$(pkg-config --cflags --libs clconv)' "$ex")
    [ -n "$line" ] || { fail "$name: its header documents no build line"; continue; }
    own=$(echo "$line" | sed 's/.*--libs clconv) *//; s/ *-o [^ ]*$//')
    for kind in shared static; do
        flag=""; [ $kind = static ] && flag=--static
        libs=$(pkg-config --libs $flag clconv)
        [ $kind = static ] && libs=$(echo "$libs" | sed "s|-lclconv|$lib/libclconv.a|")
        # shellcheck disable=SC2046,SC2086
        if ! cc -std=c11 $san $(pkg-config --cflags clconv) "$ex" $libs $own \
                -o "$tmp/$name-$kind" 2>"$tmp/cc.err"; then
            fail "$name ($kind) does not build as its header says ($line)"
            sed 's/^/  | /' "$tmp/cc.err"; continue
        fi
        # Shared: the library finds the kernels beside itself. Static: the
        # program finds them at PREFIX, which is staged here, so say where.
        kdir=""; [ $kind = static ] && kdir=$stage$prefix/share/clconv/cl
        # (the caller's LD_LIBRARY_PATH kept after it: a driver may need it)
        if env ${kdir:+CLCONV_KERNEL_DIR=$kdir} LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                "$tmp/$name-$kind" >"$tmp/run.out" 2>&1; then
            ok "$name ($kind) builds with pkg-config and runs: $(head -1 "$tmp/run.out")"
        else
            fail "$name ($kind) failed"; sed 's/^/  | /' "$tmp/run.out"
        fi
    done
done

# Where MPI is built: clconv-mpi beside the installed clconv (which
# `mpirun -n N clconv apply` runs: it was left out of the install, so the
# installed clconv said it "needs clconv-mpi beside clconv"), the MPI
# library and its header.
if [ -x "$BUILD/clconv-mpi" ]; then
    for f in bin/clconv-mpi lib/libclconv_mpi.a include/clconv_mpi.h; do
        [ -e "$stage$prefix/$f" ] && ok "installed $f" \
            || fail "installed tree lacks $f (MPI is built)"
    done
    if command -v mpirun >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
        python3 -c "
import struct, sys
head = \"{'descr': '<f4', 'fortran_order': False, 'shape': (6, 5), }\"
head += ' ' * ((64 - (10 + len(head) + 1) % 64) % 64) + '\\n'
with open(sys.argv[1], 'wb') as f:
    f.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(head)) + head.encode())
    f.write(struct.pack('<30f', *[i * 0.25 for i in range(30)]))" "$tmp/in.npy"
        kdir=$stage$prefix/share/clconv/cl
        # OpenMPI's own allocations outlive MPI_Finalize: under `make
        # sanitize` LeakSanitizer would fail every rank (as in mpi.sh).
        [ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
        CLCONV_KERNEL_DIR=$kdir "$stage$prefix/bin/clconv" apply "$tmp/in.npy" \
            "$tmp/one.npy" --mask box:3 >/dev/null 2>"$tmp/mpi.err" &&
        CLCONV_KERNEL_DIR=$kdir timeout 120 mpirun --allow-run-as-root --oversubscribe \
            -n 2 "$stage$prefix/bin/clconv" apply "$tmp/in.npy" "$tmp/two.npy" \
            --mask box:3 >/dev/null 2>>"$tmp/mpi.err" &&
        cmp -s "$tmp/one.npy" "$tmp/two.npy" &&
            ok "the installed clconv under mpirun -n 2 gives one process's bytes" ||
            { fail "the installed clconv under mpirun -n 2"; sed 's/^/  | /' "$tmp/mpi.err"; }
    fi
fi

make -s -C "$ROOT" BUILD="$BUILD" PREFIX="$prefix" DESTDIR="$stage" \
    uninstall >"$tmp/uninstall.log" 2>&1 || fail "make uninstall"
left=$(find "$stage" ! -type d | head -5)
[ -z "$left" ] && ok "make uninstall removes every installed file" \
    || fail "make uninstall left: $left"
[ "$fails" -eq 0 ] || { echo "install.sh: $fails failed"; exit 1; }
echo "install.sh: all passed"
