"""Median ms and % of the floor of each bench row of the xv steps, per
configuration over rounds: python3 xv_table.py CALL_DIR"""
import collections, glob, json, re, statistics, sys

rows = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/xv-*.json")):
    d = json.load(open(f))
    for r in d if isinstance(d, list) else d.get("results", d.get("rows")):
        tag = re.sub(r"-r\d\.json$", "", f.rsplit("/", 1)[1][3:])
        rows[tag].append((r["median_ms"], r["roofline_pct"], r["tile"]))
for tag, v in sorted(rows.items()):
    ms = [a for a, _, _ in v]
    print(f"{tag:16s} tile {v[0][2]:3d}  {len(v)} rounds  "
          f"{min(ms):.4f}-{max(ms):.4f} ms  "
          f"{statistics.median(p for _, p, _ in v):.1f}% of the floor")
