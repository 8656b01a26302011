#!/bin/sh
# Smoke test of `clconv bench`: a tiny custom problem on the first device
# produces a table, a JSON and a CSV that parse and agree; usage errors
# exit 2. Runs in a few seconds (most of it measuring the two ceilings).
# Usage: test/bench_smoke.sh build/clconv
set -u
CLI=${1:-build/clconv}
PY=${PYTHON:-python3}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/lib/check.sh"

check "bench --help exits 0" 0 "$CLI" bench --help
check "bench rejects an origin out of range" 2 "$CLI" bench --dims 1 --size 64 --mask 4 --origin 2
check "bench rejects an unknown border mode" 2 "$CLI" bench --dims 1 --size 64 --mask 3 --mode reflect101
check "bench rejects fewer than 10 reps" 2 "$CLI" bench --dims 1 --size 64 --mask 3 --reps 5
check "bench rejects an unknown suite" 2 "$CLI" bench --suite huge
check "bench rejects --suite with --dims" 2 "$CLI" bench --suite quick --dims 1 --size 64 --mask 3

# --end-to-end: whole host-to-host calls of a small problem, verified, with
# what the call did (slabs, zero copy) and the transfer ceilings in JSON.
check "bench --end-to-end of a small problem" 0 "$CLI" bench --end-to-end \
    --dims 2 --size 67x45 --mask 3 --device 0:0 --seed 3 --json "$tmp/e.json"
if "$PY" - "$tmp/e.json" <<'PYEOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1, rows
r = rows[0]
for k in ("device", "size", "mask", "strategy", "status", "ms", "slabs",
          "devices", "zero_copy", "h2d_gbs", "d2h_gbs"):
    assert k in r, k
assert r["status"] == "ok" and r["ms"] > 0 and r["slabs"] >= 1, r
PYEOF
then echo "ok   bench --end-to-end JSON"; else echo "FAIL bench --end-to-end JSON"; fails=$((fails + 1)); fi
# The filter applies to --end-to-end's calls (it was parsed and ignored:
# --mask 5x3 ran a 5x5 mask, --mode and --batch left out).
check "bench --end-to-end with a filter and a batch" 0 "$CLI" bench --end-to-end \
    --dims 2 --size 37x21 --mask 5x2 --origin 1,-1 --mode wrap --convolve \
    --batch 3 --device 0:0 --seed 3 --json "$tmp/f.json"
if "$PY" - "$tmp/f.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert r["status"] == "ok" and r["size"] == "37x21x3", r
assert r["mask_size"] == "5x2x1" and r["mode"] == "wrap", r
assert r["origin"] == "1,-1,0" and r["convolve"] is True, r
PYEOF
then echo "ok   bench --end-to-end applies the filter"; else echo "FAIL bench --end-to-end applies the filter"; fails=$((fails + 1)); fi

check "bench of a small 2D problem runs every strategy" 0 "$CLI" bench \
    --dims 2 --size 67x45 --mask 3 --tiles default --device 0:0 --seed 3 \
    --json "$tmp/b.json" --csv "$tmp/b.csv"
grep -q '2D 67x45 W=3' "$tmp/out" || { echo "FAIL bench: no table row"; fails=$((fails + 1)); }
grep -q 'about .* s left' "$tmp/err" || { echo "FAIL bench: no progress on stderr"; fails=$((fails + 1)); }

# The JSON and CSV parse, carry the device and its ceilings, and every
# row ran, verified and got a roofline percentage.
if "$PY" - "$tmp/b.json" "$tmp/b.csv" <<'PYEOF'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert doc["schema"] == "clconv-bench-1", doc["schema"]
assert doc["clconv_version"] and doc["date"].endswith("Z")
dev = doc["devices"][0]
for key in ("name", "vendor", "driver", "opencl_version", "compute_units"):
    assert dev[key] not in (None, ""), key
assert dev["copy_gbs"] > 0 and dev["fp32_gflops"] > 0, dev
assert len(doc["problems"]) == 1 and doc["problems"][0]["size"] == [67, 45, 1]
assert len(doc["rows"]) >= 4, len(doc["rows"])
assert len(rows) == len(doc["rows"]), (len(rows), len(doc["rows"]))
for r in doc["rows"]:
    assert r["status"] == "ok", r
    assert r["reps"] >= 10 and r["min_ms"] <= r["median_ms"] <= r["max_ms"], r
    assert 0 < r["roofline_pct"], r
    assert (r["model_reduction"] is None) == (r["variant"] == "naive"), r
assert doc["best"] and doc["best"][0]["problem"] == 0
for r in rows:
    assert r["status"] == "ok" and float(r["median_ms"]) > 0, r
PYEOF
then
    echo "ok   bench JSON and CSV parse and agree"
else
    echo "FAIL bench JSON/CSV"; fails=$((fails + 1))
fi

# A problem's entry says what its rows ran: a u8 -> u8 problem with a 5x1
# mask moves 2 bytes per element and does 2 x 5 FLOPs (not float32's 8
# bytes and a 5x5 mask's 50).
check "bench of a u8 problem with a 5x1 mask" 0 "$CLI" bench --dims 2 \
    --size 67x45 --mask 5x1 --dtype u8 --strategy vector --tiles default \
    --device 0:0 --seed 3 --json "$tmp/u.json"
if "$PY" - "$tmp/u.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
p = doc["problems"][0]
n = 67 * 45
assert p["elements"] == n and p["bytes"] == 2 * n, p
assert p["flops"] == 2 * 5 * n and p["intensity"] == 5, p
assert p["dtype"] == "u8" and p["out_dtype"] == "u8", p
r = doc["rows"][0]
assert r["dtype"] == "u8" and r["mask_size"] == [5, 1], r
PYEOF
then echo "ok   bench JSON: the problem in its rows' types and mask"; else echo "FAIL bench JSON: the problem's bytes, flops or types"; fails=$((fails + 1)); fi

# The large-mask suite on one custom problem in a border mode: every method
# verified at sampled outputs (the reference follows the mode), rows name
# the mode; a custom problem without --mask is a usage error.
check "bench --suite large-quick, a custom reflect problem" 0 "$CLI" bench --suite large-quick --dims 2 --size 61x47 --mask 9 --mode reflect --reps 1 --warmup 0 --json
if grep -q '"mode": "reflect", "method": "fft", "ran": "fft"' "$tmp/out" &&
   grep -q '"method": "direct"' "$tmp/out"; then
    ok "its rows: direct and fft in mode reflect"
else
    fail "its rows lack direct or fft in mode reflect"; sed 's/^/  | /' "$tmp/out"
fi
check "bench --suite large-quick --dims without --mask is a usage error" 2 "$CLI" bench --suite large-quick --dims 2 --size 64
# --json FILE and --csv FILE, as every command takes them (they were
# unknown options here: exit 2 after --json, which took no FILE).
rm -f "$tmp/large.json" "$tmp/large.csv"
check "bench --suite large-quick --json FILE --csv FILE" 0 "$CLI" bench --suite large-quick --dims 1 --size 500 --mask 31 --method fft --reps 1 --warmup 0 --device 0:0 --json "$tmp/large.json" --csv "$tmp/large.csv"
if grep -q 'fft .* ms (model' "$tmp/out" &&
   "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r) == 1 and r[0]["method"] == "fft" and r[0]["device"].startswith("0:0 "), r' "$tmp/large.json" &&
   head -1 "$tmp/large.csv" | grep -q '^device,dims,size,mask,mask_kind,mode,method,ran,strategy,status,predicted_ms,median_ms' &&
   [ "$(wc -l < "$tmp/large.csv")" -eq 2 ]; then
    ok "its line on stdout, its row in the JSON and CSV files"
else
    fail "bench --suite large-quick's files or line"; sed 's/^/  | /' "$tmp/out" "$tmp/large.json" "$tmp/large.csv" 2>&1
fi

# --kind gaussian makes the custom problem separable; --method keeps one
# method's rows.
check "bench --suite large-quick, a custom Gaussian, separable only" 0 "$CLI" bench --suite large-quick --dims 2 --size 300x7 --mask 41 --kind gaussian --method separable --mode mirror --reps 1 --warmup 0 --json
if grep -q '"mask_kind": "gaussian", "mode": "mirror", "method": "separable", "ran": "separable"' "$tmp/out" &&
   ! grep -q '"method": "direct"\|"method": "fft"\|"method": "auto"' "$tmp/out"; then
    ok "its one row: separable, a Gaussian, mode mirror"
else
    fail "its rows are not the one separable Gaussian row"; sed 's/^/  | /' "$tmp/out"
fi
check "bench --suite large-quick --kind without a custom problem is a usage error" 2 "$CLI" bench --suite large-quick --kind gaussian
check "bench --suite large-quick --kind box is a usage error" 2 "$CLI" bench --suite large-quick --dims 2 --size 64 --mask 5 --kind box
check "bench --suite large-quick --method separable on a random 2D mask is a usage error" 2 "$CLI" bench --suite large-quick --dims 2 --size 64 --mask 5 --method separable
check "bench --suite large-quick --method sep is a usage error" 2 "$CLI" bench --suite large-quick --method sep

[ "$fails" -eq 0 ] || { echo "$fails bench smoke check(s) failed"; exit 1; }
