#!/bin/sh
# The Python package: `pip install` of python/ into a fresh virtual
# environment (Debian's python3 with its NumPy, SciPy, pytest, Dask and
# pyopencl visible), pytest on python/tests against scipy.ndimage, then
# `pip uninstall clconv` must leave no file of the package behind.
# Skips with a message when python3-venv, pip, numpy, scipy or pytest are
# missing (scripts/deps.sh installs them).
# Usage: test/python.sh build/clconv
set -u
CLI=${1:-build/clconv}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
for mod in numpy scipy.ndimage pytest venv pip setuptools wheel; do
    if ! "$PY" -c "import $mod" 2>/dev/null; then
        echo "SKIP python.sh: $PY cannot import $mod (apt-get install" \
             "python3-numpy python3-scipy python3-pytest python3-venv" \
             "python3-pip python3-setuptools python3-wheel, or scripts/deps.sh)"
        exit 0
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# Build from a copy of python/ beside links to the C sources, so the
# in-tree build's folders (build/, *.egg-info) stay out of the checkout.
mkdir "$tmp/src"
cp -r "$ROOT/python" "$tmp/src/python"
rm -rf "$tmp/src/python/build" "$tmp/src/python"/*.egg-info
for d in host include cl; do ln -s "$ROOT/$d" "$tmp/src/$d"; done
"$PY" -m venv --system-site-packages "$tmp/venv" || { fail "python3 -m venv"; exit 1; }
VPY=$tmp/venv/bin/python
# The package's library is built with the package's own flags (setup.py),
# not with make's CFLAGS and LDFLAGS, which make exports to this script:
# under `make sanitize` they would give an ASan library that the
# unsanitized python cannot load ("ASan runtime does not come first in
# initial library list", and python exits).
if env -u CFLAGS -u CPPFLAGS -u LDFLAGS "$VPY" -m pip install --no-build-isolation --no-deps --no-index \
        "$tmp/src/python" >"$tmp/pip.log" 2>&1; then
    ok "pip install ./python"
else
    fail "pip install ./python"; sed 's/^/  | /' "$tmp/pip.log"; exit 1
fi
site=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for f in clconv/_lib/libclconv_py.so clconv/cl/common.clh clconv/py.typed; do
    [ -e "$site/$f" ] || fail "the installed package lacks $f"
done

# pytest from an empty folder, so `import clconv` is the installed one.
mkdir "$tmp/run"
cli=$(cd "$(dirname "$CLI")" 2>/dev/null && pwd)/$(basename "$CLI")
if (cd "$tmp/run" && CLCONV_CLI=$cli \
        "$VPY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests"); then
    ok "pytest python/tests"
else
    fail "pytest python/tests"
fi

"$VPY" -m pip uninstall -y clconv >"$tmp/uninstall.log" 2>&1 \
    || { fail "pip uninstall clconv"; sed 's/^/  | /' "$tmp/uninstall.log"; }
left=$(find "$site" -maxdepth 1 -iname 'clconv*' | head -5)
[ -z "$left" ] && ok "pip uninstall clconv leaves nothing in site-packages" \
    || fail "left after pip uninstall: $left"
[ "$fails" -eq 0 ] || exit 1
