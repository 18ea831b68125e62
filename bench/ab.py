#!/usr/bin/env python3
"""bench/ab.py - compare builds of the runtime side by side on one workload.

    python3 bench/ab.py [-n ROUNDS] [--wall] [--fixed] [--vs LABEL] BARE INSTR 'ARGS' LABEL=LIB.so[+OPTIONS] ...

Runs BARE (the uninstrumented build) and INSTR (the -finstrument-functions
build) with each LIB preloaded, in turn, ROUNDS times (default 9), every
other round in the reverse order, and prints for each label the median
CPU time (user + sys; elapsed time with --wall, which is what `make bench`
compares), the median over rounds of its ratio to the same round's bare
run, and R against the label `dummy` (the empty hooks,
bench/.work/bin/dummy_hooks.so) when one is given, with its 95 %
interval (from 6 rounds on, as make bench gives it).  Then each other
runtime against the baseline (--vs, else the first label that is not
`dummy`): the median per-round ratio of their times with its 95 %
confidence interval, the rounds it was faster in, and the sign test's p
(bench/stats.py).  Labels other than `dummy` get CCPROF_OPTIONS=output=<a scratch
file> so that nothing lands in the working directory, followed by OPTIONS
when given (`cur=build/lib/libccprof.so+interval=10ms` runs the same
library with a longer sampling interval).

Each run executes fresh copies of its program and its library, made for
it and kept to the end, so that their code sits on pages of memory of its
own (--fixed: the files themselves, as before session 51).  Where a
file's pages lie in physical memory changed a run's time by itself:
byte-identical copies of libccprof.so, each run as its own label, took
0.515, 0.638 and 0.640 s on gcc's tiny, and their order changed after
the page cache was dropped (docs/performance.md, session 51).  A label
whose file happened to lie well or badly kept that luck for the whole
comparison; fresh copies make it noise the rounds average out.

This is the tool for deciding whether a change to the hot path helps: build
the candidate into its own directory (make BUILD=/tmp/cand
/tmp/cand/lib/libccprof.so) and compare it with the current library in one
run.  On a 2-core shared VM a difference in R below about 0.1 is not
resolved by 7 rounds (docs/performance.md, "Hot-path experiments"), and
one of 2-3 % takes 150 rounds or more (session 31): read the interval,
not the median alone.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402 (bench/stats.py, beside this file)
from copies import Copies  # noqa: E402 (Note [Where a file's pages lie])


def usage():
    sys.stderr.write("usage: ab.py [-n ROUNDS] [--wall] [--fixed] [--vs LABEL] BARE INSTR 'ARGS' "
                     "LABEL=LIB.so[+OPTIONS] ...\n")
    sys.exit(2)


WALL = False
FRESH = True


def seconds(argv, env):
    """User + system CPU time of one run, from the child's rusage, or its
    elapsed time with --wall."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("ab.py: %s exited with status %d" % (" ".join(argv), status))
    return wall if WALL else ru.ru_utime + ru.ru_stime


def round_order(runs, r):
    """The runs of round r: rotated by r, and backwards every other lap.
    A variant that always ran after another would share its drift (a
    warm cache, a neighbour's load), and one that always ran in the same
    place showed it: bare, A, B, C forwards and backwards kept B in the
    middle, and an A/A run (the same library under two labels, SQLite)
    found the middle one 2.3 % slower, p = 0.004 (docs/performance.md,
    session 47).  Rotated, each takes each place in turn."""
    n = len(runs)
    order = runs[r % n:] + runs[:r % n]
    return order[::-1] if (r // n) % 2 else order


def main(argv):
    global WALL, FRESH
    rounds, vs = 9, None
    while argv and argv[0] in ("-n", "--wall", "--vs", "--fixed"):
        if argv[0] in ("--wall", "--fixed"):
            WALL = WALL or argv[0] == "--wall"
            FRESH = FRESH and argv[0] != "--fixed"
            argv = argv[1:]
        elif len(argv) > 1 and argv[0] == "--vs":
            vs = argv[1]
            argv = argv[2:]
        elif len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 0:
            rounds = int(argv[1])
            argv = argv[2:]
        else:
            usage()
    if len(argv) < 4 or not all("=" in a for a in argv[3:]):
        usage()
    bare, instr, args = argv[0], argv[1], argv[2].split()
    variants = [a.split("=", 1) for a in argv[3:]]
    variants = [(label, spec.split("+", 1)[0], spec.partition("+")[2]) for label, spec in variants]
    scratch = tempfile.mkdtemp(prefix="ccprof-ab-")
    times = {label: [] for label in ["bare"] + [v[0] for v in variants]}
    if len(times) != len(variants) + 1:
        sys.exit("ab.py: each label once, and not 'bare'")
    runtimes = [v[0] for v in variants if v[0] != "dummy"]
    if vs is None and runtimes:
        vs = runtimes[0]
    if vs is not None and vs not in runtimes:
        sys.exit("ab.py: --vs %s: no such label (other than dummy)" % vs)
    runs = [("bare", None, "")] + variants
    copies = Copies(os.path.join(scratch, "copies"), FRESH)
    for r in range(rounds):
        for label, lib, options in round_order(runs, r):
            if lib is None:
                times["bare"].append(seconds([copies.of(os.path.abspath(bare))] + args,
                                             dict(os.environ)))
                continue
            env = dict(os.environ, LD_PRELOAD=copies.of(os.path.abspath(lib)))
            if label != "dummy":
                env["CCPROF_OPTIONS"] = "output=" + os.path.join(scratch, label + ".ccprof")
                if options:
                    env["CCPROF_OPTIONS"] += ":" + options
            times[label].append(seconds([copies.of(os.path.abspath(instr))] + args, env))
    copies.close()
    base = times["bare"]
    for label, ts in times.items():
        ratios = [t / b for t, b in zip(ts, base) if b > 0]  # a time of 0: no ratio
        line = "%-12s median %.3f s  (%.3f-%.3f)  x bare %s" % (
            label, statistics.median(ts), min(ts), max(ts),
            "%.3f" % statistics.median(ratios) if ratios else "-")
        if "dummy" in times and label not in ("bare", "dummy"):
            # make bench's R (stats.overhead_ratio): a round where the
            # empty hooks took no longer than bare counts as infinite.
            r = stats.overhead_ratio(base, times["dummy"], ts)
            line += "  R %.3f" % r["median"]
            if r["ci"]:
                line += " (95 %% CI %.3f-%.3f)" % r["ci"]
        print(line)
    for label in runtimes:
        if label == vs:
            continue
        try:
            print(stats.describe(label, vs, stats.compare(times[vs], times[label])))
        except ValueError as e:
            print("%-12s / %-12s %s" % (label, vs, e))
    for f in os.listdir(scratch):
        os.unlink(os.path.join(scratch, f))
    os.rmdir(scratch)


if __name__ == "__main__":
    main(sys.argv[1:])
