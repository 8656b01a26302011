# Helpers for the shell tests (sourced, not run: make test runs test/*.sh
# only). The caller sets $tmp (a scratch folder) and fails=0.
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# check NAME EXPECTED-EXIT COMMAND...: stdout in $tmp/out, stderr in
# $tmp/err (shown on a wrong exit).
check() {
    name=$1; want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit $got, expected $want"; sed 's/^/  | /' "$tmp/err"
    else
        ok "$name"
    fi
}

# numpy_python: the first of $PYTHON, python3 and Debian's /usr/bin/python3
# that imports NumPy (a PATH's python3, pyenv's say, may have none), or
# nothing.
numpy_python() {
    for p in ${PYTHON:-} python3 /usr/bin/python3; do
        if "$p" -c 'import numpy' 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}
