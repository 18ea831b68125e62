"""Helpers for the script tests: run ccprof, read its JSON, print TAP lines."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

TOP = os.environ["TOP"]
OUT = os.environ["OUT"]
BUILD = os.environ.get("BUILD", "build")
CCPROF = os.path.join(TOP, BUILD, "bin", "ccprof")
LIB = os.path.join(TOP, BUILD, "lib")
CC = os.environ.get("CC", "cc")

failures = 0


def check(cond, what):
    global failures
    # One line per check: a newline in what would start a line that
    # tests/run could count as a check of its own.
    print(("ok - " if cond else "not ok - ") + what.replace("\n", "\\n"))
    if not cond:
        failures += 1
    return cond


def near(a, b, eps, what):
    return check(abs(a - b) <= eps, "%s: %.6g ~ %.6g (+-%g)" % (what, a, b, eps))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def build(name, src, *flags, instrument=True, cc=None):
    out = os.path.join(OUT, name)
    cmd = [cc or CC, "-g", "-O1", "-I" + os.path.join(TOP, "include")]
    if instrument:
        cmd.append("-finstrument-functions")
    cmd += [os.path.join(TOP, src), "-o", out, "-pthread"] + list(flags)
    r = run(cmd)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise SystemExit("cannot build " + src)
    return out


def preload_shim(name):
    """OUT/libNAME.so built from tests/progs/NAME.c, a library a test
    preloads to watch a process's calls; None (a failed check) if it does
    not build."""
    so = os.path.join(OUT, "lib%s.so" % name)
    r = run([CC, "-O1", "-fPIC", "-shared", os.path.join(TOP, "tests/progs/%s.c" % name),
             "-o", so, "-ldl"])
    return so if check(r.returncode == 0, "%s.c builds (%s)" % (name, r.stderr[-200:])) else None


def fresh_dir(name):
    """OUT/name, empty."""
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def record(prog, args=(), clock=None, profile=None, env=None):
    """Run prog under `ccprof record`; return (CompletedProcess, profile path)."""
    profile = profile or os.path.join(OUT, os.path.basename(prog) + ".ccprof")
    cmd = [CCPROF, "record", "-o", profile]
    if clock:
        cmd.append("--clock=" + clock)
    cmd += ["--", prog] + list(args)
    e = dict(os.environ)
    e.update(env or {})
    return run(cmd, env=e), profile


def record_names(name, profile):
    """tests/progs/names.cpp (C++ templates and operators, regions with
    hostile names) built as OUT/name and recorded under the cycles clock:
    every stack gets its time whatever the load, and ticks are not
    nanoseconds, so every conversion is exercised.  Returns the profile."""
    exe = os.path.join(OUT, name)
    cxx = "clang++" if "clang" in os.path.basename(CC) else "g++"
    r = run([cxx, "-g", "-O1", "-finstrument-functions", "-I" + os.path.join(TOP, "include"),
             os.path.join(TOP, "tests/progs/names.cpp"), "-o", exe, "-pthread"])
    if r.returncode != 0:
        raise SystemExit("cannot build names.cpp: " + r.stderr)
    r, prof = record(exe, ["1000000"], clock="cycles", profile=profile)
    check(r.returncode == 0, "names.cpp runs under ccprof record --clock=cycles")
    return prof


def format_tool(name):
    """tests/NAME.c built against the format library (libccprof-tool.a),
    on first use: a test's own reader or writer of profiles."""
    exe = os.path.join(OUT, name)
    if not os.path.exists(exe):
        r = run([CC, "-std=c11", "-D_GNU_SOURCE", "-g", "-O1", "-I" + os.path.join(TOP, "src"),
                 os.path.join(TOP, "tests", name + ".c"), os.path.join(LIB, "libccprof-tool.a"),
                 "-lm", "-ldl", "-pthread", "-o", exe])
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            raise SystemExit("cannot build tests/%s.c" % name)
    return exe


def peak_rss(args, env=None):
    """Run args: (exit status, standard output, its peak resident set in
    KB), by tests/peakrss.c (why not by the test's own wait4: there).
    Under AddressSanitizer (make asan), freed memory waits in a quarantine
    of 256 MB before its reuse: 16 MB here, to measure what is alive."""
    asan = ":".join(o for o in (os.environ.get("ASAN_OPTIONS"), "quarantine_size_mb=16") if o)
    r = run([format_tool("peakrss")] + list(args), env=dict(env or os.environ, ASAN_OPTIONS=asan))
    m = re.search(r"^peakrss: (\d+)$", r.stderr, re.M)
    return r.returncode, r.stdout, int(m.group(1)) if m else -1


def counts(stdout):
    """'calls NAME N' lines the test programs print."""
    out = {}
    for line in stdout.splitlines():
        w = line.split()
        if len(w) == 3 and w[0] == "calls":
            out[w[1]] = int(w[2])
    return out


def make_profile(name, spec):
    """A profile written by tests/mkprof.c from spec (its format is at the
    top of that file)."""
    gen = format_tool("mkprof")
    out = os.path.join(OUT, name + ".ccprof")
    r = run([gen, out], input=spec)
    if r.returncode != 0:
        raise SystemExit("mkprof %s: %s" % (name, r.stderr))
    return out


def report(profile, *opts):
    r = run([CCPROF, "report", "--json"] + list(opts) + [profile])
    if r.returncode != 0:
        raise SystemExit("report failed: " + r.stderr)
    return json.loads(r.stdout)


def info_json(profile):
    """`ccprof info --json` of profile as a dict; {} if it printed nothing."""
    return json.loads(run([CCPROF, "info", "--json", profile]).stdout or "{}")


def history_str(ctx):
    """A context as docs/semantics.md writes it: marked entries in brackets."""
    return " ".join("[%s]" % e["name"] if e["marked"] else e["name"] for e in ctx["history"])


def functions(rep):
    return {f["name"]: f for f in rep["functions"]}


def with_libdw():
    """Whether the tool reads DWARF (built with libdw): checks on source
    files and lines need it."""
    return "source lines: libdw " in run([CCPROF, "--version"]).stdout


def nonzero_calls(profile):
    """{function: calls} of a profile, the functions never called left out."""
    return {f["name"]: f["calls"] for f in report(profile)["functions"] if f["calls"]}


def ccprof_said(stderr):
    """ccprof's own lines of a run's stderr (record's, the runtime's)."""
    return [l for l in stderr.splitlines() if l.startswith("ccprof:")]


def arcs(rep):
    return {(a["caller"], a["callee"]): a for a in rep["arcs"]}


def callgrind_call_lines(path):
    """A callgrind output file's call lines, in order: [caller, callee,
    calls, costs], with the recursion levels callgrind names f'2, f'3...
    folded into f; costs are the numbers of the cost line after the call
    ([] if none), its position left out."""
    names, fn, cfn = {}, None, None
    out, last = [], None
    for line in open(path):
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                names[m.group(2)] = re.sub(r"'\d+$", "", m.group(3).strip())
            if m.group(1) == "fn":
                fn = names[m.group(2)]
            else:
                cfn = names[m.group(2)]
            continue
        m = re.match(r"calls=(\d+)", line)
        if m and fn and cfn:
            last = [fn, cfn, int(m.group(1)), []]
            out.append(last)
        elif last and re.match(r"[\d+*-]", line):
            last[3] = [int(v) for v in line.split()[1:] if v.isdigit()]
            last = None
    return out


def callgrind_calls(path):
    """A callgrind output file's caller -> callee call counts."""
    calls = collections.Counter()
    for fn, cfn, n, _ in callgrind_call_lines(path):
        calls[(fn, cfn)] += n
    return calls


# A heap profile of two threads whose contexts share histories: the
# second thread's records name its own contexts (not the merged ones' order),
# live bytes outside any context, and two samples of the largest total
# (the earlier is the largest) (html_model.py, html_ui.py).
HEAP_TWO = """program ./mh
clock cpu 1000000000
alloc 10 1
heap 1000000 9000 5 1
thread 1 main
ctx 0 0 1000 0 0 0 0 :
ctx 1 0 2000 100 2 40 1 : [main]
ctx 2 0 3000 500 5 300 3 : [main] [a]
ctx 1 0 1000 64 1 64 1 : [main] [a] [b]
thread 2 w
ctx 0 0 500 0 0 :
ctx 1 0 700 200 2 200 2 : [w]
ctx 3 0 900 800 4 100 1 : [w] [b]
ctx 1 0 900 900 3 50 1 : [w] [b] [a]
sample 1000 7
rec 0 2 100
rec 1 2 700
sample 2000 0
rec 0 1 7
rec 1 1 200
rec 1 3 500
sample 3000 7
rec 1 3 800
"""


# Hooks that outweigh their functions' work (report --hook-cost, at 20 ns a
# call, by cycles): helpers marked and named (get_x, put_y; a clone of
# get_x named once), by file (tiny.h, one with a space), a name that is
# part of a worker's (fetch in prefetch_all) and a C++ name (neither list
# names them), a file with a comma (named instead), one shared with a
# worker (named instead), and two functions either side of the line,
# twice the estimate per call: edge_at at 40 ns (not marked), edge_below
# at 39.999 ns (marked) (html_model.py, html_ui.py).
HOOKS = """program ./hooks
clock cycles 1000000000
hooks 20000 5000000
thread 1 main
ctx 1 0 1000000 : [main]
ctx 100000 0 100000 : [main] [get_x]
ctx 50000 0 50000 : [main] [get_x.part.0]
ctx 100000 0 200000 : [main] [put_y]
ctx 80000 0 80000 : [main] [fetch]
ctx 10 0 60000000 : [main] [prefetch_all]
ctx 90000 0 90000 : [main] [prefetch_all] [_ZN1S3addEv]
ctx 70000 0 70000 : [main] [tiny1]
ctx 60000 0 60000 : [main] [tiny2]
ctx 40000 0 40000 : [main] [spaced]
ctx 30000 0 30000 : [main] [comma]
ctx 20000 0 20000 : [main] [near_work]
ctx 5 0 30000000 : [main] [work]
ctx 10000 0 400000 : [main] [edge_at]
ctx 10000 0 399990 : [main] [edge_below]
source tiny1 /src/tiny.h 3
source tiny2 /src/tiny.h 9
source spaced /src/my\\x20dir/s.h 1
source comma /src/a,b.h 2
source near_work /src/work.c 10
source work /src/work.c 20
"""


# Morgan & Jarvis's selection example (docs/views.md, "Selection") as a
# tests/mkprof.c spec, with bytes allocated on every context, and a second
# thread for it
# (alloc_views.py, html_model.py).
MJ_BYTES = """program ./mj 400
clock cpu 1000
thread 42 mj
ctx 0 0 5 7 1 :
ctx 1 0 0 0 0 : [main]
ctx 1 0 40 20 2 : [main] [a]
ctx 1 0 40 10 1 : [main] [a] [b]
ctx 1 0 1 10 1 : [main] [a] [c]
ctx 1 0 1 50 5 : [main] [a] [b] [c]
"""
MJ_BYTES_WORKER = """thread 43 worker
ctx 1 0 3 4 1 : [a] [b] [c]
ctx 1 0 0 1000 10 : [t]
"""


def finish():
    """The suite's end: tests/run counts a suite without this line as
    failed, since whatever ended it early skipped the checks after."""
    print("# completed")
    sys.stdout.flush()
    sys.exit(1 if failures else 0)


def program_counts(stdout, rep, what=""):
    """The profile's calls and arcs against the program's own "calls F N"
    and "arc A B N" lines, and no arcs beyond those."""
    fs, a = functions(rep), arcs(rep)
    for line in stdout.splitlines():
        w = line.split()
        if w[0] == "calls":
            got = fs.get(w[1], {}).get("calls", 0)
            check(got == int(w[2]), "%scalls(%s) = %s (program's count), got %d" % (what, w[1], w[2], got))
        elif w[0] == "arc":
            got = a.get((w[1], w[2]), {}).get("calls", 0)
            check(got == int(w[3]), "%sarc %s->%s = %s, got %d" % (what, w[1], w[2], w[3], got))
    nprog = sum(1 for l in stdout.splitlines() if l.startswith("arc "))
    check(len(a) == nprog, "%sno arcs beyond the program's own (%d vs %d)" % (what, len(a), nprog))


def dispatcher_checks(record_in, tag, out):
    """tests/progs/dispatcher.c, run by record_in(args, clock, profile) ->
    (CompletedProcess, profile): the inline cache and the thread cache
    (Note [Slots without judgement] in src/runtime/machine.c).  A context
    calling 16 functions at random, one calling 3 in long bursts, one
    that does the first and then the second: every count stays exact,
    under both clocks, and no context is reported dispatching past its
    slots (STATS key 10: since session 51 the runtime bypasses none;
    before, the first was)."""
    for mode in ("both", "scatter", "bursts", "recover"):
        for clock in ("cpu", "cycles") if mode == "both" else ("cpu",):
            r, prof = record_in(["20", mode], clock,
                                os.path.join(out, "%s-%s@%s.ccprof" % (tag, mode, clock)))
            what = "%s %s (%s): " % (tag, mode, clock)
            if not check(r.returncode == 0, what + "runs (status %d)" % r.returncode):
                continue
            program_counts(r.stdout, report(prof), what)
            info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
            check(info["dispatchers"] == 0, what + "no context reported dispatching past the "
                  "inline cache (got %d)" % info["dispatchers"])
    # Under a storm of timer signals whose handler calls one of the 16 from
    # the context it interrupted: no call is counted twice or charged to
    # another function, and each one missing is a lost call (a handler
    # inside the slow path, Note [Re-entry]).
    r, prof = record_in(["200", "storm"], "cpu", os.path.join(out, tag + "-storm.ccprof"))
    what = tag + " storm: "
    if check(r.returncode == 0, what + "runs (status %d)" % r.returncode):
        lines = [l.split() for l in r.stdout.splitlines()]
        want = {w[1]: int(w[2]) for w in lines if w[0] == "calls"}
        byh = {w[1]: int(w[2]) for w in lines if w[0] == "handler"}
        handled = int(r.stdout.split("handled")[1].split()[0])
        fs = functions(report(prof))
        info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
        got = {f: fs.get(f, {}).get("calls", 0) for f in want}
        check(len(want) == 16 and set(byh) == set(want) and handled > 100
              and sum(byh.values()) == handled,
              what + "%d signals, the program's counts of 16 functions and of their "
              "calls from the handler (%d) printed" % (handled, sum(byh.values())))
        # Only a call made from the handler can be lost: every ordinary
        # call (the program's count less the handler's) is in the profile.
        bad = sorted("%s %d not in [%d, %d]" % (f, got[f], want[f] - byh.get(f, 0), want[f])
                     for f in want if not want[f] - byh.get(f, 0) <= got[f] <= want[f])
        check(not bad, what + "each function has all its ordinary calls, and at most "
              "its calls from the handler more (%s)" % bad[:4])
        missing = sum(want.values()) - sum(got.values())
        check(missing == info["lost_calls"] and info["lost_calls"] <= handled,
              what + "the %d calls missing are the %d lost, at most the handler's %d"
              % (missing, info["lost_calls"], handled))
