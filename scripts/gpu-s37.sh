#!/bin/bash
# Session 37's device call (one H200), on the tree with the session's
# helpers' commits: test/apply_fuzz.py (random `clconv apply` calls
# against SciPy) on the GPU; the Python package built there (the
# derivative filters: sobel, prewitt, laplace, gaussian_laplace,
# gaussian_gradient_magnitude) under pytest (from .deps-carry/wheels
# where the machine has none) on the GPU;
# test_split (every device), test_dtype and test_stream (sampled) and
# test_paths' 2D and 3D coarse groups on the GPU; issue 17's targets at
# the defaults, twice.
# STEP=final (call 3, after the helpers' merges): the tests, pytest's
# test_derivatives.py alone and the targets once (call 1 ran out of its
# 600 s in pytest's test_filters.py, the NVIDIA JIT building each case's
# kernels cold).
# Usage on the device machine: OUT=... [STEP=final] bash scripts/gpu-s37.sh
. scripts/gpu-env.sh
gpu_call_begin
gpu_build build/test_stream build/test_split build/test_dtype build/test_paths
export XDG_CACHE_HOME=/tmp/xc CLCONV_KERNEL_DIR=$PWD/cl
python_package() {
    python3 -m pip install -q --no-build-isolation --no-deps --no-index \
        --target /tmp/pyclconv ./python >"$R/python-build.log" 2>&1
    el "python package: exit $?"
    # pytest from the carried wheels where the machine has none
    python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q --no-index \
        --find-links .deps-carry/wheels --target /tmp/pyt pytest >"$R/pytest-install.log" 2>&1
    if PYTHONPATH=/tmp/pyt python3 -c "import pytest" 2>/dev/null; then
        (cd python/tests && PYTHONPATH=/tmp/pyclconv:/tmp/pyt CLCONV_DEVICE=gpu timeout ${PYT:-300} \
            python3 -m pytest -q -p no:cacheprovider ${PYTESTS:-test_derivatives.py \
            test_filters.py test_narrow.py} >"$R/pytest-gpu.log" 2>&1)
        el "pytest on the GPU: exit $?"; tail -3 "$R/pytest-gpu.log"
    else
        el "no pytest on this machine: python/tests not run"
    fi
}
fuzz() {
    timeout 420 python3 test/apply_fuzz.py build/clconv ${FUZZ_CASES:-150} 37 gpu \
        >"$R/apply-fuzz-gpu.log" 2>&1
    el "apply_fuzz on the GPU: exit $?"; tail -4 "$R/apply-fuzz-gpu.log"
}
tests() {
    timeout 200 build/test_split >"$R/test_split.log" 2>&1
    el "test_split (every device): exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_split.log" | head -6
    CLCONV_DEVICE=gpu timeout 150 build/test_dtype >"$R/test_dtype-gpu.log" 2>&1
    el "test_dtype on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_dtype-gpu.log" | head -6
    CLCONV_DEVICE=gpu CLCONV_MATRIX_SAMPLE=pairwise timeout 200 \
        build/test_stream >"$R/test_stream-gpu.log" 2>&1
    el "test_stream on the GPU: exit $?"
    grep -E "PASSED|FAILED|ERROR" "$R/test_stream-gpu.log" | head -6
    gpu_tests "direct_2d_coarse*" "direct_3d_coarse*"
}
if [ "${STEP:-}" = final ]; then
    tests
    PYTESTS=test_derivatives.py python_package
    gpu_targets
    exit 0
fi
fuzz
python_package
tests
gpu_targets
mv "$R/targets.log" "$R/targets-1.log"
gpu_targets
