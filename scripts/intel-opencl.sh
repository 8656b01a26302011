#!/bin/sh
# Intel's CPU OpenCL runtime from PyPI, as a second vendor's compiler for
# the tests (issue 14). Downloads the wheels once (pip download --no-deps:
# intel-opencl-rt, intel-cmplr-lib-rt and tbb 2023 for its libraries) into
# a cache folder, unpacks them there, and writes an ICD file naming Intel's
# libintelocl.so into a private vendors folder. The wheel's own libOpenCL
# is never used: the system's ICD loader loads Intel's driver.
#
# Prints the environment to use, one assignment a line:
#   OCL_ICD_VENDORS=<private vendors folder>   (Intel's device alone)
#   LD_LIBRARY_PATH=<its dependent libraries>:$LD_LIBRARY_PATH
# so: eval "$(scripts/intel-opencl.sh | sed 's/^/export /')"
# Usage: scripts/intel-opencl.sh [CACHE_DIR]
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/clconv/intel-opencl)
set -eu
DIR=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/clconv/intel-opencl}
PIP=${PIP:-pip}
mkdir -p "$DIR/wheels" "$DIR/unpacked" "$DIR/vendors"
if ! ls "$DIR"/wheels/intel_opencl_rt-*.whl >/dev/null 2>&1; then
    echo "intel-opencl.sh: downloading the wheels into $DIR/wheels" >&2
    "$PIP" download --quiet --no-deps --only-binary=:all: -d "$DIR/wheels" \
        intel-opencl-rt intel-cmplr-lib-rt 'tbb==2023.*' >&2
fi
stamp="$DIR/unpacked/.done"
if [ ! -f "$stamp" ] || [ -n "$(find "$DIR/wheels" -newer "$stamp" -name '*.whl')" ]; then
    command -v unzip >/dev/null 2>&1 || {
        echo "intel-opencl.sh: needs unzip (apt-get install unzip)" >&2; exit 1; }
    rm -rf "$DIR/unpacked"
    mkdir -p "$DIR/unpacked"
    for w in "$DIR"/wheels/*.whl; do
        unzip -q -o "$w" -d "$DIR/unpacked"
    done
    # The wheel's own ICD loader would shadow the system's through
    # LD_LIBRARY_PATH: removed, so the system loader reads our ICD file.
    find "$DIR/unpacked" -name 'libOpenCL.so*' -exec rm -f {} +
    touch "$stamp"
fi
lib=$(find "$DIR/unpacked" -name 'libintelocl.so*' ! -name '*.py' | sort | head -n 1)
if [ -z "$lib" ]; then
    echo "intel-opencl.sh: no libintelocl.so in $DIR/unpacked" >&2
    exit 1
fi
echo "$lib" >"$DIR/vendors/intel-cpu.icd"
# The folders of Intel's dependent libraries (libtbb, the compiler
# runtime, its own).
libdirs=$(find "$DIR/unpacked" -name '*.so*' -exec dirname {} \; | sort -u | tr '\n' ':')
echo "OCL_ICD_VENDORS=$DIR/vendors"
echo "LD_LIBRARY_PATH=${libdirs}${LD_LIBRARY_PATH:-}"
