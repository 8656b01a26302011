#!/bin/sh
# --json and --csv of run, tune, devices and bench: on stdout (no FILE, or
# -) instead of the text, or written to FILE; the JSON parses, the CSV has
# a header and one line per JSON row, both carry the same values.
# Usage: test/cli_output.sh build/clconv
set -u
CLI=${1:-build/clconv}
PY=${PYTHON:-python3}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib/check.sh"
# same JSON CSV N KEY..: both parse, N rows each (0: at least one), the
# keys present, CSV and JSON agree on each key.
same() {
    if "$PY" - "$@" <<'PYEOF'
import csv, json, sys
js, cs, n, keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rows = json.load(open(js))
lines = list(csv.DictReader(open(cs)))
assert (len(rows) == n if n else len(rows) >= 1), (len(rows), n)
assert len(lines) == len(rows), (len(lines), len(rows))
for r, c in zip(rows, lines):
    for k in keys:
        v = r
        for part in k.split("."):
            v = v[part]
        want = "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
        got = c[k]
        if isinstance(v, float):
            assert abs(float(got) - v) <= 1e-9 + 1e-6 * abs(v), (k, got, v)
        else:
            assert got == want, (k, got, want)
PYEOF
    then echo "ok   ${1##*/} and ${2##*/} agree"; else echo "FAIL ${1##*/} / ${2##*/}"; fails=$((fails + 1)); fi
}

RUN="run --dims 2 --size 37x23 --mask 5 --device 0:0 --reps 1 --seed 7"
check "run --json prints only JSON on stdout" 0 $CLI $RUN --json
cp "$tmp/out" "$tmp/run.json"
check "run --csv - prints only CSV on stdout" 0 $CLI $RUN --csv -
cp "$tmp/out" "$tmp/run.csv"
head -1 "$tmp/run.csv" | grep -q '^device,strategy,dims,size,mask,tile,status,mask_mode,' \
    || { echo "FAIL run csv header: $(head -1 "$tmp/run.csv")"; fails=$((fails + 1)); }
same "$tmp/run.json" "$tmp/run.csv" 6 device strategy dims size mask tile status mask_mode max_err
check "run --dtype u8 --json" 0 $CLI $RUN --dtype u8 --strategy naive --json "$tmp/u8.json" --csv "$tmp/u8.csv"
same "$tmp/u8.json" "$tmp/u8.csv" 1 dtype out_dtype status
grep -q '"dtype": *"u8", *"out_dtype": *"u8"' "$tmp/u8.json" \
    || { echo "FAIL run --dtype u8: the rows do not say u8 -> u8"; fails=$((fails + 1)); }
check "run --dtype i16 --out-dtype f32 --csv" 0 $CLI $RUN --dtype i16 --out-dtype f32 --strategy naive --csv -
grep -q '"i16","f32"' "$tmp/out" \
    || { echo "FAIL run --dtype i16 --out-dtype f32: the CSV row says $(tail -1 "$tmp/out")"; fails=$((fails + 1)); }
check "run --json FILE --csv FILE keeps the lines on stdout" 0 $CLI $RUN --json "$tmp/r2.json" --csv="$tmp/r2.csv"
grep -q ' ok ' "$tmp/out" || { echo "FAIL run: no text line with files"; fails=$((fails + 1)); }
same "$tmp/r2.json" "$tmp/r2.csv" 6 device strategy status ms gbs
check "run --json and --csv both on stdout is a usage error" 2 $CLI $RUN --json --csv
check "run --table with --json on stdout is a usage error" 2 $CLI $RUN --json - --table
# /dev/stdout is stdout: --json /dev/stdout was written after the text
# rows (JSON that did not parse), and --csv - beside it mixed the two; one
# FILE for both kept the CSV only, exit 0.
"$CLI" $RUN --json /dev/stdout 2>/dev/null | "$PY" -c 'import json,sys; assert len(json.load(sys.stdin)) == 6' &&
    ok "run --json /dev/stdout into a pipe is only the JSON" ||
    fail "run --json /dev/stdout into a pipe is not only the JSON"
check "run --json /dev/stdout --csv - is a usage error" 2 $CLI $RUN --json /dev/stdout --csv -
check "run --json FILE --csv FILE is a usage error" 2 $CLI $RUN --json "$tmp/same" --csv "$tmp/./same"
grep -q "name the same file" "$tmp/err" || fail "run --json FILE --csv FILE: '$(cat "$tmp/err")'"
[ ! -e "$tmp/same" ] || fail "run --json FILE --csv FILE: a file was written"
ln -s same2 "$tmp/same-link"
check "bench --json FILE --csv a link to FILE is a usage error" 2 $CLI bench \
    --dims 1 --size 64 --mask 3 --tiles default --strategy naive --device 0:0 --quiet \
    --json "$tmp/same2" --csv "$tmp/same-link"
check "run --json /dev/null --csv /dev/null" 0 $CLI $RUN --json /dev/null --csv /dev/null
check "run --json into a missing folder fails with exit 3" 3 $CLI $RUN --json "$tmp/no/such/dir/r.json"
[ ! -e "$tmp/no" ] || { echo "FAIL: a folder was created"; fails=$((fails + 1)); }

check "devices --json" 0 $CLI devices --json
cp "$tmp/out" "$tmp/dev.json"
check "devices --csv" 0 $CLI devices --csv
cp "$tmp/out" "$tmp/dev.csv"
same "$tmp/dev.json" "$tmp/dev.csv" 0 id name type compute_units max_work_group_size global_mem_bytes
grep -q '"id": "0:0"' "$tmp/dev.json" || { echo "FAIL devices: no 0:0 in JSON"; fails=$((fails + 1)); }
check "devices takes no other argument" 2 $CLI devices --bogus

# tune writes its cache under XDG_CACHE_HOME: a temporary one.
TUNE="env XDG_CACHE_HOME=$tmp/cache $CLI tune --device 0:0 --dims 1 --size 256 --mask 3 --budget 2 --reps 1 --seed 3 --quiet"
check "tune --json FILE --csv FILE" 0 $TUNE --json "$tmp/t.json" --csv "$tmp/t.csv"
grep -q 'best' "$tmp/out" || { echo "FAIL tune: no text row with files"; fails=$((fails + 1)); }
same "$tmp/t.json" "$tmp/t.csv" 1 device dims size mask found strategy tile default.strategy default.tile tried out_of_time
check "tune --json on stdout" 0 $TUNE --json
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r[0]["found"] and "ms" in r[0]["default"]' "$tmp/out" \
    || { echo "FAIL tune --json: stdout is not the JSON"; fails=$((fails + 1)); }

# The tuning cache's class names the mask's shape, the types and the mode:
# tune says so (text, JSON, CSV) and writes them (format 3), and auto takes
# the entry for that problem only (format 2 gave the reflect entry to mode
# constant).
TUNE2="env XDG_CACHE_HOME=$tmp/cache2 $CLI tune --device 0:0 --dims 2 --size 24x20 --mask 5x3 --dtype u8 --mode reflect --budget 2 --reps 1 --seed 3 --quiet"
check "tune --mode reflect --dtype u8 --mask 5x3" 0 $TUNE2 --json "$tmp/t2.json" --csv "$tmp/t2.csv"
grep -q ' 5x3 .* u8 .* u8 .* reflect ' "$tmp/out" || fail "tune: the text row does not show 5x3 u8 u8 reflect"
same "$tmp/t2.json" "$tmp/t2.csv" 1 mask_size dtype out_dtype mode
"$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert (r["mask_size"], r["dtype"], r["out_dtype"], r["mode"]) == ("5x3", "u8", "u8", "reflect"), r
' "$tmp/t2.json" || fail "tune --json: the class fields are not 5x3 u8 u8 reflect"
head -n 1 "$tmp"/cache2/clconv/tune-*.txt | grep -qx 'clconv tuning 3' || fail "tune: the cache is not format 3"
grep -q '	5x3x1	u8	u8	reflect$' "$tmp"/cache2/clconv/tune-*.txt || fail "tune: the entry does not name 5x3x1 u8 u8 reflect"
AUTO="env XDG_CACHE_HOME=$tmp/cache2 $CLI run --device 0:0 --dims 2 --size 24x20 --mask 5x3 --strategy auto --reps 1 --seed 3"
for m in "reflect u8 (tuned)" "constant u8 (not tuned" "wrap u8 (not tuned" "reflect f32 (not tuned"; do
    set -- $m
    check "run --strategy auto --mode $1 --dtype $2" 0 $AUTO --mode "$1" --dtype "$2"
    grep 'auto on' "$tmp/err" | grep -qF "$3" || { fail "auto --mode $1 --dtype $2: not $3"; sed 's/^/  | /' "$tmp/err"; }
done

check "bench --dtype u8 --json: the floor counts 2 bytes per element" 0 $CLI bench \
    --dims 1 --size 4096 --mask 3 --tiles default --strategy naive --device 0:0 --dtype u8 --json - --quiet
"$PY" -c "
import json, sys
r = json.load(open('$tmp/out'))
rows = r['rows']
assert rows and all(w['dtype'] == 'u8' and w['out_dtype'] == 'u8' for w in rows), rows
" || { echo "FAIL bench --dtype u8: rows without u8"; fails=$((fails + 1)); }
check "bench --json - prints the report instead of the table" 0 $CLI bench \
    --dims 1 --size 64 --mask 3 --tiles default --strategy naive --device 0:0 --json - --quiet
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="clconv-bench-1"' "$tmp/out" \
    || { echo "FAIL bench --json -: stdout is not the report"; fails=$((fails + 1)); }

if [ "$fails" -ne 0 ]; then echo "cli_output.sh: $fails failure(s)"; exit 1; fi
echo "cli_output.sh: all passed"
