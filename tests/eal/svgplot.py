# SPDX-License-Identifier: BSD-3-Clause
"""What a gnuplot SVG draws, in data units: for the plot tests.

usage: svgplot.py COMMAND SVG [ARGS]

testbed/plot.sh keeps each plot's script (OFAN_PLOT_GP); a test renders it
with gnuplot's svg terminal and asks this script what a reader sees:

  panels SVG              a line per plot area: "x0 x1 y0 y1", its x and y
                          axis ends in data units (read from its tics)
  ytics SVG PANEL         the y tic labels of panel PANEL (from 0), bottom up
  series SVG PANEL        a line per colour drawn with lines inside the
                          panel: "#rrggbb solid|dashed xmin xmax ymin ymax"
                          (data units; key samples outside the panel are
                          not counted)
  cross SVG PANEL Y       a line per solid colour: "#rrggbb PX X", where
                          its line first reaches height Y, in pixels from
                          the panel's left and in data units
  boxes SVG PANEL         a line per filled box inside the panel:
                          "#rrggbb x0 x1 ycentre" (data units; ycentre in
                          pixels when the y tics are not numbers)
  texts SVG               every text, one a line

An SVG that cannot be read, or a panel it does not have, prints nothing
(and a note on stderr): the test's checks then fail on what they expected.

gnuplot's SVG (5.x) draws each tic as a group holding the tic's path and
a group with its label; the panel's border is a closed five-point path;
a plot's lines are paths stroked in their colour, its key samples among
them (outside the panel when the key is).  Axes are linear or
logarithmic, whichever fits the tics.
"""
import math
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def colour(s):
    """'rgb(148,   0, 211)' -> '#9400d3'; None for anything else."""
    m = re.match(r"rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)", s or "")
    if not m:
        return None
    return "#%02x%02x%02x" % tuple(int(v) for v in m.groups())


def points(d):
    """Subpaths of an SVG path of M, L, h, v, Z: lists of (x, y)."""
    subs, cur = [], None
    x = y = 0.0
    for cmd, args in re.findall(r"([MLhvZz])([^MLhvZz]*)", d):
        nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?\d+)?", args)]
        if cmd == "M":
            x, y = nums[0], nums[1]
            cur = [(x, y)]
            subs.append(cur)
            nums = nums[2:]
            cmd = "L"
        if cmd == "L":
            for i in range(0, len(nums) - 1, 2):
                x, y = nums[i], nums[i + 1]
                cur.append((x, y))
        elif cmd == "h":
            x += nums[0]
            cur.append((x, y))
        elif cmd == "v":
            y += nums[0]
            cur.append((x, y))
    return subs


def number(s):
    try:
        return float(s.strip())
    except ValueError:
        return None


class Plot:
    def __init__(self, path):
        self.root = ET.parse(path).getroot()
        self.paths = []     # (stroke colour or None, dashed, subpaths)
        self.polys = []     # (fill colour, [(x, y)])
        self.texts = []     # (x, y, anchor, text)
        self.tics = []      # (axis "x" or "y", pixel, value)
        self.borders = []
        self.ticpaths = set()
        self.walk(self.root, (0.0, 0.0), {})
        self.panels = [self.axes(b) for b in self.borders]

    def walk(self, el, off, inh):
        inh = dict(inh)
        for k in ("stroke", "fill", "text-anchor"):
            if el.get(k) is not None:
                inh[k] = el.get(k)
        m = re.match(r"translate\(([-0-9.]+),([-0-9.]+)\)",
                     el.get("transform", ""))
        if m:
            off = (off[0] + float(m.group(1)), off[1] + float(m.group(2)))
        tag = el.tag.replace(NS, "")
        if tag == "g":
            self.tic(el, off, inh)
        if tag == "path" and el.get("d") and el.get("id") is None and \
                id(el) not in self.ticpaths:
            subs = points(el.get("d"))
            stroke = el.get("stroke", inh.get("stroke"))
            if stroke == "black" and len(subs) == 1 and \
                    len(subs[0]) == 5 and el.get("d").strip().endswith("Z"):
                xs = [p[0] for p in subs[0]]
                ys = [p[1] for p in subs[0]]
                box = (min(xs), max(xs), min(ys), max(ys))
                if box not in self.borders:
                    self.borders.append(box)
            elif el.get("class") != "gridline":
                self.paths.append((colour(stroke),
                                   el.get("stroke-dasharray") is not None,
                                   subs))
        if tag == "polygon":
            pts = [tuple(float(v) for v in p.split(","))
                   for p in el.get("points", "").split()]
            c = colour(el.get("fill", inh.get("fill")))
            if c is not None and pts:
                self.polys.append((c, pts))
        if tag == "text":
            t = "".join(el.itertext())
            self.texts.append((off[0], off[1], inh.get("text-anchor"), t))
        for c in el:
            self.walk(c, off, inh)

    def tic(self, g, off, inh):
        """A group of a tic's path and its label's group: a tic."""
        kids = [c for c in g if c.tag == NS + "path"]
        labels = [c for c in g if c.tag == NS + "g"]
        if len(kids) != 1 or len(labels) != 1:
            return
        text = "".join(labels[0].itertext())
        v = number(text)
        if v is None:
            return
        anchor = labels[0].get("text-anchor")
        subs = points(kids[0].get("d", ""))
        if not subs or len(subs[0]) < 2:
            return
        (x0, y0), (x1, y1) = subs[0][0], subs[0][1]
        if anchor == "end" and abs(y0 - y1) < 0.01:
            self.tics.append(("y", y0, v, x0))
        elif anchor == "middle" and abs(x0 - x1) < 0.01:
            self.tics.append(("x", x0, v, y0))
        else:
            return
        self.ticpaths.add(id(kids[0]))

    def axes(self, box):
        """The panel's mapping pixel -> data on each axis."""
        x0, x1, y0, y1 = box
        xs = [(p, v) for a, p, v, at in self.tics
              if a == "x" and abs(at - y1) < 0.6 and x0 - 0.6 <= p <= x1 + 0.6]
        ys = [(p, v) for a, p, v, at in self.tics
              if a == "y" and abs(at - x0) < 0.6 and y0 - 0.6 <= p <= y1 + 0.6]
        return {"box": box, "x": fit(xs), "y": fit(ys), "yt": ys}

    def inside(self, k, x, y, slack=0.6):
        x0, x1, y0, y1 = self.panels[k]["box"]
        return x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack


def fit(tics):
    """pixel -> value for tics [(pixel, value)]: linear or log, the better."""
    tics = sorted(set(tics))
    if len(tics) < 2:
        return None
    best = None
    for log in (False, True):
        if log and any(v <= 0 for _, v in tics):
            continue
        f = (lambda v: math.log(v)) if log else (lambda v: v)
        (p0, v0), (p1, v1) = tics[0], tics[-1]
        if p1 == p0:
            continue
        a = (f(v1) - f(v0)) / (p1 - p0)
        err = max(abs(f(v0) + a * (p - p0) - f(v)) for p, v in tics)
        if best is None or err < best[0]:
            best = (err, log, p0, f(v0), a)
    if best is None:
        return None
    _, log, p0, fv0, a = best
    if log:
        return lambda p: math.exp(fv0 + a * (p - p0))
    return lambda p: fv0 + a * (p - p0)


def inverse(f, value, lo, hi):
    """The pixel in [lo, hi] where the monotonic f reaches value."""
    flo = f(lo)
    for _ in range(60):
        mid = (lo + hi) / 2
        if (f(mid) - value) * (flo - value) > 0:
            lo, flo = mid, f(mid)
        else:
            hi = mid
    return (lo + hi) / 2


def main(argv):
    cmd, svg = argv[1], argv[2]
    try:
        p = Plot(svg)
    except (OSError, ET.ParseError) as e:
        # Nothing drawn: no line of output, so the test's checks fail
        # on what they expected and it goes on to the next.
        print("svgplot.py: %s: %s" % (svg, e), file=sys.stderr)
        return 0
    if cmd == "texts":
        for t in p.texts:
            print(t[3])
        return 0
    if cmd == "panels":
        for a in p.panels:
            x0, x1, y0, y1 = a["box"]
            fx, fy = a["x"], a["y"]
            print("%.6g %.6g %.6g %.6g" % (
                fx(x0) if fx else float("nan"), fx(x1) if fx else float("nan"),
                fy(y1) if fy else float("nan"), fy(y0) if fy else float("nan")))
        return 0
    k = int(argv[3])
    if k >= len(p.panels):
        print("svgplot.py: %s: no panel %d" % (svg, k), file=sys.stderr)
        return 0
    a = p.panels[k]
    fx, fy = a["x"], a["y"]
    if fx is None or (fy is None and cmd != "boxes"):
        print("svgplot.py: %s: panel %d has no numeric tics" % (svg, k),
              file=sys.stderr)
        return 0
    if cmd == "ytics":
        for px, v in sorted(a["yt"], reverse=True):
            print("%g" % v)
    elif cmd == "series":
        got = {}
        for c, dashed, subs in p.paths:
            if c is None:
                continue
            for s in subs:
                for x, y in s:
                    if not p.inside(k, x, y):
                        continue
                    key = (c, "dashed" if dashed else "solid")
                    r = got.setdefault(key, [x, x, y, y])
                    r[0], r[1] = min(r[0], x), max(r[1], x)
                    r[2], r[3] = min(r[2], y), max(r[3], y)
        for (c, kind), (x0, x1, y0, y1) in sorted(got.items(), key=str):
            print("%s %s %.6g %.6g %.6g %.6g" % (
                c, kind, fx(x0), fx(x1), fy(y1), fy(y0)))
    elif cmd == "cross":
        x0, x1, y0, y1 = a["box"]
        target = inverse(fy, float(argv[4]), y1, y0)
        for c, dashed, subs in p.paths:
            if c is None or dashed:
                continue
            for s in subs:
                pts = [q for q in s if p.inside(k, q[0], q[1])]
                if len(pts) < 2:
                    continue
                for (ax, ay), (bx, by) in zip(pts, pts[1:]):
                    if ay >= target >= by and ay != by:
                        x = ax + (bx - ax) * (ay - target) / (ay - by)
                        print("%s %.2f %.6g" % (c, x - x0, fx(x)))
                        break
                else:
                    continue
                break
    elif cmd == "boxes":
        for c, pts in p.polys:
            xs = [q[0] for q in pts]
            ys = [q[1] for q in pts]
            cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            if not p.inside(k, cx, cy, 0):
                continue
            print("%s %.6g %.6g %.6g" % (c, fx(min(xs)), fx(max(xs)),
                                         fy(cy) if fy else cy))
    else:
        print("svgplot.py: unknown command " + cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
