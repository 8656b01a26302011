"""The rounds side by side: clconv f32 and u8 (median ms, % of the
roofline floor), cv2.filter2D u8 and f32 (median ms), and the ratios
within each round."""
import json
import re
import sys

here, rounds = sys.argv[1], int(sys.argv[2])
print("round  clconv f32 ms (%floor)  clconv u8 ms (%floor)  cv2 u8 ms  "
      "cv2 f32 ms  f32/u8  cv2u8/clconv-u8")
for r in range(1, rounds + 1):
    row = {}
    for t in ("f32", "u8"):
        rep = json.load(open(f"{here}/bench-{t}-round{r}.json"))
        w = [x for x in rep["rows"] if x["status"] == "ok"][0]
        row[t] = (w["median_ms"], w["roofline_pct"])
    cv = {}
    for line in open(f"{here}/cv2-round{r}.txt"):
        m = re.match(r"cv2.filter2D (\w+)->\w+ .* median ([\d.]+)", line)
        cv[m.group(1)] = float(m.group(2))
    print(f"{r:5d}  {row['f32'][0]:10.2f} ({row['f32'][1]:4.0f}%)  "
          f"{row['u8'][0]:10.2f} ({row['u8'][1]:4.0f}%)  {cv['u8']:9.2f}  "
          f"{cv['f32']:9.2f}  {row['f32'][0] / row['u8'][0]:6.2f}  "
          f"{cv['u8'] / row['u8'][0]:6.2f}")
