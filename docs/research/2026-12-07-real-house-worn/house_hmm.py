#!/usr/bin/env python3
"""Prototype of a posterior (hidden-Markov) rule for a worn tag on the house's recordings (SPHERE).

Research only (docs/research/2026-12-07-real-house-worn.md); not shipped. Scores with the yardstick's
score.py, leave-one-recording-out (the Gaussians of each room are learned from the other four).

  python3 house_hmm.py --house RECEIVERS_DIR --rooms ROOMS_DIR --yardstick YARDSTICK_DIR \
      [--published DIR]   # NAME.csv from `presence-aggregator replay --output published` per recording

States: the receivers' rooms of the recording and `other` (a room without a receiver on: the hall, a
room whose receiver is off), learned from the nine-room truth; `other` holds the decision. Emission:
per receiver a Gaussian of its level (mean of the raw adverts of the last `win` s, or the last
published filtered RSSI) in each state, an unheard receiver by its share of silence, each term
floored; `lo` widens the Gaussian below its mean (a body's shadow lowers a level, a move raises one);
the Gaussians are learned from 3-s means every 0.5 s and met by 1-s means; `temp` tempers the evidence per 0.25-s tick; a switch needs the posterior at `thr`. PIRs: a room
whose PIR started in the last 10 s ×k (for `other`: any room without a receiver), quiet for 60 s ×0.3.
"""
import argparse, bisect, collections, csv, glob, importlib.util, json, os, statistics
import numpy as np

NODE_ROOM = {'kitchen-ap': 'kitchen', 'lounge-ap': 'living', 'study-ap': 'study', 'upstairs-ap': 'upstairs'}
UPSTAIRS = {'bed1', 'bed2', 'bath', 'toilet', 'stairs'}
DT = 0.25

def load_score(yardstick):
    spec = importlib.util.spec_from_file_location('score', os.path.join(yardstick, 'score.py'))
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
    return module

class House:
    def __init__(self, house, rooms, score, published=None):
        self.house, self.rooms, self.score, self.published = house, rooms, score, published
        self.names = sorted(os.path.basename(p)[:-len('.trace.csv')] for p in glob.glob(os.path.join(house, '*.trace.csv')))
        self.cache = {}

    def trace(self, name):
        with open(os.path.join(self.house, name + '.trace.csv')) as f:
            return [(float(r['time']), r['node'], float(r['rssi'])) for r in csv.DictReader(f)]

    def motion(self, name):
        with open(os.path.join(self.house, name + '.motion.csv')) as f:
            return [(float(r['time']), r['room'], int(r['occupied'])) for r in csv.DictReader(f)]

    def features(self, name, source, win, dt=DT):
        key = (name, source, win, dt)
        if key in self.cache: return self.cache[key]
        tr = self.trace(name)
        T = np.arange(tr[0][0] + 1, tr[-1][0] + dt, dt)
        levels = {}
        if source == 'adverts':
            by = collections.defaultdict(list)
            for t, node, rssi in tr: by[node].append((t, rssi))
            for node, rows in by.items():
                ts = np.array([a for a, _ in rows]); rs = np.array([b for _, b in rows])
                cs = np.concatenate([[0], np.cumsum(rs)])
                hi = np.searchsorted(ts, T, side='right'); lo = np.searchsorted(ts, T - win, side='right')
                with np.errstate(invalid='ignore', divide='ignore'):
                    m = (cs[hi] - cs[lo]) / (hi - lo)
                m[hi == lo] = np.nan
                levels[node] = m
        else:  # the published measurements: the last filtered RSSI each node published, held
            by = collections.defaultdict(list)
            with open(os.path.join(self.published, name + '.csv')) as f:
                for r in csv.DictReader(f):
                    v = np.nan if r['proximity'] == 'unknown' or r['rssiFiltered'] == '' else float(r['rssiFiltered'])
                    by[r['node']].append((float(r['time']), v))
            for node, rows in by.items():
                ts = np.array([a for a, _ in rows]); vs = np.array([b for _, b in rows])
                i = np.searchsorted(ts, T, side='right') - 1
                levels[node] = np.where(i >= 0, vs[np.maximum(i, 0)], np.nan)
        labels = self.labels(name, T, sorted(levels))
        self.cache[key] = (T, levels, labels)
        return self.cache[key]

    def labels(self, name, T, nodes):
        truth = self.score.load(os.path.join(self.rooms, name + '.truth.csv'))
        tt = np.array([t for t, _, _ in truth]); on = {NODE_ROOM[n] for n in nodes}
        out = []
        for k in np.searchsorted(tt, T, side='right') - 1:
            if k < 0 or T[len(out)] - tt[k] > 0.25: out.append(None); continue
            room = truth[k][2]
            room = 'upstairs' if room in UPSTAIRS else room
            out.append(room if room in on else 'other')
        return out

def learn(house, names, source, win, minimum_sigma=3.0):
    """Each state's Gaussians, from `win`-s means (adverts) every 0.5 s, or the published levels."""
    values = collections.defaultdict(list); heard = collections.defaultdict(lambda: [0, 0])
    for name in names:
        T, levels, labels = house.features(name, source, win, 0.5)
        for node, v in levels.items():
            for x, label in zip(v, labels):
                if label is None: continue
                heard[(label, node)][1] += 1
                if not np.isnan(x): values[(label, node)].append(x); heard[(label, node)][0] += 1
    return {k: (float(np.mean(v)), max(minimum_sigma, float(np.std(v))), min(0.999, max(0.01, heard[k][0] / heard[k][1])))
            for k, v in values.items()}

def since_motion(motion, T, rooms):
    out = {}
    for room in rooms:
        events = [(t, o) for t, r, o in motion if r == room]
        since = np.full(len(T), np.inf); j = 0; occupied = False; last = -np.inf
        for k, t in enumerate(T):
            while j < len(events) and events[j][0] <= t:
                occupied = events[j][1] == 1; last = events[j][0]; j += 1
            since[k] = 0.0 if occupied else t - last
        out[room] = since
    return out

def decide(house, name, model, source, win, temp, thr, lo, floor, stay=0.995, pir=None, learn_win=3.0, other=True, hold=0.0):
    T, levels, _ = house.features(name, source, win)
    nodes = sorted(levels); states = [NODE_ROOM[n] for n in nodes] + (['other'] if other else [])
    ll = np.zeros((len(T), len(states)))
    for node in nodes:
        x = levels[node]
        for i, state in enumerate(states):
            mu, sd, h = model.get((state, node), (-100.0, 6.0, 0.5))
            z = (x - mu) / np.where(x < mu, sd * lo, sd)
            ll[:, i] += np.maximum(np.where(np.isnan(x), np.log(1 - h), np.log(h) - 0.5 * z * z - np.log(sd)), floor)
    ll *= temp
    if pir:
        boost, recent, quiet_factor, quiet = pir
        motion = house.motion(name)
        receiver_rooms = [s for s in states if s != 'other']; others = sorted({r for _, r, _ in motion} - set(receiver_rooms))
        since = since_motion(motion, T, receiver_rooms + others)
        for i, state in enumerate(states):
            if state == 'other':
                if not others: continue
                s = np.min(np.stack([since[o] for o in others]), axis=0)
            else:
                s = since[state]
            ll[:, i] += np.where(s <= recent, np.log(boost), np.where(s > quiet, np.log(quiet_factor), 0.0))
    p = np.full(len(states), 1.0 / len(states)); move = (1 - stay) / (len(states) - 1)
    current, decisions = None, []
    for k in range(len(T)):
        p = p * stay + (1 - p) * move
        lp = np.log(p) + ll[k]; lp -= lp.max(); p = np.exp(lp); p /= p.sum()
        best = int(np.argmax(p))
        if states[best] == 'other': continue
        if current is None or (states[best] != current and p[best] >= thr and T[k] - decisions[-1][0] >= hold):
            current = states[best]; decisions.append((float(T[k]), current))
    return decisions

def loro(house, beacon='ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1', **rule):
    per = []
    for name in house.names:
        model = learn(house, [n for n in house.names if n != name], rule['source'], rule.get('learn_win', 3.0))
        decisions = decide(house, name, model, **rule)
        truth = house.score.load(os.path.join(house.house, name + '.truth.csv'))
        s = house.score.score([(t, beacon, r) for t, r in decisions], truth)
        per.append((name, s))
    medians = [s['latencyMedian'] for _, s in per if s['latencyMedian'] is not None]
    return {'accuracy': round(statistics.mean(s['accuracy'] for _, s in per), 4),
            'flaps': sum(s['flaps'] for _, s in per), 'latencyMedianOfMedians': round(statistics.median(medians), 2),
            'missed': sum(s['missed'] for _, s in per), 'flapsPerRecording': [s['flaps'] for _, s in per]}

RULES = {
    # chosen on the leave-one-recording-out Pareto front (the note's search), adverts = the node's raw adverts
    'radio, adverts (1-s mean)': dict(source='adverts', win=1.0, temp=0.6, thr=0.99, lo=1.0, floor=-4),
    'radio, adverts, without other': dict(source='adverts', win=1.0, temp=0.3, thr=0.99, lo=1.0, floor=-8, other=False),
    'radio, adverts, slower': dict(source='adverts', win=1.0, temp=0.3, thr=0.99, lo=1.5, floor=-4),
    'PIRs, adverts (1-s mean)': dict(source='adverts', win=1.0, temp=0.6, thr=0.99, lo=1.5, floor=-8, pir=(5, 10, 0.3, 60)),
    'PIRs, adverts, faster': dict(source='adverts', win=1.0, temp=0.6, thr=0.9, lo=1.0, floor=-8, pir=(3, 10, 0.3, 60)),
    'radio, published (today\'s agent)': dict(source='published', win=0, temp=1.0, thr=0.9, lo=1.0, floor=-8),
    'radio, published, slower': dict(source='published', win=0, temp=0.3, thr=0.9, lo=1.5, floor=-8),
    'PIRs, published (today\'s agent)': dict(source='published', win=0, temp=1.0, thr=0.99, lo=1.0, floor=-8, pir=(3, 10, 0.3, 60)),
}

def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('--house', required=True); a.add_argument('--rooms', required=True)
    a.add_argument('--yardstick', required=True); a.add_argument('--published')
    a.add_argument('--search', action='store_true', help='print the whole grid, one JSON line per rule')
    a.add_argument('--hold', type=float, default=0.0, help='a minimum dwell after each switch, seconds (measured, rejected)')
    args = a.parse_args()
    house = House(args.house, args.rooms, load_score(args.yardstick), args.published)
    if args.search:
        sources = ['adverts'] + (['published'] if args.published else [])
        for source in sources:
            for pir in [None, (3, 10, 0.3, 60), (5, 10, 0.3, 60)]:
                for temp in [0.3, 0.6, 1.0]:
                    for thr in [0.9, 0.99]:
                        for lo in [1.0, 1.5]:
                            for floor in [-8, -4]:
                                rule = dict(source=source, win=1.0, temp=temp, thr=thr, lo=lo, floor=floor, pir=pir)
                                print(json.dumps({**rule, **loro(house, **rule)}), flush=True)
        return
    for label, rule in RULES.items():
        if rule['source'] == 'published' and not args.published: continue
        print(json.dumps({'rule': label, 'hold': args.hold, **loro(house, **rule, hold=args.hold)}), flush=True)

if __name__ == '__main__':
    main()
