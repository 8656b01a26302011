"""Per problem in a probe_modes log: each mode's time over constant's in
the same round, median over rounds (paired), and the ratio of the
fastest rounds. python3 probe_paired.py probe-modes.log"""
import re, statistics, sys

text = open(sys.argv[1]).read()
for head, body in re.findall(r"^(\S.*?vector, \d+ rounds.*?)\n((?:round .*\n)+)", text, re.M):
    rounds = [dict((m, float(v)) for m, v in re.findall(r"(constant|nearest|reflect|mirror|wrap) ([\d.]+)", l))
              for l in body.strip().split("\n")]
    c = [r["constant"] for r in rounds]
    cols = []
    for m in ("nearest", "reflect", "mirror", "wrap"):
        paired = statistics.median(r[m] / r["constant"] for r in rounds)
        cols.append(f"{m} {paired:.2f} (fastest {min(r[m] for r in rounds) / min(c):.2f})")
    print(re.sub(r"^.*Processor ", "", head) + ": " + "; ".join(cols))
