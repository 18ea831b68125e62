"""`ccprof convert --to chrome`: the Trace Event Format (docs/exports.md,
"chrome"), a synthetic flame chart of the stack tree.

Each file is parsed (numbers as exact decimals) and its X events rebuilt
into a tree from their intervals alone, which must nest: every child
inside its parent, siblings laid end to end from the parent's start in
the tree's order, parents before children.  Against `ccprof report
--json` of the same view: one event per stack with time, its dur the
stack's inherited time, its args the stack's entries, self time and
bytes; the top level adds up to the total; each function's events add
up to its inherited and self time (the whole run, and each thread with
--threads).  The M events name the process and every thread; the heap
counters are hp's samples; hostile names and program names come back as
written; speedscope imports the file as a Trace Event Format profile.
"""
import collections
import json
import os
import re
import sys
from decimal import Decimal

from ccp import *
from heap_views import MAIN, SAMPLES, hp_parse, spec
from speedscope import speedscope_import, speedscope_seconds

D = os.path.join(OUT, "chrome")
os.makedirs(D, exist_ok=True)


def convert(prof, name, *opts):
    out = os.path.join(D, name)
    r = run([CCPROF, "convert", "--to", "chrome", "-o", out] + list(opts) + [prof])
    check(r.returncode == 0 and r.stderr == "", "chrome %s: exit 0, nothing on stderr%s"
          % (" ".join(opts), "" if not r.stderr else " (" + r.stderr.strip() + ")"))
    return out


def ns(v):
    """µs as written (an exact decimal) in integer ns, None if finer."""
    n = Decimal(v) * 1000
    return int(n) if n == n.to_integral_value() else None


def seconds_ns(s):
    """report --json's seconds (at most 9 decimals) in ns."""
    return int((Decimal(repr(s)) * 10 ** 9).to_integral_value())


def seconds_us(s):
    """report --json's seconds in µs, rounded half up."""
    return int((Decimal(repr(s)) * 10 ** 6 + Decimal("0.5")).to_integral_value(rounding="ROUND_FLOOR"))


def total_us(rep):
    """The total in µs, rounded half up from the exact ticks (export.h)."""
    tps = rep["ticks_per_sec"]
    return (rep["total_ticks"] * 10 ** 6 + tps // 2) // tps if tps else 0


def load(path, what):
    """The file as JSON with exact numbers, or None."""
    try:
        j = json.loads(open(path, encoding="utf-8").read(), parse_float=Decimal)
    except ValueError as e:
        check(False, "%s: valid JSON (%s)" % (what, e))
        return None
    good = (isinstance(j, dict) and isinstance(j.get("traceEvents"), list) and
            j.get("displayTimeUnit") == "ms" and
            all(isinstance(e, dict) and e.get("ph") in ("M", "X", "C") for e in j["traceEvents"]))
    check(good, "%s: the object form: traceEvents (M, X, C events), displayTimeUnit ms" % what)
    return j if good else None


class Track:
    """One tid's X events rebuilt into a tree from their intervals: an
    event's parent is the latest earlier event whose interval holds it.
    nodes: [(stack, start, end, event)] in file order, in µs: ts and dur
    must be whole (readers add them in floating point)."""

    def __init__(self, events, what):
        self.nodes, self.problems = [], []
        self.children = {(): []}
        open_ = []
        for e in events:
            s, d = e["ts"], e["dur"]
            if not (isinstance(s, int) and isinstance(d, int) and s >= 0 and d > 0):
                self.problems.append("ts/dur of %r not whole µs, dur > 0" % e)
                continue
            end = s + d
            while open_ and not (open_[-1][1] <= s and end <= open_[-1][2]):
                open_.pop()
            parent = open_[-1][0] if open_ else ()
            stack = parent + (e["name"],)
            if stack in self.children:
                self.problems.append("stack %r twice" % (stack,))
                continue
            node = (stack, s, end, e)
            self.children[parent].append(node)
            self.children[stack] = []
            open_.append(node)
            self.nodes.append(node)
        # siblings end to end from the parent's start (0 at the top), in
        # file order: what puts every child inside its parent
        starts = {(): 0}
        starts.update({n[0]: n[1] for n in self.nodes})
        for parent, kids in self.children.items():
            at = starts[parent]
            for k in kids:
                if k[1] != at:
                    self.problems.append("%r starts at %d µs, not %d" % (k[0], k[1], at))
                at = k[2]
        check(not self.problems, "%s: events nest: each child inside its parent, siblings end to "
              "end from its start, none twice%s" % (what, "" if not self.problems
                                                    else " (%s)" % self.problems[:3]))

    def top_total(self):
        return sum(n[2] - n[1] for n in self.children[()])

    def by_name(self):
        """{name: [inherited µs, self ns, events]}."""
        out = {}
        for stack, s, end, e in self.nodes:
            f = out.setdefault(stack[-1], [0, 0, 0])
            f[0] += end - s
            f[1] += ns(e["args"]["self_us"])
            f[2] += 1
        return out


def tree_stacks(rep):
    """report --json's tree as {stack: node}, the root's own time as the
    stack ("<root>",), a pruned "(n hidden)" node as "(hidden)"."""
    out = {}

    def walk(n, path):
        out[path] = n
        for c in n["children"]:
            walk(c, path + (re.sub(r"^\(\d+ hidden\)$", "(hidden)", c["name"]),))
    walk(rep["tree"], ())
    root = dict(rep["tree"], inherited_s=rep["tree"]["individual_s"], children=[])
    del out[()]
    out[("<root>",)] = root
    return out


def metadata(j, what, program, threads):
    """process_name of pid 1 and a thread_name for each (tid, name)."""
    meta = [e for e in j["traceEvents"] if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    names = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"
             and e["pid"] == 1}
    check(procs.get(1) == program, "%s: process_name of pid 1 is the program %r (%r)"
          % (what, program, procs.get(1)))
    check(names == dict(threads), "%s: a thread_name for every track (%r)" % (what, names))
    xs = {e["tid"] for e in j["traceEvents"] if e["ph"] == "X"}
    check(xs <= set(names) and all(e["pid"] == 1 for e in j["traceEvents"] if e["ph"] == "X"),
          "%s: every X event on a named thread of pid 1" % what)


def against_report(track, rep, what, exact):
    """Every event against the stack it stands for in report --json: its
    dur the stack's inherited time to 1 µs (the ends are rounded, not the
    length), or to the µs when exact (ticks of whole µs)."""
    want = tree_stacks(rep)
    tol = 0 if exact else 1
    got = {n[0]: n for n in track.nodes}
    timed = {s for s, n in want.items() if seconds_us(n["inherited_s"]) > tol}
    missing = timed - set(got)
    extra = set(got) - set(want)
    check(not missing and not extra and (not exact or set(got) == timed),
          "%s: one X event per stack with time (%d; missing %s, extra %s)"
          % (what, len(got), sorted(missing)[:3], sorted(extra)[:3]))
    bad = []
    for stack, (_, s, end, e) in got.items():
        n = want.get(stack)
        if n is None:
            continue
        a = e["args"]
        if abs(end - s - seconds_us(n["inherited_s"])) > tol:
            bad.append("%r dur %d µs, inherited %s s" % (stack, end - s, n["inherited_s"]))
        if a.get("entries") != n["entries"] or ns(a.get("self_us")) != seconds_ns(n["individual_s"]):
            bad.append("%r args %r, report %s entries %s s" % (stack, a, n["entries"],
                                                              n["individual_s"]))
        if "individual_alloc_bytes" in n and (
                a.get("self_alloc_bytes") != n["individual_alloc_bytes"] or
                a.get("inherited_alloc_bytes") != n["inherited_alloc_bytes"]):
            bad.append("%r bytes %r, report %s" % (stack, a, n["inherited_alloc_bytes"]))
        if "individual_alloc_bytes" not in n and "self_alloc_bytes" in a:
            bad.append("%r: bytes without allocation data" % (stack,))
        if e["cat"] not in ("function", "region") and stack[-1] not in ("<root>", "(hidden)"):
            bad.append("%r cat %r" % (stack, e["cat"]))
    check(not bad, "%s: each event's dur is its stack's inherited time, args its entries, "
          "self time (and bytes)%s" % (what, "" if not bad else " (%s)" % bad[:3]))
    # siblings: most inherited first, then more entries, then name; the
    # root's own time and a pruned stand-in after the others
    order = []
    for parent, kids in track.children.items():
        keys = [(k[0][-1] in ("<root>", "(hidden)"), -seconds_ns(want[k[0]]["inherited_s"]),
                 -want[k[0]]["entries"], k[0][-1].encode()) for k in kids if k[0] in want]
        if keys != sorted(keys):
            order.append(parent)
    check(not order, "%s: siblings in order, largest inherited time first (ties: entries, "
          "name)%s" % (what, "" if not order else " (under %r)" % order[:2]))
    total = total_us(rep)
    check(track.top_total() == total,
          "%s: the top-level events add up to the total, %d µs" % (what, total))


def per_function(track, functions, what, exact):
    """Each function's events add up to its inherited and self time (a
    compressed stack holds a function once, so its events never nest),
    to 1 µs and 1 ns per event (exact: to the µs and ns)."""
    got = track.by_name()
    bad = []
    for f in functions:
        g = got.get(f["name"], [0, 0, 1])
        tol = 0 if exact else g[2]
        if (abs(g[0] - seconds_us(f["inherited_s"])) > tol or
                abs(g[1] - seconds_ns(f["self_s"])) > tol):
            bad.append("%s: %d µs/%d ns, report %s/%s s" % (f["name"], g[0], g[1],
                                                           f["inherited_s"], f["self_s"]))
    check(not bad, "%s: each function's events add up to its inherited and self time%s"
          % (what, "" if not bad else " (%s)" % bad[:3]))


def tracks(j, what):
    xs = [e for e in j["traceEvents"] if e["ph"] == "X"]
    tids = sorted({e["tid"] for e in xs})
    return {t: Track([e for e in xs if e["tid"] == t], "%s tid %s" % (what, t)) for t in tids}


def merged(prof, name, what, *opts, exact=False):
    """The merged tree of a view: checked against report --json."""
    rep = report(prof, *opts)
    path = convert(prof, name, *opts)
    j = load(path, what)
    if j is None:
        return None, rep
    t = tracks(j, what)
    check(list(t) == [0], "%s: one track, tid 0 (%s)" % (what, list(t)))
    if 0 not in t:
        return j, rep
    against_report(t[0], rep, what, exact)
    if "--min-percent" not in opts:  # pruning moves time into "(hidden)"
        per_function(t[0], rep["functions"], what, exact)
    thr = rep["threads"]
    label = "all threads"
    if thr == 1:
        one = report(prof, "--threads")["threads"][0]
        label = "%s [%d]" % (one["name"] or "thread", one["tid"])
    metadata(j, what, os.path.basename(rep["program"]), {0: label})
    return j, rep


def per_thread(prof, what):
    """--threads: a track per thread, tid = its place, named 'name [tid]',
    each adding up to the thread's time, function by function."""
    rep = report(prof, "--threads")
    j = load(convert(prof, "threads.trace.json", "--threads"), what)
    if j is None:
        return
    threads = rep["threads"]
    labels = {k + 1: "%s [%d]" % (t["name"] or "thread", t["tid"]) for k, t in enumerate(threads)}
    metadata(j, what, os.path.basename(rep["program"]), labels)
    t = tracks(j, what)
    bad = []
    for k, th in enumerate(threads):
        tr = t.get(k + 1)
        want = seconds_us(th["total_time_s"])
        if (tr.top_total() if tr else 0) != want:
            bad.append("tid %d: %s µs, want %d" % (k + 1, tr and tr.top_total(), want))
        if tr:
            per_function(tr, th["functions"], "%s tid %d" % (what, k + 1), False)
    check(not bad, "%s: each track adds up to its thread's time%s" % (what, "" if not bad
                                                                      else " (%s)" % bad[:3]))
    check(abs(sum(tr.top_total() for tr in t.values()) - total_us(rep)) < len(t),
          "%s: the tracks add up to the total (each rounded to the µs)" % what)
    return j


# ---- the heap --------------------------------------------------------------------

def counters(j, hp, times, what):
    """The C events against hp's samples of the same view: the bytes,
    and the times (hp's to the µs, ours to the ns)."""
    cs = [e for e in j["traceEvents"] if e["ph"] == "C"]
    procs = {e["pid"]: e["args"]["name"] for e in j["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    check(procs.get(2) == "heap (real time)" and all(
        e["pid"] == 2 and e["name"] == "live heap" and list(e["args"]) == ["bytes"] for e in cs),
        "%s: 'live heap' counters on their own pid 2, 'heap (real time)'" % what)
    got = [(ns(e["ts"]), e["args"]["bytes"]) for e in cs]
    want = [(t, sum(bands.values())) for (_, bands), t in zip(hp[1], times)]
    check(got == want and all(abs(t / 1000.0 - h * 1e6) <= 0.5 for (t, _), (h, _) in
                              zip(got, hp[1])),
          "%s: a counter per hp sample, its bytes hp's total, at the sample's time (%s)"
          % (what, got))


def heap():
    prof = make_profile("chrome_heap", spec([MAIN]))
    times = [0] + [s[0] for s in SAMPLES]
    for opts in ((), ("--focus", "b"), ("--deselect", "b")):
        what = "chrome heap %s" % " ".join(opts) if opts else "chrome heap"
        j, _ = merged(prof, "heap.trace.json", what, *opts, exact=True)
        hp = hp_parse(run([CCPROF, "convert", "--to", "hp"] + list(opts) + [prof]).stdout)
        if j is not None and check(not isinstance(hp, str), "%s: hp of the view reads" % what):
            counters(j, hp, times, what)
    j, _ = merged(make_profile("chrome_noheap", spec([MAIN], heap=False)), "noheap.trace.json",
                  "chrome without heap data", exact=True)
    if j is not None:
        check(not any(e["ph"] == "C" or e["pid"] != 1 for e in j["traceEvents"]),
              "chrome without heap data: no counter, no pid 2")


# ---- hostile names, exact layout ----------------------------------------------------

HOSTILE = 'q"uote \\back\\slash </script><!-- \x01\x1f\x7f\ttab \xe9 \U0001f525'


def hostile():
    """Quotes, backslashes, control characters, </script>, non-ASCII and
    invalid UTF-8 in function and program names; parsed back as written
    (invalid bytes as report --json gives them)."""
    name = HOSTILE.encode().replace(b"\\", b"\\\\")
    name = "".join(chr(b) if 0x20 < b < 0x7f else "\\x%02x" % b for b in name + b"\xff")
    text = "\n".join([
        "program ./<demo>\\x22&\\x01\\xfe x",
        "clock cpu 1000",
        "thread 7 w\\x22</script>",
        "ctx 1 0 20 : [main]",
        "ctx 2 0 30 : [main] [parse]",
        "ctx 5 0 50 : [main] [parse] [%s]" % name,
        "ctx 1 0 10 : [main] [b]",
        "ctx 0 0 3 :"]) + "\n"
    prof = make_profile("chrome_hostile", text)
    j, rep = merged(prof, "hostile.trace.json", "chrome hostile", exact=True)
    raw = open(os.path.join(D, "hostile.trace.json"), encoding="utf-8").read()
    check("</script" not in raw.lower() and "<!--" not in raw,
          "chrome hostile: no '</script' or '<!--' in the file (written \\u003c)")
    if j is None:
        return
    names = {e["name"] for e in j["traceEvents"] if e["ph"] == "X"}
    check(HOSTILE + "\ufffd" in names and names == {f["name"] for f in rep["functions"]} | {"<root>"},
          "chrome hostile: every name parses back as written (%r)" % sorted(names))
    # the layout by hand: main [0, 110 ms) holds parse [0, 80) (holding
    # the hostile one [0, 50)) then b [80, 90); <root> [110, 113)
    got = [(e["name"][:6], e["ts"], e["dur"]) for e in j["traceEvents"] if e["ph"] == "X"]
    want = [("main", 0, 110000), ("parse", 0, 80000), (HOSTILE[:6], 0, 50000),
            ("b", 80000, 10000), ("<root>", 110000, 3000)]
    check(got == want, "chrome hostile: the layout drawn by hand, parents first (%s)" % got)


def deep():
    """A stack 900 deep, time at each level: 900 nested events, the file
    linear in them (the writer caps its indentation)."""
    n = 900
    sys.setrecursionlimit(20000)  # report --json's tree nests 2 levels a node
    lines = ["program ./deep", "clock cpu 1000", "thread 1 deep"]
    lines += ["ctx 1 0 1 : " + " ".join("[f%d]" % i for i in range(k + 1)) for k in range(n)]
    prof = make_profile("chrome_deep", "\n".join(lines) + "\n")
    j, _ = merged(prof, "deep.trace.json", "chrome deep", exact=True)
    size = os.path.getsize(os.path.join(D, "deep.trace.json"))
    if j is not None:
        xs = [e for e in j["traceEvents"] if e["ph"] == "X"]
        check(len(xs) == n and [e["ts"] for e in xs] == [0] * n and
              [e["dur"] for e in xs] == [1000 * (n - k) for k in range(n)] and size < 200 * n,
              "chrome deep: %d events, each inside the one before, %d bytes" % (len(xs), size))


# ---- speedscope --------------------------------------------------------------------

def in_speedscope(path, j, what):
    """speedscope names each frame "name {args}" (its Trace Event importer
    keys frames by name and args) and shows each one's total and self
    time: the event's dur, and what its children leave of it."""
    rows = speedscope_import(path, os.path.basename(path), "Trace Event Format profile", what)
    if rows is None:
        return
    track = Track([e for e in j["traceEvents"] if e["ph"] == "X" and e["tid"] == 0],
                  "%s (again, for speedscope)" % what)
    shown = {r[2]: r for r in rows}
    keys = collections.Counter()
    want = {}
    for stack, s, end, e in track.nodes:
        args = json.dumps(e["args"], separators=(",", ":"), ensure_ascii=False,
                          default=lambda d: float(d))
        key = e["name"] + " " + args
        keys[key] += 1
        kids = sum(k[2] - k[1] for k in track.children[stack])
        want[key] = ((end - s) / 1e6, (end - s - kids) / 1e6)
    missing = [k for k in keys if k not in shown]
    check(not missing, "%s in speedscope: every event is a frame 'name {args}', names as written%s"
          % (what, "" if not missing else " (missing %r)" % missing[:3]))
    bad = []
    close = lambda got, w: got is not None and abs(got - w) <= 1e-8 + w * 0.006
    for k, n in keys.items():
        if n == 1 and k in shown:
            total, own = (speedscope_seconds(shown[k][i]) for i in (0, 1))
            if not (close(total, want[k][0]) and close(own, want[k][1])):
                bad.append("%s: %s, %s; want %.6f, %.6f s" % (k[:40], shown[k][0], shown[k][1],
                                                              want[k][0], want[k][1]))
    check(keys and not bad, "%s in speedscope: each frame's total and self time are its event's (%d)%s"
          % (what, len(keys), "" if not bad else " (%s)" % bad[:3]))


# ---- the runs ------------------------------------------------------------------------

def cli(prof):
    for opts, what in ((["--inverted"], "--inverted"), (["--weight", "time"], "--weight"),
                       (["--node-threshold", "1"], "--node-threshold")):
        r = run([CCPROF, "convert", "--to", "chrome"] + opts + [prof])
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and r.stdout == "",
              "chrome %s: a usage error (%r)" % (what, r.stderr.strip()))
    a = run([CCPROF, "convert", "--to", "chrome", prof]).stdout
    b = open(convert(prof, "again.trace.json"), encoding="utf-8").read()
    check(a == b and len(a) > 100, "chrome: two runs, stdout and -o, give the same bytes")
    r = run([CCPROF, "convert", "--help"])
    check(re.search(r"^  chrome +Trace Event Format", r.stdout, re.M) is not None,
          "convert --help lists chrome")


def recorded():
    names = record_names("names_chrome", os.path.join(D, "names.ccprof"))
    threads = build("threads_chrome", "tests/progs/threads.c")
    r, thr = record(threads, profile=os.path.join(D, "threads.ccprof"))
    check(r.returncode == 0, "threads runs under ccprof record (cpu clock, ns ticks)")
    return names, thr


names, thr = recorded()
cli(names)
j, rep = merged(names, "names.trace.json", "chrome", exact=False)
if j is not None:
    cats = {e["name"]: e["cat"] for e in j["traceEvents"] if e["ph"] == "X"}
    check(cats.get("frame 42") == "region" and cats.get("main") == "function" and
          cats.get("<root>") == "ccprof",
          "chrome: cat region for a region, function for a function, ccprof for <root>")
    in_speedscope(os.path.join(D, "names.trace.json"), j, "chrome")
for opts in (("--focus", "templates"), ("--deselect", "templates,region"),
             ("--min-percent", "10")):
    merged(names, "view.trace.json", "chrome %s" % " ".join(opts), *opts, exact=False)
merged(thr, "threads-merged.trace.json", "chrome threads merged")
tj = per_thread(thr, "chrome --threads")
if tj is not None:
    rows = speedscope_import(os.path.join(D, "threads.trace.json"), "threads.trace.json",
                             "Trace Event Format profile", "chrome --threads")
heap()
hostile()
deep()
finish()
