"""Bermuda 0.8 three ways on the house (SPHERE): the yardstick's re-implementation, Bermuda's own source, presence-bench's port.

  python3 bermuda_sources.py RECEIVERS_DIR YARDSTICK_DIR

Each row adds one difference to the yardstick's rule (baselines.bermuda) and scores the decisions twice: with the
yardstick's score.py (every change of the decision counts) and as presence-bench's RoomDecisionScore does
(the decision sampled at truth rows). Research only: docs/research/2026-12-07-real-house-worn.md.
"""
import math, statistics, sys
YARDSTICK = sys.argv[2] if len(sys.argv) > 2 else '.'; sys.path.insert(0, YARDSTICK)
import baselines, score as ys
from collections import defaultdict, deque
NAMES = ['00001', '00003', '00006', '00007', '00009']
B = 'ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1'
def bench_score(dec, truth):
    """presence-bench's RoomDecisionScore: decisions sampled at truth rows."""
    dec=sorted((t,r) for t,b,r in dec); tru=sorted((t,r) for t,b,r in truth)
    decided=[]; j=0; cur=None
    for t,r in tru:
        while j<len(dec) and dec[j][0]<=t: cur=dec[j][1]; j+=1
        decided.append(cur)
    correct=sum(1 for d,(t,r) in zip(decided,tru) if d==r)
    dch=sum(1 for i in range(1,len(tru)) if decided[i-1] is not None and decided[i]!=decided[i-1])
    tch=0; lats=[]
    for i in range(1,len(tru)):
        if tru[i][1]!=tru[i-1][1]:
            tch+=1; lat=tru[-1][0]-tru[i][0]
            for k in range(i,len(tru)):
                if decided[k]==tru[i][1]: lat=tru[k][0]-tru[i][0]; break
            lats.append(lat)
    return dict(accuracy=correct/len(tru), flaps=max(0,dch-tch), latencyMedian=statistics.median(lats) if lats else None)
def bermuda(rows, cycle=1.05, samples=20, max_age=10.0, repeat=False, velocity=False, pdiff='sym', hist='smoothed', timeout=30.0, maxv=3.0):
    out, state = [], {}
    S = {}   # node -> dict
    inc=None; nxt=rows[0][0]+cycle if rows else 0
    latest={}
    def dist(r): return 10**((-55.0-r)/30.0)
    def run(now):
        nonlocal inc
        for node, s in S.items():
            fresh = latest.pop(node, None)
            if fresh is not None:
                t, raw, room = fresh
                s['stamp']=t; s['raw']=raw; s['room']=room
                s['hd'].insert(0,raw); s['hs'].insert(0,t); del s['hd'][10:]; del s['hs'][10:]
                if s['dist'] is None:
                    s['dist']=raw; s['byc']=[raw]; s['rec']=deque([raw],maxlen=5); continue
            elif not repeat:
                if now - s['stamp'] > timeout: s['dist']=None; s['byc']=[]
                continue
            if fresh is None and now - s['stamp'] > timeout:
                s['dist']=None; s['byc']=[]; continue
            if s['dist'] is None: continue
            raw=s['raw']; v=0
            if velocity and len(s['hs'])>1:
                dt=s['hs'][0]-s['hs'][1]; v=(s['hd'][0]-s['hd'][1])/dt if dt>0 else 0
                if v>=0:
                    for od,ot in zip(s['hd'][2:],s['hs'][2:]):
                        dt=s['hs'][0]-ot
                        if dt>0: v=max(v,(s['hd'][0]-od)/dt)
            s['byc'].insert(0, s['byc'][0] if (velocity and v>maxv and s['byc']) else raw); del s['byc'][samples:]
            tot=0; lm=raw
            for d in s['byc']:
                lm=min(lm,d); tot+=lm
            s['dist']=min(tot/len(s['byc']), raw); s['rec'].append(s['dist'])
        cands=[n for n,s in S.items() if s['dist'] is not None and now-s['stamp']<=max_age and s['dist']<=20]
        if inc is not None and (S[inc]['dist'] is None or now-S[inc]['stamp']>max_age): inc=None
        for n in cands:
            if n==inc: continue
            if inc is None: inc=n; continue
            a,c=S[n]['dist'],S[inc]['dist']
            if a>=c: continue
            pd = abs(a-c)/((a+c)/2) if pdiff=='sym' else (c-a)/c
            if hist=='smoothed':
                hok = len(S[n]['rec'])>=3 and max(S[n]['rec'])<min(S[inc]['rec'])
            else:
                hok = len(S[n]['byc'])>3 and max(S[n]['byc'][:5])<min(S[inc]['byc'][:5])
            if hok and pd>0.15: inc=n
            elif pd>=0.30: inc=n
        if inc is not None:
            r=S[inc]['room']
            if state.get(0)!=r: state[0]=r; out.append((now,B,r))
    for t,node,room,b,rssi in rows:
        while t>=nxt: run(nxt); nxt+=cycle
        if node not in S: S[node]=dict(stamp=-1e9,raw=None,room=room,hd=[],hs=[],dist=None,byc=[],rec=deque(maxlen=5))
        latest[node]=(t,dist(rssi),room)
    return out
def evalset(d, **kw):
    rows=[]
    for n in NAMES:
        tr=baselines.load(f'{d}/sphere-{n}.trace.csv'); truth=ys.load(f'{d}/sphere-{n}.truth.csv')
        dec=bermuda(tr, **kw)
        rows.append((n, ys.score(dec,truth), bench_score(dec,truth)))
    acc=statistics.mean(r[1]['accuracy'] for r in rows)
    y=dict(acc=round(acc,4), flaps=sum(r[1]['flaps'] for r in rows), lat=statistics.median([r[1]['latencyMedian'] for r in rows]), per=[r[1]['flaps'] for r in rows])
    b=dict(acc=round(statistics.mean(r[2]['accuracy'] for r in rows),4), flaps=sum(r[2]['flaps'] for r in rows), lat=statistics.median([r[2]['latencyMedian'] for r in rows]), per=[r[2]['flaps'] for r in rows])
    return y,b
if __name__=='__main__':
    d = sys.argv[1]
    # sanity: our default equals yardstick
    tr=baselines.load(f'{d}/sphere-00001.trace.csv')
    print('same as yardstick:', all(bermuda(baselines.load(f'{d}/sphere-{n}.trace.csv'),timeout=float('inf'))==baselines.bermuda(baselines.load(f'{d}/sphere-{n}.trace.csv')) for n in NAMES))
    I=float('inf')
    steps=[('yardstick',dict(timeout=I)),
           ('+history cleared after 30 s unheard (source)',dict()),
           ('+last reading repeated every cycle (source)',dict(repeat=True)),
           ('+velocity guard 3 m/s (source)',dict(repeat=True,velocity=True)),
           ('+history test on per-cycle readings (source) = Bermuda',dict(repeat=True,velocity=True,hist='cycle')),
           ('+30 s advert age for contenders (bench port)',dict(repeat=True,velocity=True,hist='cycle',max_age=30)),
           ('+margin as share of incumbent (bench port)',dict(repeat=True,velocity=True,hist='cycle',max_age=30,pdiff='inc')),
          ]
    for name,kw in steps:
        y,b=evalset(d,**kw)
        print(f'{name:75s} yardstick-score {y}   bench-score {b}')
