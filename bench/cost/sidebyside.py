#!/usr/bin/env python3
"""Side by side, per table of a data folder's GROUPS.csv (smallest file first), in this order:
the whole `udocc fit TABLE --out DIR --quiet` process of a build before (defaults, explanations on),
of the build after, and PyOD's IForest fit + decision scores on every row of the table
(../shared/peers/pyod_panel.py --detectors IForest --max-rows 100000000). One JSON line per table:
each udocc's wall time, peak RSS (/usr/bin/time), ROCAUC/PRAUC and its reported parts; IForest's
seconds and ROCAUC/PRAUC. Lines already in OUT are kept and their tables skipped. bench/notes/cost.md
reads its lines.

Usage: bench/cost/sidebyside.py BEFORE_UDOCC AFTER_UDOCC OUT [DATA_DIR (../shared/data)]
       (BEFORE_UDOCC "-" skips the build before)
"""
import csv, json, os, re, subprocess, sys, time

before, after, out = sys.argv[1:4]
data = sys.argv[4] if len(sys.argv) > 4 else '../shared/data'
panel = os.path.join(data, '..', 'peers', 'pyod_panel.py')
tables = [os.path.join(data, r['table']) for r in csv.DictReader(open(os.path.join(data, 'GROUPS.csv')))]
tables.sort(key=os.path.getsize)
done = {json.loads(l)['table'] for l in open(out)} if os.path.exists(out) else set()


def fit(binary, path):
    t0 = time.perf_counter()
    r = subprocess.run(['/usr/bin/time', '-f', 'RSS %M', binary, 'fit', path, '--out', '/tmp/sidebyside-udocc',
                        '--force', '--quiet'], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    m = re.search(r'ROCAUC ([0-9.]+)\s+PRAUC ([0-9.]+)', r.stdout)
    rss = re.search(r'RSS (\d+)', r.stderr)
    parts = re.search(r'wall time (.*); results', r.stdout)
    return dict(rc=r.returncode, s=round(wall, 3), rss_mb=int(rss.group(1)) // 1024 if rss else None,
                rocauc=float(m.group(1)) if m else None, prauc=float(m.group(2)) if m else None,
                parts=parts.group(1) if parts else r.stderr[-200:])


for path in tables:
    name = os.path.relpath(path, data).rsplit('.', 1)[0]
    if name in done:
        continue
    rec = dict(table=name)
    if before != '-':
        rec['before'] = fit(before, path)
    rec['after'] = fit(after, path)
    t1 = time.perf_counter()
    p = subprocess.run(['/usr/bin/python3', panel, '--detectors', 'IForest', '--max-rows', '100000000', path],
                       capture_output=True, text=True)
    pl = [json.loads(l) for l in p.stdout.split('\n') if l.strip()]
    if pl:
        rec.update(iforest_s=pl[0].get('seconds'), iforest_rocauc=pl[0].get('rocauc'),
                   iforest_prauc=pl[0].get('prauc'), n=pl[0]['n'], d=pl[0]['d'])
    rec['iforest_process_s'] = round(time.perf_counter() - t1, 3)
    with open(out, 'a') as f:
        f.write(json.dumps(rec) + '\n')
    print(name, rec.get('before', {}).get('s'), rec['after']['s'], rec.get('iforest_s'), flush=True)
