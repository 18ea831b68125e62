"""The HTML report's model (src/output/html/model.js) against the C tool.

model.js computes every view in the page; it must give exactly what
`ccprof report --json` gives for the same view options.  For each profile
(real runs of the worked examples, Spivey's (docs/semantics.md) and Morgan
& Jarvis's (docs/views.md, "Selection", and tests/progs/mjstack.c), and
others, hand-made ones with hostile names, ties and a re-entered thread
root, an allocation profile, a random deep one of several threads), the
page's data is taken from `ccprof convert --to html`, and for each set of
view options `node tests/html_model.js` prints the model's view in report
--json's shape, which is compared, section by section, with

    ccprof report --json --callers '*' --around '*' --cycles --threads --hot --hook-cost OPTIONS

integers exactly, seconds within 1e-9 (report --json writes 9 decimals);
the warnings of unmatched patterns and the error of a --focus that
matches nothing must be the CLI's lines.  Node is required: without it
the suite fails.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

from ccp import *
from heap_views import hp_parse, svg_bands

sys.setrecursionlimit(20000)  # deep trees in the JSON
EPS = 1e-9 + 1e-12
NODE = shutil.which("node") or shutil.which("nodejs")
DRIVER = os.path.join(TOP, "tests", "html_model.js")
DATA_RE = re.compile(r'<script type="application/json" id="ccprof-data">(.*?)</script>', re.S)
# Members compared elsewhere or not at all: the live heap (report --json
# --heap's, compared by heap_sections), and the allocations (compared by
# sections: the total with those outside any context, and in contexts).
IGNORED = {"alloc", "heap", "profile_alloc_bytes", "ccprof_version", "live_bytes", "live_blocks"}


# ---- comparing -------------------------------------------------------------------

def differ(js, c, path="$"):
    """The first difference between the model's value and the C tool's,
    or None."""
    if isinstance(c, dict):
        if not isinstance(js, dict):
            return "%s: not an object in model.js" % path
        live = path.startswith(("heap", "live heap"))  # the heap's own sections keep all
        keys = {k for k in set(js) | set(c) if live or (k not in IGNORED and "_live_" not in k)}
        for k in sorted(keys):
            if k not in js or k not in c:
                return "%s.%s: only in %s" % (path, k, "model.js" if k in js else "ccprof")
            d = differ(js[k], c[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(c, list):
        if not isinstance(js, list) or len(js) != len(c):
            return "%s: %s items in model.js, %d in ccprof" % (
                path, len(js) if isinstance(js, list) else "no", len(c))
        for i, (a, b) in enumerate(zip(js, c)):
            d = differ(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if path.endswith("_s") and isinstance(c, (int, float)) and not isinstance(c, bool):
        ok = isinstance(js, (int, float)) and abs(js - c) <= EPS
    else:
        ok = js == c and type(js) == type(c)
    return None if ok else "%s: %r in model.js, %r in ccprof" % (path, js, c)


def around_lists(c_around):
    """report --json's around as {id: (callers, callees)}, each [id, calls]."""
    out = {}
    for f in c_around:
        out[str(f["id"])] = ([[a["id"], a["calls"]] for a in f["callers"]],
                             [[a["id"], a["calls"]] for a in f["callees"]])
    return out


def model_around(js):
    """The model's arcsInto/arcsOutOf as --around lists them: without the
    function's own recursive arc."""
    out = {}
    for f, into in js["arcs_into"].items():
        out[f] = ([a for a in into if a[0] != int(f)],
                  [a for a in js["arcs_out"][f] if a[0] != int(f)])
    return out


def sections(js, c):
    """(section, model's value, ccprof's value) to compare."""
    head = ["total_ticks", "total_time_s", "root_time_s", "total_calls", "ncontexts"]
    out = [("totals", {k: js[k] for k in head}, {k: c[k] for k in head})]
    if "alloc" in c:
        # report's header total: with what no context holds, allocated
        # before a thread's first call (none under a focus)
        out.append(("alloc", js.get("alloc"), c["alloc"]))
        out.append(("allocations in contexts", js["alloc_in_contexts"],
                    {"bytes": c["alloc"]["bytes"] - c["alloc"]["outside_bytes"],
                     "blocks": c["alloc"]["blocks"] - c["alloc"]["outside_blocks"]}))
    out.append(("view", js.get("view"), c.get("view")))
    for k in ("functions", "arcs", "contexts", "tree", "callers", "cycles", "threads"):
        out.append((k, js[k], c.get(k, [])))
    out.append(("hot", js["hot"], c.get("hot")))
    out.append(("hook_cost", js["hook_cost"], c.get("hook_cost")))
    out.append(("around (arc lists)", model_around(js), around_lists(c.get("around", []))))
    return out


# ---- running both ----------------------------------------------------------------

def page_data(name, prof, short=False):
    """The DATA of the page `convert --to html` writes for prof (with
    --short-names if short), in a file."""
    page = os.path.join(OUT, name + ".html")
    r = run([CCPROF, "convert", "--to", "html", "-o", page] +
            (["--short-names"] if short else []) + [prof])
    if r.returncode != 0:
        raise SystemExit("convert --to html %s: %s" % (prof, r.stderr))
    m = DATA_RE.search(open(page, encoding="utf-8").read())
    path = os.path.join(OUT, name + ".data.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(m.group(1))
    return path


def cli_args(o):
    args = []
    for key, opt in (("select", "--select"), ("deselect", "--deselect"),
                     ("module", "--module"), ("focus", "--focus")):
        for v in o.get(key, []):
            args += [opt, v]
    if o.get("onlyExported"):
        args.append("--only-exported")
    return args


def terminal(s):
    """A line as the CLI prints it on stderr (cli_error): a control
    character as '?', so that a name cannot break the line or reach the
    terminal; the page shows text as it is."""
    return re.sub(r"[\x00-\x1f\x7f]", "?", s)


def cli_said(prof, err, js):
    """Whether the CLI's stderr is the model's warnings, or its error, line
    for line, as the CLI escapes them (terminal).  A usage error names
    the command and ends with the usage."""
    if "error" not in js:
        return err == "".join("ccprof: %s: %s\n" % (prof, terminal(w)) for w in js["warnings"])
    usage = re.match(r"ccprof report: (.*) \(usage: .*\)\n$", err, re.S)
    return err == "ccprof: %s: %s\n" % (prof, terminal(js["error"])) or bool(
        usage and usage.group(1) == terminal(js["error"]))


def model_views(name, data, sets):
    """The model's view under each option set, from one node; on failure
    (None, what node said)."""
    opts = os.path.join(OUT, "%s.opts.json" % name)
    with open(opts, "w") as f:
        json.dump(sets, f)
    r = run([NODE, DRIVER, data, opts])
    if r.returncode != 0:
        return None, r.stderr.strip()[-500:]
    return json.loads(r.stdout), None


def heap_sections(prof, o, js):
    """(section, model's, ccprof's) of the live heap, from report --json
    --heap --threads under the same options: the heap object, each
    function's live members (of those holding any), each thread's live
    heap and its functions' live members, the stacks holding live bytes
    (the tree's nodes with individual live bytes, as report --heap lists
    them)."""
    c = json.loads(run([CCPROF, "report", "--json", "--heap", "--threads"] + cli_args(o) +
                       [prof]).stdout)

    def live(functions):
        return {str(f["id"]): [f["self_live_bytes"], f["self_live_blocks"],
                               f["inherited_live_bytes"], f["inherited_live_blocks"]]
                for f in functions if f["inherited_live_bytes"] or f["inherited_live_blocks"]}
    fns = live(c["functions"])
    threads = [{"tid": t["tid"], "total_live_bytes": t["total_live_bytes"],
                "functions": live(t["functions"])} for t in c["threads"]]
    stacks = []

    def walk(n, path):
        if n["individual_live_bytes"]:
            stacks.append([" > ".join(path), n["individual_live_bytes"]])
        for k in n["children"]:
            walk(k, path + [k["name"]])
    walk(c["tree"], [])
    return [("heap", js["heap"]["heap"], c["heap"]),
            ("live heap by function", js["heap"]["functions"], fns),
            ("each thread's live heap", js["heap"]["threads"], threads),
            ("live heap by stack", sorted(js["heap"]["stacks"]), sorted(stacks))]


def hp_name(name):
    """A band's name as convert --to hp writes it (escape_hp_name): a
    space or a control character is '_'."""
    return re.sub(r"[\x00-\x20\x7f]", "_", name)


def chart_sections(prof, o, js):
    """(section, model's, ccprof's) of the heap over time under the same
    options: each point's time (to the microsecond hp writes) and bands by
    name as `convert --to hp` writes them, the empty point at 0 included;
    heap-svg's bands, bottom first, with their points; each band's bytes
    at each point, which are hp's (the sum of the bands without one of
    their own for "other"); the legend's bytes at the largest sample."""
    hc = js["heap_chart"]
    hp = hp_parse(run([CCPROF, "convert", "--to", "hp"] + cli_args(o) + [prof]).stdout)
    svg = run([CCPROF, "convert", "--to", "heap-svg"] + cli_args(o) + [prof]).stdout
    if not check(not isinstance(hp, str) and svg.startswith("<?xml"),
                 "%s %s: hp and heap-svg of the view (%s)" % (prof, cli_args(o), hp)):
        return []
    theirs = [[round(t * 1e6), bands] for t, bands in hp[1]]
    mine = [[(t + 500) // 1000, {}] for t in hc["times_ns"][:len(hc["times_ns"]) - len(hc["samples"])]]
    for s in hc["samples"]:
        bands = {hp_name(n): v for n, v in s["bands"]}
        if s["outside_bytes"]:
            bands["(outside)"] = s["outside_bytes"]
        mine.append([(s["time_ns"] + 500) // 1000, bands])
    bands, keys = svg_bands(svg)
    own = {hp_name(r["name"]) for r in hc["rows"] if r["name"] not in ("other", "(outside)")}

    def hp_bytes(name, bands):
        if name == "other":
            return sum(v for n, v in bands.items() if n not in own and n != "(outside)")
        return bands.get(hp_name(name), 0)
    values = [[r["name"], [hp_bytes(r["name"], p[1]) for p in theirs]] for r in hc["rows"]]
    big = hc["largest"]
    return [("heap over time: the points as hp's", mine, theirs),
            ("heap over time: the bands as heap-svg's", [[r["name"], len(r["values"])]
                                                         for r in hc["rows"]],
             [b[:2] for b in bands]),
            ("heap over time: each band's bytes at each point, hp's",
             [[r["name"], r["values"]] for r in hc["rows"]], values),
            ("heap over time: the legend's bytes at the largest sample, heap-svg's",
             {r["name"]: r["values"][big] for r in hc["rows"]} if big is not None else {}, keys)]


def compare(name, prof, o, js, short=False):
    args = cli_args(o) + (["--short-names"] if short else [])
    what = "%s %s" % (name, json.dumps(args, ensure_ascii=False))
    # Bytes: a name's CR must not become a newline.
    r = subprocess.run([CCPROF, "report", "--json", "--callers", "*", "--around", "*",
                        "--cycles", "--threads", "--hot", "--hook-cost"] + args + [prof],
                       capture_output=True)
    r.stderr = r.stderr.decode("utf-8", "replace")
    said = "%s: the CLI's warnings or error (ccprof: %r; model.js: %r)" % (
        what, r.stderr, js.get("error", js.get("warnings")))
    check(cli_said(prof, r.stderr, js), said)
    if r.returncode != 0 or "error" in js:
        check(r.returncode != 0 and "error" in js, "%s: an error in both or neither" % what)
        return
    c = json.loads(r.stdout)
    heap = heap_sections(prof, o, js) + chart_sections(prof, o, js) if "heap" in js else []
    for section, a, b in sections(js, c) + heap:
        d = differ(a, b, section)
        check(d is None, "%s: %s as report --json%s" % (what, section, ": " + d if d else ""))


# ---- option sets -------------------------------------------------------------------

def option_sets(prof, extra=()):
    """View options for prof: none; each of the heaviest functions
    deselected and focused; selections, two foci, combinations; modules,
    exported symbols; patterns that match nothing."""
    full = report(prof)
    names = [f["name"] for f in full["functions"]]
    roots = {c["history"][0]["name"] for c in full["contexts"] if c["history"]}
    inner = [n for n in names if n not in roots]
    sets = [{}]
    for n in inner[:4] + sorted(roots)[:2]:
        sets.append({"deselect": [n]})
    for n in names[:4]:
        sets.append({"focus": [n]})
    if len(inner) >= 2:
        a, b = inner[0], inner[1]
        sets += [{"deselect": [a, b]}, {"deselect": ["%s,%s" % (a, b)]},
                 {"select": [a]}, {"select": ["%s,%s" % (a, b)]},
                 {"focus": [a], "deselect": [b]}, {"focus": [a, b]},
                 {"focus": ["%s,%s" % (a, b)], "deselect": [inner[-1]]},
                 {"select": [a], "focus": [b]}, {"select": [a, b], "deselect": [b]}]
    if names:
        sets.append({"deselect": [names[0][:1] + "*"]})
    # Labels as the report gives functions that share a name: "name
    # [module+0xoffset]", "name [module]" (Note [Qualified names in
    # patterns] in select.c).
    coded = [f for f in full["functions"] if f.get("offset") is not None][:2]
    if coded:
        f, g = coded[0], coded[-1]
        base = lambda h: os.path.basename(h.get("module") or "") or "?"
        sets += [{"deselect": ["%s [%s+0x%x]" % (f["name"], base(f), f["offset"])]},
                 {"focus": ["%s [%s]" % (g["name"], base(g))]},
                 {"select": ["%s [*]" % f["name"], "%s [%s+0x%x]" % (g["name"], base(g), g["offset"] + 1)]}]
        # Where base name and offset are shared too: the path, then the
        # build-id's first digits (Note [Names that collide]).
        path = lambda h: h.get("module") or "?"
        sets += [{"deselect": ["%s [%s+0x%x]" % (f["name"], path(f), f["offset"])]},
                 {"focus": ["%s [*/%s]" % (g["name"], base(g))]},
                 {"deselect": ["%s [%s+0x%x@%s]" % (g["name"], base(g), g["offset"],
                                                    g.get("build_id", "")[:12].upper() or "0")]},
                 {"select": ["%s [%s+0x%x@%s]" % (f["name"], base(f), f["offset"],
                                                  "f" if f.get("build_id", "")[:1] != "f" else "0")]}]
    sets += [{"module": ["*"]}, {"module": ["nosuch.so"]}, {"onlyExported": True},
             {"onlyExported": True, "deselect": [names[-1]]},
             {"deselect": ["nosuch_function"]}, {"select": ["%s,nosuch*" % names[0]]},
             {"deselect": ["nosuch1"], "select": ["nosuch2"], "module": ["nosuch3"]},
             {"focus": ["nosuch_function"]}, {"focus": ["%s,nosuch" % names[0]]}]
    return sets + list(extra)


def profile(name, prof, extra=(), only=None, short=False):
    """Compare on prof under option_sets (and extra), or only these; with
    short, a page and reports with --short-names."""
    if not prof or not os.path.exists(prof):
        check(False, "%s: a profile to compare on" % name)
        return
    data = page_data(name, prof, short)
    sets = only or option_sets(prof, extra)
    views, err = model_views(name, data, sets)
    if not check(views is not None and len(views) == len(sets),
                 "%s: the model runs under %d option sets%s"
                 % (name, len(sets), " (%r)" % err if err else "")):
        return
    for o, js in zip(sets, views):
        compare(name, prof, o, js, short)


# ---- the profiles ------------------------------------------------------------------

def said(r):
    """What a failed command said, on one line."""
    return "" if r.returncode == 0 else " (%r)" % r.stderr[-300:]


def recorded(name, src, args=(), clock=None, flags=()):
    prog = build("hm_" + name, src, *flags)
    r, prof = record(prog, list(args), clock=clock,
                     profile=os.path.join(OUT, "hm_%s.ccprof" % name))
    check(r.returncode == 0, "%s: runs under ccprof record%s" % (name, said(r)))
    return prof


def record_alloc(name, src, args=(), flags=()):
    prog = build("hm_" + name, src, *flags)
    prof = os.path.join(OUT, "hm_%s.ccprof" % name)
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog] + list(args))
    check(r.returncode == 0, "%s: runs under ccprof record --alloc%s" % (name, said(r)))
    return prof


# Morgan & Jarvis's selection example with bytes, and a second thread
# (tests/alloc_views.py): exact numbers, allocations on every member.
MJ_ALLOC = "alloc 100 3\n" + MJ_BYTES + MJ_BYTES_WORKER

# Spivey's mutual recursion (docs/semantics.md, n = 2): one cycle in three
# rotations, gaps where A4/A5 elided a path.
SPIVEY = """program ./spivey 2
clock cpu 1000
thread 42 spivey
ctx 0 0 5 :
ctx 1 0 10 : [main]
ctx 1 2 20 : [main] [P]
ctx 1 0 30 : [main] [P] [Q]
ctx 1 0 40 : [main] [P] [Q] [R]
ctx 2 0 50 : [main] P [Q] [R] [P]
ctx 1 0 60 : [main] P Q [R] [P] [Q]
ctx 1 0 70 : [main] P R [P] [Q] [R]
ctx 1 3 80 : [main] P [Q] [R] [P] [S]
"""

# The thread root entered again (Note [The thread root of a reduced
# stack] in view.c): main -> b -> c -> main -> d, and ties everywhere.
REENTERED = """program ./reenter
clock cpu 1000
thread 1 main
ctx 1 0 10 : [main]
ctx 1 0 10 : [main] [b]
ctx 2 1 10 : [main] [b] [c]
ctx 1 0 10 : main [b] [c] [main]
ctx 1 0 10 : main [b] [c] [main] [d]
ctx 1 0 10 : main [b] c [main] [d] [c]
ctx 3 0 0 : [main] [d]
ctx 3 0 0 : [main] [e]
thread 2 other
ctx 1 0 10 : [b]
ctx 1 0 10 : b [c] [b]
ctx 1 0 10 : [main] [b]
"""

# A cycle with more items than its closing history has entries ("…"
# between every two unmarked neighbours), after a shorter context: the
# C tool must size its buffer for the items, not the entries (cycles.c
# cycles_find; it overflowed its heap block and aborted).
CYCLE_GAPS = """program ./gaps
clock cpu 1000
thread 1 main
ctx 1 0 10 : [main] [a1] [a2] [a3] [a4] [a5] [a6] [a7] [a8] [a9]
ctx 1 0 10 : [main] r b1 c1 b2 c2 b3 c3 b4 c4 b5 c5 b6 c6 b7 c7 b8 c8 [x] [r]
"""

# Names tied on time and calls that are not UTF-8: the page has them as
# U+FFFD, C orders them by their bytes (export_html.c name_rank).
BAD_UTF8_TIES = r"""program /bin/x
clock cpu 100
thread 1
ctx 1 0 3 : [main]
ctx 1 0 3 : [main] [\xff]
ctx 1 0 3 : [main] [\xfe]
ctx 1 0 3 : [main] [\xef\xbf\xbe]
ctx 1 0 3 : [main] [\xfe] [a]
ctx 1 0 3 : [main] [\xff] [a]
"""

# Hostile names (exports.py's, and more): markup, control bytes, invalid
# UTF-8, pattern characters, commas and operators; and ties on time and
# calls between names that sort differently by UTF-16 unit and by byte
# (U+E000 before U+1F600 as strcmp has it).
HOSTILE = r"""program ./ev\x0ail a\x09b \x1b[31m\x7f
clock cpu 1000000
thread 1 <b>t</b>
ctx 3 0 4000000 : [main] [new\x0aline]
ctx 1 2 6000000 : [main] [tab\x09cr\x0desc\x1b[2Jdel\x7f]
ctx 1 0 2000000 : [main] [bad\xff\xc3utf8]
ctx 1 0 4000000 : [main] [operator<<\x20(std::ostream&,\x20int)\x20é]
ctx 0 0 0 : [main] [new\x0aline] [zero]
ctx 1 0 3000000 : [main] [<script>alert(1)</script>]
ctx 1 0 3000000 : [main] [\xee\x80\x80]
ctx 1 0 3000000 : [main] [\xf0\x9f\x98\x80]
ctx 1 0 3000000 : [main] [a,b]
ctx 1 0 3000000 : [main] [ns::f(int,\x20char)]
ctx 1 0 3000000 : [main] [ns::f(int,\x20char)] [x*y]
ctx 2 0 1000000 : [main] [\x22quoted\x22\x20&amp;]
ctx 1 0 500000 : [main] [S::operator()(int)\x20const]
ctx 1 0 500000 : [main] [T::operator()]
"""


def hostile_extra():
    return [{"deselect": ["a,b"]}, {"deselect": ["ns::f"]}, {"focus": ["ns::f"]},
            {"deselect": ["operator<*,zero"]}, {"select": ["<script>*"]},
            {"deselect": ["x*y"]}, {"focus": ["\U0001F600,\ue000"]},
            {"deselect": ["\ufffd*"]}, {"deselect": [","]}, {"deselect": ["a,,b"]},
            {"deselect": ["S::operator()"]}, {"deselect": ["T::operator"]},
            {"select": ["S::operator(),T::operator()"]}]


def heap_many():
    """A heap profile of 26 stacks with live bytes in samples: more than
    heap-svg's 20 bands, so an "other" band; uneven times (two samples at
    one instant) so that a band's area is not its bytes at the end, and
    bytes from a few values so that areas tie."""
    rnd = random.Random(3)
    lines = ["program ./many", "clock cpu 1000", "alloc 100 3", "heap 1000000 70000 0 0",
             "thread 1 many", "ctx 0 0 1 5000 1 0 0 :", "ctx 1 0 1 5000 1 0 0 : [main]"]
    for k in range(24):
        lines.append("ctx 1 0 1 5000 1 0 0 : [main] [f%02d]" % k)
    lines += ["ctx 1 0 1 5000 1 0 0 : [main] [f01] [g]", "ctx 1 0 1 5000 1 0 0 : [main] [f02] [g]"]
    for t in (1000000, 2000000, 2000000, 5000000, 9000000, 9500000):
        lines.append("sample %d %d" % (t, rnd.choice([0, 5])))
        for k in sorted(rnd.sample(range(28), 16)):
            lines.append("rec 0 %d %d" % (k, rnd.choice([8, 16, 16, 100, 4096])))
    return "\n".join(lines) + "\n"


def transition(hist, p):
    """Spivey's steps A1-A5 (docs/semantics.md, "Cost centres and contexts"):
    the history after entering p, or None for A1."""
    if hist and hist[-1][0] == p:
        return None
    h = [(c, m and c != p) for c, m in hist] + [(p, True)]
    changed = True
    while changed:
        changed = False
        for i in range(1, len(h) - 1):  # A4
            if not (h[i][1] or h[i - 1][1] or h[i + 1][1]):
                del h[i]
                changed = True
                break
        for i in range(len(h) - 1):  # A5
            if not changed and h[i] == h[i + 1] and not h[i][1]:
                del h[i]
                changed = True
                break
    return h


def random_spec(seed, alloc=False):
    """A random run of a small recursive program in three threads: the
    contexts the runtime would make, with costs drawn from a few values
    so that ties are common."""
    rnd = random.Random(seed)
    fns = ["f%d" % i for i in range(9)]
    callees = {f: rnd.sample(fns, 3) for f in fns}
    lines = ["program ./random %d" % seed, "clock cycles 3000000000"]
    if alloc:
        lines.insert(1, "alloc 64 1")
    total = 0
    for t, root in enumerate(["main", "worker", "main"]):
        ctx, order = {}, []

        def charge(h, e=0, r=0):
            key = tuple(h)
            if key not in ctx:
                ctx[key] = [0, 0, 0, 0, 0]
                order.append(key)
            c = ctx[key]
            c[0] += e
            c[1] += r
            c[2] += rnd.choice([0, 0, 1000, 2000, 3000, 77777])
            if alloc and rnd.random() < 0.3:
                c[3] += rnd.choice([16, 32, 4096])
                c[4] += 1

        charge([])
        stack = [[(root, True)]]
        charge(stack[-1], e=1)
        for _ in range(2500):
            if len(ctx) + total > 1300:
                break
            if len(stack) > 1 and rnd.random() < 0.45:
                stack.pop()
                charge(stack[-1])
                continue
            cur = stack[-1]
            nxt = transition(cur, rnd.choice(callees.get(cur[-1][0], fns)))
            if nxt is None:
                charge(cur, r=1)
                stack.append(cur)
            else:
                charge(nxt, e=1)
                stack.append(nxt)
        total += len(ctx)
        lines.append("thread %d t%d" % (t + 1, t))
        for key in order:
            e, r, time, b, blocks = ctx[key]
            hist = " ".join("[%s]" % c if m else c for c, m in key)
            cost = "%d %d %d" % (e, r, time) + (" %d %d" % (b, blocks) if alloc else "")
            lines.append("ctx %s : %s" % (cost, hist))
    return "\n".join(lines) + "\n"


def big_program():
    """A program of 40 functions calling each other at random, recursion
    included, 16 deep: some 20,000 contexts, thousands of cycles."""
    rnd = random.Random(5)
    n = 40
    src = ["#include <stdlib.h>",
           "#define NOHOOK __attribute__((noinline, no_instrument_function))",
           "static unsigned long seed = 12345;",
           "static NOHOOK unsigned next(void) { seed = seed * 6364136223846793005UL"
           " + 1442695040888963407UL; return (unsigned)(seed >> 33); }",
           "static NOHOOK void burn(unsigned n) { for (volatile unsigned i = 0; i < n; i++); }"]
    src += ["__attribute__((noinline)) void f%d(int d);" % i for i in range(n)]
    for i in range(n):
        a, b, c = rnd.sample(range(n), 3)
        src.append("__attribute__((noinline)) void f%d(int d) { burn(%d); if (d <= 0) return; "
                   "switch (next() %% 4) { case 0: f%d(d - 1); break; case 1: f%d(d - 1); break; "
                   "case 2: f%d(d - 1); f%d(d - 2); break; default: break; } }"
                   % (i, 200 * (i % 5 + 1), a, b, c, a))
    src.append("int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 1000; "
               "for (int k = 0; k < n; k++) f0(16); return 0; }")
    path = os.path.join(OUT, "hm_big.c")
    with open(path, "w") as f:
        f.write("\n".join(src) + "\n")
    return path


def made():
    profile("mj_alloc", make_profile("hm_mj_alloc", MJ_ALLOC),
            [{"deselect": ["b"]}, {"deselect": ["a"]}, {"focus": ["b"]}])
    profile("spivey_spec", make_profile("hm_spivey", SPIVEY),
            [{"deselect": ["Q"]}, {"deselect": ["Q,R"]}, {"focus": ["R"]}, {"focus": ["S"]}])
    profile("reentered", make_profile("hm_reentered", REENTERED),
            [{"deselect": ["b"]}, {"deselect": ["c"]}, {"deselect": ["b,c"]},
             {"deselect": ["d"]}, {"focus": ["c"], "deselect": ["b"]},
             {"select": ["d"]}, {"deselect": ["main"]}])
    profile("hostile", make_profile("hm_hostile", HOSTILE), hostile_extra())
    # (Not patterns of those names: the page matches U+FFFD where the CLI
    # has bytes; docs/html.md says so.)
    profile("bad_utf8_ties", make_profile("hm_bad_utf8_ties", BAD_UTF8_TIES),
            only=[{}, {"deselect": ["a"]}, {"focus": ["a"]}, {"select": ["a"]}])
    profile("cycle_gaps", make_profile("hm_cycle_gaps", CYCLE_GAPS), only=[{}, {"deselect": ["c1"]}])
    profile("hooks", make_profile("hm_hooks", HOOKS),
            [{"deselect": ["prefetch_all"]}, {"focus": ["prefetch_all"]},
             {"deselect": ["get_x*,tiny1"]}, {"select": ["work,S::*"]}])
    profile("heap_two", make_profile("hm_heap_two", HEAP_TWO),
            [{"deselect": ["b"]}, {"focus": ["b"]}, {"focus": ["a"], "deselect": ["b"]}])
    profile("heap_many", make_profile("hm_heap_many", heap_many()),
            only=[{}, {"deselect": ["f01"]}, {"focus": ["g"]}, {"select": ["main,g"]},
                  {"deselect": ["f0*"]}])
    profile("random", make_profile("hm_random", random_spec(7)),
            [{"deselect": ["f1,f2,f3"]}, {"select": ["f4,f5"]}, {"focus": ["f6"], "deselect": ["f7"]}])
    profile("random_alloc", make_profile("hm_random_alloc", random_spec(11, alloc=True)),
            [{"deselect": ["f0,f8"]}, {"focus": ["f2", "f3"]}])


def real():
    profile("spivey", recorded("spivey", "tests/progs/spivey.c", ["3"]))
    profile("mj", recorded("mj", "tests/progs/mj.c", ["30"], clock="cycles"))
    profile("mjstack", recorded("mjstack", "tests/progs/mjstack.c", ["20"], clock="cycles"))
    profile("ring", recorded("ring", "tests/progs/ring.c", ["4", "3"], clock="cycles"))
    profile("fib", recorded("fib", "tests/progs/fib.c", ["16"], clock="cycles"))
    profile("calls", recorded("calls", "tests/progs/calls.c", clock="cycles"))
    profile("threads", recorded("threads", "tests/progs/threads.c"))
    # Hooks that outweigh their functions' work (--hook-cost's marks and
    # exclude lists), measured by cycles and by samples.
    for clock in ("cycles", None):
        profile("hookcost_%s" % (clock or "cpu"), recorded(
            "hookcost_%s" % (clock or "cpu"), "tests/progs/hookcost.c", clock=clock,
            flags=["-O1", "-I" + os.path.join(TOP, "tests", "progs")]))
    profile("names", recorded("names", "tests/progs/names.cpp", flags=["-lstdc++"]),
            [{"deselect": ["operator<*,leaf_work"]}, {"focus": ["operator+*"]}])
    # --short-names: the page's patterns match the short names and the
    # whole ones, as the command's do (Note [Short names]).
    profile("shortnames", recorded("shortnames", "tests/progs/shortnames.cpp", ["20"],
                                   clock="cycles", flags=["-lstdc++"]),
            [{"deselect": ["Stack<int>::push(int const&)"]}, {"focus": ["Stack::push"]},
             {"select": ["main,weigh(int),std::vector<int, std::allocator<int> >::push_back"]},
             {"deselect": ["std::vector*"]}, {"focus": ["Money::operator<(Money const&) const"]}],
            short=True)
    so = os.path.join(OUT, "libshlib.so")
    r = run([CC, "-O0", "-g", "-shared", "-fPIC", "-finstrument-functions",
             os.path.join(TOP, "tests/progs/shlib.c"), "-o", so])
    if check(r.returncode == 0, "uselib: the shared library builds"):
        profile("uselib", recorded("uselib", "tests/progs/uselib.c",
                                   flags=["-L" + OUT, "-lshlib", "-Wl,-rpath," + OUT]),
                [{"module": ["libshlib.so"]}, {"module": ["*/hm_uselib"]},
                 {"module": ["libshlib.so"], "onlyExported": True}])
    # A binary gone since the run: --only-exported warns that its symbols
    # cannot be read and counts its functions as not exported.
    gone = recorded("gone", "tests/progs/spivey.c", ["3"])
    os.remove(os.path.join(OUT, "hm_gone"))
    profile("gone", gone, only=[{"onlyExported": True}, {"onlyExported": True, "select": ["P,Q"]},
                                {"onlyExported": True, "module": ["nosuch"]}, {}])
    # Two builds of one path, merged: the report labels each fib by its
    # build-id (Note [Names that collide] in names.c).
    runs = []
    for n, bid in (("10", "aaaa1111"), ("12", "bbbb2222")):
        runs.append(recorded("bid", "tests/progs/fib.c", [n], clock="cycles",
                             flags=["-Wl,--build-id=0x" + bid * 4]))
        os.rename(runs[-1], runs[-1] + "." + n)
        runs[-1] += "." + n
    merged = os.path.join(OUT, "hm_bid_merged.ccprof")
    r = run([CCPROF, "merge", "-o", merged] + runs)
    check(r.returncode == 0, "bid: merge of two builds of one path%s" % said(r))
    labels = sorted(set(re.findall(r"^(fib \[[^]\n]*@[0-9a-f]+\])",
                                   run([CCPROF, "report", merged]).stdout, re.M)))
    check(len(labels) == 2, "bid: the report labels two fib by build-id (%s)" % labels)
    profile("bid", merged, [{"deselect": [l]} for l in labels] + [{"focus": labels[:1]}] +
            [{"select": ["fib [hm_bid+0x*@aaaa]"]}, {"deselect": ["fib [*/hm_bid]"]}])
    prog = build("hm_regions", "tests/progs/regions.c", os.path.join(LIB, "libccprof.a"))
    prof = os.path.join(OUT, "hm_regions.ccprof")
    run([prog], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
    profile("regions", prof, [{"module": ["nosuch"]}, {"onlyExported": True}])
    # Unusual histories: frames left by longjmp, swapcontext, C++ throws.
    profile("jump", recorded("jump", "tests/progs/jump.c"))
    profile("coroutines", recorded("coroutines", "tests/progs/coroutines.c", ["below"]))
    profile("exceptions", recorded("exceptions", "tests/progs/exceptions.cpp", flags=["-lstdc++"]))
    profile("allocs", record_alloc("allocs", "tests/progs/allocs.c", ["threads"]))
    # C++: libstdc++ allocates its emergency pool before main's first
    # call, in no context: in report's total alloc, as in the page's.
    profile("allocs_cxx", record_alloc("allocs_cxx", "tests/progs/allocs_cxx.cpp",
                                       flags=["-lstdc++"]),
            only=[{}, {"deselect": ["make_array"]}, {"focus": ["reserve"]}])
    # Heap profiles: the live heap at the end and in samples, under views.
    for mode in ("steps", "threads"):
        prog = build("hm_heapuse", "tests/progs/heapuse.c")
        prof = os.path.join(OUT, "hm_heap_%s.ccprof" % mode)
        r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, mode])
        check(r.returncode == 0, "heapuse %s: runs under ccprof record --heap%s" % (mode, said(r)))
        profile("heap_" + mode, prof, [{"focus": ["step"]}, {"deselect": ["take"]},
                                       {"focus": ["hold,leak"], "deselect": ["take"]}])
    big = recorded("big", big_program(), ["6000"])
    check(report(big)["ncontexts"] > 15000, "big: over 15,000 contexts")
    profile("big", big, only=[{}, {"deselect": ["f1,f2"]}, {"focus": ["f3"]},
                              {"select": ["f0,f5,f7"], "focus": ["f9"]}])


def view_from_data():
    """The page opens with the options given to convert: DATA.view holds
    them as given, and the model reads them as the CLI does."""
    prof = make_profile("hm_mj_view", MJ_ALLOC)
    page = os.path.join(OUT, "hm_mj_view.html")
    r = run([CCPROF, "convert", "--to", "html", "--deselect", "b", "--focus", "a",
             "-o", page, prof])
    m = DATA_RE.search(open(page, encoding="utf-8").read()) if r.returncode == 0 else None
    view = json.loads(m.group(1))["view"] if m else {}
    check(view == {"select": [], "deselect": ["b"], "module": [], "only_exported": False,
                   "focus": ["a"], "short_names": False}, "convert --deselect b --focus a: DATA.view (%s)" % view)


def main():
    if not check(NODE is not None, "node is installed (Debian: nodejs): the model needs it"):
        finish()
    made()
    view_from_data()
    real()
    finish()


main()
