import re,sys,collections,statistics as st
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    m=re.match(r'r(\d+) D(\d) (\S+) W(\d+) .*?T=\d+\s+(?:(nearest|reflect|mirror|wrap) )?C=.*ok .* ([\d.]+) ms',line)
    if not m: continue
    r,dim,size,w,mode,ms=m.groups(); mode=mode or 'constant'
    d[(dim,size,w)].append((int(r),mode,float(ms)))
for k,v in d.items():
    per=collections.defaultdict(list)
    for r,mode,ms in v: per[mode].append(ms)
    c=st.median(per['constant']); cmin=min(per['constant'])
    out=[f"{k[0]}D {k[1]} W={k[2]}: constant med {c:.3f} min {cmin:.3f}"]
    for mode in ['nearest','reflect','mirror','wrap']:
        out.append(f"{mode} {st.median(per[mode])/c:.2f} (min {min(per[mode])/cmin:.2f})")
    print("; ".join(out))
