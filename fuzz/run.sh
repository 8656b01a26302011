#!/bin/sh
# Run libFuzzer targets: first replay every file of fuzz/regress/<target>/
# (inputs that once crashed, kept as regression tests), then fuzz for a
# bounded time from the committed seed corpus fuzz/corpus/<target>/.
#
# usage: fuzz/run.sh BUILD SECONDS TARGET...
# New corpus entries go to BUILD/corpus/<target>/ (the committed corpus is
# only read); a crash is saved as BUILD/crash-<target>-* and fails the run.
# Copy it to fuzz/regress/<target>/ once fixed.
set -eu
build=$1
secs=$2
shift 2
here=$(dirname "$0")
status=0
for t in "$@"; do
    bin="$build/fuzz_$t"
    seeds="$here/corpus/$t"
    regress="$here/regress/$t"
    if [ ! -d "$seeds" ]; then
        echo "fuzz: $t has no seed corpus $seeds" >&2
        exit 2
    fi
    if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
        echo "== fuzz_$t: regressions in $regress"
        if ! "$bin" "$regress"/* >"$build/regress-$t.log" 2>&1; then
            tail -n 40 "$build/regress-$t.log" >&2
            status=1
            continue
        fi
    fi
    mkdir -p "$build/corpus/$t"
    echo "== fuzz_$t: ${secs}s from $seeds"
    start=$(date +%s)
    if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -close_fd_mask=2 \
        -artifact_prefix="$build/crash-$t-" \
        "$build/corpus/$t" "$seeds" >"$build/fuzz-$t.log" 2>&1; then
        grep -E "^stat::(number_of_executed_units|new_units_added)" \
            "$build/fuzz-$t.log" | tr '\n' ' '
        echo "($(($(date +%s) - start)) s, no finding)"
    else
        tail -n 60 "$build/fuzz-$t.log" >&2
        echo "fuzz: fuzz_$t found a crash: $(ls "$build"/crash-"$t"-* 2>/dev/null)" >&2
        status=1
    fi
done
exit $status
