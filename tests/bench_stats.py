"""bench/stats.py and bench/ab.py (t_bench_stats.sh).

The intervals' ranks are those of the published table of distribution-free
confidence intervals for the median (Conover, Practical Nonparametric
Statistics, table A3; any nonparametrics text has it: n = 10 gives the 2nd
and 9th values, n = 20 the 6th and 15th); the sign test's p-values are
binomial sums worked out by hand below."""
import os
import re
import sys

import ccp
from ccp import check, near, run

sys.path.insert(0, os.path.join(ccp.TOP, "bench"))
import stats  # noqa: E402

AB = os.path.join(ccp.TOP, "bench", "ab.py")
LIB = os.path.join(ccp.LIB, "libccprof.so")


def test_sign_test():
    near(stats.sign_test(0, 10), 2 / 1024, 1e-12, "sign test, 0 of 10: 2/2^10")
    near(stats.sign_test(10, 10), 2 / 1024, 1e-12, "sign test, 10 of 10: symmetric")
    # 2 * (C(20,0) + ... + C(20,5)) / 2^20 = 2 * 21700 / 1048576
    near(stats.sign_test(5, 20), 43400 / 1048576, 1e-12, "sign test, 5 of 20")
    near(stats.sign_test(3, 6), 1.0, 1e-12, "sign test, an even split is p = 1")
    near(stats.sign_test(0, 0), 1.0, 0, "sign test, no rounds that differ")


def test_ranks():
    check(stats.median_ci_ranks(10) == (2, 9), "95 %% interval of 10: ranks 2 and 9, %s" %
          (stats.median_ci_ranks(10),))
    check(stats.median_ci_ranks(20) == (6, 15), "95 %% interval of 20: ranks 6 and 15, %s" %
          (stats.median_ci_ranks(20),))
    check(stats.median_ci_ranks(6) == (1, 6), "95 %% interval of 6: the extremes, %s" %
          (stats.median_ci_ranks(6),))
    check(stats.median_ci_ranks(5) is None, "no 95 % interval from 5 rounds (at most 93.75 %)")
    # n = 20, ranks 6 and 15: 1 - 2 * P(X <= 5) = 1 - 43400 / 1048576
    near(1 - 2 * stats.binomial_cdf(5, 20), 0.958611, 1e-6, "coverage of ranks 6-15 of 20")


def test_compare():
    base = [1.0] * 10
    cand = [0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 1.05, 1.0]
    c = stats.compare(base, cand)
    check(c["n"] == 10 and c["faster"] == 8 and c["slower"] == 1,
          "compare: 8 faster, 1 slower, 1 tie of 10: %s" % c)
    near(c["median"], 0.945, 1e-12, "compare: median ratio")
    check(c["ci"] == (0.91, 1.0), "compare: interval from ranks 2 and 9: %s" % (c["ci"],))
    near(c["p"], stats.sign_test(1, 9), 1e-12, "compare: ties left out of the sign test")
    near(c["p"], 20 / 512, 1e-12, "compare: p = 2 * (1 + 9) / 2^9")
    c = stats.compare([0.0, 2.0], [1.0, 1.0])
    check(c["n"] == 1 and c["median"] == 0.5, "compare: a baseline time of 0 gives no ratio")
    line = stats.describe("new", "cur", stats.compare([1.0] * 4, [1.0] * 4))
    check("no CI with 4 rounds" in line, "describe: too few rounds for an interval: " + line)


def test_overhead_ratio():
    # Rounds of (bare, empty hooks, ccprof): R per round 0.5, 1, 1.5, 2,
    # 2.5, 3 and 4; the median is the 4th, the interval of 7 its extremes.
    bare = [1.0] * 7
    dummy = [1.2] * 7
    cand = [1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8]
    r = stats.overhead_ratio(bare, dummy, cand)
    near(r["median"], 2.0, 1e-9, "overhead_ratio: the median of the rounds' R")
    check(r["n"] == 7 and r["undefined"] == 0 and r["ci"] is not None and
          abs(r["ci"][0] - 0.5) < 1e-9 and abs(r["ci"][1] - 4.0) < 1e-9,
          "overhead_ratio: 7 rounds, interval 0.5-4: %s" % r)
    # Each round from its own times: a slow round slows all three alike.
    r = stats.overhead_ratio([1, 2, 1, 2, 1, 2], [2, 4, 2, 4, 2, 4], [3, 6, 3, 6, 3, 6])
    check(r["median"] == 2 and r["ci"] == (2, 2),
          "overhead_ratio: rounds twice as slow give the same R: %s" % r)
    # Empty hooks no slower than bare in a round: no R there, counted as
    # an infinite one, which the interval shows.
    r = stats.overhead_ratio([1.0] * 6, [1.2, 1.2, 1.2, 1.2, 1.2, 0.9], [1.3] * 6)
    check(r["undefined"] == 1 and r["ci"][1] == float("inf") and abs(r["median"] - 1.5) < 1e-9,
          "overhead_ratio: a round without R counts as infinite: %s" % r)
    check(stats.overhead_ratio([1.0] * 5, [1.2] * 5, [1.3] * 5)["ci"] is None,
          "overhead_ratio: no interval from 5 rounds")
    for bad in (([], [], []), ([1.0], [1.0, 2.0], [1.0])):
        try:
            stats.overhead_ratio(*bad)
            check(False, "overhead_ratio refuses lists %s" % (bad,))
        except ValueError:
            check(True, "overhead_ratio refuses lists %s" % (bad,))


def test_r_goal():
    """bench.py's goal line for R: by the interval where there is one."""
    import bench  # noqa: E402  (bench/ is on the path)
    got = []
    for cpu in ({"R": 1.3, "R_ci": (1.1, 1.45)}, {"R": 1.7, "R_ci": (1.55, 2.0)},
                {"R": 1.4, "R_ci": (1.2, 1.8)}, {"R": 1.4, "R_ci": None},
                {"R": 1.6, "R_ci": (1.2, float("inf"))}):
        lines = []
        bench.r_goal(cpu, "w", lambda ok, text: lines.append(("PASS " if ok else "MISS ") + text),
                     lines)
        got.append(lines[0].split()[0] if len(lines) == 1 else lines)
    check(got == ["PASS", "MISS", "OPEN", "PASS", "OPEN"],
          "bench R goal: met, missed, straddling, no interval, open to infinity: %s" % got)
    check(bench.fmt_R({"R": 1.234, "R_ci": (1.1, float("inf"))}) == "1.23 (1.10–∞)",
          "bench R with its interval: %s" % bench.fmt_R({"R": 1.234, "R_ci": (1.1, float("inf"))}))


def test_ab():
    true = "/bin/true"
    r = run([sys.executable, AB, "-n", "6", true, true, "", "cur=" + LIB, "new=" + LIB])
    check(r.returncode == 0, "ab.py runs two runtimes: " + r.stderr.strip())
    lines = r.stdout.splitlines()
    check([ln.split()[0] for ln in lines[:3]] == ["bare", "cur", "new"],
          "ab.py: a line per variant: %s" % lines[:3])
    cmp = [ln for ln in lines if ln.startswith("new") and "/ cur" in ln]
    check(len(cmp) == 1 and "95 % CI" in cmp[0] and "of 6 rounds" in cmp[0] and "p = " in cmp[0],
          "ab.py: new against cur, interval and sign test: %s" % cmp)
    r = run([sys.executable, AB, "-n", "6", true, true, "", "dummy=" + LIB, "cur=" + LIB])
    cur = [ln for ln in r.stdout.splitlines() if ln.startswith("cur")]
    check(r.returncode == 0 and len(cur) == 1 and re.search(r"  R (inf|-?[0-9.]+) \(95 % CI ", cur[0]),
          "ab.py with dummy: R and its interval: %s %s" % (cur, r.stderr.strip()))
    r = run([sys.executable, AB, "-n", "2", "--vs", "new", true, true, "", "cur=" + LIB,
             "new=" + LIB])
    check(any(ln.startswith("cur") and "/ new" in ln for ln in r.stdout.splitlines()),
          "ab.py --vs new: cur against new")
    r = run([sys.executable, AB, "-n", "2", "--vs", "dummy", true, true, "", "cur=" + LIB])
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "--vs dummy" in r.stderr,
          "ab.py --vs with no such runtime: one line, status 1: " + r.stderr.strip())
    for bad in (["-n", "0"], ["-n", "x"], ["-n"], []):
        r = run([sys.executable, AB] + bad + [true])
        check(r.returncode == 2 and r.stderr.startswith("usage: ab.py"),
              "ab.py %s: usage, status 2" % " ".join(bad))


def test_round_order():
    """ab.py's rounds: over two laps each run takes each place once
    forwards and once backwards, and no run always follows the same one."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("ab", AB)
    ab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ab)
    runs = ["bare", "a", "b", "c"]
    orders = [ab.round_order(runs, r) for r in range(2 * len(runs))]
    places = {x: sorted(o.index(x) for o in orders) for x in runs}
    after = {x: {o[o.index(x) - 1] for o in orders if o.index(x) > 0} for x in runs}
    check(all(sorted(o) == sorted(runs) for o in orders) and
          all(p == [0, 0, 1, 1, 2, 2, 3, 3] for p in places.values()) and
          all(len(a) > 1 for a in after.values()),
          "ab.py: each run in each place twice in 8 rounds, after more than one other: %s %s"
          % (places, after))


def test_floors():
    """make bench's floors, preloaded like the runtime: hooks that push and
    pop a shadow stack (bench/floor_hooks.c, -DFLOOR_PUSH) really push,
    as deep as the program goes, and pop every entry (tests/progs/
    floordepth.c: main, then down(300) to down(0): 302 entries); the empty
    hooks with a helper thread (bench/helper_thread.c) give the process
    its second thread; the program's output is its bare output either
    way.  And the Goals' line that sets ccprof's R beside them."""
    import bench  # noqa: E402  (bench/ is on the path)
    prog = ccp.build("floordepth", "tests/progs/floordepth.c")
    libs = {}
    for key, srcs, flags in (("thread", ["dummy_hooks.c", "helper_thread.c"], []),
                             ("floor", ["floor_hooks.c"], ["-DFLOOR_PUSH"])):
        so = os.path.join(ccp.OUT, "floor_%s.so" % key)
        r = run([ccp.CC, "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared"] + flags +
                [os.path.join(ccp.TOP, "bench", f) for f in srcs] + ["-pthread", "-o", so])
        if not check(r.returncode == 0, "bench's floor %s builds without a warning: %s"
                     % (key, r.stderr.strip()[-300:])):
            return
        libs[key] = so
    bare = run([prog, "300"])
    check(bare.returncode == 0 and bare.stdout == "depth 300 threads 1\n",
          "floordepth bare: %r" % bare.stdout)
    r = run([prog, "300"], env=dict(os.environ, LD_PRELOAD=libs["floor"], FLOOR_REPORT="1"))
    check(r.returncode == 0 and r.stdout == bare.stdout and
          r.stderr.strip() == "floor: deepest 302 unmatched 0",
          "floor push: 302 entries deep, every exit matched, output as bare (%r, %r)"
          % (r.stdout, r.stderr.strip()))
    r = run([prog, "300"], env=dict(os.environ, LD_PRELOAD=libs["thread"]))
    check(r.returncode == 0 and r.stdout == "depth 300 threads 2\n",
          "empty hooks with a helper thread: the process has two threads (%r)" % r.stdout)
    w = {"name": "w", "stats": {"empty+thread": {"R": 1.5, "R_ci": (1.2, 1.9)},
                                "floor push": {"R": 1.4, "R_ci": None},
                                "cpu": {"R": 2.0, "R_ci": (1.8, 2.2)}}}
    got = bench.floor_line(w, bench.FAMILY["gcc"])
    check(got == "w [gcc]: floors: empty hooks with a POSIX thread asleep R 1.50 (1.20–1.90); a shadow "
          "stack pushed and popped, nothing else, R 1.40; ccprof clock=cpu R 2.00 (1.80–2.20)",
          "bench's floor line: %s" % got)
    del w["stats"]["floor push"]
    check(bench.floor_line(w, bench.FAMILY["gcc"]) is None, "no floor line without the floors")


def test_layouts():
    """make bench's layouts: a padding object moves all the program's
    .text (its functions and the hooks linked in) by its size; a
    variant's rounds take its layouts in turn; the linking line gives
    the static median with its range over the layouts."""
    import bench  # noqa: E402  (bench/ is on the path)
    saved = bench.BIN
    bench.BIN = ccp.OUT  # not bench/.work
    try:
        src = os.path.join(ccp.TOP, "bench", "workloads", "recurse.c")
        obj = os.path.join(ccp.OUT, "layout_recurse.o")
        r = run([ccp.CC, "-O2", "-finstrument-functions", "-c", src, "-o", obj])
        if not check(r.returncode == 0, "layouts: recurse.c compiles: " + r.stderr.strip()):
            return
        addr = {}
        for pad in (0, 16, 512):
            exe = os.path.join(ccp.OUT, "layout_recurse_%d" % pad)
            r = run([ccp.CC, "-O2", bench.pad_object(pad), obj,
                     os.path.join(ccp.LIB, "libccprof.a"), "-pthread", "-o", exe])
            if not check(r.returncode == 0, "layouts: linked behind %d bytes: %s"
                         % (pad, r.stderr.strip())):
                return
            syms = {f[2]: int(f[0], 16) for f in
                    (ln.split() for ln in run(["nm", exe]).stdout.splitlines()) if len(f) == 3}
            addr[pad] = syms
        moved = {pad: {name: addr[pad][name] - addr[0][name]
                       for name in ("fib", "__cyg_profile_func_enter")}
                 for pad in (16, 512)}
        check(moved[16]["fib"] == 16 and moved[512]["fib"] == 512 and
              moved[512]["__cyg_profile_func_enter"] == 512 and
              moved[16]["__cyg_profile_func_enter"] in (0, 16, 64),
              "layouts: the program's code moves by the padding, the (64-aligned) hooks with "
              "it: %s" % moved)
    finally:
        bench.BIN = saved
    v = bench.Variant("cpu-static", ["a", "in"], layouts=["a", "b", "c"])
    seen = []
    for t in range(5):
        seen.append(bench.round_argv(v)[0])
        v.times.append(1.0 + t)
    check(seen == ["a", "b", "c", "a", "b"] and bench.round_argv(v)[1:] == ["in"],
          "layouts: rounds take the layouts in turn: %s" % seen)
    bare = bench.Variant("bare", ["bare"])
    bare.times = [1.0] * 5
    stats = bench.analyse([bare, v])["cpu-static"]
    check((stats["ratio"], stats["ratio_min"], stats["ratio_max"], stats["layouts"]) ==
          (3.0, 1.0, 5.0, 3), "layouts: the ratio's median and range over them: %s" % stats)
    w = {"name": "w", "stats": {"cpu": {"ratio": 2.0}, "dummy": {"ratio": 1.5},
                                "dummy-static": {"ratio": 1.4}, "cpu-static": stats}}
    got = bench.linking(w)
    check(got == (False, "w [gcc]: linking: preloaded faster: clock=cpu 3.00× bare static "
                  "(1.00–5.00 over 3 layouts) vs 2.00× preloaded (+50 %); empty hooks 1.40× "
                  "static vs 1.50× preloaded"), "layouts: the linking line: %s" % (got,))


def test_fresh_copies():
    """Each run's program and preloaded library are fresh copies, in
    ab.py and in make bench (Note [Where a file's pages lie] in
    bench/bench.py): distinct files, the originals' bytes, executable,
    gone once the comparison is done; the originals themselves with
    --fixed or BENCH_FRESH=0."""
    log = os.path.join(ccp.OUT, "fresh.log")
    prog = os.path.join(ccp.OUT, "fresh.sh")
    with open(prog, "w") as f:
        f.write('#!/bin/sh\necho "$0 $LD_PRELOAD" >> %s\n' % log)
    os.chmod(prog, 0o755)
    for flags, fresh in (([], True), (["--fixed"], False)):
        if os.path.exists(log):
            os.unlink(log)
        r = run([sys.executable, AB, "-n", "3"] + flags + [prog, prog, "", "cur=" + LIB])
        with open(log) as f:
            seen = [ln.split() for ln in f.read().splitlines()]
        progs = [w[0] for w in seen]
        libs = [w[1] for w in seen if len(w) > 1]
        if fresh:
            ok = (len(progs) == 6 and len(set(progs)) == 6 and prog not in progs and
                  len(libs) == 3 and len(set(libs)) == 3 and LIB not in libs and
                  not any(os.path.exists(p) for p in progs + libs))
        else:
            ok = progs == [prog] * 6 and libs == [os.path.abspath(LIB)] * 3
        check(r.returncode == 0 and ok, "ab.py %s: %s (%s)" % (
            " ".join(flags) or "(fresh)", "six runs, six fresh copies of the program and three "
            "of the library, gone after" if fresh else "the files themselves", seen))
    import bench  # noqa: E402  (bench/ is on the path)
    saved = bench.WORK, bench.FRESH
    bench.WORK = ccp.OUT
    try:
        c = bench.workload_copies("test")
        v = bench.Variant("cpu", [prog, "in"], {"LD_PRELOAD": LIB, "CCPROF_OPTIONS": "x"})
        got = [bench.fresh_command(v, c) for _ in range(2)]
        files = [a[0] for a, _ in got] + [e["LD_PRELOAD"] for _, e in got]
        same = all(open(x, "rb").read() == open(y, "rb").read() for x, y in
                   zip(files, [prog, prog, LIB, LIB]))
        tool = bench.fresh_command(bench.Variant("cg", ["valgrind", prog]), c)[0]
        check(len(set(files)) == 4 and prog not in files and LIB not in files and same and
              all(os.access(x, os.X_OK) for x in files[:2]) and
              [a[1:] for a, _ in got] == [["in"], ["in"]] and got[0][1]["CCPROF_OPTIONS"] == "x" and
              tool == ["valgrind", prog],
              "make bench: each run a fresh copy of its program and LD_PRELOAD, the tools' "
              "commands as they are (%s, %s)" % (files, tool))
        c.close()
        check(not any(os.path.exists(x) for x in files), "make bench: the copies gone after")
        bench.FRESH = False
        c = bench.workload_copies("test")
        check(bench.fresh_command(v, c) == ([prog, "in"], v.env),
              "make bench with BENCH_FRESH=0: the files themselves")
        c.close()
    finally:
        bench.WORK, bench.FRESH = saved


test_sign_test()
test_ranks()
test_compare()
test_overhead_ratio()
test_r_goal()
test_ab()
test_round_order()
test_floors()
test_layouts()
test_fresh_copies()
ccp.finish()
