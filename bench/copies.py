"""bench/copies.py - fresh copies of the files a benchmark runs, for
bench/ab.py and make bench (bench/bench.py).

Note [Where a file's pages lie]: byte-identical copies of libccprof.so,
each preloaded under a label of its own in one alternating run, took
0.515, 0.638 and 0.640 s on gcc's tiny, and after the page cache was
dropped their order changed; fresh copies of one static tiny took
0.69-1.06 s.  Where a file's pages lie in memory moves a call-heavy
run's time by itself, so a variant whose file lay well or badly kept
that luck for every round: session 50's "64-byte layout" of tiny, 43
times bare against 28 in a full run, was as fast as the other layouts
in fresh copies.  So each run executes copies of its program and its
preloaded library made for it, each written anew onto pages of its own
(the earlier copies are kept until the comparison is done, so that a
copy does not take the pages the one before it just left), and the luck
becomes noise that the medians over rounds absorb (docs/performance.md,
session 51).
"""
import os
import shutil


class Copies:
    """Copies of files in directory (made here, removed by close), one a
    call of `of`; with fresh false, the files themselves."""

    def __init__(self, directory, fresh=True):
        os.makedirs(directory, exist_ok=True)
        self.dir = directory
        self.fresh = fresh
        self.n = 0

    def of(self, path):
        """A fresh copy of path, executable as it is, or path itself:
        not fresh, or not an absolute path to a file (a command such as
        uftrace or valgrind, found through PATH)."""
        if not self.fresh or not os.path.isabs(path) or not os.path.isfile(path):
            return path
        self.n += 1
        dst = os.path.join(self.dir, "%d-%s" % (self.n, os.path.basename(path)))
        shutil.copyfile(path, dst)
        shutil.copymode(path, dst)
        return dst

    def close(self):
        shutil.rmtree(self.dir)
