"""Source lines (src/model/sources.c): each function's file and line, from
the debug information of the module files, checked against the source text
itself: the line given must be the one that defines the function."""
import json
import os
import re
import shutil
import subprocess

from ccp import CC, CCPROF, LIB, OUT, TOP, build, check, finish, record, report, run


def preloaded(exe, args, name):
    """Run exe with the runtime preloaded, not under `ccprof record`: the
    profile is as the runtime writes it, without source lines, so the tool
    has to find them (record adds them at once: record_keeps_sources)."""
    prof = os.path.join(OUT, name + ".ccprof")
    r = run([exe] + list(args), env=dict(os.environ,
                                         LD_PRELOAD=os.path.join(LIB, "libccprof.so"),
                                         CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == 0 and os.path.exists(prof), "%s: ran with libccprof.so preloaded" % name)
    return prof


def ident(name):
    """The identifier a definition line must contain: 'get' for
    'Box<int>::get() const', 'total' for 'int total<int, 3>(int const (&) [3])',
    'operator+' for 'operator+(Vec const&, Vec const&)'."""
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch == "<" and not name[:i].endswith("operator"):
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif ch == "(" and depth == 0 and i:
            cut = i
            break
    head = name[:cut]
    while head.endswith(">"):  # template arguments of the function itself
        depth, i = 0, len(head) - 1
        while i >= 0:
            depth += {">": 1, "<": -1}.get(head[i], 0)
            if depth == 0:
                break
            i -= 1
        head = head[:i]
    return re.split(r"::| ", head)[-1]


def functions_of(rep):
    """The profile's instrumented functions (regions have no module)."""
    return [f for f in rep["functions"] if f["module"] and not f["name"].startswith("<")]


def defined_where_said(rep, sources, what, brace_ok=False):
    """Every function's file is one of sources and its line names it (or,
    with brace_ok, is the '{' after the line that names it: with line
    tables alone, the line of the function's first instruction)."""
    bad = []
    fns = functions_of(rep)
    for f in fns:
        if f["file"] not in sources:
            bad.append((f["name"], f["file"]))
            continue
        text = open(f["file"], encoding="utf-8").read().split("\n")  # not splitlines: \f
        n = f["line"]
        named = 1 <= n <= len(text) and ident(f["name"]) in text[n - 1]
        if not named and brace_ok and 2 <= n <= len(text):
            named = text[n - 1].strip() == "{" and ident(f["name"]) in text[n - 2]
        if not named:
            bad.append((f["name"], "%s:%d" % (os.path.basename(f["file"]), f["line"])))
    check(fns and not bad,
          "%s: each of %d functions has its source file and the line that defines it%s"
          % (what, len(fns), "" if not bad else " (wrong: %s)" % bad[:4]))


def no_sources(rep, what):
    files = [(f["name"], f["file"], f["line"]) for f in functions_of(rep) if f["file"] or f["line"]]
    check(functions_of(rep) and not files, "%s: no function has a file or line (%s)"
          % (what, files[:3]))


def src(*parts):
    return os.path.realpath(os.path.join(TOP, "tests", "progs", *parts))


def c_programs():
    exe = build("src_spivey", "tests/progs/spivey.c")
    _, prof = record(exe, ["4"])
    defined_where_said(report(prof), {src("spivey.c")}, "gcc -O1 -g spivey")
    info = run([CCPROF, "info", prof]).stdout
    check(re.search(r"^source lines\s+5 of 5 functions$", info, re.M),
          "info: 'source lines 5 of 5 functions' for spivey's P, Q, R, S, main")
    # The text report's SRC column: base name and line.
    text = run([CCPROF, "report", prof]).stdout
    check(re.search(r"^COST CENTRE .*inherited\(s\)  SRC$", text, re.M) and
          re.search(r"^main .* spivey\.c:\d+$", text, re.M),
          "text report: a SRC column with spivey.c:LINE")
    # ring.c burns time in each function (clock=cycles: every one gets
    # some), so pprof keeps them all.
    exe = build("src_ring", "tests/progs/ring.c")
    _, prof = record(exe, ["3", "2"], clock="cycles")
    rep = report(prof)
    defined_where_said(rep, {src("ring.c")}, "gcc -O1 -g ring")
    pprof_lists_source(prof, rep, "S")
    if shutil.which("clang"):
        exe = os.path.join(OUT, "src_calls_clang")
        r = run(["clang", "-g", "-O2", "-finstrument-functions-after-inlining",
                 src("calls.c"), "-o", exe])
        check(r.returncode == 0, "clang -O2 -g builds calls.c")
        _, prof = record(exe)
        defined_where_said(report(prof), {src("calls.c")}, "clang -O2 -g calls")
        # Line tables alone: subprograms without declaration lines, so the
        # line of the first instruction, the opening brace for clang.
        r = run(["clang", "-gline-tables-only", "-O2", "-finstrument-functions-after-inlining",
                 src("calls.c"), "-o", exe])
        check(r.returncode == 0, "clang -gline-tables-only builds calls.c")
        _, prof = record(exe)
        defined_where_said(report(prof), {src("calls.c")}, "clang -O2 -gline-tables-only calls",
                           brace_ok=True)
    gxx = shutil.which("g++")
    if gxx:
        exe = os.path.join(OUT, "src_names")
        r = run([gxx, "-g", "-O1", "-finstrument-functions", "-I" + os.path.join(TOP, "include"),
                 src("names.cpp"), "-o", exe])
        check(r.returncode == 0, "g++ builds names.cpp")
        _, prof = record(exe)
        rep = report(prof)
        defined_where_said(rep, {src("names.cpp")},
                           "g++ names.cpp (templates, operators, members)")
        ghc = json.loads(run([CCPROF, "convert", "--to", "ghc-json", prof]).stdout)
        main = [c for c in ghc["cost_centres"] if c["label"] == "main"]
        want = "%s:%d" % (src("names.cpp"), functions_of_name(rep, "main")["line"])
        check(main and main[0]["src_loc"] == want and main[0]["module"] == "names",
              "ghc-json: main's src_loc is %s and its module 'names' (%s)" % (want, main[:1]))


def pprof_lists_source(prof, rep, name):
    """go tool pprof -list shows the function's source from the line given."""
    if not shutil.which("go"):
        print("# SKIP go not installed (package golang-go): pprof -list not run")
        return
    pb = os.path.join(OUT, "src_list.pb.gz")
    r = run([CCPROF, "convert", "--to", "pprof", "-o", pb, prof])
    f = functions_of_name(rep, name)
    r = run(["go", "tool", "pprof", "-symbolize=none", "-list", "^%s$" % name, pb],
            env=dict(os.environ, PPROF_TMPDIR=OUT, HOME=os.environ.get("HOME") or OUT,
                     GOCACHE=os.path.join(os.environ.get("CCPROF_TEST_CACHE") or os.path.join(
                         os.environ.get("HOME") or OUT, ".cache", "ccprof-tests"), "go-build")))
    want = "ROUTINE ======================== %s in %s" % (name, f["file"])
    first = re.search(r"^\s+\S+\s+\S+\s+(\d+):", r.stdout, re.M)
    ok = want in r.stdout and first and int(first.group(1)) == f["line"]
    check(ok, "pprof: go tool pprof -list %s shows %s from line %d%s"
          % (name, os.path.basename(f["file"]), f["line"],
             "" if ok else " (%s)" % (r.stdout[:300] + r.stderr[:200])))


def functions_of_name(rep, name):
    return next(f for f in rep["functions"] if f["name"] == name)


def shared_library():
    so = os.path.join(OUT, "libsrcshlib.so")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", src("shlib.c"),
             "-o", so])
    check(r.returncode == 0, "shlib.c builds as a shared library")
    exe = build("src_uselib", "tests/progs/uselib.c", "-L" + OUT, "-lsrcshlib",
                "-Wl,-rpath," + OUT)
    _, prof = record(exe)
    rep = report(prof)
    defined_where_said(rep, {src("uselib.c"), src("shlib.c")}, "program and shared library")
    lib = [f for f in functions_of(rep) if f["module"].endswith("libsrcshlib.so")]
    check(lib and all(f["file"] == src("shlib.c") for f in lib),
          "the library's functions are in shlib.c (%s)" % [(f["name"], f["file"]) for f in lib])


def without_debug_info():
    exe = os.path.join(OUT, "src_nodebug")
    r = run([CC, "-O1", "-finstrument-functions", src("spivey.c"), "-o", exe])
    check(r.returncode == 0, "spivey.c builds without -g")
    _, prof = record(exe, ["3"])
    no_sources(report(prof), "no -g")
    text = run([CCPROF, "report", prof]).stdout
    check("SRC" not in text, "text report without debug information: no SRC column")
    info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
    check(info["source_lines"] == 0, "info --json: source_lines 0 without -g (%s)"
          % info.get("source_lines"))


def stale_binary():
    """A binary rebuilt after the run is another build: its lines would be
    plausible and wrong, so none are given; a missing one gives none."""
    copy = os.path.join(OUT, "src_stale.c")
    shutil.copy(src("spivey.c"), copy)
    exe = os.path.join(OUT, "src_stale")
    r = run([CC, "-g", "-O1", "-finstrument-functions", copy, "-o", exe])
    check(r.returncode == 0, "stale: first build")
    prof = preloaded(exe, ["3"], "src_stale")
    defined_where_said(report(prof), {os.path.realpath(copy)}, "stale: before the rebuild")
    with open(copy, encoding="utf-8") as f:
        text = f.read()
    with open(copy, "w", encoding="utf-8") as f:
        f.write("/* moved down a line */\n" + text)
    r = run([CC, "-g", "-O1", "-finstrument-functions", copy, "-o", exe])
    check(r.returncode == 0, "stale: rebuilt from a changed source")
    no_sources(report(prof), "stale: after the rebuild (another build-id)")
    os.unlink(exe)
    r = run([CCPROF, "report", prof])
    check(r.returncode == 0 and r.stderr == "" and "SRC" not in r.stdout,
          "stale: binary gone: report exits 0, no SRC column, quiet (%r)" % r.stderr[:200])
    # A FIFO where the binary was must not block the report.
    os.mkfifo(exe)
    try:
        r = run([CCPROF, "report", "--json", prof], timeout=20)
        ok = r.returncode == 0 and not any(f["file"] for f in json.loads(r.stdout)["functions"])
    except subprocess.TimeoutExpired:
        ok = False
    check(ok, "stale: a FIFO in the binary's place: report finishes, no sources")
    os.unlink(exe)


def separate_debug_file():
    """Debug information in a file of its own, found by .gnu_debuglink as
    gdb finds it (Debian's -dbgsym packages use the build-id path)."""
    if not (shutil.which("objcopy") and shutil.which("strip")):
        print("# SKIP objcopy not installed")
        return
    exe = build("src_debuglink", "tests/progs/spivey.c")
    dbg = exe + ".debug"
    r1 = run(["objcopy", "--only-keep-debug", exe, dbg])
    r2 = run(["strip", "--strip-debug", exe])
    r3 = run(["objcopy", "--add-gnu-debuglink=" + dbg, exe], cwd=OUT)
    check(r1.returncode == r2.returncode == r3.returncode == 0,
          "debuglink: split the debug information off with objcopy")
    prof = preloaded(exe, ["3"], "src_debuglink")
    defined_where_said(report(prof), {src("spivey.c")}, "debuglink: stripped binary + .debug")
    os.unlink(dbg)
    no_sources(report(prof), "debuglink: .debug file removed")


def merged_profiles_keep_sources():
    exe = build("src_merge", "tests/progs/spivey.c")
    a = preloaded(exe, ["3"], "src_merge_a")
    b = preloaded(exe, ["4"], "src_merge_b")
    m = os.path.join(OUT, "src_merge_sum.ccprof")
    r = run([CCPROF, "merge", "-o", m, a, b])
    check(r.returncode == 0, "merge of two runs")
    os.unlink(exe)
    defined_where_said(report(m), {src("spivey.c")},
                       "merge: the merged profile keeps the sources after the binary is gone")


def record_keeps_sources():
    """`ccprof record` writes the lines into the profile right after the
    run, while the binary is surely the one that ran: they survive a
    rebuild."""
    copy = os.path.join(OUT, "src_kept.c")
    shutil.copy(src("spivey.c"), copy)
    exe = os.path.join(OUT, "src_kept")
    r = run([CC, "-g", "-O1", "-finstrument-functions", copy, "-o", exe])
    check(r.returncode == 0, "record: build")
    r, prof = record(exe, ["3"])
    check(r.returncode == 0 and r.stderr.strip().endswith("profile written to " + prof),
          "record: exit 0, 'profile written to' as before (%s)" % r.stderr.strip()[-200:])
    before = report(prof)
    defined_where_said(before, {os.path.realpath(copy)}, "record: lines as written")
    with open(copy, encoding="utf-8") as f:
        text = f.read()
    with open(copy, "w", encoding="utf-8") as f:
        f.write("/* moved down a line */\n" + text)
    run([CC, "-g", "-O1", "-finstrument-functions", copy, "-o", exe])
    after = report(prof)
    same = [(f["name"], f["line"]) for f in functions_of(after)] == \
        [(f["name"], f["line"]) for f in functions_of(before)]
    check(same, "record: the recorded lines stay after the program is rebuilt (the run's "
          "build, not the new one's)")
    os.unlink(exe)
    check([(f["name"], f["line"]) for f in functions_of(report(prof))] ==
          [(f["name"], f["line"]) for f in functions_of(before)],
          "record: and after the binary is gone")


def main():
    version = run([CCPROF, "--version"]).stdout
    if "source lines: libdw " not in version:
        # Built without libdw (make LIBDW=no, or no libdw-dev): no sources,
        # and the reports say nothing of them.
        print("# SKIP ccprof built without libdw: only its absence is checked")
        exe = build("src_nolibdw", "tests/progs/spivey.c")
        _, prof = record(exe, ["3"])
        no_sources(report(prof), "built without libdw")
        finish()
    c_programs()
    shared_library()
    without_debug_info()
    stale_binary()
    separate_debug_file()
    merged_profiles_keep_sources()
    record_keeps_sources()
    finish()


main()
