"""Allocations in the views (docs/views.md, "Allocations"; docs/json.md).

The profiles are written by tests/mkprof.c, so every number is known:
Morgan & Jarvis's selection example (docs/views.md, "Selection") with bytes
in place of time, and times chosen apart from the bytes.

  context        T    bytes  blocks   compressed stack
  <root>         5      7      1
  [main]         0      0      0      ⟨main⟩
  [main] [a]    40     20      2      ⟨a,main⟩
  ... [a] [b]   40     10      1      ⟨b,a,main⟩
  ... [a] [c]    1     10      1      ⟨c,a,main⟩
  ... [b] [c]    1     50      5      ⟨c,b,a,main⟩
  outside any context: 100 bytes, 3 blocks

  total: 197 bytes in 13 blocks, 97 of them in contexts (the base of %alloc)
  COST a 20, b 10, c 60;  INHERITED a 90, b 60, c 60, main 90
  b deselected: COST a 30, c 60
  %alloc: a 20.6, b 10.3, c 61.9, <root> 7.2; inherited main 92.8, b 61.9

The same contexts without the "alloc" line (the run did not count
allocations) must report exactly as a profile with no bytes at all.

Spivey's mutual recursion with bytes (SPIVEY below) gives the cycle and
the butterfly of --cycles and --around; the expected figures of --hot,
--cycles and --around are summed here from the contexts of the specs.
"""
import json
import re

from ccp import *
from pprof_read import *

MJ = MJ_BYTES
MEASURED = "alloc 100 3\n" + MJ
PLAIN = re.sub(r"^(ctx \d+ \d+ \d+) \d+ \d+", r"\1", MJ, flags=re.M)
THREADS = MEASURED + MJ_BYTES_WORKER


# Spivey's mutual recursion (docs/semantics.md, n = 2) with bytes: powers of
# two, so that every sum names the contexts it adds.  One cycle, P → Q → R,
# in progress in the last four contexts.
SPIVEY = """program ./spivey 2
clock cpu 1000
thread 42 spivey
ctx 0 0 5 256 1 :
ctx 1 0 10 1 1 : [main]
ctx 1 2 20 2 1 : [main] [P]
ctx 1 0 30 4 1 : [main] [P] [Q]
ctx 1 0 40 8 1 : [main] [P] [Q] [R]
ctx 2 0 50 16 2 : [main] P [Q] [R] [P]
ctx 1 0 60 32 1 : [main] P Q [R] [P] [Q]
ctx 1 0 70 64 2 : [main] P R [P] [Q] [R]
ctx 1 3 80 128 1 : [main] P [Q] [R] [P] [S]
"""


def spec_contexts(spec):
    """The contexts of a mkprof spec: (E, R, T, bytes, blocks, history as
    [(name, marked)]), for sums made apart from ccprof."""
    out = []
    for m in re.finditer(r"^ctx (\d+) (\d+) (\d+)(?: (\d+) (\d+))? :(.*)$", spec, re.M):
        hist = [(w.strip("[]"), w.startswith("[")) for w in m.group(6).split()]
        out.append(tuple(int(g or 0) for g in m.groups()[:5]) + (hist,))
    return out


def pct(part, whole):
    return "%.1f" % (100.0 * part / whole) if whole else "0.0"


def text(prof, *opts):
    r = run([CCPROF, "report"] + list(opts) + [prof])
    check(r.returncode == 0, "report %s runs (%s)" % (" ".join(opts), r.stderr.strip()))
    return r.stdout


def row(out, name):
    """The words of the first line of out that starts with name."""
    for line in out.splitlines():
        words = line.split()
        if words and words[0] == name:
            return words
    return None


def nodes(node, path=()):
    yield path, node
    for c in node["children"]:
        yield from nodes(c, path + (c["name"],))


def node_at(tree, *path):
    return dict(nodes(tree)).get(path)


def adds_up(tree):
    """Every node: inherited bytes = individual + children's (hidden lines
    included)."""
    return all(n["inherited_alloc_bytes"] == n["individual_alloc_bytes"] +
               sum(c["inherited_alloc_bytes"] for c in n["children"]) for _, n in nodes(tree))


def alloc_of(f):
    return (f["self_alloc_bytes"], f["self_alloc_blocks"], f["inherited_alloc_bytes"],
            f["inherited_alloc_blocks"])


def flat_and_tree(prof):
    r = report(prof)
    check(r["alloc"] == {"bytes": 197, "blocks": 13, "outside_bytes": 100, "outside_blocks": 3},
          "json: alloc totals, outside included (%s)" % r["alloc"])
    f = functions(r)
    want = {"a": (20, 2, 90, 9), "b": (10, 1, 60, 6), "c": (60, 6, 60, 6), "main": (0, 0, 90, 9)}
    check(all(alloc_of(f[n]) == w for n, w in want.items()),
          "json: self and inherited bytes and blocks per function (%s)"
          % {n: alloc_of(f[n]) for n in want})
    t = r["tree"]
    check(t["individual_alloc_bytes"] == 7 and t["inherited_alloc_bytes"] == 97,
          "json: the tree's root has the root context's 7 bytes and inherits 97")
    check(node_at(t, "main", "a", "b", "c")["individual_alloc_bytes"] == 50 and
          node_at(t, "main", "a", "c")["inherited_alloc_bytes"] == 10 and adds_up(t),
          "json: tree nodes' bytes, and every node adds up")
    ctx = {tuple(e["name"] for e in c["history"]): c for c in r["contexts"]}
    check(ctx[()]["alloc_bytes"] == 7 and ctx[("main", "a", "b", "c")]["alloc_blocks"] == 5,
          "json: contexts' alloc_bytes and alloc_blocks")

    out = text(prof)
    check("    total alloc  197 bytes in 13 blocks\n"
          "                 (100 bytes in 3 blocks before a thread's first call: in no\n"
          "                 context, and not in %alloc)\n" in out,
          "text: total alloc in the header, with what no context took")
    check("    outside      0.005 secs (5.7%) and 7 bytes (7.2%) in no cost centre\n" in out,
          "text: the root context's bytes beside its time")
    check(row(out, "COST") == ["COST", "CENTRE", "%time", "%alloc", "self(s)", "bytes", "calls",
                               "inherited(s)"],
          "text: %alloc and bytes columns in the top cost centres")
    check(row(out, "c") == ["c", "2.3", "61.9", "0.002", "60", "2", "0.002"],
          "text: c has 61.9 %%alloc, 60 bytes (%s)" % row(out, "c"))
    tree = out[out.index("individual"):]
    check(row(tree, "COST") == ["COST", "CENTRE", "entries", "%time", "%alloc", "secs", "%time",
                                "%alloc", "secs"],
          "text: the stack tree has individual and inherited %alloc")
    check(row(tree, "<root>") == ["<root>", "0", "5.7", "7.2", "0.005", "100.0", "100.0", "0.087"]
          and row(tree, "main") == ["main", "1", "0.0", "0.0", "0.000", "94.3", "92.8", "0.082"],
          "text: tree rows (%s, %s)" % (row(tree, "<root>"), row(tree, "main")))
    ctxs = text(prof, "--contexts")
    check(row(ctxs[ctxs.index("history"):], "0.001")[4] in ("10", "50"),
          "text --contexts: a bytes column")


def sort(prof, plain):
    out = text(prof, "--sort", "alloc")
    flat = out[out.index("Top cost centres"):out.index("Stack tree")]
    order = [l.split()[0] for l in flat.splitlines()[3:] if l.strip()]
    check("Top cost centres by self allocation (4 of 4)" in flat and order == ["c", "a", "b", "main"],
          "--sort alloc: c 60, a 20, b 10, main 0 (%s)" % order)
    out = text(prof, "--sort", "calls", "--top", "2")
    flat = out[out.index("Top cost centres"):out.index("Stack tree")]
    order = [l.split()[0] for l in flat.splitlines()[3:] if l.strip()]
    check("Top cost centres by calls (2 of 4)" in flat and order == ["c", "a"],
          "--sort calls --top 2: c (2 calls), then a (%s)" % order)
    check(text(plain, "--sort", "time") == text(plain),
          "--sort time is the default order")
    r = run([CCPROF, "report", "--sort", "alloc", plain])
    check(r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
          "--sort alloc" in r.stderr and "no allocation data" in r.stderr,
          "--sort alloc without allocation data: exit 2, one line (%r)" % r.stderr)
    r = run([CCPROF, "report", "--json", "--sort", "alloc", plain])
    check(r.returncode == 2, "--sort alloc --json without allocation data: exit 2")
    r = run([CCPROF, "report", "--sort", "bytes", prof])
    check(r.returncode == 2 and "--sort needs time, alloc or calls" in r.stderr,
          "--sort bytes: a usage error")


def unmeasured(plain, unmeasured_prof):
    """Bytes in the contexts of a run that did not count allocations are
    never written: the reports are those of a profile without them, and
    mention no allocation."""
    for opts in ((), ("--json",), ("--json", "--threads", "--min-percent", "10"),
                 ("--contexts", "--threads", "--min-percent", "10", "--focus", "a")):
        a = run([CCPROF, "report"] + list(opts) + [plain]).stdout
        b = run([CCPROF, "report"] + list(opts) + [unmeasured_prof]).stdout
        check(a == b and "alloc" not in a, "not measured: report %s as without bytes, no "
              "alloc in it" % " ".join(opts))
    info = run([CCPROF, "info", "--json", plain]).stdout
    check('"alloc"' not in info, "not measured: info --json has no alloc")


def selection(prof):
    r = report(prof, "--deselect", "b")
    f = functions(r)
    check(alloc_of(f["a"]) == (30, 3, 90, 9) and alloc_of(f["c"]) == (60, 6, 60, 6)
          and "b" not in f,
          "--deselect b: b's bytes are a's: COST a 30, c 60 (%s, %s)"
          % (alloc_of(f["a"]), alloc_of(f["c"])))
    check(node_at(r["tree"], "main", "a", "c")["individual_alloc_bytes"] == 60
          and r["alloc"]["bytes"] == 197 and adds_up(r["tree"]),
          "--deselect b: the tree's a/c has 60 bytes, the totals are kept")
    out = text(prof, "--deselect", "b")
    check(row(out, "a") == ["a", "92.0", "30.9", "0.080", "30", "1", "0.082"],
          "--deselect b text: a 30.9 %%alloc (%s)" % row(out, "a"))


def prune(prof, plain):
    """At 50 %: a/c (1 tick of 87, 10 bytes of 97) goes into a's hidden
    line; b (47 % of the time, 62 % of the bytes) and b/c (1 tick, 52 %
    of the bytes) stay, which they do not without allocation data."""
    r = report(prof, "--min-percent", "50")
    t = r["tree"]
    hidden = node_at(t, "main", "a", "(1 hidden)")
    check(hidden is not None and hidden["individual_alloc_bytes"] == 10
          and hidden["inherited_alloc_bytes"] == 10 and adds_up(t),
          "--min-percent 50: the hidden line carries a/c's 10 bytes; totals add up")
    check(node_at(t, "main", "a", "b", "c") is not None,
          "--min-percent 50: b/c, 1 tick but 52 % of the bytes, is kept")
    p = report(plain, "--min-percent", "50")
    check(node_at(p["tree"], "main", "a", "b") is None,
          "--min-percent 50 without allocation data: b (47 % of the time) is hidden")
    out = text(prof, "--min-percent", "50")
    check(row(out, "(1") == ["(1", "hidden)", "1", "1.1", "10.3", "0.001", "1.1", "10.3", "0.001"],
          "--min-percent 50 text: the hidden line has 10.3 %%alloc (%s)" % row(out, "(1"))


def focus_and_callers(prof):
    r = report(prof, "--focus", "c")
    check(r["alloc"] == {"bytes": 60, "blocks": 6, "outside_bytes": 0, "outside_blocks": 0}
          and r["view"]["profile_alloc_bytes"] == 197,
          "--focus c: the view allocates 60 bytes, none outside (%s)" % r["alloc"])
    out = text(prof, "--focus", "c")
    check("    of alloc     60 of 97 bytes allocated in contexts (61.9%)\n" in out,
          "--focus c text: the view's share of the bytes")
    r = report(prof, "--callers", "c")
    t = r["callers"][0]
    check(t["inherited_alloc_bytes"] == 60 and node_at(t, "a")["inherited_alloc_bytes"] == 10
          and node_at(t, "b")["inherited_alloc_bytes"] == 50,
          "--callers c: c's 60 bytes, 10 from a, 50 through b")


def threads(prof):
    r = report(prof, "--threads")
    tb = [t["total_alloc_bytes"] for t in r["threads"]]
    check(tb == [97, 1004], "--threads json: each thread's bytes (%s)" % tb)
    check(functions(r)["c"]["self_alloc_bytes"] == 64,
          "two threads: c's contexts of both add up (64 bytes)")
    out = text(prof, "--threads")
    check("calls 5  alloc 97 bytes (8.8%)" in out and "alloc 1004 bytes (91.2%)" in out,
          "--threads text: each thread's bytes and share")


def merge_diff_info(prof, plain):
    out = os.path.join(OUT, "alloc_merged.ccprof")
    r = run([CCPROF, "merge", "-o", out, prof, plain, prof])
    if not check(r.returncode == 0, "merge with and without allocation data (%s)" % r.stderr):
        return
    check(r.stderr == "ccprof merge: note: %s did not count allocations: the merged allocations "
          "are those of the 2 runs that did\n" % plain,
          "merge with and without allocation data: one note names the run that did not count")
    r = run([CCPROF, "merge", "-o", out + ".2", prof, prof])
    check(r.returncode == 0 and r.stderr == "", "merge of two measured runs: no note")
    m = report(out)
    check(m["alloc"] == {"bytes": 394, "blocks": 26, "outside_bytes": 200, "outside_blocks": 6}
          and functions(m)["c"]["self_alloc_bytes"] == 120,
          "merge: bytes add up per history and outside (%s)" % m["alloc"])
    d = json.loads(run([CCPROF, "diff", "--json", prof, out]).stdout)
    c = [x for x in d["functions"] if x["name"] == "c"][0]
    check(c["a_alloc_bytes"] == 60 and c["b_alloc_bytes"] == 120 and c["delta_alloc_bytes"] == 60,
          "diff --json: c's bytes 60 -> 120")
    dt = run([CCPROF, "diff", prof, out]).stdout
    check("\u0394bytes" in dt, "diff text: a bytes column")
    d = json.loads(run([CCPROF, "diff", "--json", prof, plain]).stdout)
    check(all("a_alloc_bytes" not in x for x in d["functions"]),
          "diff --json with one side unmeasured: no bytes")
    info = run([CCPROF, "info", prof]).stdout
    check("allocated          197 bytes in 13 blocks\n" in info and
          "outside contexts   100 bytes in 3 blocks" in info, "info: the allocation totals")
    ij = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
    check(ij["alloc"] == {"bytes": 197, "blocks": 13, "outside_bytes": 100, "outside_blocks": 3},
          "info --json: alloc")


def hot(prof):
    """--hot: the most expensive context's bytes and %alloc, and a %alloc
    column in the expensive arm (the stack tree's inherited bytes)."""
    ctxs = spec_contexts(MJ)
    total = sum(c[3] for c in ctxs)
    top = max(ctxs, key=lambda c: c[2])  # the first of the most time: [main] [a]
    out = text(prof, "--hot")
    line = next((l for l in out.splitlines() if l.startswith("most expensive context")), "")
    want = "  %d bytes %6s%%  [main] [a]" % (top[3], pct(top[3], total))
    check(line.endswith(want), "--hot text: the context's bytes and %%alloc (%r)" % line)
    arm = out[out.index("\nexpensive arm "):]
    check(row(arm, "expensive") == ["expensive", "arm", "%time", "%alloc", "secs"],
          "--hot text: the arm has a %alloc column")

    def stack_bytes(*path):  # Σ bytes of the contexts whose stack starts so
        return sum(c[3] for c in ctxs
                   if tuple(n for n, marked in c[5] if marked)[:len(path)] == path)
    got = [row(arm, n) for n in ("main", "a", "b")]
    want = [[n, pct(sum(c[2] for c in ctxs if n in [x for x, _ in c[5]]), sum(c[2] for c in ctxs)),
             pct(stack_bytes(*("main", "a", "b")[:i + 1]), total)]
            for i, n in enumerate(("main", "a", "b"))]
    check([g[:3] for g in got if g] == want,
          "--hot text: the arm's %%alloc are its nodes' inherited bytes (%s)" % got)
    h = report(prof, "--hot")["hot"]
    check(h["context"]["alloc_bytes"] == top[3] and
          [n["inherited_alloc_bytes"] for n in h["arm"]] ==
          [stack_bytes("main"), stack_bytes("main", "a"), stack_bytes("main", "a", "b")],
          "--hot json: the context's and the arm's bytes")


def cycles(prof):
    """--cycles: the bytes allocated while the cycle was in progress (every
    member marked, one also unmarked), as %alloc in text and alloc_bytes
    and alloc_blocks in JSON."""
    ctxs = spec_contexts(SPIVEY)
    members = {"P", "Q", "R"}
    going = [c for c in ctxs
             if members <= {n for n, m in c[5] if m} and any(n in members for n, m in c[5] if not m)]
    nbytes, blocks = sum(c[3] for c in going), sum(c[4] for c in going)
    total = sum(c[3] for c in ctxs)
    r = report(prof, "--cycles")["cycles"]
    check(len(r) == 1 and (r[0].get("alloc_bytes"), r[0].get("alloc_blocks")) == (nbytes, blocks) == (240, 6),
          "--cycles json: alloc_bytes and alloc_blocks while in progress (%s)" % r)
    out = text(prof, "--cycles")
    cyc = out[out.index("Cycles of recursion"):]
    check(row(cyc, "secs") == ["secs", "%time", "%alloc", "entries", "cycle"] and
          row(cyc, "0.260") == ["0.260", pct(260, 365), pct(nbytes, total), "4", "P", "\u2192",
                                "Q", "\u2192", "R", "\u2192", "P"],
          "--cycles text: a %%alloc column, %s %% of %d bytes (%s)"
          % (pct(nbytes, total), total, row(cyc, "0.260")))


def around(prof):
    """--around Q in JSON: Q's self and inherited bytes and blocks, and each
    caller's and callee's bytes by the rule of the arc times
    (docs/semantics.md, "The views", with a context's bytes for T: "Costs
    other than time"), summed here from the contexts."""
    ctxs = spec_contexts(SPIVEY)
    arc = {}  # (caller, callee, side) -> [self, child] bytes
    for _, _, _, nbytes, _, h in ctxs:
        run_ = h[-1][0] if h else None
        for i, (b, marked) in enumerate(h):
            if not marked:
                continue
            if i + 1 < len(h):
                arc.setdefault((b, h[i + 1][0], "out"), [0, 0])[h[i + 1][0] != run_] += nbytes
            if i > 0:
                arc.setdefault((h[i - 1][0], b, "in"), [0, 0])[b != run_] += nbytes
    a = report(prof, "--around", "Q")["around"][0]
    own = [c for c in ctxs if c[5] and c[5][-1][0] == "Q"]
    active = [c for c in ctxs if ("Q", True) in c[5]]
    want = (sum(c[3] for c in own), sum(c[4] for c in own),
            sum(c[3] for c in active), sum(c[4] for c in active))
    got = (a.get("self_alloc_bytes"), a.get("self_alloc_blocks"),
           a.get("inherited_alloc_bytes"), a.get("inherited_alloc_blocks"))
    check(got == want, "--around Q json: Q's self and inherited bytes and blocks %s" % (got,))
    sides = {(x["name"], "Q", "in"): [x.get("self_alloc_bytes"), x.get("child_alloc_bytes")]
             for x in a["callers"]}
    sides.update({("Q", x["name"], "out"): [x.get("self_alloc_bytes"), x.get("child_alloc_bytes")]
                  for x in a["callees"]})
    want = {k: v for k, v in arc.items()
            if (k[1] == "Q" and k[2] == "in" or k[0] == "Q" and k[2] == "out") and k[0] != k[1]}
    check(sides == want, "--around Q json: self_alloc_bytes and child_alloc_bytes of each "
          "caller (in) and callee (out) (%s)" % sides)


def unchanged(plain, unmeasured_prof):
    """Without allocation data --hot, --cycles and --around print as
    before: no column, key or word of allocation, the same for a profile
    whose contexts carry bytes the run did not measure, and the headings
    of before."""
    for opts in (("--hot", "--cycles", "--around", "Q"),
                 ("--json", "--hot", "--cycles", "--around", "Q")):
        a = run([CCPROF, "report"] + list(opts) + [plain]).stdout
        b = run([CCPROF, "report"] + list(opts) + [unmeasured_prof]).stdout
        check(a == b and "alloc" not in a and "bytes" not in a,
              "no allocation data: report %s shows none" % " ".join(opts))
    out = run([CCPROF, "report", "--hot", "--cycles", plain]).stdout
    check("\nexpensive arm  %time   secs\nmain            98.6  0.360\n" in out and
          "\n secs   %time  entries  cycle\n0.260    71.2        4  P" in out and
          "how often the cycle closed.\n\n" in out and
          "most expensive context  0.080 secs   21.9%  [main] P" in out,
          "no allocation data: --hot and --cycles lines as before")


def pprof(prof, both):
    """convert --to pprof: every sample type adds up to report --json's
    total, the 100 bytes in 3 blocks outside any context included, as one
    sample of their own at "[outside]" with 0 time and 0 calls; under
    --threads that sample has no thread label (the profile counts them per
    process, not per thread), and a focus keeps none of them, as report's
    totals do (docs/exports.md, "pprof")."""
    for p, opts in ((prof, ()), (both, ("--threads",)), (both, ()), (prof, ("--deselect", "b"))):
        pprof_report_check(p, opts, [0, 0, 3, 100])
    pprof_report_check(prof, ("--focus", "c"), None)

prof = make_profile("alloc_mj", MEASURED)
plain = make_profile("alloc_plain", PLAIN)
flat_and_tree(prof)
sort(prof, plain)
unmeasured(plain, make_profile("alloc_unmeasured", MJ))
selection(prof)
prune(prof, plain)
focus_and_callers(prof)
both = make_profile("alloc_threads", THREADS)
threads(both)
pprof(prof, both)
merge_diff_info(prof, plain)
hot(prof)
spivey = make_profile("alloc_spivey", "alloc 1000 5\n" + SPIVEY)
cycles(spivey)
around(spivey)
unchanged(make_profile("alloc_spivey_plain",
                       re.sub(r"^(ctx \d+ \d+ \d+) \d+ \d+", r"\1", SPIVEY, flags=re.M)),
          make_profile("alloc_spivey_unmeasured", SPIVEY))
finish()
