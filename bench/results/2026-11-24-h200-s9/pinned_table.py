#!/usr/bin/env python3
"""The pinned A/B of one call folder: per problem, each round's median ms
with staging off (pageable) and on (pinned), and each against the floors
measured in its own process. usage: pinned_table.py FOLDER"""
import collections
import glob
import json
import sys

rows = collections.defaultdict(lambda: {"0": [], "1": []})
for f in sorted(glob.glob(f"{sys.argv[1]}/pinned-[01]-r*.json")):
    v = f.rsplit("pinned-", 1)[1][0]
    for r in json.load(open(f)):
        rows[(r["size"], r["mask"])][v].append(r)
print("| problem | pageable ms (x its floor) | pinned ms (x pageable floor, x pinned floor) |")
print("|---|---|---|")
for (size, w), v in rows.items():
    off = ", ".join(f"{r['ms']:.2f} (x{r['ms'] / r['floor_ms']:.2f})" for r in v["0"])
    on = ", ".join(f"{r['ms']:.2f} (x{r['ms'] / r['floor_ms']:.2f}, x{r['ms'] / r['pinned_floor_ms']:.2f})"
                   for r in v["1"])
    print(f"| {size} W={w} | {off} | {on} |")
