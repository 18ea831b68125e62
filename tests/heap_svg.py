"""`ccprof convert --to heap-svg`: the live heap over time as an area
chart (docs/exports.md, "heap-svg").

On the profiles of tests/heap_views.py (its tables and definitions: each
sample's bytes per stack computed here, not read back from ccprof), the
parsed SVG must have one band per stack with live bytes (threads merged,
under selection and focus) named as hp names it, each band's top edge at
each sample's x the running sum of the bands' bytes under the axis' scale,
the legend's bytes those of the largest sample, the peak line at the
profile's peak, every hostile name back as written, and the same bytes on
every run.  Then a real run of tests/progs/heapuse.c's steps.
"""
import os
import re
import shutil
import xml.etree.ElementTree as ET

from ccp import *
from heap_views import (MAIN, WORKER, SAMPLES, PEAK, Costs, hp_parse, hp_stacks, roots_of,
                        sample_items, spec)

NS = "{http://www.w3.org/2000/svg}"
TOP_BANDS = 20


def ccprof(*args):
    return run([CCPROF] + list(args))


def human(v):
    """The legend's and the peak's bytes: B under 1 KB, else one decimal
    of the largest power of 1024 not above them."""
    k = 0
    while k < 4 and v >= 1024 ** (k + 1):
        k += 1
    return "%d B" % v if k == 0 else "%.1f %s" % (v / 1024 ** k, ("B", "KB", "MB", "GB", "TB")[k])


class Chart:
    """What the tests read of a heap-svg file: the axes' scales (from the
    ticks' exact values), the bands bottom first as (name, [(x, top y)]),
    the legend rows as (name, bytes attribute, bytes text), the peak."""

    def __init__(self, text):
        root = ET.fromstring(text)
        g = list(root.iter(NS + "g"))
        cls = lambda c: [e for e in g if e.get("class") == c]
        line_y = lambda e: float(e.find(NS + "line").get("y1"))
        line_x = lambda e: float(e.find(NS + "line").get("x1"))
        yt = [(int(e.get("data-bytes")), line_y(e)) for e in cls("ytick")]
        xt = [(int(e.get("data-ns")), line_x(e)) for e in cls("xtick")]
        self.y0 = dict(yt)[0]
        self.ys = (self.y0 - yt[-1][1]) / yt[-1][0]
        self.x0 = dict(xt)[0]
        self.xs = (xt[-1][1] - self.x0) / xt[-1][0] if xt[-1][0] else 0
        self.yticks, self.xticks = yt, xt
        self.bands = []
        for e in cls("band"):
            pts = [tuple(map(float, p.split(","))) for p in
                   e.find(NS + "polygon").get("points").split()]
            self.bands.append((e.find(NS + "title").text.split("\n")[0], pts[:len(pts) // 2]))
        self.keys = []
        for e in cls("key"):
            v = [t for t in e.iter(NS + "text") if t.get("class") == "v"][0].text
            self.keys.append((e.find(NS + "title").text.split("\n")[0],
                              int(e.get("data-bytes")), v))
        p = cls("peak")[0]
        self.peak = (int(p.get("data-bytes")), line_y(p), "".join(p.itertext()))
        self.text = ["".join(t.itertext()) for t in root.iter(NS + "text")]

    def y(self, b):
        return self.y0 - b * self.ys

    def x(self, ns):
        return self.x0 + ns * self.xs


def convert(prof, path, *opts):
    r = ccprof("convert", "--to", "heap-svg", "-o", path, *opts, prof)
    ok = check(r.returncode == 0 and r.stderr == "",
               "heap-svg %s: exit 0, quiet (%s)" % (" ".join(opts), r.stderr.strip()))
    if ok and shutil.which("xmllint"):
        x = run(["xmllint", "--noout", path])
        check(x.returncode == 0 and x.stderr == "", "heap-svg %s: xmllint --noout (%s)" % (
            " ".join(opts), x.stderr.strip()[:200]))
    elif ok:
        print("# SKIP xmllint not installed (Debian: libxml2-utils): heap-svg %s not parsed "
              "as XML" % " ".join(opts))
    return ok


def expected(threads, view):
    """Per point (an empty one at 0, then each sample): {band key: bytes},
    a key being a stack (bottom first) or "(outside)"."""
    pts = [{}]
    for k in range(len(SAMPLES)):
        c = Costs(sample_items(threads, k), roots_of(threads), **view)
        want = {s: v[0] for s, v in c.stacks.items() if v[0]}
        if not view.get("focus") and SAMPLES[k][1]:
            want["(outside)"] = SAMPLES[k][1]
        pts.append(want)
    return pts


def band_key(name):
    st, _ = hp_stacks({name.replace(" ", "_"): 0})
    return next(iter(st))


def edges(chart, pts, times, what):
    """Each band's top edge at each point is the sum of its bytes and the
    bands' under it, under the y axis' scale; x is the time's."""
    under = [0] * len(pts)
    ok, worst = True, 0.0
    for name, top in chart.bands:
        key = band_key(name)
        if len(top) != len(pts):
            return check(False, "%s: %s has %d points, not %d" % (what, name, len(top), len(pts)))
        for i, (x, y) in enumerate(top):
            under[i] += pts[i].get(key, 0)
            worst = max(worst, abs(y - chart.y(under[i])), abs(x - chart.x(times[i])))
    ok = worst <= 0.011
    return check(ok, "%s: every band's top edge at every sample is the running sum of the "
                 "bands' bytes, x the sample's time (worst %.4f px)" % (what, worst))


def chart_of(prof, name, opts=()):
    path = os.path.join(OUT, name)
    if not convert(prof, path, *opts):
        return None, None
    text = open(path, encoding="utf-8").read()
    return Chart(text), text


def views(prof, threads, name, opts=(), pruned=False, **view):
    """pruned: the bytes of each band are hp's (tests/heap_views.py checks
    its hidden bands), not computed here."""
    what = "heap-svg %s" % " ".join(opts) if opts else "heap-svg"
    chart, text = chart_of(prof, name, opts)
    if chart is None:
        return None
    hp = hp_parse(ccprof("convert", "--to", "hp", *opts, prof).stdout)
    if not check(not isinstance(hp, str), "%s: hp of the same view reads" % what):
        return None
    pts = [hp_stacks(b)[0] for _, b in hp[1]] if pruned else expected(threads, view)
    times = [0] + [s[0] for s in SAMPLES]
    keys = {k for p in pts for k in p}
    got = [band_key(n) for n, _ in chart.bands]
    check(sorted(map(str, got)) == sorted(map(str, keys)) and len(got) == len(set(got)),
          "%s: one band per stack with live bytes (and outside), %d (%s)" % (what, len(keys), got))
    # the names and numbers are hp's
    hp_names = {b for _, bands in hp[1] for b in bands}
    check({n for n, _ in chart.bands} == hp_names, "%s: the bands are named as hp names them" % what)
    edges(chart, pts, times, what)
    # the largest sample of the view (its contexts, and the outside part
    # unless focused), as report --heap
    totals = [sum(pts[k + 1].values()) for k in range(len(SAMPLES))]
    big = totals.index(max(totals)) + 1
    want = {n: pts[big].get(band_key(n), 0) for n, _ in chart.bands}
    got = {n: (v, t) for n, v, t in chart.keys}
    check(got == {n: (v, human(v)) for n, v in want.items()},
          "%s: the legend has each band's bytes at the largest sample (%s)" % (what, got))
    check([n for n, _, _ in chart.keys] == [n for n, _ in reversed(chart.bands)],
          "%s: the legend lists the bands as they are stacked, the top first" % what)
    check(chart.peak[0] == PEAK and abs(chart.peak[1] - chart.y(PEAK)) <= 0.006 and
          "peak %s (%d bytes" % (human(PEAK), PEAK) in chart.peak[2],
          "%s: the peak line at the exact peak, labelled (%s)" % (what, chart.peak))
    check(chart.yticks[-1][0] >= PEAK and chart.xticks[-1][0] <= SAMPLES[-1][0],
          "%s: the y axis reaches the peak, the x axis the last sample" % what)
    return chart


def hostile():
    """<, &, quotes, a control character, a TAB, invalid UTF-8 and "]]>"
    in a function's name and in the command line."""
    text = spec([MAIN]).replace("[b]", "[x<&\\x22'\\x01\\x09\\xff]]>--]")
    prof = make_profile("heap_svg_hostile", text.replace("program ./mj 400",
                                                          "program ./<mj>&\\x01 \\xfe\"a"))
    chart, _ = chart_of(prof, "heap_hostile.svg")
    if chart is None:
        return
    want = re.escape("x<&\"'\ufffd\t\ufffd]]>--") + "/a/main"
    names = [n for n, _ in chart.bands]
    check(any(re.fullmatch(r"\(\d+\)" + want, n) for n in names) and
          any(re.fullmatch(r"\(\d+\)c/" + want, n) for n in names),
          "heap-svg: a hostile name parses back as written, invalid bytes as U+FFFD (%r)" % names)
    keys = [n for n, _, _ in chart.keys]
    check(keys == [n for n, _ in reversed(chart.bands)], "heap-svg: the same in the legend")
    check("./<mj>&\ufffd \ufffd\"a say\"hi" in chart.text and
          "Live heap: <mj>&\ufffd" in chart.text,
          "heap-svg: a hostile program and arguments in the title as written (%r)" % chart.text[:2])


def deterministic(prof):
    a = ccprof("convert", "--to", "heap-svg", prof).stdout
    b = ccprof("convert", "--to", "heap-svg", prof).stdout
    check(a == b and len(a) > 1000, "heap-svg: two runs write the same bytes")


def no_heap(twin):
    out = os.path.join(OUT, "heap_none.svg")
    r = ccprof("convert", "--to", "heap-svg", "-o", out, twin)
    check(r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
          "no heap data" in r.stderr and not os.path.exists(out),
          "heap-svg without heap data: exit 1, one line, no file (%r)" % r.stderr)
    r = ccprof("convert", "--to", "heap-svg", "--threads", twin)
    check(r.returncode == 2, "heap-svg --threads: a usage error")


def many_stacks():
    """25 stacks: the 20 with the largest area have bands, the rest one
    "other" band with their sum."""
    lines = ["program ./many", "clock cpu 1000", "alloc 0 0", "heap 1000000 400 0 0",
             "thread 1 many"]
    lines += ["ctx 1 0 1 %d 1 0 0 : [main] [f%02d]" % (k + 1, k) for k in range(25)]
    lines.append("sample 5000000 0")
    lines += ["rec 0 %d %d" % (k, k + 1) for k in range(25)]
    chart, _ = chart_of(make_profile("heap_svg_many", "\n".join(lines) + "\n"), "many.svg")
    if chart is None:
        return
    names = [n for n, _ in chart.bands]
    check(len(names) == TOP_BANDS + 1 and names[-1] == "other" and
          [n.split(")")[1] for n in names[:-1]] == ["f%02d/main" % k for k in range(24, 4, -1)],
          "25 stacks: 20 bands, the largest at the bottom, then 'other' (%s)" % names)
    keys = {n: v for n, v, _ in chart.keys}
    check(keys.get("other") == 15 and keys.get(names[0]) == 25,
          "25 stacks: other holds the 5 smallest, 15 bytes (%s)" % keys.get("other"))


def no_samples():
    text = re.sub(r"^(sample|rec) .*\n", "", spec([MAIN]), flags=re.M)
    chart, _ = chart_of(make_profile("heap_svg_nosamples", text), "nosamples.svg")
    if chart is not None:
        check(chart.bands == [] and "no samples" in chart.text and chart.peak[0] == PEAK,
              "no samples: no band, the legend says so, the peak line stands")


def real_run():
    prog = build("heapuse", "tests/progs/heapuse.c")
    prof = os.path.join(OUT, "heapuse_svg_steps.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, "steps"])
    if not check(r.returncode == 0 and os.path.exists(prof), "heapuse steps: record --heap ran"):
        return
    chart, _ = chart_of(prof, "heapuse_steps.svg")
    if chart is None:
        return
    heap = report(prof)["heap"]
    names = [n for n, _ in chart.bands]
    mine = [k for k, n in enumerate(names) if re.search(r"\)(take/)?step/steps/main$", n)]
    if not check(len(mine) == 1, "heapuse steps: one band for main -> steps -> step (%s)" % names):
        return
    i = mine[0]
    below = chart.bands[i - 1][1] if i else [(0, chart.y0)] * len(chart.bands[i][1])
    held = (below[-1][1] - chart.bands[i][1][-1][1]) / chart.ys
    check(abs(held - 500000) <= 0.011 / chart.ys,
          "heapuse steps: step's band is 500,000 bytes thick at the end (%.0f)" % held)
    lead = bool(heap["samples"]) and heap["samples"][0]["time_ns"] > 0
    check(chart.peak[0] == heap["peak_bytes"] and chart.yticks[-1][0] >= heap["peak_bytes"] and
          all(len(t) == len(heap["samples"]) + lead for _, t in chart.bands),
          "heapuse steps: the peak line is the profile's, one point per sample on every band")
    check(all(y >= chart.peak[1] - 0.011 for _, y in chart.bands[-1][1]),
          "heapuse steps: no sample above the peak line")


prof = make_profile("heap_mj", spec([MAIN]))
both = make_profile("heap_threads", spec([MAIN, WORKER]))
twin = make_profile("heap_twin", spec([MAIN], heap=False))
views(prof, [MAIN], "heap.svg")
views(prof, [MAIN], "heap_deselect.svg", ("--deselect", "b"), deselect={"b"})
views(prof, [MAIN], "heap_focus.svg", ("--focus", "b"), focus={"b"})
# a's part is largest at the first sample, the whole heap at the second
views(prof, [MAIN], "heap_focus_a.svg", ("--focus", "a"), focus={"a"})
views(both, [MAIN, WORKER], "heap_threads.svg")
chart = views(prof, [MAIN], "heap_pruned.svg", ("--min-percent", "20"), pruned=True)
check(chart is not None and any("(hidden)/a/main" in n for n, _ in chart.bands),
      "heap-svg --min-percent 20: a pruned subtree is one (hidden) band")
hostile()
deterministic(both)
no_heap(twin)
many_stacks()
no_samples()
real_run()
finish()
