"""The live heap in the views (docs/views.md, "Heap"; docs/json.md;
docs/exports.md, "hp" and "pprof").

The profiles are written by tests/mkprof.c from the tables below, and
every number is computed here from them by the definitions
(docs/semantics.md, "The views", with a context's live bytes for T(C):
"Costs other than time"), not read back from ccprof: a function's self live
bytes are those of the contexts whose compressed stack (reduced to the
selected functions, cut at a focus) ends with it, its inherited ones those
of the contexts whose stack holds it, a stack's its contexts'.  The same
contexts without the heap lines must report as before heap profiling
existed, and a heap profile's time report (no --heap) must be that of the
same contexts without heap data.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from ccp import *
from pprof_read import *

# (E, T, bytes, blocks, live bytes, live blocks, history), per thread.
MAIN = [
    (0, 5, 7, 1, 7, 1, ""),
    (1, 0, 0, 0, 0, 0, "[main]"),
    (1, 40, 20, 2, 8, 1, "[main] [a]"),
    (1, 40, 10, 1, 10, 1, "[main] [a] [b]"),
    (1, 1, 10, 1, 0, 0, "[main] [a] [c]"),
    (1, 1, 50, 5, 30, 3, "[main] [a] [b] [c]"),
]
WORKER = [
    (1, 3, 4, 1, 4, 1, "[a] [b] [c]"),
    (1, 0, 1000, 10, 600, 6, "[t]"),
]
# (time ns, outside bytes, [(thread, context, bytes)])
SAMPLES = [
    (1500000, 16, [(0, 2, 20), (0, 5, 50)]),
    (11500000, 40, [(0, 3, 10), (0, 4, 10), (0, 5, 50)]),
    (21500000, 16, [(0, 0, 7), (0, 2, 8), (0, 3, 10), (0, 5, 30)]),
]
WORKER_SAMPLES = {2: [(1, 0, 4), (1, 1, 600)]}
OUTSIDE_LIVE = (16, 1)
PEAK = 1000
INTERVAL = 10000000
ARGS = './mj 400 say"hi'
SKIPPED = {}  # tools found missing, each said once


def spec(threads, heap=True, live=True):
    """mkprof's text for the contexts of threads (lists of MAIN's form)."""
    out = ["program " + ARGS, "clock cpu 1000", "alloc 100 3"]
    if heap:
        out.append("heap %d %d %d %d" % ((INTERVAL, PEAK) + OUTSIDE_LIVE))
    for i, ctxs in enumerate(threads):
        out.append("thread %d %s" % (42 + i, ("mj", "worker")[i]))
        for e, t, b, k, lb, lk, h in ctxs:
            costs = "%d 0 %d %d %d" % (e, t, b, k) + (" %d %d" % (lb, lk) if live else "")
            out.append("ctx %s : %s" % (costs, h))
    for i, (time, outside, recs) in enumerate(SAMPLES if heap else []):
        out.append("sample %d %d" % (time, outside))
        recs = recs + (WORKER_SAMPLES.get(i, []) if len(threads) > 1 else [])
        out += ["rec %d %d %d" % r for r in recs]
    return "\n".join(out) + "\n"


# ---- the definitions, computed here ------------------------------------------------

def parse_hist(h):
    return [(w.strip("[]"), w.startswith("[")) for w in h.split()]


def view_stack(hist, roots, deselect=(), focus=()):
    """The compressed stack the view gives a history (bottom first), or
    None when a focus drops it (docs/semantics.md, "The views": selection
    and focus)."""
    h = parse_hist(hist)
    if focus:
        cut = [i for i, (n, m) in enumerate(h) if m and n in focus]
        if not cut:
            return None
        h = h[cut[0]:]
    return tuple(n for n, m in h if m and (n not in deselect or n in roots or n in focus))


def roots_of(threads):
    return {parse_hist(c[6])[0][0] for ctxs in threads for c in ctxs if c[6]}


class Costs:
    """Self and inherited bytes and blocks per function, bytes and blocks
    per stack, of items (history, bytes, blocks) under a view."""

    def __init__(self, items, roots, **view):
        z = lambda: [0, 0]
        self.self, self.inh, self.stacks = (collections.defaultdict(z) for _ in range(3))
        self.total = [0, 0]
        for hist, b, k in items:
            st = view_stack(hist, roots, **view)
            if st is None or (b == 0 and k == 0):
                continue
            for acc in [self.stacks[st], self.total] + ([self.self[st[-1]]] if st else []) + \
                    [self.inh[n] for n in set(st)]:
                acc[0] += b
                acc[1] += k

    def pct(self, b):
        return "%.1f" % (100.0 * b / self.total[0]) if self.total[0] else "0.0"


def live_items(threads):
    return [(c[6], c[4], c[5]) for ctxs in threads for c in ctxs]


def sample_items(threads, k):
    recs = SAMPLES[k][2] + (WORKER_SAMPLES.get(k, []) if len(threads) > 1 else [])
    return [(threads[t][c][6], b, 0) for t, c, b in recs]


def stack_text(st):
    return " \u2192 ".join(st) if st else "<root>"


# ---- helpers ------------------------------------------------------------------------

def ccprof(*args):
    return run([CCPROF] + list(args))


def ok_out(*args):
    r = ccprof(*args)
    check(r.returncode == 0 and r.stderr == "", "ccprof %s: exit 0, quiet%s" % (
        " ".join(a for a in args if not a.startswith("/")),
        "" if r.returncode == 0 and not r.stderr else " (%s)" % r.stderr.strip()))
    return r.stdout


def table(out, title):
    """The rows (lists of words) of the table under the line starting with
    title, up to the blank line after its heading."""
    lines = out[out.index(title):].split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith(("COST", "bytes")))
    rows = []
    for l in lines[start + 1:]:
        if not l.strip():
            break
        rows.append(l)
    return rows


def nodes(node, path=()):
    yield path, node
    for c in node["children"]:
        yield from nodes(c, path + (c["name"],))


# ---- the checks ---------------------------------------------------------------------

def info(prof, threads):
    out = ok_out("info", prof)
    live = Costs(live_items(threads), roots_of(threads)).total
    want = ("heap peak          %d bytes (the most the live heap held)\n"
            "live at end        %d bytes in %d blocks\n"
            "live outside       16 bytes in 1 block (allocated in no context)\n"
            "heap samples       3, every 10 ms\n" % (PEAK, live[0] + 16, live[1] + 1))
    check(out.endswith(want), "info: the heap lines (%r)" % out[-260:])
    j = json.loads(ok_out("info", "--json", prof))
    check(j.get("heap") == {"peak_bytes": PEAK, "live_bytes": live[0] + 16,
                            "live_blocks": live[1] + 1, "outside_live_bytes": 16,
                            "outside_live_blocks": 1, "interval_ns": INTERVAL, "samples": 3,
                            "untracked_allocs": 0},
          "info --json: heap (%s)" % j.get("heap"))


def fn_rows(out):
    rows = {}
    for l in table(out, "Live at end by function"):
        w = l.split()
        rows[w[0]] = w[1:]
    return rows


def stack_rows(out, title, blocks=True):
    rows = {}
    for l in table(out, title):
        m = re.match(r"\s*(\d+)\s+([\d.]+)\s+" + (r"(\d+)\s+" if blocks else r"()") + r"(.*)$", l)
        rows[m.group(4)] = [m.group(1), m.group(2)] + ([m.group(3)] if blocks else [])
    return rows


def text_report(prof, threads, opts=(), **view):
    """report --heap: every row of the three tables against the
    definitions."""
    out = ok_out("report", "--heap", *opts, prof)
    what = "report --heap %s" % " ".join(opts)
    c = Costs(live_items(threads), roots_of(threads), **view)
    want = {f: [c.pct(c.self[f][0]), str(c.self[f][0]), str(c.self[f][1]),
                c.pct(c.inh[f][0]), str(c.inh[f][0]), str(c.inh[f][1])]
            for f in c.inh if c.inh[f] != [0, 0]}
    got = fn_rows(out)
    check(got == want, "%s: by function, self and inherited (%s)" % (what, got))
    want = {stack_text(s): [str(v[0]), c.pct(v[0]), str(v[1])] for s, v in c.stacks.items()}
    got = stack_rows(out, "Live at end by stack")
    check(got == want, "%s: by stack (%s)" % (what, got))
    # The largest sample in the view: its contexts, and the outside part
    # unless focused (max takes the first of equals).
    big = max(range(len(SAMPLES)), key=lambda k: Costs(sample_items(threads, k), roots_of(threads),
                                                       **view).total[0]
              + (0 if view.get("focus") else SAMPLES[k][1]))
    s = Costs(sample_items(threads, big), roots_of(threads), **view)
    want = {stack_text(st): [str(v[0]), s.pct(v[0])] for st, v in s.stacks.items()}
    got = stack_rows(out, "Largest sample by stack", blocks=False)
    check(got == want and "at %.6f s" % (SAMPLES[big][0] / 1e9) in out,
          "%s: the largest sample (%d) by stack (%s)" % (what, big, got))
    return out, c


def header(prof):
    out, c = text_report(prof, [MAIN])
    check(out.startswith("ccprof heap profile\n\n"
                         "    program      ./mj\n"
                         "    command      ./mj 400 'say\"hi'\n"
                         "    peak         1000 bytes, the most the live heap held\n"
                         "    live at end  71 bytes in 7 blocks\n"
                         "                 (16 bytes in 1 block allocated in no context,\n"
                         "                 and not in %live)\n"
                         "    samples      3, every 10 ms; the largest at 0.011500 s: 110 bytes\n"
                         "\n"), "report --heap: the header (%r)" % out[:500])
    check(c.total == [55, 6] and fn_rows(out)["c"] == ["54.5", "30", "3", "54.5", "30", "3"],
          "report --heap: c holds 30 of the 55 bytes live in contexts")
    top = ok_out("report", "--heap", "--top", "2", prof)
    check(len(fn_rows(top)) == 2 and len(stack_rows(top, "Live at end by stack")) == 2 and
          "(2 of 4 holding any)" in top, "report --heap --top 2: two rows per table")


def views(prof):
    text_report(prof, [MAIN], ("--deselect", "b"), deselect={"b"})
    text_report(prof, [MAIN], ("--select", "main,c"), deselect={"a", "b"})
    out, _ = text_report(prof, [MAIN], ("--focus", "b"), focus={"b"})
    check("    samples      3, every 10 ms; the largest at 0.011500 s: 60 bytes\n"
          "    focus        b\n"
          "    of live      40 of 55 bytes live at end in contexts (72.7%); percentages below "
          "are of the view's total\n\n" in out and "of profile" not in out,
          "report --heap --focus b: the view's share of the live heap, not of the time")
    text_report(prof, [MAIN], ("--focus", "c", "--deselect", "b"), focus={"c"}, deselect={"b"})
    # a's part of the heap is largest at the first sample (70 bytes, as at
    # the second), the whole heap at the second (110): the view's own.
    out, _ = text_report(prof, [MAIN], ("--focus", "a"), focus={"a"})
    check("    samples      3, every 10 ms; the largest at 0.001500 s: 70 bytes\n" in out,
          "report --heap --focus a: the largest sample of the view, not of the profile")
    j = report(prof, "--focus", "a")
    check(j["heap"]["largest_sample"] == 0,
          "json --focus a: largest_sample is the view's (%s)" % j["heap"]["largest_sample"])


def threads_view(prof):
    both = [MAIN, WORKER]
    out, c = text_report(prof, both, ("--threads",))
    check("thread 1  mj  tid 42  live 55 bytes in 6 blocks (8.3%)" in out and
          "thread 2  worker  tid 43  live 604 bytes in 7 blocks (91.7%)" in out,
          "report --heap --threads: each thread's live heap and share")
    j = report(prof)
    f = functions(j)
    check(f["c"]["self_live_bytes"] == 34 and f["t"]["self_live_blocks"] == 6,
          "two threads: c's live bytes of both add up (34), t's blocks (6)")


def json_report(prof, threads, opts=(), **view):
    """report --json: the heap object and the live members against the
    definitions, and the identities of the tree."""
    j = report(prof, *opts)
    what = "json %s" % " ".join(opts)
    c = Costs(live_items(threads), roots_of(threads), **view)
    focused = bool(view.get("focus"))
    outside = (0, 0) if focused else OUTSIDE_LIVE
    h = j.get("heap", {})
    check({k: h.get(k) for k in ("interval_ns", "peak_bytes", "live_bytes", "live_blocks",
                                 "outside_live_bytes", "outside_live_blocks")} ==
          {"interval_ns": INTERVAL, "peak_bytes": PEAK, "live_bytes": c.total[0] + outside[0],
           "live_blocks": c.total[1] + outside[1], "outside_live_bytes": outside[0],
           "outside_live_blocks": outside[1]}, "%s: the heap object's totals (%s)" % (what, h))
    want = []
    for k, (time, out, _) in enumerate(SAMPLES):
        s = Costs(sample_items(threads, k), roots_of(threads), **view)
        want.append({"time_ns": time, "outside_bytes": 0 if focused else out,
                     "bytes": s.total[0] + (0 if focused else out)})
    check(h.get("samples") == want, "%s: the samples (%s)" % (what, h.get("samples")))
    fs = functions(j)
    got = {n: (f["self_live_bytes"], f["self_live_blocks"], f["inherited_live_bytes"],
               f["inherited_live_blocks"]) for n, f in fs.items()}
    exp = {n: tuple(c.self[n]) + tuple(c.inh[n]) for n in fs}
    check(got == exp, "%s: functions' self and inherited live bytes and blocks (%s)" % (what, got))
    tree = dict(nodes(j["tree"]))
    ind = {p: n["individual_live_bytes"] for p, n in tree.items()
           if n["individual_live_bytes"] and not n["name"].endswith("hidden)")}
    exp = {s: v[0] for s, v in c.stacks.items() if v[0]}
    if not any(n["name"].endswith("hidden)") for n in tree.values()):
        check(ind == exp, "%s: tree nodes' individual live bytes (%s)" % (what, ind))
    check(all(n["inherited_live_bytes"] == n["individual_live_bytes"] +
              sum(x["inherited_live_bytes"] for x in n["children"]) for n in tree.values()) and
          j["tree"]["inherited_live_bytes"] == c.total[0],
          "%s: every node inherits its own and its children's live bytes" % what)
    check(sum(x["live_bytes"] for x in j["contexts"]) == c.total[0] and
          sum(x["live_blocks"] for x in j["contexts"]) == c.total[1] and
          all(x["live_bytes"] <= x["alloc_bytes"] for x in j["contexts"]),
          "%s: contexts' live bytes add up, each within what it allocated" % what)
    return j


def json_views(prof):
    j = json_report(prof, [MAIN])
    ctx = {tuple(e["name"] for e in c["history"]): c for c in j["contexts"]}
    check(all(ctx[tuple(n for n, _ in parse_hist(h))]["live_bytes"] == lb
              for _, _, _, _, lb, _, h in MAIN), "json: each context's live bytes as written")
    check(j["heap"]["largest_sample"] == 1 and j["heap"]["profile_live_bytes"] == 71,
          "json: the largest sample's index, the profile's live bytes")
    json_report(prof, [MAIN], ("--deselect", "b"), deselect={"b"})
    j = json_report(prof, [MAIN], ("--focus", "c"), focus={"c"})
    check(j["heap"]["profile_live_bytes"] == 71, "json --focus c: profile_live_bytes is the whole")
    json_report(prof, [MAIN], ("--focus", "a", "--deselect", "b"), focus={"a"}, deselect={"b"})
    j = json_report(prof, [MAIN], ("--min-percent", "20"))
    hid = dict(nodes(j["tree"])).get(("main", "a", "(1 hidden)"))
    check(hid is not None and hid["individual_alloc_bytes"] == 10 and
          hid["individual_live_bytes"] == 0,
          "json --min-percent 20: a/c is hidden, its line has 10 bytes allocated, 0 live")


# ---- the live heap in the JSON views (arcs, around, hot, callers, threads) -------------

def alloc_items(threads):
    return [(c[6], c[2], c[3]) for ctxs in threads for c in ctxs]


def arc_costs(items, roots, **view):
    """Each arc's (self, child) bytes by the rule of the arc times
    (docs/semantics.md, "The views"; every entry of a view's stack here is
    marked): a stack running r charges its pair (x, y) self when y is r, else
    child, on both sides, and its first entry's spontaneous arc (None,
    first)."""
    arcs = collections.defaultdict(lambda: [0, 0])
    for hist, b, _ in items:
        st = view_stack(hist, roots, **view)
        if not st:
            continue
        for x, y in [(None, st[0])] + list(zip(st, st[1:])):
            arcs[(x, y)][0 if y == st[-1] else 1] += b
    return arcs


def json_live_arcs(j, threads, what, **view):
    roots = roots_of(threads)
    for kind, items in (("alloc", alloc_items(threads)), ("live", live_items(threads))):
        want = arc_costs(items, roots, **view)
        keys = ["%s_%s_%s_bytes" % (s, d, kind) for d in ("in", "out") for s in ("self", "child")]
        got = {(a["caller"], a["callee"]): tuple(a.get(k) for k in keys) for a in j["arcs"]}
        exp = {k: tuple(want[k]) * 2 for k in got}
        held = {k for k, v in want.items() if k[0] and v != [0, 0]}
        check(got == exp and held <= set(got),
              "%s: every arc's %s bytes by the rule of its times (%s)" % (what, kind, got))
    out = collections.Counter()
    for a in j["arcs"]:
        out[a["caller"]] += sum(a.get(k) or 0 for k in ("self_out_live_bytes",
                                                        "child_out_live_bytes"))
    check(all(out[f["name"]] == f["inherited_live_bytes"] - f["self_live_bytes"]
              for f in j["functions"]),
          "%s: each function's arcs out carry its inherited less its self live bytes" % what)


def json_live_around(j, threads, what, **view):
    roots = roots_of(threads)
    c = Costs(live_items(threads), roots, **view)
    arcs = arc_costs(live_items(threads), roots, **view)
    ok, names = True, set()
    for f in j["around"]:
        n = f["name"]
        names.add(n)
        ok &= [f.get(k) for k in ("self_live_bytes", "self_live_blocks", "inherited_live_bytes",
                              "inherited_live_blocks")] == c.self[n] + c.inh[n]
        for side, key in (("callers", lambda x: (x, n)), ("callees", lambda x: (n, x))):
            for x in f[side]:
                arc = key(None if x["id"] is None else x["name"])
                ok &= [x.get("self_live_bytes"), x.get("child_live_bytes")] == arcs.get(arc, [0, 0])
    check(ok and {n for n, v in c.inh.items() if v != [0, 0]} <= names and len(names) >= 2,
          "%s: around: each function's live bytes and blocks, and each caller's and "
          "callee's arc live bytes from that side" % what)


def json_live_hot(j, threads, what, **view):
    c = Costs(live_items(threads), roots_of(threads), **view)
    path, got, want = (), [], []
    for x in j["hot"]["arm"]:
        path += (x["name"],)
        got.append((x.get("individual_live_bytes"), x.get("inherited_live_bytes")))
        want.append((c.stacks[path][0] if path in c.stacks else 0,
                     sum(v[0] for s, v in c.stacks.items() if s[:len(path)] == path)))
    check(got == want and got, "%s: hot arm's individual and inherited live bytes (%s)" %
          (what, got))


def callers_costs(items, roots, f, **view):
    """F's callers tree from the view's stacks running f: each node (the
    path of callers from f, the same function twice in a row one step) with
    the bytes of walks ending there and of walks through it."""
    ind, inh = collections.Counter(), collections.Counter()
    for hist, b, _ in items:
        st = view_stack(hist, roots, **view)
        if not st or st[-1] != f:
            continue
        walk, last = (), f
        for n in reversed(st[:-1]):
            if n != last:
                walk += (n,)
            last = n
        ind[walk] += b
        for k in range(len(walk) + 1):
            inh[walk[:k]] += b
    return ind, inh


def json_live_callers(j, threads, what, pruned=False, **view):
    roots = roots_of(threads)
    ok, seen = True, 0
    for t in j["callers"]:
        ind, inh = callers_costs(live_items(threads), roots, t["name"], **view)
        tree = dict(nodes(t))
        for p, x in tree.items():
            ok &= x.get("inherited_live_bytes") == (x.get("individual_live_bytes") or 0) + \
                sum(y.get("inherited_live_bytes") or 0 for y in x["children"])
            if x["name"].endswith("hidden)"):
                seen += x.get("individual_live_bytes") or 0
                ok &= x.get("individual_live_bytes") == x.get("inherited_live_bytes")
                continue
            got = (x.get("individual_live_bytes"), x.get("inherited_live_bytes"))
            ok &= got == (ind[p], inh[p])
        if not pruned:
            ok &= {p for p, v in inh.items() if v} <= set(tree)
    check(ok and len(j["callers"]) >= (1 if pruned else 2) and (seen > 0) == pruned,
          "%s: callers trees' individual and inherited live bytes%s" %
          (what, ", the hidden lines' too" if pruned else ""))


def json_live_threads(j, threads, what, **view):
    roots = roots_of(threads)
    ok = len(j["threads"]) == len(threads)
    for t, ctxs in zip(j["threads"], threads):
        c = Costs(live_items([ctxs]), roots, **view)
        ok &= t.get("total_live_bytes") == c.total[0]
        for f in t["functions"]:
            n = f["name"]
            ok &= [f.get(k) for k in ("self_live_bytes", "self_live_blocks",
                                      "inherited_live_bytes", "inherited_live_blocks")] == \
                c.self[n] + c.inh[n]
    check(ok, "%s: each thread's live bytes, and its functions' own" % what)


LIVE_VIEWS = [((), {}), (("--deselect", "b"), {"deselect": {"b"}}),
              (("--select", "main,c"), {"deselect": {"a", "b"}}),
              (("--focus", "b"), {"focus": {"b"}}),
              (("--focus", "a", "--deselect", "b"), {"focus": {"a"}, "deselect": {"b"}})]
LIVE_SECTIONS = ("--threads", "--hot", "--around", "*", "--callers", "*")


def json_live_views(prof, both):
    """The live members of the arcs and of the view sections, against the
    definitions, in every view."""
    for opts, view in LIVE_VIEWS:
        for p, threads in ((prof, [MAIN]), (both, [MAIN, WORKER])):
            j = report(p, *(LIVE_SECTIONS + opts))
            what = "json %s%s" % (" ".join(opts), " (two threads)" if len(threads) > 1 else "")
            json_live_arcs(j, threads, what, **view)
            json_live_around(j, threads, what, **view)
            json_live_hot(j, threads, what, **view)
            json_live_callers(j, threads, what, **view)
            json_live_threads(j, threads, what, **view)
    # c/b/a/main holds 30 live bytes in one call: hidden by --min-calls 2
    j = report(both, "--callers", "c", "--min-calls", "2")
    json_live_callers(j, [MAIN, WORKER], "json --callers c --min-calls 2", pruned=True)


def strip_live(x):
    """x without its live members (and the heap object)."""
    if isinstance(x, list):
        return [strip_live(y) for y in x]
    if isinstance(x, dict):
        return {k: strip_live(v) for k, v in x.items() if "live" not in k and k != "heap"}
    return x


def json_live_without_heap(prof, twin):
    """The view sections of a profile without heap data have no live
    members, and a heap profile's are the twin's and the live ones."""
    for opts, _ in LIVE_VIEWS:
        args = LIVE_SECTIONS + opts
        a, b = ccprof("report", "--json", *args, prof), ccprof("report", "--json", *args, twin)
        check(strip_live(json.loads(a.stdout)) == json.loads(b.stdout) and
              "live" not in b.stdout and "heap" not in b.stdout,
              "json %s: without heap data no live members; with, the twin's and them" %
              " ".join(args))


def without_heap(prof, twin, plain):
    """A heap profile's time report is that of its contexts without heap
    data, and a profile without heap data has no heap anything."""
    for opts in ((), ("--threads",), ("--deselect", "b", "--contexts"), ("--min-percent", "20")):
        a = ok_out("report", *opts, prof)
        b = ok_out("report", *opts, twin)
        check(a == b, "report %s: a heap profile's time report is its twin's" % " ".join(opts))
    j = report(prof)
    for x in [j] + j["functions"] + j["arcs"] + j["contexts"] + [n for _, n in nodes(j["tree"])]:
        for k in [k for k in x if "live" in k]:
            del x[k]
    del j["heap"]
    check(j == report(twin), "report --json: without its heap members, the twin's")
    for p in (twin, plain):
        out = ok_out("report", "--json", p) + ok_out("info", "--json", p) + ok_out("info", p)
        out = out.replace(p, "")
        check("live" not in out and "heap" not in out,
              "%s: no heap in report --json or info" % os.path.basename(p))
    info = ok_out("info", twin)
    check(info.endswith("allocated          197 bytes in 13 blocks\n"
                        "outside contexts   100 bytes in 3 blocks (before a thread's first call)\n"),
          "info of the twin ends as before heap profiling (%r)" % info[-140:])


def bad_usage(prof, twin):
    for args in (("report", "--heap", twin), ("report", "--heap", "--json", twin),
                 ("convert", "--to", "hp", twin)):
        r = ccprof(*args)
        check(r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
              "ccprof record --heap" in r.stderr and twin in r.stderr,
              "%s without heap data: exit 1, one line (%r)" % (" ".join(args[:-1]), r.stderr))
    out = os.path.join(OUT, "heap_none.hp")
    r = ccprof("convert", "--to", "hp", "-o", out, twin)
    check(r.returncode == 1 and not os.path.exists(out), "convert --to hp -o: no file left")
    for opt in (("--graph",), ("--contexts",), ("--callers", "a"), ("--hot",), ("--sort", "alloc"),
                ("--cycles",)):
        r = ccprof("report", "--heap", *opt, prof)
        check(r.returncode == 2 and "--heap" in r.stderr and len(r.stderr.splitlines()) == 1,
              "report --heap %s: a usage error" % " ".join(opt))
    r = ccprof("report", "--heap", "--focus", "nosuch", prof)
    check(r.returncode == 1 and "nosuch" in r.stderr, "report --heap --focus nosuch: exit 1")


# ---- .hp ---------------------------------------------------------------------------

HP_TOKEN = re.compile(r'"(?:[^"]|"")*"|\S+')
HP_KEYS = ("JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT")


def hp_parse(text):
    """The grammar of GHC's heap profile (docs/exports.md, "hp"), as hp2ps
    9.0.2 reads it (and GHC's layout: one item per line, a TAB before a
    band's value): the header and [(time, {band: bytes})], or a string
    saying what is wrong."""
    for l in text.splitlines():
        if not (re.match(r'^(JOB|DATE|SAMPLE_UNIT|VALUE_UNIT) "(?:[^"]|"")*"$', l) or
                re.match(r"^(BEGIN_SAMPLE|END_SAMPLE|MARK) \d+\.\d+$", l) or
                re.match(r"^[^\s\x00-\x1f\x7f]+\t\d+$", l)):
            return "line %r" % l
    toks = HP_TOKEN.findall(text)
    head, samples, i = {}, [], 0
    while i < len(toks) and toks[i] in HP_KEYS:
        if i + 1 >= len(toks) or not toks[i + 1].startswith('"'):
            return "%s without a string" % toks[i]
        head[toks[i]] = toks[i + 1][1:-1].replace('""', '"')
        i += 2
    if set(head) != set(HP_KEYS):
        return "header items %s" % sorted(head)
    last = 0.0
    while i < len(toks):
        if toks[i] == "MARK":
            i += 2
            continue
        if toks[i] != "BEGIN_SAMPLE" or not re.match(r"^\d+\.\d+$", toks[i + 1]):
            return "BEGIN_SAMPLE FLOAT expected at %r" % toks[i:i + 2]
        t, bands = float(toks[i + 1]), {}
        if t < last:
            return "samples out of sequence"
        i += 2
        while i < len(toks) and toks[i] != "END_SAMPLE":
            if toks[i] in HP_KEYS + ("BEGIN_SAMPLE", "MARK") or not re.match(r"^\d+$", toks[i + 1]):
                return "band %r" % toks[i:i + 2]
            bands[toks[i]] = bands.get(toks[i], 0) + int(toks[i + 1])
            i += 2
        if i + 1 >= len(toks) or float(toks[i + 1]) != t:
            return "END_SAMPLE of %s" % t
        samples.append((t, bands))
        last = t
        i += 2
    return (head, samples) if samples else "no samples"


def hp_stacks(bands):
    """Bands "(k)inner/.../bottom" as {bottom-first stack: bytes}, and the
    numbers k each stack has."""
    out, ids = {}, {}
    for name, v in bands.items():
        if name == "(outside)":
            out["(outside)"] = v
            continue
        m = re.match(r"^\((\d+)\)(.*)$", name)
        st = () if m.group(2) == "<root>" else tuple(reversed(m.group(2).split("/")))
        out[st] = v
        ids[st] = m.group(1)
    return out, ids


def svg_bands(text):
    """heap-svg's bands bottom first, each [name, its points, its fill,
    its tooltip], and its legend's bytes by name (data-bytes: at the
    largest sample), for the HTML report's tests of the same chart."""
    ns = "{http://www.w3.org/2000/svg}"
    bands, keys = [], {}
    for g in ET.fromstring(text).iter(ns + "g"):
        title = g.find(ns + "title")
        name = title.text.split("\n")[0] if title is not None else None
        if g.get("class") == "band":
            poly = g.find(ns + "polygon")
            bands.append([name, len(poly.get("points").split()) // 2, poly.get("fill"), title.text])
        elif g.get("class") == "key":
            keys[name] = int(g.get("data-bytes"))
    return bands, keys


def hp(prof, threads, name, opts=(), **view):
    path = os.path.join(OUT, name)
    r = ccprof("convert", "--to", "hp", "-o", path, *opts, prof)
    what = "hp %s" % " ".join(opts)
    if not check(r.returncode == 0 and r.stderr == "", "%s: exit 0, quiet" % what):
        return None
    parsed = hp_parse(open(path, encoding="utf-8", errors="replace").read())
    if not check(not isinstance(parsed, str), "%s: the .hp grammar (%s)" % (
            what, parsed if isinstance(parsed, str) else "ok")):
        return None
    head, samples = parsed
    check(samples[0] == (0.0, {}) and [t for t, _ in samples[1:]] ==
          [round(s[0] / 1e9, 6) for s in SAMPLES],
          "%s: an empty sample at 0.0, then one per heap sample, in seconds" % what)
    ids, ok = {}, True
    for k, (_, bands) in enumerate(samples[1:]):
        got, kid = hp_stacks(bands)
        c = Costs(sample_items(threads, k), roots_of(threads), **view)
        want = {s: v[0] for s, v in c.stacks.items()}
        if not view.get("focus"):
            want["(outside)"] = SAMPLES[k][1]
        ok &= got == want
        for st, i in kid.items():
            ok &= ids.setdefault(st, i) == i
    check(ok and len(set(ids.values())) == len(ids),
          "%s: each sample's bands are its stacks' live bytes, threads merged, one number "
          "per stack" % what)
    if shutil.which("hp2ps"):
        d = tempfile.mkdtemp(dir=OUT)
        shutil.copy(path, os.path.join(d, "x.hp"))
        r = run(["hp2ps", "-c", "x.hp"], cwd=d)
        check(r.returncode == 0 and os.path.getsize(os.path.join(d, "x.ps")) > 0,
              "%s: hp2ps reads it (%s)" % (what, r.stderr.strip()))
    elif not SKIPPED.get("hp2ps"):
        SKIPPED["hp2ps"] = True
        print("# SKIP hp2ps not installed (Debian: ghc, 775 MB): no .hp file drawn by it")
    return head


def hp_all(prof, both):
    head = hp(prof, [MAIN], "heap.hp")
    check(head == {"JOB": ARGS, "DATE": "", "SAMPLE_UNIT": "seconds", "VALUE_UNIT": "bytes"},
          "hp: the header, a quote of JOB doubled (%s)" % head)
    hp(prof, [MAIN], "heap_deselect.hp", ("--deselect", "b"), deselect={"b"})
    hp(prof, [MAIN], "heap_focus.hp", ("--focus", "b"), focus={"b"})
    hp(both, [MAIN, WORKER], "heap_threads.hp")
    path = os.path.join(OUT, "heap_pruned.hp")
    ok_out("convert", "--to", "hp", "-o", path, "--min-percent", "20", prof)
    parsed = hp_parse(open(path).read())
    bands = parsed[1][2][1] if not isinstance(parsed, str) else {}
    check(any(re.match(r"^\(\d+\)\(hidden\)/a/main$", b) and v == 10 for b, v in bands.items()),
          "hp --min-percent 20: a/c's bytes in a '(hidden)' band under a (%s)" % bands)
    # names with whitespace (mkprof's \xHH): no whitespace in a band's name
    weird = make_profile("heap_weird", spec([MAIN]).replace("[b]", "[operator\\x20new\\x09x]"))
    parsed = hp_parse(ok_out("convert", "--to", "hp", weird))
    check(not isinstance(parsed, str) and
          any("operator_new_x/a/main" in b for _, bs in parsed[1] for b in bs),
          "hp: a space or TAB in a name becomes '_' (%s)" % (
              parsed if isinstance(parsed, str) else sorted(parsed[1][-1][1])))


def hp_cut(stack, n):
    """A band's stack as --name-length n cuts it (GHC's +RTS -L): longer
    than n bytes, what fits in n - 3 at a UTF-8 boundary, then "..."."""
    b = stack.encode()
    if len(b) <= n:
        return stack
    return b[:n - 3].decode(errors="ignore") + "..."


def hp_name_length(prof, both):
    """--name-length N: every band of every sample has its bytes, its
    number and its stack cut to N bytes, as computed here from the
    whole names; a cut inside a multibyte character drops the whole
    character; N below 4, or a format that has no bands, is a usage error."""
    for p, n in ((prof, 8), (both, 7), (prof, 4), (prof, 1000)):
        whole = hp_parse(ok_out("convert", "--to", "hp", p))
        cut = hp_parse(ok_out("convert", "--to", "hp", "--name-length", str(n), p))
        want = [(t, {re.sub(r"^(\(\d+\))(.*)$", lambda m: m.group(1) + hp_cut(m.group(2), n), k): v
                     for k, v in bands.items()}) for t, bands in whole[1]] \
            if not isinstance(whole, str) else None
        shortened = want and any(k not in whole[1][i][1] for i, (_, b) in enumerate(want) for k in b)
        check(not isinstance(cut, str) and cut[1] == want and (shortened or n == 1000),
              "hp --name-length %d: the bands of --name-length 0 cut to %d bytes, "
              "their bytes the same (%s)" % (n, n, cut if isinstance(cut, str) else
                                             sorted(cut[1][-1][1])))
    wide = make_profile("heap_wide", spec([MAIN]).replace("[b]", "[\\xc3\\xa9\\xc3\\xa9\\xc3\\xa9]"))
    cut = hp_parse(ok_out("convert", "--to", "hp", "--name-length", "6", wide))
    names = sorted({k for _, bs in cut[1] for k in bs}) if not isinstance(cut, str) else cut
    check(any(re.match(r"^\(\d+\)\u00e9\.\.\.$", k) for k in names),
          "hp --name-length 6: '\u00e9\u00e9\u00e9/a/main' is cut before the second "
          "\u00e9's second byte (%s)" % names)
    for args, msg in ((("--to", "hp", "--name-length", "3"), "at least 4 and at most 4294967295, not '3'"),
                      (("--to", "hp", "--name-length", "-5"), "not '-5'"),
                      (("--to", "hp", "--name-length", "4x"), "not '4x'"),
                      (("--to", "heap-svg", "--name-length", "9"),
                       "--name-length does not apply to --to heap-svg")):
        r = ccprof("convert", *args, prof)
        check(r.returncode == 2 and r.stdout == "" and msg in r.stderr and
              len(r.stderr.splitlines()) == 1,
              "convert %s: a usage error (%s)" % (" ".join(args), r.stderr.strip()))


def no_samples():
    """A heap profile without samples (a run shorter than its first
    interval would have the runtime's last one; a made-up file may have
    none): the live heap at the end still shows, hp has its one empty
    sample, JSON an empty series."""
    text = re.sub(r"^(sample|rec) .*\n", "", spec([MAIN]), flags=re.M)
    p = make_profile("heap_nosamples", text)
    out = ok_out("report", "--heap", p)
    check("    samples      0, every 10 ms\n" in out and "Largest sample" not in out and
          stack_rows(out, "Live at end by stack")["main \u2192 a \u2192 b \u2192 c"] ==
          ["30", "54.5", "3"], "no samples: report --heap has the live heap at the end only")
    parsed = hp_parse(ok_out("convert", "--to", "hp", p))
    check(not isinstance(parsed, str) and parsed[1] == [(0.0, {})],
          "no samples: hp has one empty sample at 0.0, as hp2ps needs one")
    h = report(p)["heap"]
    check(h["samples"] == [] and h["largest_sample"] is None and h["live_bytes"] == 71,
          "no samples: JSON's series is empty, largest_sample null")


# ---- pprof -------------------------------------------------------------------------

def pprof_raw(path):
    env = dict(os.environ, GOCACHE=os.path.join(OUT, "go-build"), PPROF_TMPDIR=OUT,
               HOME=os.environ.get("HOME") or OUT)
    r = run(["go", "tool", "pprof", "-symbolize=none", "-raw", path], env=env)
    if r.returncode != 0:
        return None, None
    types = re.search(r"^(\S+/\S+(?: \S+/\S+)*)$", r.stdout, re.M).group(1).split()
    locs = dict(re.findall(r"^\s+(\d+): 0x0 M=\d+ (\S+) ", r.stdout, re.M))
    rows = []
    for vals, ids in re.findall(r"^\s+([\d ]+): ([\d ]+)$", r.stdout, re.M):
        rows.append(([int(v) for v in vals.split()], [locs[i] for i in ids.split()]))
    return types, rows


def pprof_totals_outside(prof, both):
    """Every sample type adds up to report --json --heap's total: the
    allocations and the live heap at the end, each with its part outside
    any context (100 bytes in 3 blocks allocated, 16 bytes in 1 block of
    them live), which is one sample of its own at "[outside]" (0 ns, 0
    calls), with no thread label under --threads; a focus keeps none of
    it (docs/exports.md, "pprof")."""
    outside = [0, 0, 3, 100, OUTSIDE_LIVE[1], OUTSIDE_LIVE[0]]
    for p, opts in ((prof, ()), (both, ("--threads",)), (prof, ("--deselect", "b"))):
        pprof_report_check(p, opts, outside, heap=True)
    pprof_report_check(prof, ("--focus", "c"), None, heap=True)

def pprof(prof, twin):
    if not shutil.which("go"):
        print("# SKIP go tool pprof not installed (package golang-go)")
        return
    paths = []
    for p, name in ((prof, "heap.pb.gz"), (twin, "heap_twin.pb.gz")):
        paths.append(os.path.join(OUT, name))
        ok_out("convert", "--to", "pprof", "-o", paths[-1], p)
    types, rows = pprof_raw(paths[0])
    ttypes, trows = pprof_raw(paths[1])
    if not check(types is not None and ttypes is not None, "pprof: go tool pprof -raw reads both"):
        return
    check(types == ttypes + ["inuse_objects/count", "inuse_space/bytes"] and
          ttypes == ["cpu/nanoseconds[dflt]", "calls/count", "alloc_objects/count",
                     "alloc_space/bytes"],
          "pprof: inuse_objects and inuse_space after the allocations (%s)" % types)
    check([(v[:4], s) for v, s in rows] == trows,
          "pprof: the other values and the stacks are the twin's")
    c = Costs(live_items([MAIN]), roots_of([MAIN]))
    got = collections.defaultdict(lambda: [0, 0])
    for v, s in rows:
        st = tuple(reversed(s)) if s != ["[root]"] else ()
        got[st][0] += v[5]
        got[st][1] += v[4]
    check(got.pop(("[outside]",), None) == list(OUTSIDE_LIVE) and
          {k: v for k, v in got.items() if v != [0, 0]} == dict(c.stacks),
          "pprof: each stack's inuse_space and inuse_objects are its live bytes and blocks, "
          "and [outside]'s the live ones outside any context")


# ---- merge and diff ----------------------------------------------------------------

def merge_diff(prof, twin):
    out = os.path.join(OUT, "heap_merged.ccprof")
    r = ccprof("merge", "-o", out, prof, twin, prof)
    check(r.returncode == 0 and len(r.stderr.splitlines()) == 1 and "heap" in r.stderr and
          "left out" in r.stderr, "merge: exit 0, one note that the heap is left out (%r)"
          % r.stderr)
    i = ok_out("info", out).replace(out, "")
    check("heap" not in i and "allocated          591 bytes in 39 blocks" in i,
          "merge: the result reads, has the allocations of all three and no heap")
    # What needs the heap says that merge left it out, not that the runs
    # did not follow it (they did).
    for args in (("report", "--heap"), ("convert", "--to", "hp")):
        r = ccprof(*(args + (out,)))
        check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and
              "merge leaves it out" in r.stderr and "did not follow" not in r.stderr,
              "%s on the merged profile: one line saying merge left the heap out (%r)"
              % (" ".join(args), r.stderr))
    r = ccprof("merge", "-o", os.path.join(OUT, "heap_merged2.ccprof"), twin, twin)
    check(r.returncode == 0 and r.stderr == "", "merge without heap data: no note")
    a = json.loads(ok_out("diff", "--json", prof, twin))
    b = json.loads(ok_out("diff", "--json", twin, twin))
    a["a"]["file"] = a["b"]["file"] = b["a"]["file"] = b["b"]["file"] = ""
    check(a == b, "diff with one side without heap data: as without heap data")


def diff_live(prof, both):
    """diff of two heap profiles: Δlive per function (self) and per stack
    (individual), by the definitions on each side."""
    d = json.loads(ok_out("diff", "--json", prof, both))
    ca = Costs(live_items([MAIN]), roots_of([MAIN]))
    cb = Costs(live_items([MAIN, WORKER]), roots_of([MAIN, WORKER]))
    got = {r["name"]: (r["a_live_bytes"], r["b_live_bytes"], r["delta_live_bytes"])
           for r in d["functions"]}
    want = {n: (ca.self[n][0], cb.self[n][0], cb.self[n][0] - ca.self[n][0]) for n in got}
    check(got == want and got["t"] == (0, 600, 600),
          "diff --json: each function's live bytes on both sides (%s)" % got)
    got = {tuple(r["stack"]): (r["a_live_bytes"], r["b_live_bytes"]) for r in d["stacks"]}
    want = {st: (ca.stacks[st][0], cb.stacks[st][0]) for st in got}
    check(got == want, "diff --json: each stack's live bytes on both sides")
    check(abs(d["functions"][0]["rel_live"] - 4 / 30) < 1e-12,
          "diff --json: rel_live (c: 30 -> 34)")
    out = ok_out("diff", prof, both)
    t = next(l.split() for l in out.splitlines() if l.endswith("  t  (only in B)"))
    check("\u0394live" in out and t[6:8] == ["+1000", "+600"],
          "diff text: a \u0394live column (t: +600)")


# ---- a real run --------------------------------------------------------------------

def real_run():
    alloc_lib = os.path.join(LIB, "libccprof-alloc.so")
    prog = build("heapleak", "tests/progs/heapleak.c")
    prof = os.path.join(OUT, "heapleak.ccprof")
    env = dict(os.environ, LD_PRELOAD=alloc_lib,
               CCPROF_OPTIONS="heap=1:heap_interval=1ms:output=" + prof)
    r = run([prog, "20000"], env=env)
    if not check(r.returncode == 0 and os.path.exists(prof), "heapleak runs under heap=1"):
        return
    f = functions(report(prof))
    check((f["store"]["self_live_bytes"], f["store"]["self_live_blocks"]) == (300, 3) and
          f["temp"]["self_live_bytes"] == 0 and f["churn"]["self_live_bytes"] == 0 and
          f["main"]["inherited_live_bytes"] == 300,
          "heapleak: store holds its 3 blocks of 100 bytes at the end, temp and churn none")
    out = ok_out("report", "--heap", prof)
    check(stack_rows(out, "Live at end by stack").get("main \u2192 store") ==
          ["300", "100.0", "3"], "heapleak: report --heap's leak view: main → store")
    parsed = hp_parse(ok_out("convert", "--to", "hp", prof))
    check(not isinstance(parsed, str) and len(parsed[1]) >= 2 and
          any(b.endswith(")store/main") and v == 300 for b, v in parsed[1][-1][1].items()),
          "heapleak: hp grammar, and its last sample holds store's 300 bytes")


if __name__ == "__main__":  # tests/heap_svg.py imports the tables and definitions
    prof = make_profile("heap_mj", spec([MAIN]))
    both = make_profile("heap_threads", spec([MAIN, WORKER]))
    twin = make_profile("heap_twin", spec([MAIN], heap=False))
    plain = make_profile("heap_plain", spec([MAIN], heap=False, live=False))
    info(prof, [MAIN])
    info(both, [MAIN, WORKER])
    header(prof)
    views(prof)
    threads_view(both)
    json_views(prof)
    json_report(both, [MAIN, WORKER])
    json_live_views(prof, both)
    json_live_without_heap(prof, twin)
    without_heap(prof, twin, plain)
    bad_usage(prof, twin)
    hp_all(prof, both)
    hp_name_length(prof, both)
    no_samples()
    pprof(prof, twin)
    pprof_totals_outside(prof, both)
    merge_diff(prof, twin)
    diff_live(prof, both)
    real_run()
    finish()
