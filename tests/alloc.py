"""Allocation profiling (docs/alloc.md): `ccprof record --alloc` and
libccprof-alloc.so against the counts the test programs keep themselves,
valgrind memcheck's totals of the same program unprofiled, and the
programs' own behaviour."""
import os
import re
import shutil
from ccp import *

ALLOC_LIB = os.path.join(LIB, "libccprof-alloc.so")


def record_alloc(prog, args=(), profile=None):
    profile = profile or os.path.join(OUT, os.path.basename(prog) + ".alloc.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", profile, "--", prog] + list(args))
    return r, profile


def own_counts(stderr):
    """The program's own "alloc F BYTES BLOCKS" lines."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^alloc (\S+) (\d+) (\d+)$", stderr, re.M)}


def totals(rep):
    a = rep["alloc"]
    return a["bytes"], a["blocks"]


def self_alloc(fns, name):
    f = fns.get(name)
    return (f["self_alloc_bytes"], f["self_alloc_blocks"]) if f else (0, 0)


def exact_counts():
    """Each function's self allocation is what it counted itself, through
    malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
    memalign, valloc and malloc(0); a failed malloc counts nothing."""
    prog = build("allocs", "tests/progs/allocs.c")
    bare = run([prog, "threads"])
    r, prof = record_alloc(prog, ["threads"])
    check(r.returncode == bare.returncode == 0 and r.stdout == bare.stdout,
          "--alloc: same exit status and stdout as the bare run")
    check(own_counts(r.stderr) == own_counts(bare.stderr),
          "--alloc: the program's own stderr lines unchanged")
    rep = report(prof)
    fns = functions(rep)
    want = own_counts(bare.stderr)
    for name in ("arrays", "grow", "aligned", "zero", "nothing", "refused", "outer", "worker"):
        check(self_alloc(fns, name) == want[name],
              "%s: self allocation %s == the program's own %s"
              % (name, self_alloc(fns, name), want[name]))
    # small is called from main (5 blocks) and from outer (2): its self
    # allocation adds both, outer's inherited allocation has outer's two.
    check(self_alloc(fns, "small") == want["small"],
          "small: self allocation over both callers %s" % (self_alloc(fns, "small"),))
    o = fns["outer"]
    check((o["inherited_alloc_bytes"], o["inherited_alloc_blocks"]) == (48, 2),
          "outer: inherited allocation is its call of small: 48 bytes, 2 blocks")
    ctx = {history_str(c): c for c in rep["contexts"]}
    c = ctx.get("[main] [outer] [small]")
    check(c is not None and (c["alloc_bytes"], c["alloc_blocks"]) == (48, 2),
          "context [main] [outer] [small]: 48 bytes in 2 blocks")
    # The inverted tree: small's own bytes by the way they came (text).
    r = run([CCPROF, "report", "--callers", "small", prof])
    rows = {}
    for line in r.stdout.splitlines():
        m_ = re.match(r"^(\s*)(\S+)\s+(\d+)\s+[\d.]+\s+([\d.]+)\s+[\d.]+$", line)
        if m_:
            rows[(len(m_.group(1)), m_.group(2))] = float(m_.group(4))
    pct = lambda b: round(100.0 * b / totals(rep)[0], 1)
    check(rows.get((0, "small")) == pct(168) and rows.get((1, "main")) == pct(120) and
          rows.get((1, "outer")) == pct(48) and "%alloc" in r.stdout,
          "--callers small: %%alloc of its 168 bytes, 120 from main and 48 via outer (%s)" % rows)
    # Arcs (the rule of arc times, docs/semantics.md, "The views", with bytes
    # for T: "Costs other than time"): what small allocated under outer is self
    # bytes of outer -> small and child bytes of main -> outer, seen from either
    # end.
    a = arcs(rep)
    mo, os_, ms = a[("main", "outer")], a[("outer", "small")], a[("main", "small")]
    check((mo["self_in_alloc_bytes"], mo["child_in_alloc_bytes"], mo["self_out_alloc_bytes"],
           mo["child_out_alloc_bytes"]) == (0, 48, 0, 48),
          "arc main -> outer: 48 child bytes, in and out")
    check((os_["self_in_alloc_bytes"], os_["child_in_alloc_bytes"]) == (48, 0) and
          (ms["self_in_alloc_bytes"], ms["child_in_alloc_bytes"]) == (120, 0),
          "arcs into small: 48 self bytes from outer, 120 from main")
    r = run([CCPROF, "report", "--around", "outer", prof])
    line = [l for l in r.stdout.splitlines() if re.match(r"^\[\d+\] .* outer \[\d+\]$", l)]
    check("children(B)" in r.stdout and len(line) == 1 and line[0].split()[4:6] == ["0", "48"],
          "--around outer: its own line has 0 self bytes and 48 children bytes (%s)" % line)
    # The two threads start at worker: everything else is under main.
    m, w = fns["main"], fns["worker"]
    inside = totals(rep)[0] - rep["alloc"]["outside_bytes"]
    check(m["inherited_alloc_bytes"] + w["inherited_alloc_bytes"] == inside,
          "main's and the workers' inherited allocations add up to all in contexts "
          "(%d + %d == %d)" % (m["inherited_alloc_bytes"], w["inherited_alloc_bytes"], inside))


def memcheck_totals(prog, args):
    """valgrind memcheck's "total heap usage" of a run: (allocs, bytes)."""
    r = run(["valgrind", "--error-exitcode=99", prog] + list(args))
    m = re.search(r"total heap usage: ([\d,]+) allocs, [\d,]+ frees, ([\d,]+) bytes allocated",
                  r.stderr)
    if not m:
        return None
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))


def against_memcheck():
    """The whole run's allocation (every context and outside them) equals
    memcheck's count of the same program built without instrumentation:
    the runtime's own allocations are not the program's."""
    if shutil.which("valgrind") is None:
        print("# SKIP valgrind not installed (package valgrind): memcheck comparison not run")
        return
    bare = build("allocs_bare", "tests/progs/allocs.c", instrument=False)
    prog = build("allocs", "tests/progs/allocs.c")
    for mode in ("plain", "threads"):
        mc = memcheck_totals(bare, [mode])
        r, prof = record_alloc(prog, [mode], os.path.join(OUT, "allocs_%s.ccprof" % mode))
        if not check(mc is not None and r.returncode == 0, "%s: memcheck and record ran" % mode):
            continue
        bytes_, blocks = totals(report(prof))
        check(blocks == mc[0], "%s: %d blocks, memcheck counts %d allocs" % (mode, blocks, mc[0]))
        # Each thread's DTV (glibc's table of its TLS blocks) has a slot
        # per module with TLS: the runtime is one more, 16 bytes a thread.
        slack = 16 * 2 if mode == "threads" else 0
        check(0 <= bytes_ - mc[1] <= slack,
              "%s: %d bytes, memcheck counts %d (the runtime's TLS: at most +%d)"
              % (mode, bytes_, mc[1], slack))


def forked_child():
    """A child's allocations are in its own profile, from zero."""
    prog = build("allocs", "tests/progs/allocs.c")
    prof = os.path.join(OUT, "allocs_fork_%p.ccprof")
    for f in os.listdir(OUT):
        if f.startswith("allocs_fork_"):
            os.unlink(os.path.join(OUT, f))
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog, "fork"])
    check(r.returncode == 0, "fork: record runs")
    files = [f for f in os.listdir(OUT) if f.startswith("allocs_fork_") and f.endswith(".ccprof")]
    if not check(len(files) == 2, "fork: two profiles (%d)" % len(files)):
        return
    reps = [report(os.path.join(OUT, f)) for f in files]
    child = [x for x in reps if "child_work" in functions(x)]
    parent = [x for x in reps if "child_work" not in functions(x)]
    if not check(len(child) == 1 and len(parent) == 1, "fork: one child profile"):
        return
    check(self_alloc(functions(child[0]), "child_work") == (333, 1),
          "fork: the child's child_work allocated 333 bytes in 1 block")
    check(self_alloc(functions(child[0]), "small") == (0, 0),
          "fork: the child's counts start from zero (small allocated before the fork)")
    check(self_alloc(functions(parent[0]), "small") == (168, 7),
          "fork: the parent keeps its own")


def with_allocator(name, prog):
    """tests/progs/<name>alloc.c built as the library lib<name>.so, and
    tests/progs/<prog>.c linked with it; None if the library does not
    build."""
    lib = os.path.join(OUT, "lib%s.so" % name)
    r = run([CC, "-O1", "-fPIC", "-shared", os.path.join(TOP, "tests/progs/%salloc.c" % name),
             "-o", lib])
    if not check(r.returncode == 0, "build the allocator library %s" % os.path.basename(lib)):
        return None
    return build(prog, "tests/progs/%s.c" % prog, "-L" + OUT, "-l" + name, "-Wl,-rpath," + OUT)


def own_allocator():
    """A program linked with an allocator library of its own (as with
    jemalloc) keeps getting its blocks from it: the runtime passes calls on
    to the next definition, not to glibc, and counts an allocator's calls
    to itself once (its realloc calling malloc)."""
    prog = with_allocator("bump", "usebump")
    if prog is None:
        return
    bare = run([prog])
    r, prof = record_alloc(prog)
    check(bare.stdout == "owned 1 1 1 1\n" and r.stdout == bare.stdout and r.returncode == 0,
          "own allocator: every block still its own under --alloc (%r)" % r.stdout)
    fns = functions(report(prof))
    # main: malloc 100, calloc 4x25, realloc to 300, posix_memalign 10 and
    # stdout's buffer; copy: strdup's 5.
    check(self_alloc(fns, "copy") == (5, 1), "own allocator: strdup counted once in copy")
    b, k = self_alloc(fns, "main")
    buf = b - 510  # stdout's buffer: st_blksize of the pipe
    check(k == 5 and buf >= 1024 and buf & (buf - 1) == 0,
          "own allocator: main's 4 blocks (510 bytes) and stdout's buffer, each once "
          "(%d bytes, %d blocks)" % (b, k))


def cxx_new():
    """C++'s new (plain, array, aligned) allocates through malloc and
    aligned_alloc, in the context that called it: inside the standard
    library's allocator functions when gcc hooks them (inlined copies)."""
    exe = os.path.join(OUT, "allocs_cxx")
    r = run(["g++", "-g", "-O1", "-finstrument-functions",
             os.path.join(TOP, "tests/progs/allocs_cxx.cpp"), "-o", exe])
    if not check(r.returncode == 0, "C++ allocation program builds"):
        return
    bare = run([exe])
    r, prof = record_alloc(exe)
    check(r.returncode == 0 and own_counts(r.stderr) == own_counts(bare.stderr),
          "C++: same behaviour under --alloc")
    by_name = {f["name"].split("(")[0]: f for f in report(prof)["functions"]}
    own = own_counts(bare.stderr)
    check(own, "C++: the program printed its own allocations (%d functions)" % len(own))
    for name, (b, k) in own.items():
        f = by_name.get(name)
        got = (f["inherited_alloc_bytes"], f["inherited_alloc_blocks"]) if f else None
        check(got == (b, k), "C++ %s: allocated %s, the program says %s" % (name, got, (b, k)))


def info_totals():
    """ccprof info: the total allocated and the part outside contexts, in
    words that agree in number ("1 block")."""
    prog = build("allocs", "tests/progs/allocs.c")
    r, prof = record_alloc(prog, ["plain"])
    rep = report(prof)
    out = run([CCPROF, "info", prof]).stdout
    want = "%d bytes in %d blocks" % (rep["alloc"]["bytes"], rep["alloc"]["blocks"])
    check(re.search(r"^allocated +" + want + "$", out, re.M) is not None,
          "info: allocated %s" % want)
    check(re.search(r"^outside contexts +\d+ bytes? in \d+ blocks? \(before", out, re.M) and
          not re.search(r"\b1 (blocks|bytes)\b", out), "info: the outside part, singular for 1")


def program_malloc():
    """A program that defines malloc itself keeps it (it comes first in the
    lookup order): nothing of ours runs in it, and nothing is counted."""
    prog = build("ownmalloc_a", "tests/progs/ownmalloc.c")
    bare = run([prog])
    r, prof = record_alloc(prog)
    check(r.returncode == bare.returncode and r.stdout == bare.stdout,
          "program's own malloc: same output and status under --alloc")
    if os.path.exists(prof):
        rep = report(prof)
        check(rep["alloc"]["blocks"] == 0, "program's own malloc: no allocation counted (%d)"
              % rep["alloc"]["blocks"])


def runtime_linked_in():
    """A program with libccprof.a linked in keeps its own runtime, which
    counts no allocation: record --alloc says so in one line."""
    prog = build("allocs_linked", "tests/progs/allocs.c", os.path.join(LIB, "libccprof.a"))
    bare = run([prog], cwd=OUT)  # its own runtime writes allocs_linked.ccprof there
    r, prof = record_alloc(prog)
    check(r.returncode == 0 and r.stdout == bare.stdout and os.path.exists(prof),
          "libccprof.a linked in: runs and writes under --alloc")
    warn = [l for l in r.stderr.splitlines() if "--alloc: no allocation counted" in l]
    check(len(warn) == 1, "libccprof.a linked in: one line says no allocation was counted")
    check("alloc" not in report(prof), "libccprof.a linked in: the profile has no allocation")


def not_measured():
    """Without --alloc the profile says nothing about allocation: no
    ALLOC section, no alloc keys, and sorting by it is refused."""
    prog = build("allocs", "tests/progs/allocs.c")
    r, prof = record(prog, ["plain"])
    rep = report(prof)
    check(r.returncode == 0 and "alloc" not in rep and
          all("self_alloc_bytes" not in f for f in rep["functions"]),
          "without --alloc: no allocation in the JSON report")
    r = run([CCPROF, "report", "--sort", "alloc", prof])
    check(r.returncode == 2 and r.stderr.count("\n") == 1,
          "without --alloc: --sort alloc is a usage error, one line (%d)" % r.returncode)
    r, aprof = record_alloc(prog, ["plain"])
    r = run([CCPROF, "report", "--sort", "alloc", aprof])
    check(r.returncode == 0 and "%alloc" in r.stdout, "--sort alloc: a report with %alloc")


def preloaded_by_hand():
    """LD_PRELOAD=libccprof-alloc.so alone is the whole runtime."""
    prog = build("allocs", "tests/progs/allocs.c")
    prof = os.path.join(OUT, "allocs_preload.ccprof")
    r = run([prog, "plain"], env=dict(os.environ, LD_PRELOAD=ALLOC_LIB,
                                      CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == 0 and os.path.exists(prof), "LD_PRELOAD=libccprof-alloc.so writes")
    if os.path.exists(prof):
        fns = functions(report(prof))
        check(self_alloc(fns, "arrays") == (240, 3) and fns["main"]["calls"] == 1,
              "LD_PRELOAD=libccprof-alloc.so: calls and allocations both counted")


def left_by_longjmp():
    """A signal handler that leaves malloc by siglongjmp (here, from an
    allocator library's malloc) does not stop the thread's counting for
    good: Note [Nested allocations]."""
    prog = with_allocator("trap", "leftalloc")
    if prog is None:
        return
    r, prof = record_alloc(prog)
    check(r.returncode == 0 and r.stdout == "done\n", "left by longjmp: the program runs as before")
    rep = report(prof)
    fns = functions(rep)
    check(self_alloc(fns, "interrupted") == (0, 0),
          "left by longjmp: the malloc that never returned counts nothing")
    # main's malloc right after the jump counts where the hooks still are
    # (the handler's context, until the next call), as time does.
    b, k = totals(rep)
    buf = b - 600  # and stdout's buffer: st_blksize of the pipe
    check(k == 7 and buf >= 1024 and buf & (buf - 1) == 0,
          "left by longjmp: main's malloc after the jump, after's 5 and stdout's buffer "
          "are counted (%d bytes, %d blocks)" % (b, k))
    check(self_alloc(fns, "after") == (500, 5),
          "left by longjmp: and after's, one call deeper: 500 bytes in 5 blocks (%s)"
          % (self_alloc(fns, "after"),))


exact_counts()
against_memcheck()
forked_child()
own_allocator()
cxx_new()
info_totals()
program_malloc()
runtime_linked_in()
not_measured()
preloaded_by_hand()
left_by_longjmp()
finish()
