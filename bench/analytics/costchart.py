"""Draws bench/analytics-cost-links.svg: p95 against links at fixed events.

usage: python3 costchart.py growth.txt out.svg [title]

growth.txt is bench/analytics output (event=clicks tables) for several
workspaces, in sections headed "== after" (the code as it is) or "== before"
(the same binary with --novectors). The number of links is read from each
table's header line. Solid lines are "after", dashed ones "before".
"""
import math
import re
import sys

src = open(sys.argv[1]).read().splitlines()
data = {}  # (phase, interval, groupBy) -> {links: p95}
loads = {}  # (interval, links) -> load average at the start (after)
links_seen = set()
phase = iv = links = None
for line in src:
    m = re.match(r'== (\w+)', line)
    if m:
        phase = m.group(1)
        continue
    m = re.search(r'(\d+) links, \d+ clicks; interval=(\w+),.*load average ([\d.]+)', line)
    if m:
        links, iv = int(m.group(1)), m.group(2)
        links_seen.add(links)
        if phase == 'after':
            loads[(iv, links)] = m.group(3)
        continue
    m = re.match(r'\| clicks \| (\w+) \| \d+ \| ([\d.]+) \| ([\d.]+) \|', line)
    if m and phase:
        data.setdefault((phase, iv, m.group(1)), {})[links] = float(m.group(3))

groups = ['top_links', 'top_urls', 'top_base_urls', 'top_domains', 'top_folders', 'top_link_tags',
          'top_partners', 'top_groups', 'utm_sources', 'countries', 'count']
colors = ['#d62728', '#ff7f0e', '#bcbd22', '#2ca02c', '#17becf', '#1f77b4', '#9467bd', '#8c564b',
          '#e377c2', '#7f7f7f', '#000000']
xs = sorted(links_seen)
W, H = 1080, 440
pw, ph = 380, 300
title = sys.argv[3] if len(sys.argv) > 3 else 'bench/analytics, event=clicks: p95 (ms, log scale) against links'
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="18" font-size="14" text-anchor="middle">%s</text>' % (W // 2, title)]
ymin, ymax = 1, 5000


def ly(v, y0):
    return y0 + ph - (math.log10(max(v, ymin)) - math.log10(ymin)) / (math.log10(ymax) - math.log10(ymin)) * ph


def lx(n, x0):
    lo, hi = math.log10(xs[0]), math.log10(xs[-1])
    return x0 + (math.log10(n) - lo) / max(hi - lo, 1e-9) * pw


for pi, (interval, target) in enumerate([('30d', 50), ('1y', 100)]):
    x0, y0 = 60 + pi * (pw + 110), 50
    out.append('<text x="%d" y="%d" font-size="13" text-anchor="middle">interval=%s (target p95 ≤ %d ms)</text>' % (x0 + pw // 2, y0 - 8, interval, target))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' % (x0, y0, pw, ph))
    for v in [1, 10, 100, 1000]:
        y = ly(v, y0)
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (x0, x0 + pw, y, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (x0 - 4, y + 4, v))
    yt = ly(target, y0)
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="6,4"/>' % (x0, x0 + pw, yt, yt))
    out.append('<text x="%d" y="%.1f" fill="#d62728" text-anchor="end">target</text>' % (x0 + pw - 4, yt - 4))
    for n in xs:
        x = lx(n, x0)
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s links</text>' % (x, y0 + ph + 16, '{:,}'.format(n)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">load %s</text>' % (x, y0 + ph + 30, loads.get((interval, n), '?')))
    for phase, dash in [('before', ' stroke-dasharray="5,3"'), ('after', '')]:
        for gi, g in enumerate(groups):
            pts = data.get((phase, interval, g), {})
            if not pts:
                continue
            xy = [(lx(n, x0), ly(pts[n], y0)) for n in sorted(pts)]
            out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>' % (colors[gi], dash, ' '.join('%.1f,%.1f' % p for p in xy)))
            for p in xy:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (p[0], p[1], colors[gi]))
for gi, g in enumerate(groups):
    x, y = 950, 60 + gi * 16
    out.append('<rect x="%d" y="%d" width="12" height="4" fill="%s"/>' % (x, y - 4, colors[gi]))
    out.append('<text x="%d" y="%d">%s</text>' % (x + 16, y + 1, g))
y = 60 + len(groups) * 16 + 10
out.append('<line x1="950" x2="962" y1="%d" y2="%d" stroke="#333" stroke-width="2"/><text x="966" y="%d">after</text>' % (y, y, y + 4))
out.append('<line x1="950" x2="962" y1="%d" y2="%d" stroke="#333" stroke-width="2" stroke-dasharray="5,3"/><text x="966" y="%d">before (--novectors)</text>' % (y + 16, y + 16, y + 20))
out.append('</svg>')
open(sys.argv[2], 'w').write('\n'.join(out))
