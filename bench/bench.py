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
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2" if QUICK else "5"))
ONLY = [s for s in os.environ.get("BENCH_ONLY", "").replace(",", " ").split() if s]
CC = os.environ.get("BENCH_CC", "gcc")
CXX = os.environ.get("BENCH_CXX", "g++")
CLANG = os.environ.get("BENCH_CLANG", "clang")
CLANGXX = os.environ.get("BENCH_CLANGXX", "clang++")
OPT = "-O2"

# name, source, language, full units, quick units.  Full sizes take 0.3 to
# 0.5 s bare on the reference machine (docs/performance.md), except tiny
# (0.04 s: gcc's instrumentation makes it 25-60 times slower, and the whole
# benchmark has to fit in about 15 minutes).  uftrace and
# callgrind run the same program with units // SMALL (marked "÷N").
WORKLOADS = [
    ("recurse", "recurse.c", "c", 3000, 300),
    ("dispatch", "dispatch.c", "c", 250, 25),
    ("vm", "vm.c", "c", 250, 30),
    ("tiny", "tiny.cpp", "c++", 150, 20),
    ("threads", "threads.c", "c", 1200, 120),
]
SMALL = 32
# Workloads of the compiler comparison, at half their full size.
COMPILER_WORKLOADS = ["vm", "tiny"]


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


def compile_prog(out, srcs, compiler, flags, libs=(), deps=()):
    """Build out from srcs unless it is up to date; returns out."""
    if newer(out, list(srcs) + list(libs) + list(deps)):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [compiler] + flags + list(srcs) + list(libs) + ["-pthread", "-lm", "-o", out + ".tmp"]
        sh(cmd)
        os.replace(out + ".tmp", out)
    return out


def build_support():
    """dummy_hooks.{so,o} and the workloads' binaries."""
    dsrc = os.path.join(BENCH, "dummy_hooks.c")
    so = os.path.join(BIN, "dummy_hooks.so")
    obj = os.path.join(BIN, "dummy_hooks.o")
    os.makedirs(BIN, exist_ok=True)
    if newer(so, [dsrc]):
        sh([CC, OPT, "-fPIC", "-shared", "-fno-instrument-functions", dsrc, "-o", so])
    if newer(obj, [dsrc]):
        sh([CC, OPT, "-fno-instrument-functions", "-c", dsrc, "-o", obj])
    return so, obj


def workload_bins(name, src, lang, dummy_obj):
    """bare, instr, dummy-static, ccprof-static and pg builds of one workload."""
    path = os.path.join(BENCH, "workloads", src)
    cc = CXX if lang == "c++" else CC
    b = {}
    o = lambda v: os.path.join(BIN, "%s.%s" % (name, v))
    b["bare"] = compile_prog(o("bare"), [path], cc, [OPT])
    b["instr"] = compile_prog(o("instr"), [path], cc, [OPT, "-finstrument-functions"])
    b["dummy-static"] = compile_prog(o("dummy-static"), [path], cc,
                                     [OPT, "-finstrument-functions"], [dummy_obj])
    b["ccprof-static"] = compile_prog(o("ccprof-static"), [path], cc,
                                      [OPT, "-finstrument-functions"], [LIBA])
    b["pg"] = compile_prog(o("pg"), [path], cc, [OPT, "-pg"])
    return b


def compiler_bins(name, src, lang):
    path = os.path.join(BENCH, "workloads", src)
    gcc, clang = (CXX, CLANGXX) if lang == "c++" else (CC, CLANG)
    o = lambda v: os.path.join(BIN, "%s.%s" % (name, v))
    b = {
        "gcc-bare": o("bare"),
        "gcc-instr": o("instr"),
        "gcc-pg": o("pg"),
        "clang-bare": compile_prog(o("clang-bare"), [path], clang, [OPT]),
        "clang-instr": compile_prog(o("clang-instr"), [path], clang, [OPT, "-finstrument-functions"]),
        "clang-after-inl": compile_prog(o("clang-after-inl"), [path], clang,
                                        [OPT, "-finstrument-functions-after-inlining"]),
    }
    if lang == "c++":
        # gcc's way to leave the standard library's inline functions alone.
        b["gcc-excl"] = compile_prog(o("gcc-excl"), [path], gcc,
                                     [OPT, "-finstrument-functions",
                                      "-finstrument-functions-exclude-file-list=/usr/include/c++"])
    return b


# ---- running --------------------------------------------------------------


class Variant:
    """One way of running a workload.

    argv: the command; env: variables set for the program only (through
    env(1), so that /usr/bin/time itself never loads a preloaded runtime);
    small: runs the scaled-down input, and is compared with bare-small;
    files: what to measure the size of after the run (file or directory);
    dummy: the variant whose overhead is R's denominator; kind: for checks.
    """

    def __init__(self, name, argv, env=None, small=False, files=(), dummy=None, kind=None,
                 base=None):
        self.name = name
        self.argv = argv
        self.env = env or {}
        self.small = small
        self.files = list(files)
        self.dummy = dummy
        self.kind = kind or name
        self.base = base or ("bare-small" if small else "bare")
        self.times, self.rss, self.cpu, self.sizes = [], [], [], []
        self.stderr = ""


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


def run_once(v, cwd):
    for f in v.files:
        clean(f)
    with tempfile.NamedTemporaryFile("r", dir=WORK, prefix="time.", delete=True) as tf:
        cmd = [TIME, "-f", "%M %U %S", "-o", tf.name, "env"]
        cmd += ["%s=%s" % kv for kv in v.env.items()] + v.argv
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


def run_rounds(title, variants, cwd):
    log("bench: %s: %d variants x %d rounds" % (title, len(variants), ROUNDS))
    for r in range(ROUNDS):
        for v in variants:
            run_once(v, cwd)
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
             "rss_kb": med(v.rss), "cpu": med(v.cpu), "small": v.small, "kind": v.kind,
             "sizes": v.sizes[-1] if v.sizes else []}
        base = by.get(v.base)
        if base is not None and base is not v:
            s["ratio"] = med([t / b for t, b in zip(v.times, base.times)])
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
    "bare": "no instrumentation",
    "dummy": "-finstrument-functions, empty hooks preloaded (.so)",
    "dummy-static": "-finstrument-functions, empty hooks linked in",
    "cpu": "ccprof clock=cpu, LD_PRELOAD=libccprof.so",
    "cycles": "ccprof clock=cycles, LD_PRELOAD=libccprof.so",
    "cpu-static": "ccprof clock=cpu, libccprof.a linked in",
    "gprof": "gcc -pg, gmon.out written at exit",
    "bare-small": "no instrumentation, input ÷%d" % SMALL,
    "uftrace": "uftrace record (-finstrument-functions build), input ÷%d" % SMALL,
    "callgrind": "valgrind --tool=callgrind (bare build), input ÷%d" % SMALL,
}


def finalize(st, calls, calls_small, dummy_of):
    """Per-call costs, and the full-size estimates of the small-input tools.

    A tool run on the small input (uftrace, callgrind) is corrected for its
    fixed cost (start-up, reading symbols, writing at exit), measured by
    running it on an empty input ("-0" variants) in every round:
        per call  o = ((tool small - tool empty) - (bare small - bare empty)) / calls small
        estimate    = bare full + o * calls full + (tool empty - bare empty)
    and its ratio is estimate / bare full."""
    tb = st["bare"]["median"]
    for name, s in st.items():
        if name.endswith("-0") or name in ("bare", "bare-small"):
            continue
        if s["small"]:
            z, b0 = st.get(name + "-0"), st.get("bare-0")
            if not (z and b0 and calls and calls_small):
                continue
            marg = (s["median"] - z["median"]) - (st["bare-small"]["median"] - b0["median"])
            o = marg / calls_small
            s["estimate"] = tb + o * calls + (z["median"] - b0["median"])
            s["ratio"] = s["estimate"] / tb
            s["ns"] = o * 1e9
            s["fixed"] = z["median"] - b0["median"]
        elif "ratio" in s and calls:
            s["ns"] = (s["ratio"] - 1) * tb / calls * 1e9
    for name, s in st.items():
        d = st.get(dummy_of.get(name, ""))
        if d and "ratio" in s and d.get("ratio", 1) > 1:
            s["R"] = (s["ratio"] - 1) / (d["ratio"] - 1)
        if d and "ns" in s and "ns" in d:
            s["ns_dummy"] = s["ns"] - d["ns"]


def workload_table(st, calls, calls_small, order):
    hdr = ["variant", "median s", "min–max s", "CPU s", "× bare", "R", "ns/call",
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
        R = "%.2f" % s["R"] if "R" in s else "-"
        ns = "%.1f" % s["ns"] if "ns" in s else "-"
        nsd = "%.1f" % s["ns_dummy"] if "ns_dummy" in s else "-"
        size = s["sizes"][0] if s["sizes"] else None
        out = fmt_bytes(size) if size is not None else "-"
        if s["small"] and size is not None and calls and calls_small:
            out += " (≈%s full)" % fmt_bytes(size * calls / calls_small)
        rows.append([name, tm, mm, fmt_s(s["cpu"]), rr, R, ns, nsd,
                     "%.1f MB" % (s["rss_kb"] / 1024), out])
    return table(hdr, rows)


# ---- the sections ---------------------------------------------------------


def workload_variants(name, bins, units, so, rundir, small_units, objdump=None):
    """The variants of one workload.  objdump: (bins, full, small, empty args)."""
    prof = lambda tag: os.path.join(rundir, "%s.ccprof" % tag)
    if objdump:
        bins, full, small, empty = objdump
    else:
        full, small, empty = [str(units)], [str(small_units)], ["0"]
    pre = {"LD_PRELOAD": so}
    ccp = lambda tag, clock: {"LD_PRELOAD": LIBSO,
                              "CCPROF_OPTIONS": "clock=%s:output=%s" % (clock, prof(tag))}
    vs = [
        Variant("bare", [bins["bare"]] + full),
        Variant("dummy", [bins["instr"]] + full, pre),
    ]
    if "dummy-static" in bins:
        vs.append(Variant("dummy-static", [bins["dummy-static"]] + full))
    vs += [
        Variant("cpu", [bins["instr"]] + full, ccp("cpu", "cpu"), files=[prof("cpu")], dummy="dummy"),
        Variant("cycles", [bins["instr"]] + full, ccp("cycles", "cycles"), files=[prof("cycles")],
                dummy="dummy"),
    ]
    if "ccprof-static" in bins:
        vs.append(Variant("cpu-static", [bins["ccprof-static"]] + full,
                          {"CCPROF_OPTIONS": "clock=cpu:output=%s" % prof("cpu-static")},
                          files=[prof("cpu-static")], dummy="dummy-static"))
    vs += [
        Variant("gprof", [bins["pg"]] + full, files=[os.path.join(rundir, "gmon.out")],
                dummy="dummy"),
    ]
    uft = lambda tag: ["uftrace", "record", "-d", os.path.join(rundir, tag), bins["instr"]]
    cg = lambda tag: ["valgrind", "--tool=callgrind",
                      "--callgrind-out-file=" + os.path.join(rundir, tag), bins["bare"]]
    for suffix, args in (("-small", small), ("-0", empty)):
        tag = "" if suffix == "-small" else "-0"
        vs += [
            Variant("bare" + suffix, [bins["bare"]] + args, small=True, base="bare-small"),
            Variant("uftrace" + tag, uft("uftrace%s.data" % tag) + args, small=True,
                    files=[os.path.join(rundir, "uftrace%s.data" % tag)], dummy="dummy"),
            Variant("callgrind" + tag, cg("callgrind%s.out" % tag) + args, small=True,
                    files=[os.path.join(rundir, "callgrind%s.out" % tag)], dummy="dummy"),
        ]
    return vs, full, small


def bench_workload(name, bins, units, so, small_units=None, objdump=None, note=""):
    rundir = os.path.join(RUNS, name)
    os.makedirs(rundir, exist_ok=True)
    small_units = small_units if small_units is not None else max(1, units // SMALL)
    vs, full, small = workload_variants(name, bins, units, so, rundir, small_units, objdump)
    run_rounds(name, vs, rundir)
    st = analyse(vs)
    by = {v.name: v for v in vs}

    # The profiler's own counts, from the last round's profiles.
    info, err = ccprof_json(["info", "--json", by["cpu"].files[0]])
    cinfo, cerr = ccprof_json(["info", "--json", by["cycles"].files[0]])
    crep, crerr = ccprof_json(["report", "--json", by["cycles"].files[0]])
    prep, prerr = ccprof_json(["report", "--json", by["cpu"].files[0]])
    calls = info["calls"] if info else None
    # Calls at the small size: one more ccprof run.
    sprof = os.path.join(rundir, "small.ccprof")
    sv = Variant("cpu-small", [bins["instr"]] + small,
                 {"LD_PRELOAD": LIBSO, "CCPROF_OPTIONS": "output=" + sprof}, files=[sprof])
    run_once(sv, rundir)
    sinfo, _ = ccprof_json(["info", "--json", sprof])
    calls_small = sinfo["calls"] if sinfo else None

    for v in vs:  # uftrace.data is large; its size is already taken
        if v.name.startswith("uftrace"):
            for f in v.files:
                clean(f)
    order = [v.name for v in vs]
    res = {
        "name": name, "note": note, "full_args": " ".join(full), "small_args": " ".join(small),
        "stats": st, "calls": calls, "calls_small": calls_small,
        "program_calls": program_calls(by["bare"].stderr),
        "program_calls_small": program_calls(by["bare-small"].stderr),
        "info_cpu": info, "info_error": err, "info_cycles": cinfo,
        "cycles_total_s": crep.get("total_time_s") if crep else None,
        "cycles_report_error": crerr,
        "cpu_total_s": prep.get("total_time_s") if prep else None,
        "cpu_report_error": prerr,
        "threads": info.get("threads") if info else None,
        "order": order,
    }
    finalize(st, calls, calls_small, {v.name: v.dummy for v in vs if v.dummy})
    res["table"] = workload_table(st, calls, calls_small, order)
    return res


def compiler_section(name, src, lang, units, so):
    bins = compiler_bins(name, src, lang)
    rundir = os.path.join(RUNS, "cc-" + name)
    os.makedirs(rundir, exist_ok=True)
    arg = [str(units)]
    vs = []
    pre = {"LD_PRELOAD": so}
    ccp = lambda tag: {"LD_PRELOAD": LIBSO,
                       "CCPROF_OPTIONS": "output=" + os.path.join(rundir, tag + ".ccprof")}
    for comp in ("gcc", "clang"):
        vs.append(Variant(comp + "-bare", [bins[comp + "-bare"]] + arg, base=comp + "-bare"))
        base = comp + "-bare"
        kinds = [comp + "-instr"] + (["clang-after-inl"] if comp == "clang" else []) + \
                (["gcc-excl"] if comp == "gcc" and "gcc-excl" in bins else [])
        for k in kinds:
            vs.append(Variant(k + " dummy", [bins[k]] + arg, pre, base=base))
            vs.append(Variant(k + " cpu", [bins[k]] + arg, ccp(k), base=base,
                              dummy=k + " dummy",
                              files=[os.path.join(rundir, k + ".ccprof")]))
    vs.insert(3, Variant("gcc -pg (gprof)", [bins["gcc-pg"]] + arg, base="gcc-bare",
                         dummy="gcc-instr dummy", files=[os.path.join(rundir, "gmon.out")]))
    run_rounds("compilers/" + name, vs, rundir)
    st = analyse(vs)
    for v in vs:
        d = st.get(v.dummy) if v.dummy else None
        if d and d["ratio"] > 1:
            st[v.name]["R"] = (st[v.name]["ratio"] - 1) / (d["ratio"] - 1)
    rows = []
    for v in vs:
        s = st[v.name]
        calls = None
        if v.files and v.files[0].endswith(".ccprof"):
            info, _ = ccprof_json(["info", "--json", v.files[0]])
            calls = info["calls"] if info else None
            s["calls"] = calls
            s["contexts"] = info["contexts"] if info else None
        base_t = st[v.base]["median"]
        ns = "%.1f" % ((s["ratio"] - 1) * base_t / calls * 1e9) if calls else "-"
        rows.append([v.name, fmt_s(s["median"]), "%s–%s" % (fmt_s(s["min"]), fmt_s(s["max"])),
                     fmt_s(s["cpu"]), "%.2f" % s["ratio"], "%.2f" % s["R"] if "R" in s else "-",
                     "{:,}".format(calls) if calls else "-", ns,
                     "{:,}".format(s["contexts"]) if s.get("contexts") else "-"])
    hdr = ["variant", "median s", "min–max s", "CPU s", "× own bare", "R", "calls", "ns/call",
           "contexts"]
    return {"name": name, "units": units, "stats": st, "table": table(hdr, rows)}


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


# ---- objdump ----------------------------------------------------------------


def objdump_setup():
    """Build (cached) the three objdumps; returns (bins, full args, small args) or None."""
    want = env_flag("BENCH_OBJDUMP", "1")
    o = lambda v: os.path.join(WORK, "objdump-%s" % v, "binutils", "objdump")
    done = lambda v: os.path.exists(os.path.join(WORK, "objdump-%s" % v, ".done"))
    if not all(done(v) for v in ("bare", "instr", "pg")):
        if QUICK and not env_flag("BENCH_OBJDUMP", "0"):
            log("bench: objdump not built yet; skipped in quick mode (BENCH_OBJDUMP=1 builds it)")
            return None
        if not want:
            return None
        for v in ("bare", "instr", "pg"):
            log("bench: building objdump (%s), cached in bench/.work (several minutes)" % v)
            r = subprocess.run(["sh", os.path.join(BENCH, "build-objdump.sh"), v])
            if r.returncode != 0:
                log("bench: objdump build failed (see bench/.work/objdump-%s/*.log); skipped" % v)
                return None
    elif not want:
        return None
    bins = {"bare": o("bare"), "instr": o("instr"), "pg": o("pg")}
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
        "clang": first_line([CLANG, "--version"]),
        "uftrace": first_line(["uftrace", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "ccprof": first_line([CCPROF, "--version"]),
        "git": first_line(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
    }


# ---- checks ---------------------------------------------------------------------


def checks(results, rep):
    lines = []

    def check(ok, text):
        lines.append("%s  %s" % ("PASS" if ok else "MISS", text))

    for w in results:
        st, n = w["stats"], w["name"]
        cpu = st["cpu"]
        if "R" in cpu:
            check(cpu["R"] <= 1.5, "%s: clock=cpu R = %.2f (goal <= 1.5)" % (n, cpu["R"]))
        check(cpu["median"] < st["gprof"]["median"],
              "%s: clock=cpu %.3f s < gprof %.3f s" % (n, cpu["median"], st["gprof"]["median"]))
        oc = cpu["ratio"] - 1
        for tool, k in (("uftrace", 10), ("callgrind", 20)):
            ot = st[tool]["ratio"] - 1
            f = ot / oc if oc > 0 else float("inf")
            check(f >= k, "%s: %s overhead / ccprof cpu overhead = %.1fx (goal >= %dx)"
                  % (n, tool, f, k))
        ct = w.get("cycles_total_s")
        if ct is not None:
            multi = (w.get("threads") or 1) > 1
            ref = st["bare"]["cpu"] if multi else st["bare"]["median"]
            dev = (ct - ref) / ref * 100
            check(abs(dev) <= 5, "%s: clock=cycles charged %.3f s vs bare %s %.3f s: %+.1f %% "
                  "(goal within 5 %%)" % (n, ct, "CPU (user+sys)" if multi else "wall", ref, dev))
        else:
            check(False, "%s: clock=cycles total: no report (%s)" % (n, w.get("cycles_report_error")))
        calls, info = w["calls"], w["info_cpu"]
        if calls and info:
            frac = info["transitions"] / calls * 100
            check(frac <= 0.1, "%s: transitions %d = %.4f %% of %d calls (goal <= 0.1 %%)"
                  % (n, info["transitions"], frac, calls))
        ps, gs = cpu["sizes"][0], st["gprof"]["sizes"][0]
        if ps is not None and gs is not None:
            check(ps <= gs, "%s: profile %s vs gmon.out %s" % (n, fmt_bytes(ps), fmt_bytes(gs)))
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


def describe(w):
    info, ci = w["info_cpu"] or {}, w["info_cycles"] or {}
    calls = w["calls"]
    out = []
    rel = lambda a: a.replace(ROOT + os.sep, "")
    out.append("full input: `%s`; small input (÷%d, rows marked *): `%s`"
               % (rel(w["full_args"]), SMALL, rel(w["small_args"])))
    pc = w.get("program_calls")
    agree = ""
    if pc is not None and calls is not None:
        agree = " (the program counts %s: %s)" % (fmt_count(pc), "same" if pc == calls else
                                                 "DIFFERENT")
    out.append("calls %s%s; contexts %s; transitions %s (%.4f %% of calls); threads %s; "
               "profiling memory %s; lost calls %s"
               % (fmt_count(calls), agree, fmt_count(info.get("contexts")),
                  fmt_count(info.get("transitions")),
                  100.0 * info.get("transitions", 0) / calls if calls else 0,
                  info.get("threads", "-"), fmt_bytes(info.get("memory_bytes")),
                  fmt_count(info.get("lost_calls"))))
    st = w["stats"]
    ct, pt = w.get("cycles_total_s"), w.get("cpu_total_s")
    out.append("time charged: clock=cycles %s s, clock=cpu %s s; bare run: wall %.3f s, CPU %.3f s;"
               " calibrated overhead (cycles) %s ns/call"
               % ("%.3f" % ct if ct is not None else "n/a (%s)" % w.get("cycles_report_error"),
                  "%.3f" % pt if pt is not None else "n/a",
                  st["bare"]["median"], st["bare"]["cpu"],
                  "%.1f" % ci["overhead_ns_per_call"] if "overhead_ns_per_call" in ci else "-"))
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
    t_start = time.time()
    mach = machine()
    so, dobj = build_support()

    results = []
    for name, src, lang, full, quick in WORKLOADS:
        if not selected(name):
            continue
        units = quick if QUICK else full
        bins = workload_bins(name, src, lang, dobj)
        results.append(bench_workload(name, bins, units, so))

    if selected("objdump"):
        od = objdump_setup()
        if od:
            results.append(bench_workload("objdump", od[0], 0, so, objdump=od,
                                          note="GNU objdump 2.40 built from binutils-source"))

    comp = []
    if selected("compilers"):
        for name, src, lang, full, quick in WORKLOADS:
            if name in COMPILER_WORKLOADS:
                workload_bins(name, src, lang, dobj)
                comp.append(compiler_section(name, src, lang, max(1, (quick if QUICK else full) // 2), so))

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
    out.append("")
    out.append("Variants: " + "; ".join("`%s` %s" % kv for kv in VARIANT_DOC.items()) + ".")
    out.append("× bare: median of per-round ratios to the bare run of the same round; "
               "R = (× variant − 1) / (× dummy − 1), the static variant against dummy-static; "
               "ns/call: (variant − bare) / calls, and (variant − its dummy) / calls; * = run on "
               "the small input, corrected for the tool's fixed start-up cost (measured on an "
               "empty input) and extrapolated to the full input's calls; CPU s: user + sys.")
    for w in results:
        out.append("")
        out.append("## %s%s" % (w["name"], " (%s)" % w["note"] if w["note"] else ""))
        out.append("")
        out.append(w["table"])
        out.append("")
        out.append(describe(w))
    if comp:
        out.append("")
        out.append("## gcc -finstrument-functions vs clang -finstrument-functions-after-inlining")
        out.append("")
        out.append("Each row's ratio is to the bare build of the same compiler; R against the "
                   "same build with the empty hooks.  gcc-excl: "
                   "-finstrument-functions-exclude-file-list=/usr/include/c++.")
        for c in comp:
            out.append("")
            out.append("### %s (units %d)" % (c["name"], c["units"]))
            out.append("")
            out.append(c["table"])
    if rep:
        out.append("")
        out.append("## ccprof report on a synthetic profile (%s contexts, %s)"
                   % (fmt_count(rep["contexts"]), fmt_bytes(rep["file_size"])))
        out.append("")
        out.append(rep["table"])
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
                   "compilers": comp, "report": rep, "checks": cl, "elapsed_s": elapsed},
                  f, indent=1, default=str)
    latest = os.path.join(RESULTS, "latest.md")
    clean(latest)
    os.symlink(os.path.basename(md), latest)
    log("bench: results in %s" % os.path.relpath(md, ROOT))


if __name__ == "__main__":
    main()
