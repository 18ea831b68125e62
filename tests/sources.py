"""Source lines (src/model/sources.c): each function's file and line, from
the debug information of the module files, checked against the source text
itself: the line given must be the one that defines the function."""
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import zlib

from ccp import (CC, CCPROF, LIB, OUT, TOP, build, ccprof_said, check, finish, format_tool,
                 fresh_dir, preload_shim, record, report, run)


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
    info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
    check(info.get("source_lines") == 5 and info.get("instrumented_functions") == 5,
          "info --json: the same 5 of 5, source_lines and instrumented_functions (%s, %s)"
          % (info.get("source_lines"), info.get("instrumented_functions")))
    # The text report's SRC column: base name and line.
    text = run([CCPROF, "report", prof]).stdout
    check(re.search(r"^COST CENTRE .*inherited\(s\)  SRC$", text, re.M) and
          re.search(r"^main .* spivey\.c:\d+$", text, re.M),
          "text report: a SRC column with spivey.c:LINE")
    # Compressed debug sections (SHF_COMPRESSED, zlib; this gcc offers no
    # zstd), read by libelf.
    exe = build("src_spivey_gz", "tests/progs/spivey.c", "-gz=zlib")
    _, prof = record(exe, ["4"])
    defined_where_said(report(prof), {src("spivey.c")}, "gcc -O1 -g -gz=zlib spivey")
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
    else:
        print("# SKIP clang not installed: its debug information not read")
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
    else:
        print("# SKIP g++ not installed: C++ functions' sources not read")


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


def namespaces():
    """Functions of namespaces (clang defines them under DW_TAG_namespace,
    which libdw's dwarf_getscopes never enters), class members, templates,
    and functions of a header, whose file is the header: g++ and clang++,
    -O0 and -O2."""
    sources = {src("spaces.cpp"), src("spaces.h")}
    for cxx, flags in (("g++", ["-O0", "-finstrument-functions"]),
                       ("g++", ["-O2", "-finstrument-functions"]),
                       ("clang++", ["-O0", "-finstrument-functions"]),
                       ("clang++", ["-O2", "-finstrument-functions-after-inlining"])):
        if not shutil.which(cxx):
            print("# SKIP %s not installed" % cxx)
            continue
        what = "%s %s spaces.cpp" % (cxx, flags[0])
        exe = os.path.join(OUT, "src_spaces_%s%s" % (cxx.strip("+"), flags[0]))
        r = run([cxx, "-g"] + flags + [src("spaces.cpp"), "-o", exe])
        check(r.returncode == 0, what + " builds")
        _, prof = record(exe)
        rep = report(prof)
        defined_where_said(rep, sources, what)
        names = {f["name"]: f for f in functions_of(rep)}
        where = {n: os.path.basename(f["file"]) for n, f in names.items()
                 if n.startswith(("geo::Pair", "header_static"))}
        check(where and set(where.values()) == {"spaces.h"},
              "%s: the header's functions are in spaces.h (%s)" % (what, where))


def many_functions():
    """10,000 functions in one file: each looked up without walking the
    unit again (Note [One walk per unit]).  Not timed (make check times
    nothing); the walk per address took 4 s here, one walk 0.09 s."""
    cc = "clang" if shutil.which("clang") else CC
    path = os.path.join(OUT, "src_many.c")
    n = 10000
    with open(path, "w") as f:
        f.write("volatile int sink;\n")
        for i in range(n):
            f.write("void f%d(void)\n{\n\tsink += %d;\n}\n" % (i, i))
        f.write("int main(void)\n{\n%s\treturn 0;\n}\n"
                % "".join("\tf%d();\n" % i for i in range(n)))
    exe = os.path.join(OUT, "src_many")
    r = run([cc, "-g", "-O0", "-finstrument-functions", path, "-o", exe])
    check(r.returncode == 0, "many functions: %d functions in one file build" % n)
    prof = preloaded(exe, [], "src_many")
    rep = report(prof)
    fns = functions_of(rep)
    lines = {f["name"]: f["line"] for f in fns if f["file"] == os.path.realpath(path)}
    check(len(fns) == n + 1 and all(lines.get("f%d" % i) == 2 + 4 * i for i in range(n)),
          "many functions: each of %d has its file and line" % n)


def split_dwarf():
    """-gsplit-dwarf: the functions are in the .dwo files the skeleton
    units name, which libdw opens itself; one that is not a regular file
    is not opened, so that a FIFO cannot block the report, and without it
    the line tables in the binary give the first instruction's line."""
    sources = {src("spaces.cpp"), src("spaces.h")}
    for cxx in ("g++", "clang++"):
        if not shutil.which(cxx):
            print("# SKIP %s not installed" % cxx)
            continue
        for dwarf in ("-gdwarf-4", "-gdwarf-5"):
            what = "%s -gsplit-dwarf %s" % (cxx, dwarf)
            d = os.path.join(OUT, "src_split_%s%s" % (cxx.strip("+"), dwarf))
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            exe = os.path.join(d, "spaces")
            r = run([cxx, "-g", dwarf, "-gsplit-dwarf", "-O1", "-finstrument-functions",
                     src("spaces.cpp"), "-o", exe], cwd=d)
            dwo = [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".dwo")]
            check(r.returncode == 0 and len(dwo) == 1, what + " builds, with one .dwo")
            if len(dwo) != 1:
                continue
            prof = preloaded(exe, [], "src_split_%s%s" % (cxx.strip("+"), dwarf))
            defined_where_said(report(prof), sources, what)
            os.unlink(dwo[0])
            os.mkfifo(dwo[0])
            rep = report_within(prof, what + ", the .dwo a FIFO")
            if rep:
                defined_where_said(rep, sources, what + ", the .dwo a FIFO: line tables",
                                   brace_ok=True)
            os.unlink(dwo[0])


def lto_units():
    """-flto, compiled in one directory and linked in another: the code is
    in an <artificial> unit whose compile directory is the link directory,
    but the file names come from the compile step's unit, relative to its
    own directory (Note [LTO units] in src/model/sources.c).  Each file
    given must exist and be the source that defines the function there."""
    top = os.path.join(OUT, "src_lto")
    shutil.rmtree(top, ignore_errors=True)
    for d in ("src", "inc", "build", os.path.join("link", "deep")):
        os.makedirs(os.path.join(top, d))
    with open(os.path.join(top, "inc", "h.h"), "w") as f:
        f.write("__attribute__((noinline)) static int hdr_fn(int x)\n{\n\treturn x * 7;\n}\n")
    with open(os.path.join(top, "src", "m.c"), "w") as f:
        f.write('#include "h.h"\n#include <stdio.h>\n\n__attribute__((noinline)) int\n'
                "inner(int x)\n{\n\treturn hdr_fn(x) + 1;\n}\n\nint main(void)\n{\n"
                "\tint s = 0;\n\tfor (int i = 0; i < 100; i++)\n\t\ts += inner(i);\n"
                '\tprintf("%d\\n", s);\n\treturn 0;\n}\n')
    flags = ["-O1", "-g", "-flto", "-finstrument-functions"]
    # Whether CC can do -flto at all: a trivial file, compiled and linked
    # apart with the same flags.  Only then is a failure below a skip.
    with open(os.path.join(top, "probe.c"), "w") as f:
        f.write("int main(void)\n{\n\treturn 0;\n}\n")
    p1 = run([CC] + flags + ["-c", "probe.c", "-o", "probe.o"], cwd=top)
    p2 = run([CC] + flags + ["probe.o", "-o", "probe"], cwd=top) if p1.returncode == 0 else p1
    if p2.returncode != 0:
        print("# SKIP %s cannot build with -flto: %s" % (CC, (p1.stderr + p2.stderr)[:200]))
        return
    r1 = run([CC] + flags + ["-I../inc", "-c", "../src/m.c"], cwd=os.path.join(top, "build"))
    link = os.path.join(top, "link", "deep")
    r2 = run([CC] + flags + ["../../build/m.o", "-o", "m_lto"], cwd=link)
    if not check(r1.returncode == 0 and r2.returncode == 0,
                 "-flto: the program builds, compiled and linked in two directories (%s)"
                 % (r1.stderr + r2.stderr)[:200]):
        return
    fns = functions_of(report(preloaded(os.path.join(link, "m_lto"), [], "src_lto")))
    want = {"hdr_fn": ("inc/h.h", 1), "inner": ("src/m.c", 5), "main": ("src/m.c", 10)}
    got = {f["name"]: (f["file"], f["line"]) for f in fns}
    ok = sorted(got) == sorted(want) and all(
        os.path.exists(got[n][0]) and
        os.path.realpath(got[n][0]) == os.path.join(os.path.realpath(top), want[n][0]) and
        got[n][1] == want[n][1] for n in want)
    check(ok, "-flto, compiled and linked in two directories: each function's file exists "
          "and is its source, at the defining line (%s)" % got)


def peak_rss_kb(args, timeout):
    """(status, peak RSS in KB) of args, run from a fresh Python whose only
    child it is (RUSAGE_CHILDREN is the largest child's peak); None after
    timeout seconds."""
    code = ("import resource, subprocess, sys\n"
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL)\n"
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    try:
        r = run(["python3", "-c", code] + list(args), timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    status, kb = r.stdout.split()
    return int(status), int(kb)


def repeated_skeletons():
    """A -gsplit-dwarf binary whose skeleton unit is repeated 2,000 times
    in .debug_info: the .dwo is opened and walked once, not once per
    skeleton (seen_split in src/model/sources.c; it took 612 MB and 3.4 s,
    now 6 MB).  Peak memory is bounded, not time: the generous time limit
    only catches a report that never ends."""
    if not shutil.which("objcopy"):
        print("# SKIP objcopy not installed")
        return
    d = os.path.join(OUT, "src_skeletons")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    n = 3000
    with open(os.path.join(d, "big.c"), "w") as f:
        f.write("#include <stdio.h>\n")
        for i in range(n):
            f.write("__attribute__((noinline)) int g%d(int x)\n{\n\treturn x * %d + 1;\n}\n"
                    % (i, i))
        f.write("int main(void)\n{\n\tint s = 0;\n%s\tprintf(\"%%d\\n\", s);\n"
                "\treturn 0;\n}\n" % "".join("\ts += g%d(s);\n" % i for i in range(0, n, 300)))
    exe = os.path.join(d, "big")
    r = run([CC, "-g", "-gsplit-dwarf", "-O1", "-finstrument-functions", "big.c", "-o", exe],
            cwd=d)
    if not check(r.returncode == 0, "repeated skeletons: big.c builds with -gsplit-dwarf"):
        return
    prof = preloaded(exe, [], "src_skeletons")
    one = os.path.join(d, "info.bin")
    r = run(["objcopy", "--dump-section", ".debug_info=" + one, exe, os.path.join(d, "dump")])
    many = os.path.join(d, "info_many.bin")
    with open(one, "rb") as f:
        skeleton = f.read()
    with open(many, "wb") as f:
        f.write(skeleton * 2000)
    # Rewritten in place: the build-id, and so the profile's, is kept.
    r2 = run(["objcopy", "--update-section", ".debug_info=" + many, exe])
    if not check(r.returncode == r2.returncode == 0 and 0 < len(skeleton) < 200,
                 "repeated skeletons: objcopy repeats the %d-byte skeleton unit 2,000 times"
                 % len(skeleton)):
        return
    got = peak_rss_kb([CCPROF, "info", prof], timeout=120)
    check(got is not None and got[0] == 0 and got[1] < 100 * 1024,
          "repeated skeletons: info exits 0 within 120 s, under 100 MB (status, KB: %s)"
          % (got,))
    rep = report_within(prof, "repeated skeletons", timeout=120)
    if rep:
        want = {"g%d" % i: 2 + 4 * i for i in range(0, n, 300)}
        want["main"] = 2 + 4 * n
        got = {f["name"]: f["line"] for f in functions_of(rep)
               if f["file"] == os.path.join(d, "big.c")}
        check(got == want, "repeated skeletons: each function's line from the .dwo (%s)"
              % sorted(set(got.items()) ^ set(want.items()))[:4])


def opens_of(path, args, timeout=120):
    """(CompletedProcess or None after timeout, how many times path was
    opened while args ran, by inotify's IN_OPEN; None if unknown, more
    than the queue holds as a billion)."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        return run(args, timeout=timeout), None
    # Closes are watched too: inotify merges an event with an identical
    # one just before it, so opens alone would count as one.
    in_open, in_close_nowrite, overflow = 0x20, 0x10, 0x4000
    opens = 0
    try:
        if libc.inotify_add_watch(fd, os.fsencode(path), in_open | in_close_nowrite) < 0:
            return run(args, timeout=timeout), None
        try:
            r = run(args, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                break
            at = 0
            while at + 16 <= len(data):
                _, mask, _, size = struct.unpack_from("iIII", data, at)
                if mask & overflow:
                    return r, 10 ** 9
                opens += bool(mask & in_open)
                at += 16 + size
    finally:
        os.close(fd)
    return r, opens


def respelled_modules():
    """A profile naming one binary in 5,000 spellings ("//x", "/./x",
    tests/respell.c): the file is read once, not once per spelling
    (same_files in src/model/sources.c keys on device, inode and
    build-id, not on the path).  Counted by inotify: 5,001 opens before."""
    exe = build("src_respell", "tests/progs/spivey.c")
    raw = preloaded(exe, ["3"], "src_respell")
    prof = os.path.join(OUT, "src_respell_5000.ccprof")
    r = run([format_tool("respell"), raw, prof, "5000"])
    if not check(r.returncode == 0, "respelled: 5,000 spellings of the binary added (%r)"
                 % r.stderr.strip()):
        return
    r, opens = opens_of(exe, [CCPROF, "report", "--json", prof])
    if r is None:
        check(False, "respelled: report finishes within 120 s")
        return
    fns = functions_of(json.loads(r.stdout)) if r.returncode == 0 else []
    check(fns and all(f["file"] == src("spivey.c") and f["line"] > 0 for f in fns),
          "respelled: report exits 0, each function with its source (%r)" % r.stderr[:200])
    if opens is None:
        print("# SKIP no inotify: how often the binary is opened is not known")
        return
    check(1 <= opens <= 3, "respelled: the binary is opened once, not once per spelling "
          "(%d opens)" % opens)


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
    r = run([CCPROF, "report", prof])
    check(r.returncode == 0 and "COST CENTRE" in r.stdout and "SRC" not in r.stdout,
          "text report without debug information: no SRC column")
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


def report_within(prof, what, timeout=20):
    """report --json on prof, which must finish: None if it hangs."""
    try:
        r = run([CCPROF, "report", "--json", prof], timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, "%s: report finishes within %d s" % (what, timeout))
        return None
    check(r.returncode == 0 and r.stderr == "", "%s: report exits 0, quiet (%r)"
          % (what, r.stderr[:200]))
    return json.loads(r.stdout) if r.returncode == 0 else None


def debug_files_never_block():
    """The debug files a binary names (.gnu_debuglink, dwz's
    .gnu_debugaltlink) are opened only if regular files: a FIFO of that
    name must not block the report (Note [Debug files] in dwarfmod.c)."""
    if not (shutil.which("objcopy") and shutil.which("strip")):
        print("# SKIP objcopy not installed")
        return
    exe = build("src_linkfifo", "tests/progs/spivey.c")
    prof = preloaded(exe, ["3"], "src_linkfifo")
    dbg = exe + ".debug"
    r1 = run(["objcopy", "--only-keep-debug", exe, dbg])
    r2 = run(["strip", "--strip-debug", exe])
    r3 = run(["objcopy", "--add-gnu-debuglink=" + dbg, exe], cwd=OUT)
    check(r1.returncode == r2.returncode == r3.returncode == 0, "debuglink fifo: stripped binary")
    os.unlink(dbg)
    os.mkfifo(dbg)
    try:
        rep = report_within(prof, "a FIFO named by .gnu_debuglink")
        if rep:
            no_sources(rep, "a FIFO named by .gnu_debuglink")
    finally:
        os.unlink(dbg)
    # A dwz file that is a FIFO: the section names it and its build-id.
    exe = build("src_altfifo", "tests/progs/spivey.c")
    prof = preloaded(exe, ["3"], "src_altfifo")
    alt = os.path.join(OUT, "src_altfifo.dwz")
    section = os.path.join(OUT, "src_altfifo.section")
    with open(section, "wb") as f:
        f.write(os.path.basename(alt).encode() + b"\0" + bytes(range(1, 21)))
    r = run(["objcopy", "--add-section", ".gnu_debugaltlink=" + section, exe])
    check(r.returncode == 0, "altlink fifo: objcopy adds .gnu_debugaltlink")
    if os.path.exists(alt):
        os.unlink(alt)
    os.mkfifo(alt)
    try:
        report_within(prof, "a FIFO named by .gnu_debugaltlink")
    finally:
        os.unlink(alt)


def no_network():
    """Binaries without debug information: not looked up on the debuginfod
    servers of DEBUGINFOD_URLS (a report reads local files only)."""
    exe = os.path.join(OUT, "src_nonet")
    r = run([CC, "-O1", "-finstrument-functions", src("spivey.c"), "-o", exe])
    check(r.returncode == 0, "no network: spivey.c builds without -g")
    prof = preloaded(exe, ["3"], "src_nonet")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.5)
    url = "http://127.0.0.1:%d" % server.getsockname()[1]
    env = dict(os.environ, DEBUGINFOD_URLS=url, DEBUGINFOD_TIMEOUT="2",
               DEBUGINFOD_CACHE_PATH=os.path.join(OUT, "src_debuginfod_cache"))
    r = run([CCPROF, "report", prof], env=env, timeout=30)
    try:
        server.accept()[0].close()
        asked = True
    except socket.timeout:
        asked = False
    server.close()
    check(r.returncode == 0 and not asked,
          "no network: report does not ask the debuginfod server at DEBUGINFOD_URLS")


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


def record_rewrite_alters_nothing_else():
    """record's rewrite (Note [Lines at record time]) adds file and line,
    nothing else: info --json and report --json are as for the file the
    runtime wrote (threads, STATS, options, hostname, times), for a run
    with several threads and for one written by the crash handler, and the
    file keeps the runtime's mode whatever the umask.  The runtime's file
    is put in place by `cp` under record (cp records no call, so record
    takes the file it finds as the run's profile and rewrites it)."""
    threads = build("src_rewrite_threads", "tests/progs/threads.c")
    crash = build("src_rewrite_crash", "tests/progs/signals.c")
    runs = [("threads", threads, [], 0), ("crash", crash, ["segv"], -11)]
    for what, exe, args, status in runs:
        raw = os.path.join(OUT, "src_rewrite_%s.raw.ccprof" % what)
        r = run([exe] + args, env=dict(os.environ, LD_PRELOAD=os.path.join(LIB, "libccprof.so"),
                                        CCPROF_OPTIONS="output=" + raw))
        check(r.returncode == status and os.path.exists(raw),
              "rewrite, %s: the runtime wrote the profile (status %d)" % (what, r.returncode))
        os.chmod(raw, 0o644)
        out = os.path.join(OUT, "src_rewrite_%s.ccprof" % what)
        if os.path.exists(out):
            os.unlink(out)
        r = subprocess.run([CCPROF, "record", "-o", out, "--", "cp", raw, out],
                           capture_output=True, text=True, preexec_fn=lambda: os.umask(0o002))
        check(r.returncode == 0 and "profile written to" in r.stderr,
              "rewrite, %s: record took the copy as its run's profile (%s)"
              % (what, r.stderr.strip()[-200:]))
        check(open(out, "rb").read() != open(raw, "rb").read(),
              "rewrite, %s: record rewrote the profile with its lines" % what)
        mode = os.stat(out).st_mode & 0o777
        check(mode == 0o644, "rewrite, %s: the profile keeps mode 0644 under umask 002 (%o)"
              % (what, mode))
        infos = [json.loads(run([CCPROF, "info", "--json", f]).stdout) for f in (raw, out)]
        for i in infos:
            del i["file"], i["file_size"]
        check(infos[0] == infos[1], "rewrite, %s: info --json is the same but for the file name"
              % what)
        check(report(raw) == report(out), "rewrite, %s: report --json is the same" % what)
    os.unlink(threads)
    rep = report(os.path.join(OUT, "src_rewrite_threads.ccprof"))
    defined_where_said(rep, {src("threads.c")}, "rewrite: the lines are in the file")
    rewrite_keeps_owner(raw)


def rewrite_keeps_what_it_cannot_read():
    """A profile with a section this ccprof does not know (a newer
    runtime's, CCPROF_LIBRARY; docs/format.md: readers skip it) is not
    rewritten: the rewrite would drop the section."""
    exe = build("src_newer", "tests/progs/spivey.c")
    raw = preloaded(exe, ["3"], "src_newer.raw")
    data = open(raw, "rb").read()
    unknown = b"\x09\x05newer"  # tag 9: ALLOC (7) and HEAP (8) are known
    body = data[:-6] + unknown  # before END: 00 04 and the CRC
    newer = os.path.join(OUT, "src_newer.runtime.ccprof")
    with open(newer, "wb") as f:
        f.write(body + b"\x00\x04" + zlib.crc32(body).to_bytes(4, "little"))
    check(run([CCPROF, "info", newer]).returncode == 0,
          "newer runtime: ccprof reads a profile with an unknown section")
    out = os.path.join(OUT, "src_newer.ccprof")
    if os.path.exists(out):
        os.unlink(out)
    r = run([CCPROF, "record", "-o", out, "--", "cp", newer, out])
    check(r.returncode == 0 and unknown in open(out, "rb").read(),
          "newer runtime: record leaves a profile with an unknown section as it is")


def rewrite_over_size_limit():
    """record's rewrite past the file size limit (the runtime's file fits,
    the one with lines does not): one line says the lines were not added,
    the runtime's profile stays as it was, no temporary file is left, and
    the status is the program's.  record died by SIGXFSZ there, with its
    temporary file left and the program's status lost (helper-167)."""
    exe = build("src_fsize", "tests/progs/spivey.c")
    d = fresh_dir("src_fsize_run")
    raw = preloaded(exe, ["3"], "src_fsize.raw")
    size = os.path.getsize(raw)
    out = os.path.join(d, "fsize.ccprof")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
    # Copied by read and write: cp's copy_file_range asks for more than
    # the limit leaves, and cp died by SIGXFSZ.
    copy = "import sys; open(sys.argv[2], 'wb').write(open(sys.argv[1], 'rb').read())"
    r = subprocess.run([CCPROF, "record", "-o", out, "--", "python3", "-c", copy, raw, out],
                       capture_output=True, text=True, preexec_fn=limit)
    said = ccprof_said(r.stderr)
    check(r.returncode == 0 and len(said) == 2 and
          said[0] == "ccprof: %s: cannot add source lines: File too large" % out and
          "profile written to" in said[1],
          "record past the file size limit: status 0, and one line says the lines were not "
          "added (%d, %s)" % (r.returncode, said))
    check(os.path.exists(out) and open(out, "rb").read() == open(raw, "rb").read(),
          "record past the file size limit: the runtime's profile as it was")
    check([f for f in os.listdir(d) if f != "fsize.ccprof"] == [],
          "record past the file size limit: no temporary file left (%s)" % os.listdir(d))


def rewrite_keeps_owner(raw):
    """A program run by root that writes its profile as another user (a
    server that drops its privileges): record's rewrite leaves the file
    that user's.  Only as root, with runuser."""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        print("# SKIP not root (or no runuser): the owner of a rewritten profile")
        return
    d = os.path.join(OUT, "src_owner")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    os.chmod(d, 0o777)
    mine = os.path.join(d, "raw.ccprof")
    shutil.copy(raw, mine)
    os.chmod(mine, 0o644)
    if run(["runuser", "-u", "nobody", "--", "test", "-r", mine]).returncode != 0:
        print("# SKIP nobody cannot reach %s: the owner of a rewritten profile" % d)
        return
    out = os.path.join(d, "owned.ccprof")
    r = run([CCPROF, "record", "-o", out, "--", "runuser", "-u", "nobody", "--", "cp", mine, out])
    st = os.stat(out) if os.path.exists(out) else None
    check(r.returncode == 0 and st and st.st_uid != 0 and "profile written to" in r.stderr,
          "rewrite: a profile written as nobody under root's record keeps its owner (uid %s, %s)"
          % (st and st.st_uid, r.stderr.strip()[-200:]))


def record_reads_a_binary_once():
    """record gives the lines to every profile of the run, and reads each
    binary's debug information once for all of them (Note [Sources across
    profiles] in src/model/sources.c): tests/progs/forkmany.c forks 40
    children and leaves 41 profiles, each with its lines, and record opens
    the program file twice, for the parent's profile and for the first
    child's (child_work, which only the children call), where it opened it
    once a profile, 7.6 ms each for bash (helper-107).  Counted by
    tests/progs/opencount.c, preloaded into record."""
    shim = preload_shim("opencount")
    if shim is None:
        return
    exe = build("src_forkmany", "tests/progs/forkmany.c")
    d = fresh_dir("src_once")
    prof = os.path.join(d, "fm.ccprof")
    r = run([CCPROF, "record", "-o", prof, "--", exe, "40"],
            env=dict(os.environ, LD_PRELOAD=shim, OPENCOUNT=exe))
    opened = re.findall(r"^opened (\d+)$", r.stderr, re.M)
    profiles = [os.path.join(d, f) for f in os.listdir(d) if f.startswith("fm.ccprof")]
    check(r.returncode == 0 and len(profiles) == 41 and opened == ["2"],
          "record of 41 processes opens the program twice for their lines (%s, %d profiles)"
          % (opened, len(profiles)))
    kids = [f for f in profiles if f != prof]
    lines = [functions_of_name(report(f), "child_work").get("line") for f in kids[:5]]
    check(len(lines) == 5 and all(lines) and len(set(lines)) == 1,
          "the children's profiles have child_work's line all the same (%s)" % lines)


def record_keeps_sources_of_every_process():
    """The run's other profiles get the lines too: a forked child's
    OUTPUT.<pid> (or its own pid in place of %p) and the image before an
    exec's OUTPUT.pre-exec.N (docs/options.md), so that they also survive
    the binary; a profile of an earlier run beside them is left alone."""
    runs = (("forker", "forker.c", "src_forker.ccprof", r"^src_forker\.ccprof\.\d+$",
             "src_forker.ccprof.1"),
            ("forker, %p", "forker.c", "src_forker.%p.ccprof", r"^src_forker\.\d+\.ccprof$",
             "src_forker.1.ccprof"),
            ("reexec", "reexec.c", "src_reexec.ccprof", r"^src_reexec\.ccprof\.pre-exec\.\d$",
             "src_reexec.ccprof.pre-exec.9"))
    for what, prog, name, pattern, earlier_name in runs:
        exe = build("src_" + prog[:-2], "tests/progs/" + prog)
        d = os.path.join(OUT, "src_processes")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        earlier = os.path.join(d, earlier_name)
        shutil.copy(preloaded(exe, [], "src_processes_earlier"), earlier)
        old = open(earlier, "rb").read()
        r, _ = record(exe, profile=os.path.join(d, name))
        written = re.search(r"profile written to (\S+)", r.stderr)
        main_prof = written.group(1) if written else ""
        others = [os.path.join(d, f) for f in os.listdir(d) if re.match(pattern, f)]
        others = [f for f in others if f not in (earlier, main_prof)]
        if not check(r.returncode == 0 and main_prof and len(others) == 1,
                     "record, %s: one more profile beside %s (%s)"
                     % (what, name, sorted(os.listdir(d)))):
            continue
        os.unlink(exe)
        for f in (main_prof, others[0]):
            defined_where_said(report(f), {src(prog)}, "record, %s: %s has its lines with the "
                               "binary gone" % (what, os.path.basename(f)))
        check(open(earlier, "rb").read() == old,
              "record, %s: an earlier run's profile of that name is not rewritten" % what)


def main():
    version = run([CCPROF, "--version"]).stdout
    if "source lines: libdw " not in version:
        # Built without libdw (make LIBDW=no, or no libdw-dev): no sources,
        # and the reports say nothing of them.
        print("# SKIP ccprof built without libdw: only its absence is checked")
        exe = build("src_nolibdw", "tests/progs/spivey.c")
        _, prof = record(exe, ["3"])
        no_sources(report(prof), "built without libdw")
        info = run([CCPROF, "info", prof]).stdout
        check("built without libdw" in info, "info says this ccprof was built without libdw")
        finish()
    c_programs()
    namespaces()
    many_functions()
    split_dwarf()
    lto_units()
    repeated_skeletons()
    respelled_modules()
    shared_library()
    without_debug_info()
    stale_binary()
    separate_debug_file()
    debug_files_never_block()
    no_network()
    merged_profiles_keep_sources()
    record_keeps_sources()
    record_rewrite_alters_nothing_else()
    rewrite_keeps_what_it_cannot_read()
    rewrite_over_size_limit()
    record_keeps_sources_of_every_process()
    record_reads_a_binary_once()
    finish()


main()
