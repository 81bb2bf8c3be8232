#!/usr/bin/env bash
# house-graph.sh OUT.png TITLE: the picture of the house: this module's packages (non-test
# imports, transitive edges removed by graphviz's tred), grouped by where they live. Needs
# graphviz (apt-get install graphviz). docs/img/house-*.png were drawn with it.
set -euo pipefail
out=$(realpath -m "$1")
title=$2
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go list -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' ./... > "$tmp/list.txt"
python3 - "$(go list -m)" "$title" "$tmp/list.txt" > "$tmp/house.dot" <<'PY'
import collections, sys
mod, title, listing = sys.argv[1], sys.argv[2], sys.argv[3]
edges, nodes = set(), set()
for line in open(listing):
    f = line.split()
    p = f[0][len(mod) + 1:]
    if not p or p.split('/')[0] in ('test', 'bench', 'hack', 'examples'):
        continue
    nodes.add(p)
    for d in f[1:]:
        if d.startswith(mod + '/'):
            q = d[len(mod) + 1:]
            nodes.add(q)
            edges.add((p, q))
MIRRORS = 'mirrors of upstream (internal/controller, kubectl, registry, scheduler)'
def group(p):
    parts = p.split('/')
    if parts[0] == 'internal' and len(parts) > 1 and parts[1] in ('controller', 'kubectl', 'registry', 'scheduler'):
        return MIRRORS
    if parts[0] == 'internal':
        return 'internal support'
    return {'cmd': 'cmd', 'plugin': 'plugin (commands)', 'lint': 'lint (library)',
            'predict': 'predict (library)', 'rules': 'rules (catalogue)'}.get(parts[0], parts[0])
colors = {'cmd': '#eeeeee', 'plugin (commands)': '#ffe0b3', 'lint (library)': '#d6eaff',
          'rules (catalogue)': '#d9f2d9', 'predict (library)': '#f2d9f2', MIRRORS: '#fff5cc',
          'internal support': '#f0f0f0'}
groups = collections.defaultdict(list)
for n in sorted(nodes):
    groups[group(n)].append(n)
print('digraph house { rankdir=LR; newrank=true; fontname="Helvetica"; labelloc=t; fontsize=20; label="%s";' % title)
print(' node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=11]; edge [color="#777777", arrowsize=0.6];')
for i, (k, v) in enumerate(sorted(groups.items())):
    print(' subgraph cluster_%d { label="%s"; style=filled; color="%s"; fontsize=13;' % (i, k, colors.get(k, '#ffffff')))
    for n in v:
        print('  "%s";' % n)
    print(' }')
for p, q in sorted(edges):
    print(' "%s" -> "%s";' % (p, q))
print('}')
PY
tred "$tmp/house.dot" > "$tmp/reduced.dot"
dot -Tpng -Gdpi=72 "$tmp/reduced.dot" -o "$out"
