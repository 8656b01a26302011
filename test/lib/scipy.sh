# Sourced by the shell tests that compare with SciPy (not run: make test
# runs test/*.sh only): PY is Debian's python3; without NumPy and SciPy
# the test prints SKIP and exits 0; else $tmp is a scratch folder removed
# on exit.
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, scipy.ndimage' 2>/dev/null; then
    echo "SKIP $(basename "$0"): $PY with numpy and scipy is not installed" \
         "(apt-get install python3-numpy python3-scipy, or scripts/deps.sh)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
