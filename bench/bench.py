#!/usr/bin/env python3
"""bench.py - ccprof's side-by-side overhead benchmark (run by bench/run).

See bench/README.md for what it measures and the environment variables
that control it, and docs/performance.md for the method and a real run.
Everything it builds or writes goes under bench/.work/.
"""
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import stats
from copies import Copies  # Note [Where a file's pages lie]

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
WORK = os.path.join(BENCH, ".work")
BIN = os.path.join(WORK, "bin")
RUNS = os.path.join(WORK, "runs")
RESULTS = os.path.join(WORK, "results")
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
CCPROF = os.path.join(BUILD, "bin", "ccprof")
LIBSO = os.path.join(BUILD, "lib", "libccprof.so")
LIBA = os.path.join(BUILD, "lib", "libccprof.a")
TOOLA = os.path.join(BUILD, "lib", "libccprof-tool.a")
TIME = "/usr/bin/time"


def env_flag(name, default="0"):
    return os.environ.get(name, default) not in ("", "0", "no")


QUICK = env_flag("BENCH_QUICK")
# 7 rounds: from 6 on, the fastest and slowest round bound a 95 %
# interval of a median (stats.median_ci_ranks: 96.9 % of 6, 98.4 % of 7;
# 5 give none), and an odd count makes the median one round's value.
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2" if QUICK else "7"))
# Each run's program and preloaded library are fresh copies, kept to the
# end of the workload (Note [Where a file's pages lie] in copies.py); BENCH_FRESH=0
# runs the files themselves, as before session 51.
FRESH = env_flag("BENCH_FRESH", "1")
ONLY = [s for s in os.environ.get("BENCH_ONLY", "").replace(",", " ").split() if s]
CC = os.environ.get("BENCH_CC", "gcc")
CXX = os.environ.get("BENCH_CXX", "g++")
CLANG = os.environ.get("BENCH_CLANG", "clang")
CLANGXX = os.environ.get("BENCH_CLANGXX", "clang++")
OPT = "-O2"

# name, source, language, full units, quick units.  Full sizes take 0.3 to
# 0.5 s bare on the reference machine (docs/performance.md), except tiny
# (0.04 s: gcc's instrumentation makes it 25-60 times slower, and the whole
# benchmark has to fit in about 25 minutes).  uftrace and
# callgrind run the same program with units // SMALL (marked "÷N").
WORKLOADS = [
    ("recurse", "recurse.c", "c", 3000, 300),
    ("dispatch", "dispatch.c", "c", 250, 25),
    ("vm", "vm.c", "c", 250, 30),
    ("tiny", "tiny.cpp", "c++", 150, 20),
    ("threads", "threads.c", "c", 1200, 120),
]
SMALL = 32
# Code layouts for the static variants (dummy-static, ccprof-static): each
# is linked behind a padding object of each size in bytes, and round i runs
# layout i mod len(PADS).  Linked statically, the runtime's sections move
# the program's code, and a static program's speed is a draw over its
# layout (docs/performance.md, session 49): one layout said "static is
# faster" or "slower" by the luck of that draw.  BENCH_LAYOUTS=0: one.
PADS = [int(x) for x in os.environ.get("BENCH_LAYOUTS", "0,16,32,64,512,1040,2048")
        .replace(",", " ").split()] or [0]
# The Goals judge R only where the empty hooks cost at least this much.
R_FLOOR = 0.10
SECTIONS = [w[0] for w in WORKLOADS] + ["objdump", "sqlite", "report"]

# The two families of variants each workload is built and run as.  Names
# are the rows' names; *bin keys name builds (workload_bins, real_bins).
# Ratios are to the family's own bare build, R to its own empty hooks.
FAMILIES = [
    {"key": "gcc", "label": "gcc",
     "title": "gcc -O2 -finstrument-functions (hooks every function, inlined copies too)",
     "bare": "bare", "dummy": "dummy", "cpu": "cpu", "cycles": "cycles", "pg": "gprof",
     "uftrace": "uftrace", "callgrind": "callgrind", "small": "bare-small", "empty": "bare-0",
     "barebin": "bare", "instrbin": "instr", "pgbin": "pg",
     "thread": "empty+thread", "floor": "floor push"},
    {"key": "clang", "label": "clang-ai",
     "title": "clang -O2 -finstrument-functions-after-inlining (hooks only the calls left "
              "after inlining)",
     "bare": "clang-bare", "dummy": "clang-ai dummy", "cpu": "clang-ai cpu",
     "cycles": "clang-ai cycles", "pg": "clang-pg", "uftrace": "clang-ai uftrace",
     "callgrind": "clang callgrind", "small": "clang-bare-small", "empty": "clang-bare-0",
     "barebin": "clang-bare", "instrbin": "clang-ai", "pgbin": "clang-pg",
     "thread": "clang-ai empty+thread", "floor": "clang-ai floor push"},
]
FAMILY = {f["key"]: f for f in FAMILIES}
# Set by clang_check(): why the clang family is skipped (None: it is not),
# and whether clang -pg works (writes gmon.out).
CLANG_SKIP = None
CLANG_PG = False


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    log("bench: " + msg)
    sys.exit(1)


def selected(name):
    return not ONLY or name in ONLY


# ---- building -------------------------------------------------------------


def newer(out, inputs):
    """True if out is missing or older than any input."""
    if not os.path.exists(out):
        return True
    t = os.path.getmtime(out)
    return any(os.path.getmtime(i) > t for i in inputs if os.path.exists(i))


def sh(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        die("command failed: %s\n%s" % (" ".join(cmd), r.stdout))
    return r.stdout


def compile_prog(out, srcs, compiler, flags, libs=(), deps=(), run=sh):
    """Build out from srcs unless it is up to date; returns out.  run:
    what runs the command (sh dies when it fails)."""
    if newer(out, list(srcs) + list(libs) + list(deps)):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [compiler] + flags + list(srcs) + list(libs) + ["-pthread", "-lm", "-o", out + ".tmp"]
        run(cmd)
        os.replace(out + ".tmp", out)
    return out


# The floors beside ccprof (preloaded like it, R against the same empty
# hooks): the empty hooks with a POSIX thread asleep beside them, what
# ccprof's sampler cost by existing until it became a thread glibc does
# not count (bench/helper_thread.c; helper=pthread still), and hooks that push
# and pop a shadow stack and do nothing else (bench/floor_hooks.c).  Set
# by build_support: {"thread": floor_thread.so, "floor": floor_push.so}.
FLOORS = {}


def pad_object(size):
    """An object whose .text is size bytes of int3, linked before a
    static variant's own objects to move all of its code by size bytes
    (multiples of 16 move it exactly: -O2 aligns functions to 16)."""
    obj = os.path.join(BIN, "pad-%d.o" % size)
    if not os.path.exists(obj):
        src = obj[:-2] + ".s"
        with open(src, "w") as f:
            f.write("\t.text\n\t.globl ccprof_bench_pad_%d\nccprof_bench_pad_%d:\n"
                    "\t.skip %d, 0xcc\n\t.section .note.GNU-stack,\"\",@progbits\n"
                    % (size, size, size))
        sh([CC, "-c", src, "-o", obj + ".tmp"])
        os.replace(obj + ".tmp", obj)
    return obj


def layout_name(v, pad):
    """The build name of static variant v behind a pad of pad bytes."""
    return v if pad == PADS[0] else "%s@%d" % (v, pad)


def build_support():
    """dummy_hooks.{so,o}, the floors' libraries (FLOORS) and the
    workloads' binaries."""
    dsrc = os.path.join(BENCH, "dummy_hooks.c")
    so = os.path.join(BIN, "dummy_hooks.so")
    obj = os.path.join(BIN, "dummy_hooks.o")
    os.makedirs(BIN, exist_ok=True)
    if newer(so, [dsrc]):
        sh([CC, OPT, "-fPIC", "-shared", "-fno-instrument-functions", dsrc, "-o", so])
    if newer(obj, [dsrc]):
        sh([CC, OPT, "-fno-instrument-functions", "-c", dsrc, "-o", obj])
    for key, name, srcs, flags in (
            ("thread", "floor_thread.so", [dsrc, os.path.join(BENCH, "helper_thread.c")], []),
            ("floor", "floor_push.so", [os.path.join(BENCH, "floor_hooks.c")], ["-DFLOOR_PUSH"])):
        lib = os.path.join(BIN, name)
        if newer(lib, srcs):
            sh([CC, OPT, "-fPIC", "-shared", "-fno-instrument-functions"] + flags + srcs +
               ["-pthread", "-o", lib])
        FLOORS[key] = lib
    return so, obj


# gcc's hooks for the calls left after inlining (src/runtime/fentry.c):
# compiled with these, linked without -pg (that would start gprof's
# collector) and with the runtime or bench/fentry_empty.S.
FENTRY = ["-pg", "-mfentry", "-minstrument-return=call"]


def compile_fentry(out, src, compiler, libs):
    """src compiled with FENTRY, linked with libs; None where gcc cannot
    (not x86-64)."""
    if platform.machine() != "x86_64":
        return None
    if newer(out, [src] + list(libs)):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        sh([compiler, OPT] + FENTRY + ["-c", src, "-o", out + ".o"])
        sh([compiler, OPT, out + ".o"] + list(libs) + ["-pthread", "-lm", "-o", out + ".tmp"])
        os.replace(out + ".tmp", out)
    return out


def workload_bins(name, src, lang, dummy_obj):
    """The builds of one workload: gcc bare, instr, dummy-static,
    ccprof-static, pg (and excl for C++); clang-bare, clang-ai, clang-pg."""
    path = os.path.join(BENCH, "workloads", src)
    cc, clang = (CXX, CLANGXX) if lang == "c++" else (CC, CLANG)
    b = {}
    o = lambda v: os.path.join(BIN, "%s.%s" % (name, v))
    b["bare"] = compile_prog(o("bare"), [path], cc, [OPT])
    b["instr"] = compile_prog(o("instr"), [path], cc, [OPT, "-finstrument-functions"])
    instr_obj = o("instr") + ".o"
    if newer(instr_obj, [path]):
        sh([cc, OPT, "-finstrument-functions", "-c", path, "-o", instr_obj + ".tmp"])
        os.replace(instr_obj + ".tmp", instr_obj)
    for v, lib in (("dummy-static", dummy_obj), ("ccprof-static", LIBA)):
        exes = [compile_prog(o(layout_name(v, pad)), [pad_object(pad), instr_obj], cc, [OPT],
                             [lib]) for pad in PADS]
        b[v], b[v + "@layouts"] = exes[0], exes
    b["pg"] = compile_prog(o("pg"), [path], cc, [OPT, "-pg"])
    for v, lib in (("fentry-empty", os.path.join(BENCH, "fentry_empty.S")), ("fentry-cpu", LIBA)):
        exe = compile_fentry(o(v), path, cc, [lib])
        if exe:
            b[v] = exe
    if lang == "c++":
        # gcc's way to leave the standard library's inline functions alone.
        b["excl"] = compile_prog(o("excl"), [path], cc,
                                 [OPT, "-finstrument-functions",
                                  "-finstrument-functions-exclude-file-list=/usr/include/c++"])
    if CLANG_SKIP is None:
        b["clang-bare"] = compile_prog(o("clang-bare"), [path], clang, [OPT])
        b["clang-ai"] = compile_prog(o("clang-ai"), [path], clang,
                                     [OPT, "-finstrument-functions-after-inlining"])
        if CLANG_PG:
            b["clang-pg"] = compile_prog(o("clang-pg"), [path], clang, [OPT, "-pg"])
    return b


def clang_check():
    """Can clang and clang++ build -finstrument-functions-after-inlining
    programs, and does clang -pg write gmon.out (glibc's gcrt1.o and
    mcount)?  Sets CLANG_SKIP and CLANG_PG."""
    global CLANG_SKIP, CLANG_PG
    for c in (CLANG, CLANGXX):
        if shutil.which(c) is None:
            CLANG_SKIP = "%s not found (apt-get install clang; or set BENCH_CLANG/BENCH_CLANGXX)" % c
            return
    with tempfile.TemporaryDirectory(dir=WORK, prefix="clang.") as d:
        prog = ("__attribute__((noinline)) static int f(int x) { return x * 3 + 1; }\n"
                "int main(int argc, char **argv) { (void)argv; int s = 0;\n"
                "  for (int i = 0; i < 1000; i++) s += f(i ^ argc); return s == 42; }\n")
        for c, ext in ((CLANG, "c"), (CLANGXX, "cpp")):
            srcf = os.path.join(d, "t." + ext)
            with open(srcf, "w") as f:
                f.write(prog)
            r = subprocess.run([c, OPT, "-finstrument-functions-after-inlining", srcf, "-o",
                                os.path.join(d, "ai-" + ext)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                CLANG_SKIP = "%s -finstrument-functions-after-inlining fails: %s" % (
                    c, (r.stdout.strip().splitlines() or ["?"])[-1])
                return
        exe = os.path.join(d, "pg")
        r = subprocess.run([CLANG, OPT, "-pg", os.path.join(d, "t.c"), "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode == 0:
            subprocess.run([exe], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        CLANG_PG = r.returncode == 0 and (path_size(os.path.join(d, "gmon.out")) or 0) > 0


# ---- running --------------------------------------------------------------


class Variant:
    """One way of running a workload.

    argv: the command; env: variables set for the program only (through
    env(1), so that /usr/bin/time itself never loads a preloaded runtime);
    small: runs the scaled-down (or, for names ending in -0, empty) input;
    files: what to measure the size of after the run (file or directory);
    dummy: the variant whose overhead is R's denominator; base: the variant
    each round's time is divided by; family: "gcc" or "clang"; calls_of:
    the ccprof variant whose call count ns/call divides by; layouts: the
    program linked in each of PADS's layouts, argv[0] in turn from round
    to round.
    """

    def __init__(self, name, argv, env=None, small=False, files=(), dummy=None, base=None,
                 family="gcc", calls_of=None, layouts=None):
        self.name = name
        self.argv = argv
        self.layouts = layouts
        self.env = env or {}
        self.small = small
        self.files = list(files)
        self.dummy = dummy
        self.family = family
        self.base = base or FAMILY[family]["small" if small else "bare"]
        self.calls_of = calls_of
        self.times, self.rss, self.cpu, self.sizes = [], [], [], []
        self.stderr = ""
        self.charged = []  # clock=cycles: the time the profile charged, per round


def path_size(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(d, f))
                   for d, _, fs in os.walk(p) for f in fs)
    return os.path.getsize(p) if os.path.exists(p) else None


def clean(p):
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.remove(p)


def round_argv(v):
    """The command of v's next round: with layouts, the next layout's
    program in turn."""
    if not v.layouts:
        return v.argv
    return [v.layouts[len(v.times) % len(v.layouts)]] + v.argv[1:]


def workload_copies(title):
    """Where one workload's runs take their fresh copies (Note [Where a
    file's pages lie] in bench/copies.py), or the files themselves with
    BENCH_FRESH=0."""
    return Copies(tempfile.mkdtemp(dir=WORK, prefix="copies.%s." % title.replace("/", "_")),
                  FRESH)


def fresh_command(v, copies):
    """v's command and environment for its next round, its program and
    LD_PRELOAD copied (Copies; None: not copied)."""
    argv = round_argv(v)
    env = dict(v.env)
    if copies is None:
        return argv, env
    if "LD_PRELOAD" in env:
        env["LD_PRELOAD"] = copies.of(env["LD_PRELOAD"])
    return [copies.of(argv[0])] + argv[1:], env


def run_once(v, cwd, copies=None):
    for f in v.files:
        clean(f)
    argv, env = fresh_command(v, copies)
    with tempfile.NamedTemporaryFile("r", dir=WORK, prefix="time.", delete=True) as tf:
        cmd = [TIME, "-f", "%M %U %S", "-o", tf.name, "env"]
        cmd += ["%s=%s" % kv for kv in env.items()] + argv
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace")
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            die("%s failed (status %d): %s\n%s" % (v.name, r.returncode, " ".join(cmd),
                                                 r.stderr[-2000:]))
        fields = tf.read().split()
    rss_kb, user, sys_ = int(fields[-3]), float(fields[-2]), float(fields[-1])
    v.times.append(wall)
    v.rss.append(rss_kb)
    v.cpu.append(user + sys_)
    v.sizes.append([path_size(f) for f in v.files])
    v.stderr = r.stderr
    if "clock=cycles" in v.env.get("CCPROF_OPTIONS", "") and v.files:
        # Compared with the same round's bare run: a busy phase of the
        # machine (the counter is elapsed time) then affects both.
        rep, _ = ccprof_json(["report", "--json", v.files[0]])
        v.charged.append(rep.get("total_time_s") if rep else None)


def charged_ratio(cyc, bare, multi):
    """Median over rounds of clock=cycles' charged total / the same round's
    bare run (CPU time when several threads ran, else wall time)."""
    ref = bare.cpu if multi else bare.times
    rs = [c / b for c, b in zip(cyc.charged, ref) if c is not None and b > 0]
    return med(rs) if rs else None


def run_rounds(title, variants, cwd):
    log("bench: %s: %d variants x %d rounds" % (title, len(variants), ROUNDS))
    copies = workload_copies(title)
    try:
        rounds_of(variants, cwd, copies)
    finally:
        copies.close()


def rounds_of(variants, cwd, copies):
    for r in range(ROUNDS):
        for v in variants:
            run_once(v, cwd, copies)
        log("  round %d/%d: %s" % (r + 1, ROUNDS, "  ".join(
            "%s %.2f" % (v.name, v.times[-1]) for v in variants)))


def program_calls(stderr):
    for line in stderr.splitlines():
        if line.startswith("calls "):
            return int(line.split()[1])
    return None


def ccprof_json(args):
    r = subprocess.run([CCPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip() or "exit status %d" % r.returncode
    try:
        return json.loads(r.stdout), None
    except ValueError as e:
        return None, "bad JSON (%s)" % e


# ---- statistics -----------------------------------------------------------


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def analyse(variants):
    """Per variant: median, min, max, median per-round ratio to its base,
    R against its dummy.  Returns dict name -> stats."""
    by = {v.name: v for v in variants}
    st = {}
    for v in variants:
        s = {"median": med(v.times), "min": min(v.times), "max": max(v.times),
             "rss_kb": med(v.rss), "cpu": med(v.cpu), "small": v.small, "family": v.family,
             "sizes": v.sizes[-1] if v.sizes else []}
        base = by.get(v.base)
        if base is not None and base is not v:
            rs = [t / b for t, b in zip(v.times, base.times)]
            s["ratio"] = med(rs)
            if v.layouts:  # the spread over layouts (and rounds)
                s["layouts"] = min(len(v.layouts), len(rs))
                s["ratio_min"], s["ratio_max"] = min(rs), max(rs)
        elif v.name == v.base:
            s["ratio"] = 1.0
        st[v.name] = s
    return st


# ---- formatting -----------------------------------------------------------


def fmt_s(x):
    return "%.3f" % x if x < 10 else "%.2f" % x if x < 100 else "%.1f" % x


def fmt_bytes(n):
    if n is None:
        return "-"
    for unit, k in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= k:
            return "%.1f %s" % (n / k, unit)
    return "%d B" % n


def table(header, rows):
    w = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(r)) + " |"
    out = [line(header), "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    return "\n".join(out + [line(r) for r in rows])


VARIANT_DOC = {
    "bare": "gcc -O2, no instrumentation",
    "dummy": "gcc -O2 -finstrument-functions, empty hooks preloaded (.so)",
    "dummy-static": "the same build, empty hooks linked in (rounds rotate over the code "
                    "layouts of BENCH_LAYOUTS, as cpu-static's do)",
    "empty+thread": "the empty hooks preloaded with a POSIX thread asleep beside them "
                    "(bench/helper_thread.c: what ccprof's sampler cost by existing "
                    "before session 45, as with helper=pthread; both families)",
    "floor push": "hooks that push and pop a shadow stack and do nothing else, preloaded "
                  "(bench/floor_hooks.c; both families)",
    "cpu": "ccprof clock=cpu, LD_PRELOAD=libccprof.so",
    "cycles": "ccprof clock=cycles, LD_PRELOAD=libccprof.so",
    "cpu-static": "ccprof clock=cpu, libccprof.a linked in",
    "gcc-excl dummy/cpu": "(tiny) -finstrument-functions-exclude-file-list=/usr/include/c++, "
                          "empty hooks / ccprof clock=cpu preloaded",
    "fentry empty/cpu": "gcc -O2 -pg -mfentry -minstrument-return=call (compiled so, linked "
                        "without -pg: hooks only the calls left after inlining), "
                        "bench/fentry_empty.S / ccprof clock=cpu (libccprof.a) linked in",
    "gprof": "gcc -O2 -pg, gmon.out written at exit",
    "bare-small": "no instrumentation, input ÷%d" % SMALL,
    "uftrace": "uftrace record (-finstrument-functions build), input ÷%d" % SMALL,
    "callgrind": "valgrind --tool=callgrind (bare build), input ÷%d" % SMALL,
    "clang-bare": "clang -O2",
    "clang-ai dummy/cpu/cycles": "clang -O2 -finstrument-functions-after-inlining, empty hooks / "
                                 "ccprof clock=cpu / clock=cycles preloaded",
    "clang-pg": "clang -O2 -pg, gmon.out",
    "clang-ai uftrace": "uftrace record on the clang-ai build, input ÷%d" % SMALL,
    "clang callgrind": "callgrind on the clang-bare build, input ÷%d" % SMALL,
}


def finalize(st, vs, calls, calls_small):
    """Per-call costs, R, and the full-size estimates of the small-input tools.

    calls: ccprof variant name -> its call count; calls_small: family -> the
    count of the family's instrumented build on the small input.  A tool
    run on the small input (uftrace, callgrind) is corrected for its fixed
    cost (start-up, reading symbols, writing at exit), measured by running
    it on an empty input ("-0" variants) in every round:
        per call  o = ((tool small - tool empty) - (bare small - bare empty)) / calls small
        estimate    = bare full + o * calls full + (tool empty - bare empty)
    and its ratio is estimate / bare full (all of the same family)."""
    for v in vs:
        s = st[v.name]
        if v.name.endswith("-0") or v.name == v.base:
            continue
        F = FAMILY[v.family]
        tb = st[F["bare"]]["median"]
        n = calls.get(v.calls_of)
        if n:
            s["calls"] = n
        if v.small:
            z, b0, bs = st.get(v.name + "-0"), st.get(F["empty"]), st.get(F["small"])
            nsm = calls_small.get(v.family)
            if not (z and b0 and bs and n and nsm):
                continue
            marg = (s["median"] - z["median"]) - (bs["median"] - b0["median"])
            o = marg / nsm
            s["estimate"] = tb + o * n + (z["median"] - b0["median"])
            s["ratio"] = s["estimate"] / tb
            s["ns"] = o * 1e9
            s["fixed"] = z["median"] - b0["median"]
            s["scale"] = n / nsm
        elif "ratio" in s and n:
            s["ns"] = (s["ratio"] - 1) * tb / n * 1e9
    by = {v.name: v for v in vs}
    for v in vs:
        s, d = st[v.name], st.get(v.dummy or "")
        if d and "ratio" in s and d.get("ratio", 1) > 1 and not v.small:
            # Round by round, with its interval (stats.overhead_ratio):
            # sessions 31 and 32 got 2.35 and 1.68 for gcc's SQLite from
            # the medians of the two ratios.
            r = stats.overhead_ratio(by[v.base].times, by[v.dummy].times, v.times)
            s["R"], s["R_ci"] = r["median"], r["ci"]
        if d and "ns" in s and "ns" in d:
            s["ns_dummy"] = s["ns"] - d["ns"]


def workload_table(st, order):
    hdr = ["variant", "median s", "min–max s", "CPU s", "× bare", "R", "calls", "ns/call",
           "ns/call − dummy", "peak RSS", "output"]
    rows = []
    for name in order:
        s = st[name]
        if name.endswith("-0"):
            continue
        if "estimate" in s:
            tm = "%s*" % fmt_s(s["estimate"])
            mm = "(%s–%s ÷%d)" % (fmt_s(s["min"]), fmt_s(s["max"]), SMALL)
        else:
            tm = fmt_s(s["median"])
            mm = "%s–%s" % (fmt_s(s["min"]), fmt_s(s["max"]))
        ratio = s.get("ratio")
        rr = "%.2f" % ratio if ratio is not None else "-"
        R = fmt_R(s)
        ns = "%.1f" % s["ns"] if "ns" in s else "-"
        nsd = "%.1f" % s["ns_dummy"] if "ns_dummy" in s else "-"
        size = s["sizes"][0] if s["sizes"] else None
        out = fmt_bytes(size) if size is not None else "-"
        if s["small"] and size is not None and "scale" in s:
            out += " (≈%s full)" % fmt_bytes(size * s["scale"])
        rows.append([name, tm, mm, fmt_s(s["cpu"]), rr, R, fmt_calls(s.get("calls")), ns, nsd,
                     "%.1f MB" % (s["rss_kb"] / 1024), out])
    return table(hdr, rows)


def fmt_x(x):
    return "∞" if x == float("inf") else "%.2f" % x


def fmt_R(s):
    """R with its 95 % interval over the rounds, or "-"."""
    if "R" not in s:
        return "-"
    ci = s.get("R_ci")
    return fmt_x(s["R"]) + (" (%s–%s)" % (fmt_x(ci[0]), fmt_x(ci[1])) if ci else "")


def fmt_calls(n):
    if not n:
        return "-"
    return "%.0f M" % (n / 1e6) if n >= 1e7 else "%.1f M" % (n / 1e6) if n >= 1e5 else \
        fmt_count(n)


# ---- the sections ---------------------------------------------------------


def family_variants(F, bins, full, small, empty, so, rundir):
    """One family's variants: (full input, small input, empty input)."""
    fam = F["key"]
    ftag = lambda name: name.replace(" ", "-")
    prof = lambda name: os.path.join(rundir, ftag(name) + ".ccprof")
    V = lambda *a, **k: Variant(*a, family=fam, **k)
    pre = {"LD_PRELOAD": so}
    ccp = lambda name, clock: {"LD_PRELOAD": LIBSO,
                               "CCPROF_OPTIONS": "clock=%s:output=%s" % (clock, prof(name))}
    instr, cpu = bins[F["instrbin"]], F["cpu"]
    vs = [V(F["bare"], [bins[F["barebin"]]] + full),
          V(F["dummy"], [instr] + full, pre, calls_of=cpu)]
    vs += [V(F[key], [instr] + full, {"LD_PRELOAD": lib}, dummy=F["dummy"], calls_of=cpu)
           for key, lib in sorted(FLOORS.items())]
    if fam == "gcc" and "dummy-static" in bins:
        vs.append(V("dummy-static", [bins["dummy-static"]] + full, calls_of=cpu,
                    layouts=bins.get("dummy-static@layouts")))
    if fam == "gcc" and "excl" in bins:
        vs.append(V("gcc-excl dummy", [bins["excl"]] + full, pre, calls_of="gcc-excl cpu"))
    vs += [V(cpu, [instr] + full, ccp(cpu, "cpu"), files=[prof(cpu)], dummy=F["dummy"],
             calls_of=cpu),
           V(F["cycles"], [instr] + full, ccp(F["cycles"], "cycles"), files=[prof(F["cycles"])],
             dummy=F["dummy"], calls_of=cpu)]
    if fam == "gcc" and "ccprof-static" in bins:
        vs.append(V("cpu-static", [bins["ccprof-static"]] + full,
                    {"CCPROF_OPTIONS": "clock=cpu:output=%s" % prof("cpu-static")},
                    files=[prof("cpu-static")], dummy="dummy-static", calls_of=cpu,
                    layouts=bins.get("ccprof-static@layouts")))
    if fam == "gcc" and "excl" in bins:
        vs.append(V("gcc-excl cpu", [bins["excl"]] + full, ccp("gcc-excl cpu", "cpu"),
                    files=[prof("gcc-excl cpu")], dummy="gcc-excl dummy",
                    calls_of="gcc-excl cpu"))
    if fam == "gcc" and "fentry-cpu" in bins:
        vs.append(V("fentry empty", [bins["fentry-empty"]] + full, calls_of="fentry cpu"))
        vs.append(V("fentry cpu", [bins["fentry-cpu"]] + full,
                    {"CCPROF_OPTIONS": "clock=cpu:output=%s" % prof("fentry cpu")},
                    files=[prof("fentry cpu")], dummy="fentry empty", calls_of="fentry cpu"))
    if F["pgbin"] in bins:
        vs.append(V(F["pg"], [bins[F["pgbin"]]] + full, files=[os.path.join(rundir, "gmon.out")],
                    dummy=F["dummy"], calls_of=cpu))
    sets = []
    for suffix, args, base in (("", small, F["small"]), ("-0", empty, F["empty"])):
        uname, cname = F["uftrace"] + suffix, F["callgrind"] + suffix
        udir = os.path.join(rundir, ftag(uname) + ".data")
        cout = os.path.join(rundir, ftag(cname) + ".out")
        sets.append([
            V(base, [bins[F["barebin"]]] + args, small=True, base=base),
            V(uname, ["uftrace", "record", "-d", udir, instr] + args, small=True, files=[udir],
              dummy=F["dummy"], base=base, calls_of=cpu),
            V(cname, ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cout,
                      bins[F["barebin"]]] + args, small=True, files=[cout], dummy=F["dummy"],
              base=base, calls_of=cpu),
        ])
    return vs, sets[0], sets[1]


def workload_args(units, small_units, real):
    if real:
        return real[1], real[2], real[3]
    return [str(units)], [str(small_units)], ["0"]


def bench_workload(name, bins, units, so, small_units=None, real=None, note=""):
    """real: a real program's (bins, full args, small args, empty args),
    from objdump_setup or sqlite_setup."""
    rundir = os.path.join(RUNS, name)
    os.makedirs(rundir, exist_ok=True)
    small_units = small_units if small_units is not None else max(1, units // SMALL)
    full, small, empty = workload_args(units, small_units, real)
    fams = [F for F in FAMILIES if F["instrbin"] in bins]
    # Each round runs every variant once: both families at full size, then
    # both on the small input, then both on the empty one.
    parts = [family_variants(F, bins, full, small, empty, so, rundir) for F in fams]
    vs = [v for i in range(3) for p in parts for v in p[i]]
    run_rounds(name, vs, rundir)
    st = analyse(vs)
    by = {v.name: v for v in vs}

    # The profiler's own counts, from the last round's profiles.
    calls, calls_small, fres = {}, {}, {}
    for cname in ("cpu", "gcc-excl cpu", "fentry cpu", "clang-ai cpu"):
        if cname in by:
            info, _ = ccprof_json(["info", "--json", by[cname].files[0]])
            if info:
                calls[cname] = info["calls"]
                st[cname]["contexts"] = info.get("contexts")
    for F in fams:
        cpu, cyc = by[F["cpu"]], by[F["cycles"]]
        info, err = ccprof_json(["info", "--json", cpu.files[0]])
        cinfo, _ = ccprof_json(["info", "--json", cyc.files[0]])
        crep, crerr = ccprof_json(["report", "--json", cyc.files[0]])
        prep, prerr = ccprof_json(["report", "--json", cpu.files[0]])
        # Calls at the small size: one more ccprof run.
        sprof = os.path.join(rundir, "%s-small.ccprof" % F["key"])
        sv = Variant("cpu-small", [bins[F["instrbin"]]] + small,
                     {"LD_PRELOAD": LIBSO, "CCPROF_OPTIONS": "output=" + sprof}, files=[sprof])
        run_once(sv, rundir)
        sinfo, _ = ccprof_json(["info", "--json", sprof])
        calls_small[F["key"]] = sinfo["calls"] if sinfo else None
        # The profile without names (names=0), beside gmon.out, which
        # holds none either: one more run, untimed.
        nprof = os.path.join(rundir, "%s-nonames.ccprof" % F["key"])
        nv = Variant("cpu-nonames", [bins[F["instrbin"]]] + full,
                     {"LD_PRELOAD": LIBSO, "CCPROF_OPTIONS": "names=0:output=" + nprof},
                     files=[nprof])
        run_once(nv, rundir)
        fres[F["key"]] = {
            "calls": info["calls"] if info else None, "calls_small": calls_small[F["key"]],
            "info_cpu": info, "info_error": err, "info_cycles": cinfo,
            "cycles_total_s": crep.get("total_time_s") if crep else None,
            "cycles_charged_ratio": charged_ratio(cyc, by[F["bare"]],
                                                  (info.get("threads") or 1) > 1 if info else False),
            "cycles_report_error": crerr,
            "cpu_total_s": prep.get("total_time_s") if prep else None,
            "cpu_report_error": prerr,
            "threads": info.get("threads") if info else None,
            "program_calls": program_calls(by[F["bare"]].stderr),
            "size_nonames": path_size(nprof),
        }
    if "gcc-excl cpu" in by:
        fres["gcc"]["info_excl"], _ = ccprof_json(["info", "--json", by["gcc-excl cpu"].files[0]])

    for v in vs:  # uftrace.data is large; its size is already taken
        if "uftrace" in v.name:
            for f in v.files:
                clean(f)
    finalize(st, vs, calls, calls_small)
    tables = {F["key"]: workload_table(st, [v.name for v in vs if v.family == F["key"]])
              for F in fams}
    return {
        "name": name, "note": note, "full_args": " ".join(full), "small_args": " ".join(small),
        "stats": st, "families": fres, "tables": tables, "order": [v.name for v in vs],
    }


def report_speed():
    src = os.path.join(BENCH, "bigprofile.c")
    exe = os.path.join(BIN, "bigprofile")
    compile_prog(exe, [src], CC, [OPT, "-std=c11", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "src")],
                 [TOOLA], deps=[])
    nctx = 50000 if QUICK else 1000000
    big = os.path.join(WORK, "big.ccprof")
    sh([exe, big, str(nctx)])
    res = {"contexts": nctx, "file_size": os.path.getsize(big), "runs": {}}
    rounds = max(3, min(ROUNDS, 5))
    for label, args in (("ccprof report", ["report", big]),
                        ("ccprof report --json", ["report", "--json", big]),
                        ("ccprof info", ["info", big])):
        times, rss, out_size, err = [], [], 0, None
        for i in range(rounds):
            # The first run's output goes to a file (to measure it), the
            # others' to /dev/null.
            with tempfile.NamedTemporaryFile("r", dir=WORK, prefix="time.") as tf, \
                    (tempfile.TemporaryFile(dir=WORK) if i == 0 else open(os.devnull, "wb")) as out:
                t0 = time.perf_counter()
                r = subprocess.run([TIME, "-f", "%M", "-o", tf.name, CCPROF] + args,
                                   stdout=out, stderr=subprocess.PIPE, text=True)
                t = time.perf_counter() - t0
                if r.returncode != 0:
                    err = "exit status %d: %s" % (r.returncode,
                                                  (r.stderr.strip().splitlines() or [""])[-1])
                    break
                if i == 0:
                    out_size = out.seek(0, 2)
                times.append(t)
                rss.append(int(tf.read().split()[-1]))
        res["runs"][label] = {"times": times, "rss_kb": rss, "output": out_size, "error": err}
    rows = []
    for label, r in res["runs"].items():
        if r["error"]:
            rows.append([label, "FAILED: " + r["error"][:60], "-", "-", "-"])
        else:
            rows.append([label, fmt_s(med(r["times"])),
                         "%s–%s" % (fmt_s(min(r["times"])), fmt_s(max(r["times"]))),
                         "%.0f MB" % (med(r["rss_kb"]) / 1024), fmt_bytes(r["output"])])
    res["table"] = table(["command", "median s", "min–max s", "peak RSS", "output"], rows)
    return res


# ---- real programs: objdump, sqlite ------------------------------------------


REAL_GCC = ("bare", "instr", "pg")
REAL_CLANG = ("clang-bare", "clang-ai", "clang-pg")
# gcc -pg -mfentry -minstrument-return=call with empty hooks (x86-64 only;
# optional: a failed build leaves its rows out).
REAL_FENTRY = ("fentry-empty",) if platform.machine() == "x86_64" else ()


def relink_base(v):
    """The build whose objects relink v links again."""
    return "fentry-empty" if v == "fentry-cpu" else "instr"


# The relinks: variant, object linked in, one layout or PADS.
RELINKS = (("dummy-static", None, False), ("ccprof-static", LIBA, False),
           ("fentry-cpu", LIBA, True))


def real_bins(name, exe, done, build, relink, dummy_obj, fetch=None):
    """Build (cached) a real program's variants; returns {build: exe} or
    None when it is skipped (BENCH_NAME=0, quick mode with builds missing,
    a gcc build or fetch failing).  exe(v): variant v's program; done(v):
    whether it is built; build(v): build it, True if it worked;
    relink(v, obj, pad): relink_base(v)'s objects linked again behind
    pad_object(pad) and with obj (dummy-static, ccprof-static, fentry-cpu)
    into exe(layout_name(v, pad)), True if it worked; fetch(): get the
    sources, None if it worked, else why not.  The static variants get a
    build per layout, bins[v + "@layouts"]; fentry-cpu one."""
    var = "BENCH_" + name.upper()
    if not env_flag(var, "1"):
        return None
    builds = list(REAL_GCC) + list(REAL_FENTRY)
    if CLANG_SKIP is None:
        builds += ["clang-bare", "clang-ai"] + (["clang-pg"] if CLANG_PG else [])
    missing = [v for v in builds if not done(v)]
    if missing and QUICK and not env_flag(var, "0"):
        log("bench: %s not built yet (%s); skipped in quick mode (%s=1 builds it)"
            % (name, " ".join(missing), var))
        return None
    why = fetch() if fetch else None
    if why:
        log("bench: %s skipped: %s" % (name, why))
        return None
    for v in missing:
        if not build(v):
            if v in REAL_GCC:
                return None
            builds.remove(v)
    bins = {v: exe(v) for v in builds}
    if "clang-ai" not in bins or "clang-bare" not in bins:  # no clang family without both
        for v in REAL_CLANG:
            bins.pop(v, None)
    for v, obj, single in RELINKS:
        if relink_base(v) not in bins:
            continue
        pads = PADS[:1] if single else PADS
        if all(relink(v, obj or dummy_obj, pad) for pad in pads):
            exes = [exe(layout_name(v, pad)) for pad in pads]
            bins[v] = exes[0]
            if not single:
                bins[v + "@layouts"] = exes
        else:
            log("bench: relinking %s (%s) failed; its row is left out" % (name, v))
    return bins


def objdump_setup(dummy_obj):
    """Build (cached) the objdumps; returns (bins, full args, small args,
    empty args) or None.  The full builds take minutes each; the static
    ones are relinks of the instr build, redone whenever their library is
    newer."""
    script = os.path.join(BENCH, "build-objdump.sh")
    o = lambda v: os.path.join(WORK, "objdump-%s" % v, "binutils", "objdump")

    def build(v):
        log("bench: building objdump (%s), cached in bench/.work (several minutes)" % v)
        if subprocess.run(["sh", script, v]).returncode == 0:
            return True
        log("bench: objdump build %s failed (see bench/.work/objdump-%s/*.log)" % (v, v))
        return False
    bins = real_bins("objdump", o,
                     lambda v: os.path.exists(os.path.join(WORK, "objdump-%s" % v, ".done")),
                     build, lambda v, obj, pad: subprocess.run(
                         ["sh", script, layout_name(v, pad), obj, pad_object(pad)]).returncode == 0,
                     dummy_obj)
    if bins is None:
        return None
    # Input: a private copy of the bare objdump binary (2.7 MB), so the
    # work does not depend on what is installed; small: one object file.
    target = os.path.join(WORK, "objdump-input")
    if newer(target, [bins["bare"]]):
        shutil.copy(bins["bare"], target)
    # Small: 1/16 of the input's .text, once instead of twice (÷32).
    lo, size = text_section(bins["bare"], target)
    part = size // (SMALL // 2)
    small = ["-d", "--start-address=0x%x" % lo, "--stop-address=0x%x" % (lo + part), target]
    full = ["-d", target, target]
    if QUICK:  # a tenth of the full input, and ÷32 of that
        full = ["-d", "--start-address=0x%x" % lo, "--stop-address=0x%x" % (lo + size // 5),
                target]
        small[2] = "--stop-address=0x%x" % (lo + size // 5 // SMALL)
    empty = ["-d", "--start-address=0x%x" % lo, "--stop-address=0x%x" % (lo + 16), target]
    return bins, full, small, empty


def text_section(objdump, path):
    """Address and size of path's .text."""
    for line in sh([objdump, "-h", path]).splitlines():
        f = line.split()
        if len(f) > 3 and f[1] == ".text":
            return int(f[3], 16), int(f[2], 16)
    die("no .text in " + path)


SQLITE = os.environ.get("CCPROF_SQLITE") or os.path.expanduser("~/.cache/ccprof/sqlite-3.54.1")
SQLITE_DRV = os.path.join(ROOT, "tests", "progs", "sqlite_drv.c")
# Variant: compiler, compile flags, link flags (the link has OPT and
# these, not the compile flags: -pg there would start gprof's collector
# in the fentry build).  The static variants link instr's objects again
# with one object more, fentry-cpu fentry-empty's.
SQLITE_BUILDS = {
    "bare": (CC, [OPT], []),
    "instr": (CC, [OPT, "-finstrument-functions"], []),
    "pg": (CC, [OPT, "-pg"], ["-pg"]),
    "clang-bare": (CLANG, [OPT], []),
    "clang-ai": (CLANG, [OPT, "-finstrument-functions-after-inlining"], []),
    "clang-pg": (CLANG, [OPT, "-pg"], ["-pg"]),
    "fentry-empty": (CC, [OPT] + FENTRY, [os.path.join(BENCH, "fentry_empty.S")]),
}
# sqlite_drv ROWS THREADS ROUNDS: the work grows faster than ROWS (a join),
# so the small input is the full one's rounds ÷32 (0.34 s bare in full).
SQLITE_ROWS, SQLITE_QUICK_ROWS = "6000", "1500"


def sqlite_setup(dummy_obj):
    """Build (cached in bench/.work/sqlite/VARIANT) SQLite's amalgamation
    with tests/progs/sqlite_drv.c; returns (bins, full args, small args,
    empty args) or None.  sqlite3.c is compiled once per variant (half a
    minute each); the static variants link instr's objects again."""
    d = lambda v: os.path.join(WORK, "sqlite", v)
    exe = lambda v: os.path.join(d(v), "sqlite_drv")
    amalg = os.path.join(SQLITE, "sqlite3.c")
    objs = lambda v: [os.path.join(d(v), "sqlite3.o"), os.path.join(d(v), "sqlite_drv.o")]
    logf = lambda v: os.path.join(d(v), "build.log")

    def run_logged(v):
        def run(cmd):
            with open(logf(v), "a") as f:
                f.write(" ".join(cmd) + "\n")
                if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                    raise OSError("failed: " + " ".join(cmd))
        return run

    def build(v):
        cc, cflags, ldflags = SQLITE_BUILDS[v]
        log("bench: building sqlite (%s: %s %s), cached in bench/.work/sqlite (a minute)"
            % (v, cc, " ".join(cflags)))
        os.makedirs(d(v), exist_ok=True)
        clean(logf(v))
        run = run_logged(v)
        try:
            for src, obj in zip((amalg, SQLITE_DRV), objs(v)):
                if newer(obj, [src]):
                    run([cc] + cflags + ["-I" + SQLITE, "-c", src, "-o", obj + ".tmp"])
                    os.replace(obj + ".tmp", obj)
            compile_prog(exe(v), objs(v), cc, [OPT] + ldflags, ["-ldl"], run=run)
            return True
        except OSError:
            log("bench: sqlite build %s failed (see %s)" % (v, os.path.relpath(logf(v), ROOT)))
            return False

    def relink(v, obj, pad):
        lv = layout_name(v, pad)
        os.makedirs(d(lv), exist_ok=True)
        try:
            compile_prog(exe(lv), [pad_object(pad)] + objs(relink_base(v)), CC, [OPT],
                         [obj, "-ldl"], run=run_logged(lv))
            return True
        except OSError:
            return False

    def fetch():
        r = subprocess.run(["sh", os.path.join(ROOT, "tests", "fetch-sqlite"), SQLITE],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return "tests/fetch-sqlite failed: %s" % (r.stdout.strip().splitlines() or ["?"])[-1]
        return None
    bins = real_bins("sqlite", exe, lambda v: not newer(exe(v), [amalg, SQLITE_DRV]), build,
                     relink, dummy_obj, fetch)
    if bins is None:
        return None
    rows = SQLITE_QUICK_ROWS if QUICK else SQLITE_ROWS
    # In the main thread (THREADS 0); 0 rounds is SQLite's start-up alone.
    return bins, [rows, "0", str(SMALL)], [rows, "0", "1"], [rows, "0", "0"]


# ---- machine ------------------------------------------------------------------


def first_line(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return (r.stdout.strip().splitlines() or ["?"])[0]
    except OSError:
        return "not installed"


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = "%.1f GB" % (int(f.readline().split()[1]) / 1024 / 1024)
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "memory": mem,
        "kernel": platform.release(),
        "gcc": first_line([CC, "--version"]),
        "clang": first_line([CLANG, "--version"]) if shutil.which(CLANG) else "clang: not found",
        "uftrace": first_line(["uftrace", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "ccprof": first_line([CCPROF, "--version"]),
        "git": first_line(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
    }


# ---- checks ---------------------------------------------------------------------


R_GOAL = 1.5


def r_ill_conditioned(dummy):
    """Whether the empty hooks (their stats) cost too little for R to
    mean anything: the Goals say N/A, the headline "—"."""
    return dummy.get("ratio", 1.0) - 1 < R_FLOOR


def r_goal(cpu, n, check, lines):
    """R against its goal, judged by its interval where there is one:
    met if all of it is at or under the goal, missed if all of it is
    over, open if it straddles the goal (the rounds cannot tell)."""
    ci = cpu.get("R_ci")
    text = "%s: clock=cpu R = %s (goal <= %.1f" % (n, fmt_R(cpu), R_GOAL)
    if ci is None:
        check(cpu["R"] <= R_GOAL, text + ")")
    elif ci[1] <= R_GOAL:
        check(True, text + ": all of the interval)")
    elif ci[0] > R_GOAL:
        check(False, text + ": none of the interval)")
    else:
        lines.append("OPEN  %s: the interval straddles it)" % text)


def family_checks(w, F, check, lines):
    st, fr = w["stats"], w["families"][F["key"]]
    n = "%s [%s]" % (w["name"], F["label"])
    cpu = st[F["cpu"]]
    dr = st[F["dummy"]].get("ratio", 1.0) if F["dummy"] in st else None
    if dr is not None and r_ill_conditioned(st[F["dummy"]]):
        # R divides by the empty hooks' overhead: within the machine's noise
        # when they cost almost nothing (few calls left after inlining).
        lines.append("N/A   %s: clock=cpu R ill-conditioned: the empty hooks cost %+.0f %% of %s "
                     "(under %.0f %%); clock=cpu costs %+.0f %%, %s ns/call over them"
                     % (n, (dr - 1) * 100, F["bare"], R_FLOOR * 100, (cpu["ratio"] - 1) * 100,
                        "%.1f" % cpu["ns_dummy"] if "ns_dummy" in cpu else "-"))
    elif "R" in cpu:
        r_goal(cpu, n, check, lines)
    pgs = [(F["pg"], "%s -pg" % ("gcc" if F["key"] == "gcc" else "clang"))]
    if F["key"] != "gcc":
        pgs.append(("gprof", "gcc -pg"))
    for pg, what in pgs:
        if pg in st:
            check(cpu["median"] < st[pg]["median"], "%s: clock=cpu %.3f s < %s %.3f s"
                  % (n, cpu["median"], what, st[pg]["median"]))
        elif pg == "clang-pg":
            lines.append("N/A   %s: no clang-pg row (%s)" % (
                n, "clang -pg does not write gmon.out here" if not CLANG_PG else "build failed"))
    oc = cpu["ratio"] - 1
    for tool, k in ((F["uftrace"], 10), (F["callgrind"], 20)):
        if tool not in st or "estimate" not in st[tool]:
            continue
        ot = st[tool]["ratio"] - 1
        f = ot / oc if oc > 0 else float("inf")
        check(f >= k, "%s: %s overhead / ccprof cpu overhead = %.1fx (goal >= %dx)"
              % (n, tool, f, k))
    ct, cr = fr.get("cycles_total_s"), fr.get("cycles_charged_ratio")
    bare = st[F["bare"]]
    if ct is not None and cr is not None:
        multi = (fr.get("threads") or 1) > 1
        ref = bare["cpu"] if multi else bare["median"]
        dev = (cr - 1) * 100
        check(abs(dev) <= 5, "%s: clock=cycles charged / %s %s, median over rounds: %+.1f %% "
              "(last round %.3f s vs median %.3f s) (goal within 5 %%)"
              % (n, F["bare"], "CPU (user+sys)" if multi else "wall", dev, ct, ref))
    else:
        check(False, "%s: clock=cycles total: no report (%s)" % (n, fr.get("cycles_report_error")))
    calls, info = fr["calls"], fr["info_cpu"]
    if calls and info:
        frac = info["transitions"] / calls * 100
        check(frac <= 0.1, "%s: transitions %d = %.4f %% of %d calls (goal <= 0.1 %%)"
              % (n, info["transitions"], frac, calls))
    ps = cpu["sizes"][0]
    pg = F["pg"] if F["pg"] in st else "gprof"
    gs = st[pg]["sizes"][0] if pg in st else None
    if ps is not None and gs is not None:
        check(ps <= gs, "%s: profile %s vs %s gmon.out %s"
              % (n, fmt_bytes(ps), "gcc" if pg == "gprof" else "clang", fmt_bytes(gs)))
        ns = fr.get("size_nonames")
        if ns is not None:
            check(ns <= gs, "%s: profile without names (names=0) %s vs %s gmon.out %s"
                  % (n, fmt_bytes(ns), "gcc" if pg == "gprof" else "clang", fmt_bytes(gs)))


def linking(w):
    """Preloaded or static: which ran faster (gcc family, per-round ratios
    to the same bare run).  Returns (static faster?, text) or None."""
    st = w["stats"]
    if not all(k in st for k in ("cpu", "cpu-static", "dummy", "dummy-static")):
        return None
    p, s = st["cpu"]["ratio"], st["cpu-static"]["ratio"]
    dp, ds = st["dummy"]["ratio"], st["dummy-static"]["ratio"]
    faster = s < p
    spread = ""
    cs = st["cpu-static"]
    if cs.get("layouts", 1) > 1:
        spread = " (%.2f–%.2f over %d layouts)" % (cs["ratio_min"], cs["ratio_max"],
                                                    cs["layouts"])
    return faster, ("%s [gcc]: linking: %s faster: clock=cpu %.2f× bare static%s vs %.2f× "
                    "preloaded (%+.0f %%); empty hooks %.2f× static vs %.2f× preloaded"
                    % (w["name"], "static" if faster else "preloaded", s, spread, p,
                       (s - p) / p * 100, ds, dp))


def fentry_line(w):
    """gcc's two ways to hook (src/runtime/fentry.c), both with
    libccprof.a: the calls left after inlining, or every inlined copy too;
    None where the fentry build was not made."""
    st = w["stats"]
    if not all(k in st for k in ("fentry cpu", "fentry empty", "cpu-static", "gprof")):
        return None
    f = st["fentry cpu"]
    return ("%s [gcc]: -pg -mfentry -minstrument-return=call: clock=cpu %.2f× bare (R %s, "
            "%s calls), against -finstrument-functions %.2f× (static) and gprof %.2f×"
            % (w["name"], f["ratio"], fmt_R(f), fmt_calls(f.get("calls")),
               st["cpu-static"]["ratio"], st["gprof"]["ratio"]))


def floor_line(w, F):
    """What ccprof's R holds beside its floors (FLOORS), or None where
    they were not run."""
    st = w["stats"]
    if not all(k in st and "R" in st[k] for k in (F["thread"], F["floor"], F["cpu"])):
        return None
    return ("%s [%s]: floors: empty hooks with a POSIX thread asleep R %s; a shadow stack pushed and "
            "popped, nothing else, R %s; ccprof clock=cpu R %s"
            % (w["name"], F["label"], fmt_R(st[F["thread"]]), fmt_R(st[F["floor"]]),
               fmt_R(st[F["cpu"]])))


def checks(results, rep):
    lines = []

    def check(ok, text):
        lines.append("%s  %s" % ("PASS" if ok else "MISS", text))

    nstatic, nlink = 0, 0
    for w in results:
        for F in FAMILIES:
            if F["key"] in w["families"]:
                family_checks(w, F, check, lines)
                floors = floor_line(w, F)
                if floors:
                    lines.append("INFO  " + floors)
        fl = fentry_line(w)
        if fl:
            lines.append("INFO  " + fl)
        lk = linking(w)
        if lk:
            lines.append("INFO  " + lk[1])
            nstatic += lk[0]
            nlink += 1
    if nlink:
        lines.append("INFO  linking: static (libccprof.a) faster on %d of %d workloads, preloaded "
                     "on %d: recommend %s" % (nstatic, nlink, nlink - nstatic,
                                              "static" if nstatic * 2 > nlink else
                                              "preloaded" if nstatic * 2 < nlink else "either"))
    if rep:
        for label, goal_t in (("ccprof report", 1.0), ("ccprof report --json", 1.0)):
            r = rep["runs"].get(label)
            if not r:
                continue
            if r["error"]:
                check(False, "%s on %d contexts: %s" % (label, rep["contexts"], r["error"]))
                continue
            t, m = med(r["times"]), med(r["rss_kb"]) / 1024
            check(t < goal_t and m < 1024, "%s on %d contexts: %.2f s, %.0f MB (goal < 1 s, < 1 GB)"
                  % (label, rep["contexts"], t, m))
    return lines


# ---- main ---------------------------------------------------------------------


def fmt_count(x):
    return "{:,}".format(x) if isinstance(x, int) else "-"


def describe(w, F):
    fr = w["families"][F["key"]]
    info, ci = fr["info_cpu"] or {}, fr["info_cycles"] or {}
    calls = fr["calls"]
    out = []
    pc = fr.get("program_calls")
    agree = ""
    if pc is not None and calls is not None:
        if F["key"] == "gcc":
            agree = " (the program counts %s: %s)" % (fmt_count(pc), "same" if pc == calls else
                                                     "DIFFERENT")
        else:
            agree = " (%.1f %% of the program's %s source-level calls; the others were " \
                    "inlined or turned into loops)" % (100.0 * calls / pc, fmt_count(pc))
    elif F["key"] != "gcc" and calls and (w["families"].get("gcc") or {}).get("calls"):
        gc = w["families"]["gcc"]["calls"]
        agree = " (%.1f %% of the gcc -finstrument-functions build's %s)" % (100.0 * calls / gc,
                                                                          fmt_count(gc))
    out.append("calls %s%s; contexts %s; transitions %s (%.4f %% of calls); slow finds %s "
               "(%.3f %%: transitions made before that the caches missed); threads %s; "
               "profiling memory %s; lost calls %s"
               % (fmt_count(calls), agree, fmt_count(info.get("contexts")),
                  fmt_count(info.get("transitions")),
                  100.0 * info.get("transitions", 0) / calls if calls else 0,
                  fmt_count(info.get("slow_finds", 0)),
                  100.0 * info.get("slow_finds", 0) / calls if calls else 0,
                  info.get("threads", "-"), fmt_bytes(info.get("memory_bytes")),
                  fmt_count(info.get("lost_calls"))))
    if fr.get("size_nonames") is not None:
        out.append("profile without names (names=0, the tool names the functions from the "
                   "program): %s" % fmt_bytes(fr["size_nonames"]))
    st = w["stats"]
    ct, pt = fr.get("cycles_total_s"), fr.get("cpu_total_s")
    out.append("time charged: clock=cycles %s s, clock=cpu %s s; %s run: wall %.3f s, CPU %.3f s;"
               " calibrated overhead (cycles) %s ns/call"
               % ("%.3f" % ct if ct is not None else "n/a (%s)" % fr.get("cycles_report_error"),
                  "%.3f" % pt if pt is not None else "n/a", F["bare"],
                  st[F["bare"]]["median"], st[F["bare"]]["cpu"],
                  "%.1f" % ci["overhead_ns_per_call"] if "overhead_ns_per_call" in ci else "-"))
    ex = fr.get("info_excl")
    if ex:
        out.append("gcc-excl: calls %s (%.0f %% of -finstrument-functions'), contexts %s"
                   % (fmt_count(ex.get("calls")),
                      100.0 * ex.get("calls", 0) / calls if calls else 0,
                      fmt_count(ex.get("contexts"))))
    return "\n".join("- " + s for s in out)


def snapshot():
    """Copy the runtime and the tool into bench/.work/snap, so that a
    rebuild by someone else halfway through the run changes nothing."""
    global CCPROF, LIBSO, LIBA, TOOLA
    snap = os.path.join(WORK, "snap")
    os.makedirs(snap, exist_ok=True)
    new = []
    for src in (CCPROF, LIBSO, LIBA, TOOLA):
        if not os.path.exists(src):
            new.append(src)
            continue
        dst = os.path.join(snap, os.path.basename(src))
        if not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
            shutil.copy2(src, dst + ".tmp")
            os.replace(dst + ".tmp", dst)
        new.append(dst)
    CCPROF, LIBSO, LIBA, TOOLA = new


def main():
    unknown = [s for s in ONLY if s not in SECTIONS]
    if unknown:
        die("BENCH_ONLY: unknown %s (known: %s)%s"
            % (" ".join(unknown), " ".join(SECTIONS),
               "; the compilers section is gone: every workload now has a clang family"
               if "compilers" in unknown else ""))
    if not os.path.exists(TIME):
        die("%s is missing: apt-get install time" % TIME)
    for tool in ("uftrace", "valgrind"):
        if shutil.which(tool) is None:
            die("%s is missing: apt-get install %s" % (tool, tool))
    for f in (CCPROF, LIBSO, LIBA):
        if not os.path.exists(f):
            die("%s is missing: run make first" % f)
    os.makedirs(RUNS, exist_ok=True)
    os.makedirs(RESULTS, exist_ok=True)
    if selected("report"):  # the format writer, for bigprofile.c; kept in step with ccprof
        r = subprocess.run(["make", "-s", "-C", ROOT, "BUILD=" + os.environ.get("BUILD", "build"),
                            "tool-lib"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 and not os.path.exists(TOOLA):
            die("make tool-lib failed:\n" + r.stdout)
    snapshot()
    clang_check()
    if CLANG_SKIP:
        log("bench: the clang family is skipped: " + CLANG_SKIP)
    elif not CLANG_PG:
        log("bench: clang -pg does not write gmon.out here: no clang-pg rows; the clang-ai "
            "family is compared with gcc -pg only")
    t_start = time.time()
    mach = machine()
    mach["clang_family"] = "skipped: " + CLANG_SKIP if CLANG_SKIP else "built"
    mach["clang_pg"] = CLANG_PG
    so, dobj = build_support()

    results = []
    for name, src, lang, full, quick in WORKLOADS:
        if not selected(name):
            continue
        units = quick if QUICK else full
        bins = workload_bins(name, src, lang, dobj)
        results.append(bench_workload(name, bins, units, so))

    for name, setup, note in (
            ("objdump", objdump_setup, "GNU objdump 2.40 built from binutils-source"),
            ("sqlite", sqlite_setup, "SQLite 3.54.1's amalgamation, tests/progs/sqlite_drv.c "
                                     "ROWS THREADS ROUNDS")):
        real = setup(dobj) if selected(name) else None
        if real:
            results.append(bench_workload(name, real[0], 0, so, real=real, note=note))

    rep = report_speed() if selected("report") else None
    mach["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    elapsed = time.time() - t_start

    out = []
    out.append("# ccprof benchmark, %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    out.append("")
    out.append("rounds %d%s; machine: %s x %s, %s, kernel %s; %s; %s; load average %s at start, "
               "%s at end; %s (git %s); took %.0f s"
               % (ROUNDS, " (BENCH_QUICK)" if QUICK else "", mach["nproc"], mach["cpu"],
                  mach["memory"], mach["kernel"], mach["gcc"], mach["clang"],
                  " ".join(mach["loadavg_start"]), " ".join(mach["loadavg_end"]), mach["ccprof"],
                  mach["git"], elapsed))
    if CLANG_SKIP:
        out.append("")
        out.append("**The clang family was skipped: %s.**" % CLANG_SKIP)
    elif not CLANG_PG:
        out.append("")
        out.append("**clang -pg does not write gmon.out on this machine: no clang-pg rows; the "
                   "clang-ai family is compared with gcc -pg.**")
    out.append("")
    shown = [kv for kv in VARIANT_DOC.items()
             if not (kv[0].startswith("clang") and CLANG_SKIP) and not (kv[0] == "clang-pg" and
                                                                        not CLANG_PG)]
    out.append("Variants: " + "; ".join("`%s` %s" % kv for kv in shown) + ".")
    out.append("Each workload has a table per family (gcc, clang).  × bare: median of per-round "
               "ratios to the family's bare run of the same round; R: (variant − bare) / (dummy − "
               "bare) in each round, the median over rounds and its 95 % interval (from 6 "
               "rounds), against the family's empty hooks (cpu-static against "
               "dummy-static, gcc-excl cpu against gcc-excl dummy); calls: ccprof's count for "
               "the family's instrumented build, which ns/call divides by; ns/call: (variant − "
               "bare) / calls, and (variant − its dummy) / calls; * = run on the small input, "
               "corrected for the tool's fixed start-up cost (measured on an empty input) and "
               "extrapolated to the full input's calls; CPU s: user + sys.")
    for w in results:
        out.append("")
        out.append("## %s%s" % (w["name"], " (%s)" % w["note"] if w["note"] else ""))
        out.append("")
        rel = lambda a: a.replace(ROOT + os.sep, "")
        out.append("Full input: `%s`; small input (÷%d, rows marked *): `%s`."
                   % (rel(w["full_args"]), SMALL, rel(w["small_args"])))
        for F in FAMILIES:
            if F["key"] not in w["tables"]:
                continue
            out.append("")
            out.append("### %s family: %s" % (F["key"], F["title"]))
            out.append("")
            out.append(w["tables"][F["key"]])
            out.append("")
            out.append(describe(w, F))
    if rep:
        out.append("")
        out.append("## ccprof report on a synthetic profile (%s contexts, %s)"
                   % (fmt_count(rep["contexts"]), fmt_bytes(rep["file_size"])))
        out.append("")
        out.append(rep["table"])
    if results:
        out.append("")
        out.append("## Headline")
        out.append("")
        out.append(headline(results))
    cl = checks(results, rep)
    if cl:
        out.append("")
        out.append("## Goals")
        out.append("")
        out.append("```")
        out.extend(cl)
        out.append("```")
    text = "\n".join(out) + "\n"
    print(text)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    md = os.path.join(RESULTS, "bench-%s.md" % stamp)
    with open(md, "w") as f:
        f.write(text)
    with open(os.path.join(RESULTS, "bench-%s.json" % stamp), "w") as f:
        json.dump({"machine": mach, "rounds": ROUNDS, "quick": QUICK, "workloads": results,
                   "report": rep, "checks": cl, "elapsed_s": elapsed},
                  f, indent=1, default=str)
    latest = os.path.join(RESULTS, "latest.md")
    clean(latest)
    os.symlink(os.path.basename(md), latest)
    log("bench: results in %s" % os.path.relpath(md, ROOT))


def headline(results):
    """One row per workload and family: the numbers the goals are about."""
    rows = []
    for w in results:
        st = w["stats"]
        for F in FAMILIES:
            fr = (w.get("families") or {}).get(F["key"])
            if not fr or F["cpu"] not in st:
                continue
            cpu, dummy = st[F["cpu"]], st.get(F["dummy"], {})
            pg = st.get(F["pg"], {})
            over = cpu.get("ratio", 1) - 1

            def factor(tool):
                t = st.get(tool, {})
                if "estimate" not in t or over <= 0:
                    return "-"
                return "%.0f×" % ((t["ratio"] - 1) / over)
            cr = fr.get("cycles_charged_ratio")
            ill = F["dummy"] in st and r_ill_conditioned(dummy)
            rows.append([
                w["name"], F["label"], fmt_count(fr.get("calls")),
                "%.2f" % dummy["ratio"] if "ratio" in dummy else "-",
                "%.2f" % cpu["ratio"] if "ratio" in cpu else "-",
                "—" if ill else fmt_R(cpu),
                "%.1f" % cpu["ns_dummy"] if "ns_dummy" in cpu else "-",
                "%.2f" % pg["ratio"] if "ratio" in pg else "-",
                factor(F["uftrace"]), factor(F["callgrind"]),
                "%+.0f %%" % ((cr - 1) * 100) if cr is not None else "-"])
    return table(["workload", "build", "calls", "empty hooks × bare", "clock=cpu × bare",
                  "R (95 % interval)",
                  "ns/call over empty hooks", "-pg (gprof) × bare",
                  "uftrace overhead ÷ ccprof's", "callgrind overhead ÷ ccprof's",
                  "clock=cycles charged vs bare"], rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--headline"]:  # from a saved bench-*.json
        with open(sys.argv[2]) as f:
            print(headline(json.load(f)["workloads"]))
        sys.exit(0)
    main()
