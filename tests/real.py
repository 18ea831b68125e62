"""Real third-party code: libiberty's C++ demangler (cp-demangle.c from
Debian's binutils-source), whose parser and printer are deeply mutually
recursive.  ccprof's counts must equal callgrind's for every function and
every arc, and gprof's for every function, with the views built on them
(cycles, callers) made of arcs that really ran.

Builds: clang -O2 -finstrument-functions-after-inlining and gcc -O0
-finstrument-functions hook exactly the calls the machine code makes, so
they are compared call for call; gcc -O2 -finstrument-functions also hooks
inlined copies, in their callers' frames, and must give the -O0 build's
functions, arcs and contexts with the same counts."""
import collections
import glob
import os
import re
import shutil
from ccp import *

D = os.path.join(OUT, "real")
ROUNDS = "5"
DEMANGLER = os.path.join(TOP, "tests/progs/demangler.c")


def unpack():
    """The demangler's sources out of the binutils-source tarball."""
    tarballs = sorted(glob.glob("/usr/src/binutils/binutils-*.tar.*"))
    if not check(tarballs != [], "binutils-source's tarball is in /usr/src/binutils"):
        return None
    r = run(["tar", "-xf", tarballs[-1], "-C", D, "--wildcards",
             "*/libiberty/cp-demangle.[ch]", "*/libiberty/safe-ctype.c",
             "*/libiberty/testsuite/demangle-expected", "*/include/*.h"])
    src = glob.glob(os.path.join(D, "binutils-*"))
    if not check(r.returncode == 0 and len(src) == 1, "cp-demangle.c unpacked from " + tarballs[-1]):
        return None
    return src[0]


def build(src, name, cc, *flags):
    """The demangler built by cc with flags, or None (with a failed check)
    if it does not build."""
    exe = os.path.join(D, name)
    lib = os.path.join(src, "libiberty")
    r = run([cc, "-gdwarf-4", "-DHAVE_STRING_H", "-DHAVE_STDLIB_H", "-DHAVE_LIMITS_H",
             "-I" + os.path.join(src, "include")] + list(flags) +
            [os.path.join(lib, "cp-demangle.c"), os.path.join(lib, "safe-ctype.c"),
             DEMANGLER, "-o", exe])
    if not check(r.returncode == 0, "%s builds (%s %s)" % (name, cc, " ".join(flags))):
        print("# " + r.stderr.replace("\n", "\n# "))
        return None
    return exe


def own_count(stderr):
    m = re.search(r"names (\d+) demangled (\d+)", stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def callgrind_arcs(exe, args):
    """callgrind's caller -> callee call counts for a run of exe."""
    out = os.path.join(D, os.path.basename(exe) + ".callgrind")
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe] + args, cwd=D)
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
    charged to the nearest instrumented caller by design; the demangler
    has none, so nothing is excused.)"""
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


def check_source_lines(tag, rep, src):
    """Each cp-demangle.c function's line names it (GNU style puts the
    name at the start of the line after the return type)."""
    if "source lines: libdw " not in run([CCPROF, "--version"]).stdout:
        print("# SKIP ccprof built without libdw: no source lines to check")
        return
    path = os.path.join(src, "libiberty", "cp-demangle.c")
    text = open(path).read().split("\n")
    mine = [f for f in rep["functions"] if f["file"] == path]
    bad = [f["name"] for f in mine if not (0 < f["line"] <= len(text) and f["name"] in text[f["line"] - 1])]
    check(len(mine) >= 40 and bad == [], "%s: %d functions of cp-demangle.c have their definition's line%s"
          % (tag, len(mine), "" if not bad else ", not " + ", ".join(bad[:5])))


def gprof_flat_calls(exe, args):
    """gprof's flat-profile call counts (recursive calls to itself not
    included, as gprof counts them)."""
    r = run([exe] + args, cwd=D)
    g = run(["gprof", "-b", "-p", "-z", exe, os.path.join(D, "gmon.out")]).stdout
    calls = {}
    for line in g.split("\n"):
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+[\d.]+\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\S+)$", line)
        if m:
            calls[m.group(2)] = int(m.group(1))
    return r, calls


def exact_build(src, tag, cc, flags, names_file, bare_out, lines_only=False):
    exe = build(src, "demangler-" + tag, cc, *flags)
    if exe is None:
        return None
    args = [names_file, ROUNDS]
    r, prof = record(exe, args)
    check(r.returncode == 0 and r.stdout == bare_out,
          "%s: the profiled run prints what the bare one does (%d lines)" % (tag, bare_out.count("\n")))
    n, _ = own_count(r.stderr)
    rep = report(prof, "--cycles")
    check(n is not None and functions(rep)["cplus_demangle_v3"]["calls"] == n,
          "%s: cplus_demangle_v3 called %s times, as the program counted" % (tag, n))
    if lines_only:
        return exe, prof, rep
    arcs_cg, cg_out = callgrind_arcs(exe, args)
    if arcs_cg is None:
        return exe, prof, rep
    check(cg_out == bare_out, "%s: under callgrind too" % tag)
    compare_counts(tag, exe, rep, arcs_cg)
    check_cycles(tag, rep, arcs_cg)
    check_callers(tag, prof, arcs_cg, "d_name")
    check_source_lines(tag, rep, src)
    r2, prof2 = record(exe, args, clock="cycles", profile=prof + ".cycles")
    same = {f: x["calls"] for f, x in functions(report(prof2)).items()} == \
        {f: x["calls"] for f, x in functions(rep).items()}
    check(r2.returncode == 0 and same, "%s: clock=cycles counts the same calls" % tag)
    return exe, prof, rep


def gprof_agrees(src, rep, names_file):
    """gcc -O0 -pg calls mcount exactly where -finstrument-functions calls
    the enter hook; gprof's flat counts leave out a function's calls to
    itself, which are ccprof's arc F->F."""
    if shutil.which("gprof") is None:
        print("# gprof not installed: skipped")
        return
    exe = build(src, "demangler-pg", "gcc", "-O0", "-pg")
    if exe is None:
        return
    _, g = gprof_flat_calls(exe, [names_file, ROUNDS])
    a = arcs(rep)
    ours = {f: x["calls"] - a.get((f, f), {"calls": 0})["calls"] for f, x in functions(rep).items()}
    bad = [f for f in g if ours.get(f) != g[f]]
    check(len(g) >= 100 and bad == [], "gprof agrees on the calls of all %d functions it counted%s"
          % (len(g), "" if not bad else ", not " + ", ".join("%s %s vs %d" % (f, ours.get(f), g[f]) for f in bad[:5])))


def program_only(rep):
    """rep without the functions of other modules: clang also hooks the
    copies it inlines of libc's extern inline functions (atoi, whose
    address is libc's), which gcc leaves alone."""
    ours = {f["name"] for f in rep["functions"] if f["module"] == rep["program"]}
    return {"functions": [f for f in rep["functions"] if f["name"] in ours],
            "arcs": [a for a in rep["arcs"] if a["caller"] in ours and a["callee"] in ours],
            "contexts": [c for c in rep["contexts"] if all(e["name"] in ours for e in c["history"])]}


def context_counts(rep):
    """Each context's calls, keyed by its history as DESIGN.md writes it."""
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


def allocations_agree(tag, exe, bare, names_file):
    """record --alloc (docs/alloc.md): every block the demangler allocates
    (realloc-grown output buffers, the parser's component arrays) and its
    bytes, against memcheck's count of the bare build on the same input."""
    args = [names_file, "1"]
    mc = memcheck_heap(bare, args)
    prof = os.path.join(D, tag + ".alloc.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", exe] + args)
    if not check(mc is not None and r.returncode == 0, "%s --alloc: memcheck and record ran" % tag):
        return
    rep = report(prof)
    got = (rep["alloc"]["blocks"], rep["alloc"]["bytes"])
    check(got == mc, "%s --alloc: %d blocks, %d bytes, as memcheck counts (%d, %d)"
          % ((tag,) + got + mc))
    d = functions(rep)["cplus_demangle_v3"]
    check(0 < d["inherited_alloc_blocks"] < got[0],
          "%s --alloc: cplus_demangle_v3 allocates %d of the %d blocks"
          % (tag, d["inherited_alloc_blocks"], got[0]))


def heap_agrees(tag, exe, bare, names_file):
    """record --heap (docs/heap.md): what the demangler still holds at the
    end, against memcheck's "in use at exit" of the bare build (glibc's
    own clean-up at exit, which only valgrind runs, turned off: the
    profile is written before it would run), and the peak against
    massif's largest snapshot."""
    args = [names_file, "1"]
    prof = os.path.join(D, tag + ".heap.ccprof")
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
    out = os.path.join(D, tag + ".massif")
    run(["valgrind", "--tool=massif", "--heap-admin=0", "--peak-inaccuracy=0",
         "--massif-out-file=" + out, bare] + args)
    peaks = [int(x) for x in re.findall(r"mem_heap_B=(\d+)", open(out).read())] \
        if os.path.exists(out) else []
    check(peaks and h["peak_bytes"] == max(peaks), "%s --heap: peak %d bytes, massif's %s"
          % (tag, h["peak_bytes"], max(peaks) if peaks else None))


def main():
    os.makedirs(D, exist_ok=True)
    src = unpack()
    if src is None:
        return
    names_file = os.path.join(src, "libiberty", "testsuite", "demangle-expected")
    bare = build(src, "demangler-bare", "gcc", "-O2")
    if bare is None:
        return
    b = run([bare, names_file, ROUNDS])
    n, m = own_count(b.stderr)
    check(b.returncode == 0 and n is not None and n > 1000 and m > n // 2,
          "the bare demangler demangles %s of %s names" % (m, n))
    if shutil.which("valgrind") is None:
        check(False, "valgrind is installed (the truth these counts are checked against)")
        return
    if shutil.which("clang"):
        exact_build(src, "clang-O2", "clang", ["-O2", "-finstrument-functions-after-inlining"],
                    names_file, b.stdout)
    else:
        print("# clang not installed: its build skipped")
    o0 = exact_build(src, "gcc-O0", "gcc", ["-O0", "-finstrument-functions"], names_file, b.stdout)
    if o0 is not None:
        gprof_agrees(src, o0[2], names_file)
        allocations_agree("gcc-O0", o0[0], bare, names_file)
        heap_agrees("gcc-O0", o0[0], bare, names_file)
    o2 = exact_build(src, "gcc-O2", "gcc", ["-O2", "-finstrument-functions"], names_file, b.stdout,
                     lines_only=True)
    if o0 is not None and o2 is not None:
        same_as_unoptimised("gcc -O2", o0[2], o2[2])
    if o0 is not None:
        os_ = exact_build(src, "gcc-Os", "gcc", ["-Os", "-finstrument-functions"], names_file,
                          b.stdout, lines_only=True)
        if os_ is not None:
            same_as_unoptimised("gcc -Os", o0[2], os_[2])
        o3 = exact_build(src, "gcc-O3", "gcc", ["-O3", "-finstrument-functions"], names_file,
                         b.stdout, lines_only=True)
        if o3 is not None:
            # -O3 inlines is_ctor_dtor_or_conversion into itself once: the
            # README's known limit (arcs and contexts differ there).
            same_as_unoptimised("gcc -O3", o0[2], o3[2], functions_only=True)
    if o0 is not None and shutil.which("clang"):
        c2 = exact_build(src, "clang-O2-fi", "clang", ["-O2", "-finstrument-functions"], names_file,
                         b.stdout, lines_only=True)
        if c2 is not None:
            same_as_unoptimised("clang -O2 -finstrument-functions", o0[2], c2[2])


main()
finish()
