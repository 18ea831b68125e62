"""A large real program: SQLite 3.54.1's amalgamation (250,000 lines of
C, fetched by tests/fetch-sqlite) driven by tests/progs/sqlite_drv.c.

- Every build prints what the bare one does, and the callback the driver
  counts itself (row_seen, which SQLite calls through a pointer) has the
  driver's count.
- clang -O2 -finstrument-functions-after-inlining and gcc -O0 (with
  SQLite's forced inlining off, -DSQLITE_DISABLE_INLINE) hook exactly the
  calls the machine code makes: every function's calls and every arc
  equal callgrind's, with one thread and with two, and the cycles that
  ran walk arcs callgrind saw.
- gcc -O2 inlines, and hooks the inlined copies too: its functions, arcs
  and contexts, with their counts, must be the -O0 build's.
- record --alloc and --heap against memcheck and massif."""
import glob
import os
import re
import shutil
import subprocess
from ccp import *
from realprog import *

D = os.path.join(OUT, "sqlite")
SRC = os.environ.get("CCPROF_SQLITE") or os.path.expanduser("~/.cache/ccprof/sqlite-3.54.1")
FETCH = os.path.join(TOP, "tests", "fetch-sqlite")
DRIVER = os.path.join(TOP, "tests", "progs", "sqlite_drv.c")
ROWS = "1500"

# name: compiler and flags.  Line tables only (-g1), as DWARF 4, which
# valgrind 3.19 reads: realprog.compiled_functions finds the functions
# compiled from SQLite's sources by their lines, and the builds are the
# suite's slowest part.
LINES = ["-g1", "-gdwarf-4"]
BUILDS = {
    "bare": ["gcc", "-O1"],
    "gcc-O0": ["gcc", "-O0", "-finstrument-functions", "-DSQLITE_DISABLE_INLINE"] + LINES,
    "gcc-O2": ["gcc", "-O2", "-finstrument-functions"] + LINES,
    "clang-O2": ["clang", "-O2", "-finstrument-functions-after-inlining"] + LINES,
}


def fetch_checks_its_tarball():
    """fetch-sqlite refuses a tarball whose SHA-256 is not the pinned one,
    and leaves nothing behind."""
    bad = os.path.join(D, "not-the-package.tgz")
    with open(bad, "wb") as f:
        f.write(b"\x1f\x8b not the package")
    dest = os.path.join(D, "refused")
    r = run(["sh", FETCH, dest], env=dict(os.environ, CCPROF_SQLITE_TARBALL=bad))
    check(r.returncode != 0 and "SHA-256" in r.stderr and not os.path.exists(dest) and
          glob.glob(dest + ".tmp.*") == [],
          "fetch-sqlite refuses a tarball with the wrong SHA-256, leaving nothing (exit %d)"
          % r.returncode)


def build_all():
    """Every build in BUILDS, two compilers at a time: {name: exe}, with a
    failed check for each that does not build."""
    exes, running = {}, []
    names = [n for n in BUILDS if shutil.which(BUILDS[n][0])]
    for n in BUILDS:
        if n not in names:
            print("# SKIP %s: %s is not installed" % (n, BUILDS[n][0]))
    for name in names:
        cc, flags = BUILDS[name][0], BUILDS[name][1:]
        exe = os.path.join(D, name)
        cmd = [cc] + flags + ["-I" + SRC, os.path.join(SRC, "sqlite3.c"), DRIVER,
                              "-o", exe, "-pthread", "-lm", "-ldl"]
        running.append((name, exe, subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)))
        if len(running) == 2 or name == names[-1]:
            for n, e, p in running:
                err = p.communicate()[1]
                if check(p.returncode == 0, "%s builds (%s)" % (n, " ".join(BUILDS[n]))):
                    exes[n] = e
                else:
                    print("# " + err[-2000:].replace("\n", "\n# "))
            running = []
    return exes


def rows_counted(stderr):
    m = re.search(r"^rows (\d+)$", stderr, re.M)
    return int(m.group(1)) if m else None


def profiled_run(tag, exe, bare, args, clock=None):
    """record exe: the same output and exit status as the bare run, and
    row_seen's calls as the driver counted them.  Returns the profile and
    its report (with cycles), or None."""
    r, prof = record(exe, args, clock=clock,
                     profile=os.path.join(D, "%s-%s.ccprof" % (tag.replace(" ", "-"), clock or "cpu")))
    n = rows_counted(r.stderr)
    if not check(r.returncode == bare.returncode and r.stdout == bare.stdout and n is not None,
                 "%s%s: the profiled run prints what the bare one does (%d lines, exit %d)"
                 % (tag, ", clock=" + clock if clock else "", bare.stdout.count("\n"),
                    r.returncode)):
        return None
    rep = report(prof, "--cycles")
    got = functions(rep).get("row_seen", {}).get("calls")
    check(got == n, "%s: row_seen called %s times, as the driver counted (%d)" % (tag, got, n))
    return prof, rep


def main():
    os.makedirs(D, exist_ok=True)
    fetch_checks_its_tarball()
    if not os.path.exists(os.path.join(SRC, "sqlite3.c")):
        print("# SKIP SQLite's amalgamation is not in %s (run tests/fetch-sqlite)" % SRC)
        return
    exes = build_all()
    if "bare" not in exes:
        return
    one, two, main_only = [ROWS, "1"], [ROWS, "2"], [ROWS, "0"]
    bare1, bare2 = run([exes["bare"]] + one), run([exes["bare"]] + two)
    for b, args in ((bare1, one), (bare2, two)):
        check(b.returncode == 0 and (rows_counted(b.stderr) or 0) > 10,
              "the bare driver runs with %s threads (%d lines, %s rows)"
              % (args[1], b.stdout.count("\n"), rows_counted(b.stderr)))
    runs = {}
    for tag in ("gcc-O0", "gcc-O2", "clang-O2"):
        for args, bare in ((one, bare1), (two, bare2)):
            got = profiled_run(tag + " x" + args[1], exes[tag], bare, args) if tag in exes else None
            if got is not None:
                runs[tag, args[1]] = got
    for tag in ("gcc-O0", "clang-O2"):
        for n, bare in (("1", bare1), ("2", bare2)):
            if (tag, n) in runs:
                against_callgrind("%s x%s" % (tag, n), exes[tag], *runs[tag, n], [ROWS, n],
                                  bare.stdout, "sqlite3Malloc")
    if ("gcc-O0", "1") in runs and ("gcc-O2", "1") in runs:
        same_as_unoptimised("SQLite gcc -O2", runs["gcc-O0", "1"][1], runs["gcc-O2", "1"][1])
    if ("gcc-O2", "2") in runs:
        got = profiled_run("gcc-O2 x2", exes["gcc-O2"], bare2, two, clock="cycles")
        calls = lambda r: {f: x["calls"] for f, x in functions(r).items()}
        check(got is not None and calls(got[1]) == calls(runs["gcc-O2", "2"][1]),
              "gcc-O2 x2: clock=cycles counts the calls clock=cpu does")
    # In the main thread: under the runtime, each thread glibc starts has a
    # larger table of TLS blocks (docs/alloc.md), and with two threads the
    # peak depends on how they interleave, which massif serialises.
    if "gcc-O0" in exes:
        allocations_agree("SQLite gcc-O0", exes["gcc-O0"], exes["bare"], main_only, "fill")
        heap_agrees("SQLite gcc-O0", exes["gcc-O0"], exes["bare"], main_only)


main()
finish()
