#!/usr/bin/env python3
"""Keeps each workspace's @edge/* dependencies equal to its tsconfig project references, so
turbo orders builds the way `tsc -b` needs them."""
import json, os, glob
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
names = {}
for pj in glob.glob(f'{root}/libs/*/package.json') + glob.glob(f'{root}/services/*/package.json') + glob.glob(f'{root}/deploy/*/package.json') + [f'{root}/test/package.json']:
    if os.path.exists(pj):
        names[os.path.dirname(pj)] = json.load(open(pj))['name']
for d, name in names.items():
    tc = os.path.join(d, 'tsconfig.json')
    if not os.path.exists(tc): continue
    refs = json.load(open(tc)).get('references', [])
    want = sorted(names[os.path.normpath(os.path.join(d, r['path']))] for r in refs if os.path.normpath(os.path.join(d, r['path'])) in names)
    pj = os.path.join(d, 'package.json')
    p = json.load(open(pj))
    deps = {k: v for k, v in p.get('dependencies', {}).items() if not k.startswith('@edge/')}
    for w in want: deps[w] = '*'
    p['dependencies'] = dict(sorted(deps.items()))
    json.dump(p, open(pj, 'w'), indent=2); open(pj, 'a').write('\n')
