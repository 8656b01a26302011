#!/bin/sh
# Install what clconv needs on Debian/Ubuntu: the OpenCL headers and ICD
# loader (build), PoCL (a CPU OpenCL device), clinfo, libpng (images),
# cmocka (tests), VkFFT (the header-only FFT library of the FFT path),
# Python's NumPy/SciPy (comparison tests), pytest,
# venv, pip, setuptools, wheel, Dask and pyopencl (the Python package and
# its tests, test/python.sh), and OpenMPI (clconv-mpi and test/mpi.sh).
# With --if-missing, do nothing when the headers, loader, libpng, cmocka,
# VkFFT
# and an OpenCL driver are already there (the Python packages and OpenMPI
# are optional: their tests skip with a message, and the build leaves
# clconv-mpi out without OpenMPI).
set -eu

PACKAGES="pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo libcmocka-dev libpng-dev libvkfft-dev pkgconf python3-numpy python3-scipy python3-pytest python3-venv python3-pip python3-setuptools python3-wheel python3-dask python3-distributed python3-pyopencl libopenmpi-dev openmpi-bin"

have_all() {
    cc=${CC:-cc}
    printf '#include <CL/cl.h>\n#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n#include <png.h>\n#define VKFFT_BACKEND 3\n#include <vkFFT.h>\nint main(void){return 0;}\n' \
        | "$cc" -x c - -o /dev/null -lOpenCL -lcmocka -lpng >/dev/null 2>&1 || return 1
    ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || [ -n "${OCL_ICD_VENDORS:-}" ] || return 1
    command -v pkg-config >/dev/null 2>&1 || return 1
    return 0
}

if [ "${1:-}" = "--if-missing" ] && have_all; then
    exit 0
fi

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps.sh: all packages present:$PACKAGES"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps.sh: missing:$missing; no apt-get here, install them by hand" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "deps.sh: missing:$missing; run as root or install sudo" >&2
        exit 1
    fi
fi
echo "deps.sh: installing with apt-get:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
