import re,sys,collections,statistics as st
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    m=re.match(r'r(\d+) D(\d) (\S+) W(\d+) (before|after) .*?T=\d+\s+(?:(nearest|reflect|mirror|wrap) )?C=.*ok .* ([\d.]+) ms',line)
    if not m: continue
    r,dim,size,w,v,mode,ms=m.groups(); mode=mode or 'constant'
    d[(dim,size,w,v)].append((mode,float(ms)))
for k,v in sorted(d.items()):
    per=collections.defaultdict(list)
    for mode,ms in v: per[mode].append(ms)
    c=st.median(per['constant'])
    print(f"{k[0]}D {k[1]} W={k[2]} {k[3]:6}: constant {c:.3f} ms; "+"; ".join(f"{m} {st.median(per[m])/c:.2f}" for m in ['nearest','reflect','mirror','wrap']))
