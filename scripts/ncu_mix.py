"""The instruction mix of one kernel in an Nsight Compute report: reads
`ncu --import R --page source --print-source sass --csv` on stdin and
prints each opcode's share of the executed warp instructions, largest
first (the per-instruction CSV is megabytes; this is the part kept)."""
import collections
import csv
import sys

rows = list(csv.reader(sys.stdin))
head = next(i for i, r in enumerate(rows) if "Source" in r)
cols = rows[head]
src = cols.index("Source")
count = next(i for i, c in enumerate(cols)
             if c.startswith("Warp Instructions Executed")
             or c == "Instructions Executed")
mix = collections.Counter()
for r in rows[head + 1:]:
    if len(r) <= max(src, count) or not r[count].replace(",", "").isdigit():
        continue
    words = r[src].split()
    if words and words[0].startswith("@"):
        words = words[1:]
    if words:
        mix[words[0].split(".")[0]] += int(r[count].replace(",", ""))
total = sum(mix.values()) or 1
print("column:", cols[count], "total", total)
for op, n in mix.most_common(25):
    print("%-10s %6.2f%%  %d" % (op, 100.0 * n / total, n))
