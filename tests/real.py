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
import glob
import os
import re
import shutil
from ccp import *
from realprog import *

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
    if against_callgrind(tag, exe, prof, rep, args, bare_out, "d_name") is None:
        return exe, prof, rep
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
        print("# SKIP gprof not installed (package binutils): gprof comparison not run")
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
        allocations_agree("gcc-O0", o0[0], bare, [names_file, "1"], "cplus_demangle_v3")
        heap_agrees("gcc-O0", o0[0], bare, [names_file, "1"])
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
            # -O3 inlines is_ctor_dtor_or_conversion into itself once
            # (Note [Self-inlined copies] in src/runtime/machine.c).
            same_as_unoptimised("gcc -O3", o0[2], o3[2])
    if o0 is not None and shutil.which("clang"):
        c2 = exact_build(src, "clang-O2-fi", "clang", ["-O2", "-finstrument-functions"], names_file,
                         b.stdout, lines_only=True)
        if c2 is not None:
            same_as_unoptimised("clang -O2 -finstrument-functions", o0[2], c2[2])


main()
finish()
