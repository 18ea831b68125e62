"""Checks of a real program's profile against independent truth: callgrind's
calls and arcs, memcheck's allocations, massif's peak, and the profile of
the same program built without optimisation.  Used by tests/real.py (the
demangler from binutils-source) and tests/sqlite.py (SQLite)."""
import collections
import json
import os
import re
from ccp import *


def callgrind_arcs(exe, args):
    """callgrind's caller -> callee call counts for a run of exe (its
    output file beside exe), and the run's standard output."""
    out = exe + ".callgrind"
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe] + args,
            cwd=os.path.dirname(exe))
    if not check(r.returncode == 0, "callgrind runs %s" % os.path.basename(exe)):
        print("# " + r.stderr[-2000:].replace("\n", "\n# "))
        return None, r.stdout
    arcs_cg = callgrind_calls(out)
    return arcs_cg, r.stdout


def compiled_functions(exe):
    """The functions compiled from the program's sources: the binary's
    text symbols that have a source line (the C runtime's _start, _init
    and the like have none)."""
    out = run(["nm", "--defined-only", "--line-numbers", exe]).stdout
    return {w[2] for w in (line.split() for line in out.split("\n"))
            if len(w) >= 4 and w[1] in ("t", "T")}


def compare_counts(tag, exe, rep, arcs_cg):
    """Every function's calls and every arc between instrumented functions
    must be callgrind's, for every function compiled from the program's
    sources that callgrind saw called, whether or not ccprof has it.  (A
    callback from uninstrumented code, such as a qsort comparator, would be
    charged to the nearest instrumented caller by design; the programs
    tested have none, so nothing is excused.)"""
    fns = functions(rep)
    calls_cg = collections.Counter()
    for (caller, callee), n in arcs_cg.items():
        calls_cg[callee] += n
    names = set(fns) | {f for f in compiled_functions(exe) if calls_cg[f]}
    bad = sorted(f for f in names if fns.get(f, {}).get("calls", 0) != calls_cg[f])
    check(bad == [] and len(names) >= 50, "%s: calls of all %d functions equal callgrind's%s"
          % (tag, len(names), "" if not bad else ", not " + ", ".join(
              "%s %s vs %d" % (f, fns.get(f, {}).get("calls"), calls_cg[f]) for f in bad[:5])))
    ours = {k: a["calls"] for k, a in arcs(rep).items()}
    theirs = {k: n for k, n in arcs_cg.items() if k[0] in fns and k[1] in fns}
    bad = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    check(bad == [] and len(ours) >= 100, "%s: all %d arcs equal callgrind's%s"
          % (tag, len(ours), "" if not bad else ", not " + ", ".join(
              "%s->%s %s vs %s" % (k[0], k[1], ours.get(k), theirs.get(k)) for k in bad[:5])))


def reach_sets(arcs_cg):
    """For each function, the functions its calls led to, at any depth."""
    succ = collections.defaultdict(set)
    for (a, b), n in arcs_cg.items():
        if n > 0:
            succ[a].add(b)
    reach = {}
    for f in list(succ):
        seen, todo = set(), [f]
        while todo:
            for g in succ[todo.pop()]:
                if g not in seen:
                    seen.add(g)
                    todo.append(g)
        reach[f] = seen
    return reach


def check_cycles(tag, rep, arcs_cg):
    """Each cycle that ran is a closed walk of arcs callgrind saw (gaps
    aside), and its members lie in one strongly connected component of
    callgrind's call graph."""
    cycles = rep["cycles"]
    reach = reach_sets(arcs_cg)
    walks, parts = [], []
    for c in cycles:
        names = c["functions"]
        pairs = list(zip(names, names[1:] + names[:1]))
        if any(a != "…" and b != "…" and arcs_cg.get((a, b), 0) == 0 for a, b in pairs):
            walks.append(names)
        members = [f for f in names if f != "…"]
        if any(g not in reach.get(f, ()) for f in members for g in members):
            parts.append(names)
    check(len(cycles) >= 10 and walks == [], "%s: all %d cycles walk arcs callgrind saw%s"
          % (tag, len(cycles), "" if not walks else ", not " + " / ".join(map(" ".join, walks[:3]))))
    check(parts == [], "%s: each cycle's members reach each other in callgrind's call graph%s"
          % (tag, "" if not parts else ", not " + " / ".join(map(" ".join, parts[:3]))))


def callers_edges(node, out):
    for child in node.get("children", []):
        if node["name"] != "…" and child["name"] != "…":
            out.append((child["name"], node["name"]))
        callers_edges(child, out)
    return out


def check_callers(tag, prof, arcs_cg, fn):
    """callers(F): every step from a function to its caller is an arc."""
    rep = report(prof, "--callers", fn)
    edges = [e for root in rep["callers"] for e in callers_edges(root, [])]
    bad = sorted({e for e in edges if arcs_cg.get(e, 0) == 0})
    check(len(edges) >= 10 and bad == [], "%s: callers(%s) has %d steps, all arcs callgrind saw%s"
          % (tag, fn, len(edges), "" if not bad else ", not %s" % bad[:3]))


def program_only(rep):
    """rep without the functions of other modules: clang also hooks the
    copies it inlines of libc's extern inline functions (atoi, whose
    address is libc's), which gcc leaves alone."""
    ours = {f["name"] for f in rep["functions"] if f["module"] == rep["program"]}
    return {"functions": [f for f in rep["functions"] if f["name"] in ours],
            "arcs": [a for a in rep["arcs"] if a["caller"] in ours and a["callee"] in ours],
            "contexts": [c for c in rep["contexts"] if all(e["name"] in ours for e in c["history"])]}


def context_counts(rep):
    """Each context's calls, keyed by its history as docs/semantics.md writes
    it (marked entries in brackets)."""
    counts = collections.Counter()
    for c in rep["contexts"]:
        counts[history_str(c)] += c["entries"] + c["recursive"]
    return counts


def same_as_unoptimised(tag, o0, o2, functions_only=False):
    """gcc -O2 (and clang -O2 without -after-inlining) hooks the copies it
    inlines too, in their caller's frame;
    the runtime tells them from real calls (docs/semantics.md, "Shadow
    stack"), so the optimised build must give the -O0 build's profile:
    the same calls, arcs and contexts, each with the same count."""
    for what, get in (("function", lambda r: {f["name"]: f["calls"] for f in r["functions"]}),
                      ("arc", lambda r: {k: a["calls"] for k, a in arcs(r).items()}),
                      ("context", context_counts))[:1 if functions_only else 3]:
        a, b = get(program_only(o0)), get(program_only(o2))
        bad = sorted(str(k) for k in set(a) | set(b) if a.get(k) != b.get(k))
        check(len(a) >= 100 and bad == [], "%s (inlined copies hooked): all %d %ss and their "
              "counts are gcc -O0's%s" % (tag, len(a), what, "" if not bad else ", not " + "; ".join(bad[:3])))


def memcheck_heap(exe, args):
    """valgrind memcheck's "total heap usage": (allocs, bytes), or None."""
    r = run(["valgrind", exe] + list(args))
    m = re.search(r"total heap usage: ([\d,]+) allocs, [\d,]+ frees, ([\d,]+) bytes", r.stderr)
    return (int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))) if m else None


def allocations_agree(tag, exe, bare, args, fn):
    """record --alloc (docs/alloc.md): every block the program allocates,
    and its bytes, against memcheck's count of the bare build on the same
    input; fn, called by the program, allocates some of them but not all."""
    mc = memcheck_heap(bare, args)
    prof = exe + ".alloc.ccprof"
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", exe] + args)
    if not check(mc is not None and r.returncode == 0, "%s --alloc: memcheck and record ran" % tag):
        return
    rep = report(prof)
    got = (rep["alloc"]["blocks"], rep["alloc"]["bytes"])
    check(got == mc, "%s --alloc: %d blocks, %d bytes, as memcheck counts (%d, %d)"
          % ((tag,) + got + mc))
    d = functions(rep)[fn]
    check(0 < d["inherited_alloc_blocks"] < got[0],
          "%s --alloc: %s allocates %d of the %d blocks"
          % (tag, fn, d["inherited_alloc_blocks"], got[0]))


def heap_agrees(tag, exe, bare, args):
    """record --heap (docs/heap.md): what the program still holds at the
    end, against memcheck's "in use at exit" of the bare build (glibc's
    own clean-up at exit, which only valgrind runs, turned off: the
    profile is written before it would run), and the peak against
    massif's largest snapshot."""
    prof = exe + ".heap.ccprof"
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", exe] + args)
    mc = run(["valgrind", "--run-libc-freeres=no", bare] + args)
    m = re.search(r"in use at exit: ([\d,]+) bytes in ([\d,]+) blocks", mc.stderr)
    info = run([CCPROF, "info", "--json", prof])
    if not check(r.returncode == 0 and m and info.returncode == 0,
                 "%s --heap: memcheck and record ran" % tag):
        return
    h = json.loads(info.stdout)["heap"]
    got = (h["live_bytes"] + h["outside_live_bytes"], h["live_blocks"] + h["outside_live_blocks"])
    want = tuple(int(x.replace(",", "")) for x in m.groups())
    check(got == want, "%s --heap: %d bytes in %d blocks live at the end, memcheck's in use at "
          "exit %d in %d" % ((tag,) + got + want))
    out = exe + ".massif"
    run(["valgrind", "--tool=massif", "--heap-admin=0", "--peak-inaccuracy=0",
         "--massif-out-file=" + out, bare] + args)
    peaks = [int(x) for x in re.findall(r"mem_heap_B=(\d+)", open(out).read())] \
        if os.path.exists(out) else []
    check(peaks and h["peak_bytes"] == max(peaks), "%s --heap: peak %d bytes, massif's %s"
          % (tag, h["peak_bytes"], max(peaks) if peaks else None))


def against_callgrind(tag, exe, prof, rep, args, bare_out, callers_of):
    """The profile (rep, from prof) of a run of exe against callgrind's of
    the same run: the same output as the bare build's, every function's
    calls and every arc, the cycles made of its arcs, and callers_of's
    callers tree made of them.  Returns callgrind's arcs, or None."""
    arcs_cg, cg_out = callgrind_arcs(exe, args)
    if arcs_cg is None:
        return None
    check(cg_out == bare_out, "%s: under callgrind too" % tag)
    compare_counts(tag, exe, rep, arcs_cg)
    check_cycles(tag, rep, arcs_cg)
    check_callers(tag, prof, arcs_cg, callers_of)
    return arcs_cg
