#!/usr/bin/env python3
"""bench/ab.py - compare builds of the runtime side by side on one workload.

    python3 bench/ab.py [-n ROUNDS] BARE INSTR 'ARGS' LABEL=LIB.so ...

Runs BARE (the uninstrumented build) and INSTR (the -finstrument-functions
build) with each LIB preloaded, in turn, ROUNDS times (default 9), and
prints for each label the median CPU time (user + sys), the median over
rounds of its ratio to the same round's bare run, and R against the label
`dummy` (the empty hooks, bench/.work/bin/dummy_hooks.so) when one is
given.  Labels other than `dummy` get CCPROF_OPTIONS=output=<a scratch
file> so that nothing lands in the working directory.

This is the tool for deciding whether a change to the hot path helps: build
the candidate into its own directory (make BUILD=/tmp/cand
/tmp/cand/lib/libccprof.so) and compare it with the current library in one
run.  On a 2-core shared VM a difference in R below about 0.1 is not
resolved by 7 rounds (docs/performance.md, "Hot-path experiments").
"""
import os
import statistics
import subprocess
import sys
import tempfile


def usage():
    sys.stderr.write("usage: ab.py [-n ROUNDS] BARE INSTR 'ARGS' LABEL=LIB.so ...\n")
    sys.exit(2)


def cpu_seconds(argv, env):
    """User + system CPU time of one run, from the child's rusage."""
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("ab.py: %s exited with status %d" % (" ".join(argv), status))
    return ru.ru_utime + ru.ru_stime


def main(argv):
    rounds = 9
    if len(argv) > 1 and argv[0] == "-n":
        rounds = int(argv[1])
        argv = argv[2:]
    if len(argv) < 4 or not all("=" in a for a in argv[3:]):
        usage()
    bare, instr, args = argv[0], argv[1], argv[2].split()
    variants = [a.split("=", 1) for a in argv[3:]]
    scratch = tempfile.mkdtemp(prefix="ccprof-ab-")
    times = {label: [] for label in ["bare"] + [v[0] for v in variants]}
    for _ in range(rounds):
        times["bare"].append(cpu_seconds([bare] + args, dict(os.environ)))
        for label, lib in variants:
            env = dict(os.environ, LD_PRELOAD=os.path.abspath(lib))
            if label != "dummy":
                env["CCPROF_OPTIONS"] = "output=" + os.path.join(scratch, label + ".ccprof")
            times[label].append(cpu_seconds([instr] + args, env))
    base = times["bare"]
    for label, ts in times.items():
        ratio = statistics.median(t / b for t, b in zip(ts, base))
        line = "%-12s median %.3f s  (%.3f-%.3f)  x bare %.3f" % (
            label, statistics.median(ts), min(ts), max(ts), ratio)
        if "dummy" in times and label not in ("bare", "dummy"):
            rs = [(t - b) / (d - b) for t, b, d in zip(ts, base, times["dummy"]) if d > b]
            if rs:
                line += "  R %.3f" % statistics.median(rs)
        print(line)
    for f in os.listdir(scratch):
        os.unlink(os.path.join(scratch, f))
    os.rmdir(scratch)


if __name__ == "__main__":
    main(sys.argv[1:])
