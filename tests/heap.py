"""Heap profiling (docs/heap.md): `ccprof record --heap`, heap=1 in
libccprof-alloc.so, against the live heap tests/progs/heapuse.c keeps
account of itself, valgrind memcheck's "in use at exit" and massif's peak
of the same program unprofiled.  The profile is read by tests/heapdump.c,
through the format library alone, so these checks do not depend on the
tool's views."""
import json
import os
import re
import shutil
import subprocess
from ccp import *

SRC = "tests/progs/heapuse.c"


def heapdump(profile):
    """(summary, contexts, samples) of a profile's heap part, or None."""
    r = run([format_tool("heapdump"), profile])
    if r.returncode != 0:
        return None
    summary, ctxs, samples = {}, [], []
    for line in r.stdout.splitlines():
        head, _, hist = line.partition(" : ")
        f = head.split()
        names = re.findall(r"\[?([^\s\]]+)\]?", hist)
        if f[0] == "heap":
            summary = dict(zip(("interval", "peak", "outside_bytes", "outside_blocks",
                                "samples"), map(int, f[1:])))
        elif f[0] == "ctx":
            ctxs.append({"thread": int(f[1]), "alloc": (int(f[2]), int(f[3])),
                         "live": (int(f[4]), int(f[5])), "names": names})
        elif f[0] == "sample":
            samples.append({"time": int(f[1]), "outside": int(f[2]), "total": int(f[3]),
                            "recs": []})
        elif f[0] == "rec":
            samples[-1]["recs"].append((int(f[1]), int(f[2]), names))
    return summary, ctxs, samples


def own(stderr, what="live", prefix=""):
    """The program's own "live F BYTES BLOCKS" (or "peak") lines."""
    pat = r"^%s%s (\S+) (\d+) (\d+)$" % (re.escape(prefix), what)
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(pat, stderr, re.M)}


def live_under(ctxs, name):
    """Live bytes and blocks of the contexts whose history has `name`:
    its inherited live heap."""
    b = sum(c["live"][0] for c in ctxs if name in c["names"])
    n = sum(c["live"][1] for c in ctxs if name in c["names"])
    return b, n


def record_heap(mode, profile=None, extra=(), env=None, args=()):
    prog = build("heapuse", SRC)
    profile = profile or os.path.join(OUT, "heapuse_%s.ccprof" % mode)
    e = dict(os.environ)
    e.update(env or {})
    r = run([CCPROF, "record", "--heap", "-o", profile] + list(extra) + ["--", prog, mode] +
            list(args), env=e)
    return prog, r, profile


def exact_live():
    """Each function's live heap at the end, and the peak, are what the
    program counted itself: held and partly freed, leaked, reallocated
    (each realloc a new block, the old one gone), a failed realloc (the
    block stays, its owner's), churn that frees everything, the aligned
    allocators, a one-megabyte spike."""
    prog, r, prof = record_heap("plain")
    bare = run([prog, "plain"])
    check(r.returncode == bare.returncode == 0 and own(r.stderr) == own(bare.stderr),
          "--heap: same exit status and own lines as the bare run")
    d = heapdump(prof)
    if not check(d is not None, "--heap: the profile has a heap part"):
        return
    summary, ctxs, samples = d
    want = own(bare.stderr)
    for name in ("hold", "release", "leak", "resize", "refuse", "churn", "aligned", "spike"):
        check(live_under(ctxs, name) == want[name],
              "%s: live at the end %s == the program's own %s"
              % (name, live_under(ctxs, name), want[name]))
    peak = own(bare.stderr, "peak")["main"][0]
    check(summary["peak"] == peak, "peak %d == the program's own %d" % (summary["peak"], peak))
    # The peak lasted one malloc/free pair, between two samples: the free
    # took its picture (Note [The peak's picture] in heap.c).
    largest = max(samples, key=lambda s: s["total"]) if samples else None
    held = {}
    for _, b, names in (largest["recs"] if largest else []):
        for name in set(names):
            held[name] = held.get(name, 0) + b
    check(largest is not None and largest["total"] == peak and
          [held.get(f, 0) for f in ("spike", "hold", "leak", "resize", "aligned")] ==
          [1 << 20, 4000, 999, 200, 336],
          "the largest sample is the peak's picture: %s bytes, spike's megabyte in it (%s)"
          % (largest and largest["total"], held))
    check(summary["interval"] == 10000000, "default heap interval 10 ms")
    for c in ctxs:
        if not check(c["live"][0] <= c["alloc"][0] and c["live"][1] <= c["alloc"][1],
                     "live within allocated in %s" % " ".join(c["names"])):
            break
    # The allocation counts are those of --alloc alone: following the
    # heap changes nothing else.
    ra = run([CCPROF, "record", "--alloc", "-o", os.path.join(OUT, "heapuse_alloc.ccprof"),
              "--", prog, "plain"])
    rep = report(os.path.join(OUT, "heapuse_alloc.ccprof"))
    total = sum(c["alloc"][0] for c in ctxs), sum(c["alloc"][1] for c in ctxs)
    check(ra.returncode == 0 and (rep["alloc"]["bytes"], rep["alloc"]["blocks"]) == total,
          "allocated %s, as --alloc alone counts" % (total,))


def against_valgrind():
    """The live heap at the end equals memcheck's "in use at exit", and
    the peak massif's, for the same program built without
    instrumentation."""
    if shutil.which("valgrind") is None:
        print("# SKIP valgrind not installed (package valgrind): memcheck and massif comparisons not run")
        return
    bare = build("heapuse_bare", SRC, instrument=False)
    _, r, prof = record_heap("plain", os.path.join(OUT, "heapuse_vg.ccprof"))
    d = heapdump(prof)
    mc = run(["valgrind", bare, "plain"])
    m = re.search(r"in use at exit: ([\d,]+) bytes in ([\d,]+) blocks", mc.stderr)
    if not check(d is not None and m is not None, "memcheck and record ran"):
        return
    summary, ctxs, _ = d
    live = (sum(c["live"][0] for c in ctxs) + summary["outside_bytes"],
            sum(c["live"][1] for c in ctxs) + summary["outside_blocks"])
    want = (int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")))
    check(live == want, "live at the end %s == memcheck's in use at exit %s" % (live, want))
    out = os.path.join(OUT, "heapuse.massif")
    ms = run(["valgrind", "--tool=massif", "--heap-admin=0", "--peak-inaccuracy=0",
              "--massif-out-file=" + out, bare, "plain"])
    peaks = []
    if ms.returncode == 0 and os.path.exists(out):
        text = open(out).read()
        peaks = [int(x) for x in re.findall(r"mem_heap_B=(\d+)", text)]
    check(peaks and summary["peak"] == max(peaks),
          "peak %d == massif's largest snapshot %s" % (summary["peak"], max(peaks) if peaks else None))


def saw_tooth():
    """2,000 peaks in a row, each 64 bytes above the last (from 1.1 MB to
    1.23 MB): pictures only of peaks 1 % above the last pictured, so about
    ln(1.116) / ln(1.01) = 11 of them, and the largest within 1 % of the
    exact peak."""
    _, r, prof = record_heap("saw")
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "saw: record ran"):
        return
    summary, _, samples = d
    largest = max(s["total"] for s in samples)
    # About 11 pictures, and a timed sample each interval of the run (more
    # of them when a loaded machine stretches the run).
    most = 11 + 5 + samples[-1]["time"] // summary["interval"]
    want = own(r.stderr, "peak").get("main", (None,))[0]
    check(summary["peak"] == want,
          "saw: the exact peak %d, the program's own %s (its live heap and its last block)"
          % (summary["peak"], want))
    check(summary["peak"] / 1.01 <= largest <= summary["peak"] and 8 < len(samples) <= most,
          "saw: %d samples (at most %d), the largest %d within 1 %% of the peak"
          % (len(samples), most, largest))


def other_threads():
    """Blocks a worker allocated and main freed leave the worker's
    context: its live heap is what main did not free."""
    prog, r, prof = record_heap("threads")
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "threads: record ran"):
        return
    _, ctxs, _ = d
    want = own(r.stderr)["produce"]
    got = live_under(ctxs, "produce")
    check(got == want, "produce: %s live after main freed five, the program's own %s" % (got, want))
    check(all(c["thread"] == 1 for c in ctxs if "produce" in c["names"]),
          "produce's live heap is the worker thread's")
    check(live_under(ctxs, "consume") == (0, 0), "consume, which only frees, holds nothing")


def wide_contexts(clock):
    """A sample reads only the contexts that ever held a block (Note
    [Contexts a heap sample reads] in heap.c): tests/progs/heapwide.c makes
    16,383 contexts and holds blocks in 168, which first allocated in an
    order other than their making's (the records must still be in the
    file's order, or the reader refuses it), and in a thread that ended
    before another began, which may take its state and churns blocks.
    Every sample taken after that thread's end has every kept block, and
    the last one, the write's, holds exactly what the contexts hold at the
    end."""
    prog = build("heapwide", "tests/progs/heapwide.c", "-pthread")
    prof = os.path.join(OUT, "heapwide_%s.ccprof" % clock)
    r = run([CCPROF, "record", "--heap", "--heap-interval=5", "--clock=" + clock, "-o", prof,
             "--", prog, "14"])
    m = re.search(r"^blocks (\d+) bytes (\d+)$", r.stdout, re.M)
    d = heapdump(prof)
    if not check(r.returncode == 0 and m and d is not None,
                 "heapwide, clock=%s: record ran, the reader took the profile (%s)"
                 % (clock, r.stderr.strip()[-200:])):
        return
    summary, ctxs, samples = d
    held = sorted((c["thread"], c["live"][0], tuple(c["names"])) for c in ctxs if c["live"][0])
    kept = [h[1] for h in held if "keep" in h[2]]  # the others: libc's (stdout, threads)
    check((len(kept), sum(kept)) == (int(m.group(1)), int(m.group(2))),
          "heapwide, clock=%s: %d contexts in keep() hold %d bytes, as the program kept %s"
          % (clock, len(kept), sum(kept), m.groups()))
    last = sorted((t, b, tuple(n)) for t, b, n in samples[-1]["recs"]) if samples else None
    check(last == held, "heapwide, clock=%s: the last sample's %d records are the %d contexts "
          "holding heap" % (clock, len(last or ()), len(held)))
    ended = [h for h in held if "held_by_ended" in h[2]]
    check(len(ended) == 1 and ended[0][1] == 12345, "heapwide, clock=%s: the ended thread's "
          "context holds its 12345 bytes (%s)" % (clock, ended))
    # No kept block is ever freed: from the first sample that has the
    # ended thread's, the last kept, every one has them all, through the
    # 60 ms main waits (12 intervals) while another thread's contexts
    # come to hold blocks and let them go.  A sample counted the contexts
    # holding blocks, then copied that many, and those that came to hold
    # one meanwhile took the place of the oldest (helper-191).
    has = [sum(1 for _, _, n in s["recs"] if "keep" in n) for s in samples]
    since = [k for k, s in zip(has, samples)
             if any("held_by_ended" in n for _, _, n in s["recs"])]
    first = next((i for i, s in enumerate(samples)
                  if any("held_by_ended" in n for _, _, n in s["recs"])), len(samples))
    churned = [c for c in ctxs if "churn_one" in c["names"]]
    check(len(churned) == 1023 and all(c["alloc"][1] for c in churned),
          "heapwide, clock=%s: the other thread allocated in the 1,023 contexts of churn_one "
          "(%d)" % (clock, len(churned)))
    check(len(since) >= 4 and len(since) == len(samples) - first and
          all(k == len(kept) for k in since),
          "heapwide, clock=%s: every sample since the ended thread's block has all %d kept "
          "blocks (%s)" % (clock, len(kept), has[first:]))


def wide_contexts_slow():
    """A sample that takes more than a quarter of the interval doubles it
    (slow_sample_spaces_out in heap.c): reading the 65,536 contexts of
    `heapwide 16 free` that each held a block once takes far more than 50 us of
    CPU (8 MB of contexts at the least), so --heap-interval=0.2 must end
    at 0.8 ms or more; a program with few such contexts keeps its
    interval (exact_live's 10 ms).  Before, the sampler sampled again as
    soon as it let the lock go."""
    prog = build("heapwide", "tests/progs/heapwide.c", "-pthread")
    prof = os.path.join(OUT, "heapwide_slow.ccprof")
    r = run([CCPROF, "record", "--heap", "--heap-interval=0.2", "--interval=0.1", "-o", prof,
             "--", prog, "16", "free"])
    d = heapdump(prof)
    if not check(r.returncode == 0 and r.stdout.startswith("blocks 0 bytes ") and d is not None,
                 "heapwide 16 free: record ran, the reader took the profile (%s)"
                 % r.stdout.strip()):
        return
    summary, ctxs, samples = d
    check(summary["interval"] >= 800000, "heapwide 16 free: the heap interval grew from 0.2 ms "
          "to %g ms (%d samples)" % (summary["interval"] / 1e6, summary["samples"]))
    check(not [c for c in ctxs if c["live"][0] and "keep" in c["names"]] and
          sum(1 for c in ctxs if c["alloc"][1] and "keep" in c["names"]) == 1 << 16,
          "heapwide 16 free: 65,536 contexts in keep() allocated, none holds a block")


def stress_checks(tag, r, prof):
    """A `heapuse stress` run's profile: each thread's stress_alloc holds
    exactly what the program says it still owns, every other function
    what it says it holds, and the peak is at least the final total."""
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "%s: record ran" % tag):
        return
    summary, ctxs, _ = d
    owned = sorted((int(b), int(n)) for b, n in
                   re.findall(r"^owned stress_alloc (\d+) (\d+)$", r.stderr, re.M))
    got = sorted((sum(c["live"][0] for c in ctxs if c["thread"] == t and "stress_alloc" in c["names"]),
                  sum(c["live"][1] for c in ctxs if c["thread"] == t and "stress_alloc" in c["names"]))
                 for t in {c["thread"] for c in ctxs if "stress_alloc" in c["names"]})
    check(len(owned) == 4 and got == owned,
          "%s: each thread's live heap is what it still owns %s (profile %s)" % (tag, owned, got))
    want = own(r.stderr)
    got = {f: live_under(ctxs, f) for f in want}
    check(len(want) == 8 and got == want, "%s: every function's live heap is its own (%s)"
          % (tag, "" if got == want else got))
    final = sum(c["live"][0] for c in ctxs) + summary["outside_bytes"]
    check(summary["peak"] >= final, "%s: peak %d >= live at the end %d" % (tag, summary["peak"], final))
    return d


def stressed():
    """Four threads allocate, realloc and free each other's blocks at
    random, all at once."""
    _, r, prof = record_heap("stress")
    stress_checks("stress", r, prof)


def stressed_tsan():
    """heap=1 under ThreadSanitizer: libccprof-alloc.so built with
    -fsanitize=thread (its shim without, Note [ThreadSanitizer build] in
    alloc_shim.c), heapuse stress built with it too, and sampled every
    100 us, so that samples and the peak's pictures run while the four
    threads allocate, realloc and free each other's blocks: no report,
    the bare run's exit status, the exact live heap.  Built with gcc
    whatever CC is: gcc's libtsan is a shared library that the shim can
    come before; clang's TSan runtime is linked into the executable
    (whose malloc then comes before the shim's), and its shared one
    (-shared-libsan) fails to start behind a preloaded library."""
    if shutil.which("gcc") is None:
        print("# gcc not installed: heap under TSan skipped")
        return
    tsan = os.path.join(OUT, "tsan-alloc")
    shim = os.path.join(tsan, "rt/runtime/shim/alloc_shim.o")
    so = os.path.join(tsan, "lib/libccprof-alloc.so")
    if os.path.exists(shim):
        os.unlink(shim)
    r = run(["make", "-s", "-C", TOP, "BUILD=" + tsan, "CC=gcc",
             "CFLAGS=-O1 -g -DCCPROF_TSAN_SHIM", shim])
    if r.returncode == 0:
        r = run(["make", "-s", "-j2", "-C", TOP, "BUILD=" + tsan, "CC=gcc",
                 "CFLAGS=-O1 -g -fsanitize=thread", so])
    if not check(r.returncode == 0, "heap: allocation runtime builds with -fsanitize=thread"):
        print("# " + r.stderr[-500:].replace("\n", "\n# "))
        return
    exe = build("heapuse_tsan", SRC, "-fsanitize=thread", cc="gcc")
    # allocator_may_return_null: refuse's realloc of SIZE_MAX / 2 fails
    # as in glibc instead of ending the program.
    e = dict(os.environ, LD_PRELOAD="",
             TSAN_OPTIONS="halt_on_error=1:report_signal_unsafe=0:allocator_may_return_null=1")
    bare = run([exe, "stress"], env=e)
    for clock in ("cpu", "cycles"):
        prof = os.path.join(OUT, "heapuse_tsan_%s.ccprof" % clock)
        opts = "heap=1:clock=%s:interval=100us:heap_interval=100us:output=%s" % (clock, prof)
        r = run([exe, "stress"], env=dict(e, LD_PRELOAD=so, CCPROF_OPTIONS=opts))
        check(r.returncode == bare.returncode == 0 and "WARNING: ThreadSanitizer" not in r.stderr,
              "stress under TSan, clock=%s: no report, exit %d as bare %d%s"
              % (clock, r.returncode, bare.returncode,
                 "" if r.returncode == 0 else "\n# " + r.stderr[:1500].replace("\n", "\n# ")))
        d = stress_checks("stress under TSan, clock=%s" % clock, r, prof)
        check(d is not None and d[0]["samples"] >= 10,
              "stress under TSan, clock=%s: %s samples" % (clock, d and d[0]["samples"]))


def record_fork(name, prog, args=(), timeout=None):
    """Record prog, which forks, with %p in the profile's name: (the run,
    its profiles).  None for the run if it outlived the timeout."""
    for f in os.listdir(OUT):
        if f.startswith(name + "_"):
            os.unlink(os.path.join(OUT, f))
    try:
        r = run([CCPROF, "record", "--heap", "-o", os.path.join(OUT, name + "_%p.ccprof"),
                 "--", prog] + list(args), timeout=timeout)
    except subprocess.TimeoutExpired:
        r = None
    return r, [os.path.join(OUT, f) for f in os.listdir(OUT) if f.startswith(name + "_")]


def child_and_parent(files, child_fn):
    """The heap parts of the child's profiles (those where child_fn ran)
    and of the parent's."""
    dumps = [heapdump(f) for f in files]
    child = [d for d in dumps if d and any(child_fn in c["names"] for c in d[1])]
    parent = [d for d in dumps if d and not any(child_fn in c["names"] for c in d[1])]
    return child, parent


def forked_child():
    """A child starts from an empty heap: its frees of inherited blocks
    count nothing, its own blocks are its own; the parent's profile is
    untouched by them."""
    r, files = record_fork("heapuse_fork", build("heapuse", SRC), ["fork"])
    if not check(r.returncode == 0 and len(files) == 2, "fork: two profiles (%d)" % len(files)):
        return
    child, parent = child_and_parent(files, "child_work")
    if not check(len(child) == 1 and len(parent) == 1, "fork: one child profile"):
        return
    csum, cctx, _ = child[0]
    want = own(r.stderr, prefix="child ")["child_work"]
    check(live_under(cctx, "child_work") == want and live_under(cctx, "main") == want,
          "fork: the child holds only its own %s" % (want,))
    check(csum["peak"] == want[0], "fork: the child's peak is its own (%d)" % csum["peak"])
    check(live_under(parent[0][1], "hold") == (4000, 4),
          "fork: the parent's hold keeps its 4 blocks (the child freed one of its copies)")


def fork_child_contexts():
    """A forked child's heap profile names only the child's contexts (Note
    [A forked child's profile] in src/runtime/forkprune.c): the parent of
    tests/progs/forkfresh.c allocates in 512 contexts and keeps 2000
    bytes; the child's child_c allocates 3 blocks of 1000 bytes and keeps
    them.  Its profile's allocations, live heap and samples are all
    [main] [child_c]'s, renumbered with the contexts the write left out."""
    prog = build("forkfresh", "tests/progs/forkfresh.c")
    r, files = record_fork("forkfresh_heap", prog)
    if not check(r.returncode == 0 and len(files) == 2,
                 "fork, fresh child: two heap profiles (%d)" % len(files)):
        return
    child, parent = child_and_parent(files, "child_c")
    if not check(len(child) == 1 and len(parent) == 1, "fork, fresh child: one child profile"):
        return
    csum, cctx, csamples = child[0]
    check([(c["names"], c["alloc"], c["live"]) for c in cctx] ==
          [(["main", "child_c"], (3000, 3), (3000, 3))],
          "fork, fresh child: its only allocating context is [main] [child_c], 3000 bytes in "
          "3 blocks, all live (%s)" % cctx)
    recs = [rec for s in csamples for rec in s["recs"]]
    check(csum["peak"] == 3000 and csamples and
          all(rec[2] == ["main", "child_c"] and rec[1] <= 3000 for rec in recs),
          "fork, fresh child: its samples name [main] [child_c] only, peak 3000 (%s)"
          % sorted(set((tuple(rec[2]), rec[1]) for rec in recs)))
    prof = [f for f in files if heapdump(f) == child[0]][0]
    fs = functions(report(prof))
    c = fs.get("child_c", {})
    check(sorted(fs) == ["child_a", "child_b", "child_c", "main"] and
          (c.get("self_alloc_bytes"), c.get("self_alloc_blocks"), c.get("self_live_bytes")) ==
          (3000, 3, 3000),
          "fork, fresh child: report charges child_c with its 3000 bytes and lists no function "
          "of the parent's (%s)" % sorted(fs))
    check(live_under(parent[0][1], "main")[0] >= 2000 and
          sum(1 for x in parent[0][1] if any(n.startswith("leaf_") for n in x["names"])) == 512,
          "fork, fresh child: the parent's profile keeps its 512 allocating leaves and its "
          "2000 live bytes")


def samples_over_time(clock=None):
    """Samples see each step: after step k (100 ms each, ten intervals, so
    that a loaded machine's late wake-ups still land in it), a sample with
    k * 100,000 bytes live in step, times in order, none above the peak."""
    extra = ["--clock=" + clock] if clock else []
    tag = clock or "cpu"
    # A sampler kept off the CPU for a whole step misses it: such a run is
    # repeated, three in all.
    for attempt in range(3):
        _, r, prof = record_heap("steps", os.path.join(OUT, "heapuse_steps_%s.ccprof" % tag), extra,
                                 args=["100"])
        d = heapdump(prof)
        if not check(r.returncode == 0 and d is not None, "%s steps: record ran" % tag):
            return
        summary, _, samples = d
        seen = set()
        for s in samples:
            for _, b, names in s["recs"]:
                if "step" in names:
                    seen.add(b)
        if all(k * 100000 in seen for k in range(1, 6)):
            break
        print("# %s steps: samples saw %s, run again (machine busy?)" % (tag, sorted(seen)))
    check(all(k * 100000 in seen for k in range(1, 6)),
          "%s steps: a sample after each step (%s)" % (tag, sorted(seen)))
    times = [s["time"] for s in samples]
    check(times == sorted(times) and len(times) == summary["samples"],
          "%s steps: %d samples in time order" % (tag, len(times)))
    check(all(s["total"] <= summary["peak"] for s in samples), "%s steps: no sample above the peak" % tag)
    live = sum(b for b, _ in own(r.stderr).values())
    check(samples and samples[-1]["total"] == live and samples[-1]["time"] >= 150000000,
          "%s steps: the last sample is the end, the %d bytes the program says are live (%s)"
          % (tag, live, (samples[-1]["time"], samples[-1]["total"]) if samples else None))


def sample_at_death():
    """A process that dies by a signal gets its last sample too, taken
    from the handler's write with the locks only tried: after five steps,
    gasp() takes 300,000 bytes more and the program raises SIGTERM at
    once, before the sampler's next wake-up.  Before, the write took no
    last sample from a handler, and the curves stopped short of the live
    heap at the end (helper-176)."""
    _, r, prof = record_heap("stepsterm")
    d = heapdump(prof)
    live = sum(b for b, _ in own(r.stderr).values())
    last = d[2][-1]["total"] if d and d[2] else None
    check(r.returncode == -15 and "gasp" in own(r.stderr) and last == live,
          "stepsterm: death by SIGTERM, the last sample is the end, the %d bytes the program "
          "says are live (%s, %s)" % (live, r.returncode, last))


def thinned():
    """Sampled far more often than the buffers hold, the run keeps at
    most 4096 samples, evenly over its whole length, at a longer
    interval.  The run asks for 75,000 samples (0.75 s at 10 us), so that
    the buffers fill even when a loaded machine lets the sampler wake for
    a small part of them."""
    _, r, prof = record_heap("steps", os.path.join(OUT, "heapuse_thin.ccprof"),
                             ["--interval=0.01", "--heap-interval=0.01"], args=["150"])
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "thinned: record ran"):
        return
    summary, _, samples = d
    check(len(samples) <= 4096 and summary["interval"] > 10000,
          "thinned: %d samples, interval %d ns (asked 10000)" % (len(samples), summary["interval"]))
    check(samples[0]["time"] < 100000000 and samples[-1]["time"] >= 700000000,
          "thinned: from %.3f s to %.3f s" % (samples[0]["time"] / 1e9, samples[-1]["time"] / 1e9))


def spacing():
    """A heap interval shorter than the sampling interval is that interval
    in effect (the sampler takes the samples as it wakes): the profile
    says so, and its samples are that far apart.  The profile said the
    1 ms asked for while its samples were 20 ms apart."""
    _, r, prof = record_heap("steps", os.path.join(OUT, "heapuse_spacing.ccprof"),
                             ["--interval=20", "--heap-interval=1"], args=["60"])
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "spacing: record ran"):
        return
    summary, _, samples = d
    # The sampler wakes 10 to 30 ms apart, uniformly (Note [Samples out
    # of step] in src/runtime/sampler.c): their median fell under 15 ms
    # in about 2 % of runs (9 or more of 17 under it); their mean, the
    # first and last samples left out, is 20 +- 1.5 ms, a little less
    # for the last gap kept, cut short by the exit (18.8-21.2 ms in
    # three runs).
    times = [x["time"] for x in samples[1:-1]]
    gaps = [b - a for a, b in zip(times, times[1:])]
    mean = sum(gaps) / len(gaps) if gaps else 0
    check(summary["interval"] == 20000000 and len(gaps) >= 5 and mean >= 15000000,
          "spacing: --interval=20 --heap-interval=1 records 20 ms (%d ns), samples a mean "
          "%.1f ms apart (%d)" % (summary["interval"], mean / 1e6, len(gaps)))
    # At the default 1 ms interval, samples 10 ms apart keep to their
    # schedule: taken from each wake-up that found one due, they drifted
    # 5-8 % apart beyond it (helper-122).  Gaps under 5 ms are the
    # samples at the start and the write's own at the end.
    _, r, prof = record_heap("steps", os.path.join(OUT, "heapuse_schedule.ccprof"),
                             ["--heap-interval=10"], args=["80"])
    d = heapdump(prof)
    times = [s["time"] for s in d[2]] if r.returncode == 0 and d is not None else []
    gaps = [b - a for a, b in zip(times, times[1:]) if b - a >= 5000000]
    mean = sum(gaps) / len(gaps) if len(gaps) > 10 else 0
    check(9700000 <= mean <= 10300000,
          "spacing: --heap-interval=10 samples a mean %.2f ms apart, within 3 %% of 10 (%d gaps)"
          % (mean / 1e6, len(gaps)))
    # With the sampler waking 0.5-1.5 intervals apart (Note [Samples out
    # of step] in src/runtime/sampler.c) and samples due every interval,
    # a late wake-up that started the schedule again from itself spaced
    # them 1.17 intervals apart (helper-126); now about 1.035.
    _, r, prof = record_heap("steps", os.path.join(OUT, "heapuse_jitter.ccprof"),
                             ["--interval=10", "--heap-interval=10"], args=["150"])
    d = heapdump(prof)
    times = [s["time"] for s in d[2]] if r.returncode == 0 and d is not None else []
    gaps = [b - a for a, b in zip(times[1:-1], times[2:-1])]
    mean = sum(gaps) / len(gaps) if len(gaps) > 50 else 0
    check(9500000 <= mean <= 11200000,
          "spacing: --interval=10 --heap-interval=10 samples a mean %.2f ms apart, within "
          "12 %% of 10 (%d gaps)" % (mean / 1e6, len(gaps)))


def dumped_mid_run():
    """ccprof_dump while the sampler samples at 10 us and a worker keeps
    allocating: every write succeeds (a sample taken after the write read
    the allocated counts, or out of time order, made the reader refuse
    the file, and the runtime wrote none), and the last profile's samples
    are in order."""
    prog = build("heapdumps", "tests/progs/heapdumps.c")
    prof = os.path.join(OUT, "heapdumps.ccprof")
    r = run([CCPROF, "record", "--heap", "--interval=0.01", "--heap-interval=0.01", "-o", prof,
             "--", prog, "300"])
    d = heapdump(prof)
    check(r.returncode == 0 and "dumps failed 0" in r.stderr and "no profile written" not in r.stderr,
          "mid-run dumps: all 300 written (%s)" % re.findall(r"dumps failed \d+", r.stderr))
    if check(d is not None, "mid-run dumps: the last profile has a heap part"):
        times = [s["time"] for s in d[2]]
        check(times == sorted(times), "mid-run dumps: %d samples in time order" % len(times))


def library_first(clock):
    """An instrumented library's constructor runs the hooks before the
    preloaded runtime's constructors (Note [Start-up order]): no warning
    that heap=1 needs the allocation runtime, which is running, and the
    samples over time, under clock=cycles too."""
    so = os.path.join(OUT, "libheapctor.so")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", "-DHEAPCTOR_LIB",
             os.path.join(TOP, "tests/progs/heapctor.c"), "-o", so])
    if not check(r.returncode == 0, "heapctor: the library builds"):
        return
    prog = build("heapctor", "tests/progs/heapctor.c", "-L" + OUT, "-lheapctor",
                 "-Wl,-rpath," + OUT)
    prof = os.path.join(OUT, "heapctor_%s.ccprof" % clock)
    r = run([CCPROF, "record", "--heap", "--clock=" + clock, "-o", prof, "--", prog])
    d = heapdump(prof)
    check(r.returncode == 0 and "needs the allocation runtime" not in r.stderr,
          "library first, %s: no warning (%s)" % (clock, r.stderr.strip()))
    # About 15 over the program's 150 ms at 10 ms; a loaded machine's late
    # wake-ups give fewer.
    check(d is not None and d[0]["samples"] >= 5,
          "library first, %s: samples over the run (%s)" % (clock, d and d[0]["samples"]))


def early_program():
    """tests/progs/heapearly.c: its library, not instrumented, whose
    constructor allocates before the runtime starts, and the program."""
    so = os.path.join(OUT, "libheapearly.so")
    src = os.path.join(TOP, "tests/progs/heapearly.c")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-DHEAPEARLY_LIB", src, "-o", so])
    if not check(r.returncode == 0, "heapearly: the library builds"):
        return None
    return build("heapearly", "tests/progs/heapearly.c", "-L" + OUT, "-lheapearly",
                 "-Wl,-rpath," + OUT)


def before_start():
    """Blocks a library's constructor allocates before the runtime starts
    (Note [Blocks from before the start] in heap.c) are live outside any
    context, in the samples and the peak, and their frees and reallocs
    take them out, before the start and after: the live heap at the end
    and the peak are the program's own, exactly.  Left out before, the
    live heap missed them, and the peak the constructor's blocks (or,
    with `big`, the constructor's own peak)."""
    prog = early_program()
    if prog is None:
        return
    for mode in ("plain", "big"):
        prof = os.path.join(OUT, "heapearly_%s.ccprof" % mode)
        r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, mode])
        d = heapdump(prof)
        if not check(r.returncode == 0 and d is not None, "before the start, %s: record ran" % mode):
            continue
        summary, ctxs, samples = d
        want = own(r.stderr)
        got = (summary["outside_bytes"], summary["outside_blocks"])
        check(got == want["outside"],
              "before the start, %s: live outside at the end %s == the program's own %s "
              "(the constructor's blocks, one freed and one reallocated by main)"
              % (mode, got, want["outside"]))
        check(live_under(ctxs, "resize_early") == want["resize_early"] and
              sum(c["live"][1] for c in ctxs) == 1,
              "before the start, %s: main's realloc of a constructor's block holds its own %s"
              % (mode, want["resize_early"]))
        peak = own(r.stderr, "peak")["main"][0]
        check(summary["peak"] == peak,
              "before the start, %s: peak %d == the program's own %d" % (mode, summary["peak"], peak))
        start = own(r.stderr, "start")["main"][0]
        check(samples and samples[-1]["outside"] == want["outside"][0],
              "before the start, %s: the last sample has the constructor's blocks (%s)"
              % (mode, samples and samples[-1]["outside"]))
        if mode == "plain":
            largest = max(samples, key=lambda s: s["total"]) if samples else None
            check(largest is not None and largest["total"] == peak and largest["outside"] == start,
                  "before the start: the peak's picture holds the %d bytes live as main "
                  "started (%s)" % (start, largest and (largest["total"], largest["outside"])))
    # Past the table's room: counted, said, and not followed.
    prof = os.path.join(OUT, "heapearly_many.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, "many"])
    d = heapdump(prof)
    m = re.search(r"heap=1: (\d+) blocks \((\d+) bytes\) allocated before the start", r.stderr)
    if check(r.returncode == 0 and d is not None and m is not None,
             "before the start, many: record ran and said what it leaves out"):
        dropped = (int(m.group(2)), int(m.group(1)))
        want = own(r.stderr)["outside"]
        got = (d[0]["outside_bytes"] + dropped[0], d[0]["outside_blocks"] + dropped[1])
        check(dropped[1] > 0 and got == want and
              d[0]["peak"] + dropped[0] == own(r.stderr, "peak")["main"][0],
              "before the start, many: followed and left out %s add up to the program's own %s, "
              "and to its peak" % (got, want))
        info = json.loads(run([CCPROF, "info", "--json", prof]).stdout or "{}")
        check(info.get("heap", {}).get("untracked_allocs") == dropped[1],
              "before the start, many: the profile counts the %d left out as untracked (%s)"
              % (dropped[1], info.get("heap", {}).get("untracked_allocs")))
    # Threads a constructor started allocate and free while the runtime
    # starts, and free all they hold before they end: the live heap at
    # the end is that of the same threads idle (the blocks glibc keeps
    # for them) every time.
    ends = set()
    for mode in ("idle", "threads", "threads", "threads"):
        prof = os.path.join(OUT, "heapearly_%s.ccprof" % mode)
        r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, mode])
        d = heapdump(prof)
        ends.add((mode, r.returncode, "not followed" in r.stderr,
                  d and (d[0]["outside_bytes"], d[0]["outside_blocks"])))
    check(len({e[1:] for e in ends}) == 1 and list(ends)[0][1:3] == (0, False),
          "before the start, threads: each run ends with the live heap of an idle one (%s)"
          % sorted(ends))
    # Without heap=1 the blocks kept for the start are forgotten, and the
    # frees before it did no harm.
    bare = run([prog])
    r = run([CCPROF, "record", "--alloc", "-o", os.path.join(OUT, "heapearly_alloc.ccprof"),
             "--", prog])
    check(r.returncode == bare.returncode == 0 and own(r.stderr) == own(bare.stderr),
          "before the start, --alloc alone: same exit status and own lines as the bare run")


def library_destructors():
    """A library's destructor frees what it kept (tests/progs/heapdtor.c):
    its 500 blocks are not live at the end, and the program's own leak is
    (Note [After the libraries' destructors] in init.c).  The write came
    before that destructor and reported 50,000 bytes of leaks that were
    none; valgrind's memcheck says 77 bytes in use at exit, outside
    libc's own blocks."""
    so = os.path.join(OUT, "libheapdtor.so")
    src = os.path.join(TOP, "tests/progs/heapdtor.c")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", "-DHEAPDTOR_LIB",
             src, "-o", so])
    if not check(r.returncode == 0, "heapdtor: the library builds"):
        return
    prog = build("heapdtor", "tests/progs/heapdtor.c", "-L" + OUT, "-lheapdtor",
                 "-Wl,-rpath," + OUT)
    prof = os.path.join(OUT, "heapdtor.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog])
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "heapdtor: recorded with --heap"):
        return
    _, ctxs, _ = d
    want = own(r.stderr)
    got = {f: live_under(ctxs, f) for f in want}
    check(got == want and sum(c["live"][0] for c in ctxs) == 77,
          "heapdtor: live at the end %s == the program's own %s, the library's 500 blocks "
          "freed by its destructor" % (got, want))
    calls = functions(report(prof)).get("reg_clear", {}).get("calls")
    check(calls == 1, "heapdtor: the library's destructor's call is in the profile, which "
          "it ran before (%s)" % calls)
    # Linked with libccprof.a and a shared libc, the same since session
    # 51 (exit's gate in the archive says the write is exit's): the
    # write came before the library's destructor, without its call.
    linked = build("heapdtor_linked", "tests/progs/heapdtor.c", "-L" + OUT, "-lheapdtor",
                   "-Wl,-rpath," + OUT, os.path.join(LIB, "libccprof.a"))
    prof = os.path.join(OUT, "heapdtor_linked.ccprof")
    r = run([linked], env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof))
    calls = functions(report(prof)).get("reg_clear", {}).get("calls") if os.path.exists(prof) else None
    check(r.returncode == 0 and calls == 1, "heapdtor linked with libccprof.a: the library's "
          "destructor's call is in the profile (%s)" % calls)


def cxx_pool():
    """A C++ program: libstdc++'s emergency exception pool, allocated
    before the runtime starts, is live outside any context to the end and
    under the peak.  What it is (72,704 bytes with g++ 12) is measured by
    tests/progs/earlymalloc.c, a preloaded library that counts what comes
    before its constructor."""
    cxx = "clang++" if "clang" in os.path.basename(CC) else "g++"
    if shutil.which(cxx) is None:
        print("# SKIP %s not installed: the C++ pool not checked" % cxx)
        return
    so = os.path.join(OUT, "earlymalloc.so")
    r = run([CC, "-O1", "-fPIC", "-shared", os.path.join(TOP, "tests/progs/earlymalloc.c"),
             "-o", so])
    prog = os.path.join(OUT, "heappool")
    if r.returncode == 0:
        r = run([cxx, "-g", "-O1", "-finstrument-functions",
                 os.path.join(TOP, "tests/progs/heappool.cpp"), "-o", prog])
    if not check(r.returncode == 0, "heappool: the program and earlymalloc.so build"):
        return
    bare = run([prog], env=dict(os.environ, LD_PRELOAD=so))
    early = own(bare.stderr, "early", "")
    if not check(bare.returncode == 0 and "live" in early and early["live"][0] > 0,
                 "C++ pool: blocks before a preloaded library's constructor %s" % (early,)):
        return
    prof = os.path.join(OUT, "heappool.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog])
    d = heapdump(prof)
    if not check(r.returncode == 0 and d is not None, "C++ pool: record ran"):
        return
    summary, ctxs, _ = d
    got = (summary["outside_bytes"], summary["outside_blocks"])
    check(got == early["live"], "C++ pool: live outside at the end %s == libstdc++'s %s"
          % (got, early["live"]))
    check(live_under(ctxs, "keep") == own(r.stderr)["keep"],
          "C++ pool: keep holds its own %s" % (own(r.stderr)["keep"],))
    peak = max(early["peak"][0], early["live"][0] + own(r.stderr, "peak")["main"][0])
    check(summary["peak"] == peak, "C++ pool: peak %d == the pool and the program's own peak %d"
          % (summary["peak"], peak))


def fork_under_stdio_locks():
    """fork while one thread allocates holding stdout's lock and another
    holds glibc's list of streams, waiting for stdout: the program ends
    as it does unprofiled (the fork handlers held the table's locks while
    fork waited for the list: a hang)."""
    prog = build("heapfork", "tests/progs/heapfork.c")
    prof = os.path.join(OUT, "heapfork.ccprof")
    bare = run([prog])
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog])
    check(bare.returncode == 0 and r.returncode == 0 and r.stdout == bare.stdout == "done\n",
          "fork under stdio locks: ends as unprofiled (status %d, %r)" % (r.returncode, r.stdout))
    # A library's fork handlers that allocate, registered before the
    # runtime's: its prepare handler runs after ours.
    so = os.path.join(OUT, "libheapfork.so")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-pthread", "-DHEAPFORK_LIB",
             os.path.join(TOP, "tests/progs/heapfork.c"), "-o", so])
    if not check(r.returncode == 0, "heapfork: the library builds"):
        return
    prog = build("heapfork_lib", "tests/progs/heapfork.c", "-DHEAPFORK_WITH_LIB", "-L" + OUT,
                 "-lheapfork", "-Wl,-rpath," + OUT)
    bare = run([prog])
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog])
    want = "done (with handlers)\n"
    check(bare.returncode == 0 and r.returncode == 0 and r.stdout == bare.stdout == want,
          "fork handlers that allocate: ends as unprofiled (status %d, %r)"
          % (r.returncode, r.stdout))


def fork_inside_table():
    """fork while a worker's malloc is held inside the block table, its
    stripe locked, and a fork handler registered before the runtime's
    allocates in the child before the runtime's handler clears the table
    (tests/progs/heapforkin.c): the forking thread stays out of the table
    until fork ends, so the child does not wait for the gone worker's
    lock, and each profile has its own live heap exactly."""
    src = os.path.join(TOP, "tests/progs/heapforkin.c")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-pthread", "-DHEAPFORKIN_LIB", src,
             "-o", os.path.join(OUT, "libheapforkin.so")])
    if not check(r.returncode == 0, "heapforkin: the library builds"):
        return
    prog = build("heapforkin", "tests/progs/heapforkin.c", "-rdynamic", "-L" + OUT,
                 "-lheapforkin", "-Wl,-rpath," + OUT)
    r, files = record_fork("heapforkin", prog, timeout=30)
    if not check(r is not None, "fork inside the table: ended within 30 s"):
        return
    ended = r.returncode == 0 and r.stdout == "done\n" and len(files) == 2
    if not check(ended, "fork inside the table: parent and child end (status %d, %d profiles)%s"
                 % (r.returncode, len(files), "" if ended else " " + r.stderr[-300:])):
        return
    child, parent = child_and_parent(files, "child_keep")
    if not check(len(child) == 1 and len(parent) == 1, "fork inside the table: one child profile"):
        return
    for who, d, prefix in (("child", child[0], "child "), ("parent", parent[0], "")):
        want = own(r.stderr, prefix=prefix)
        got = {f: live_under(d[1], f) for f in want}
        check(got == want, "fork inside the table: the %s's live heap %s is its own %s"
              % (who, got, want))
    # Nothing else in the child: the handler's blocks were not followed.
    total = (sum(c["live"][0] for c in child[0][1]) + child[0][0]["outside_bytes"],
             sum(c["live"][1] for c in child[0][1]) + child[0][0]["outside_blocks"])
    check(total == (333, 1), "fork inside the table: the child holds 333 bytes in 1 block (%s)"
          % (total,))


def left_by_longjmp():
    """A signal handler leaves malloc by siglongjmp; the program's next
    calls are a free and a realloc: each takes its block out of the table
    (the allocator call left behind is not one they are inside), so held
    keeps nothing, and the reallocated block is live."""
    lib = os.path.join(OUT, "libtrap.so")
    r = run([CC, "-O1", "-fPIC", "-shared", os.path.join(TOP, "tests/progs/trapalloc.c"),
             "-o", lib])
    if not check(r.returncode == 0, "heapleft: the allocator library builds"):
        return
    prog = build("heapleft", "tests/progs/heapleft.c", "-L" + OUT, "-ltrap", "-Wl,-rpath," + OUT)
    prof = os.path.join(OUT, "heapleft.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog])
    d = heapdump(prof)
    if not check(r.returncode == 0 and r.stdout == "done\n" and d is not None,
                 "left by longjmp: record ran"):
        return
    check(live_under(d[1], "held") == (0, 0),
          "left by longjmp: held keeps nothing (%s)" % (live_under(d[1], "held"),))
    # The realloc counts where the hooks still are (the handler's context,
    # until the next call), with stdout's buffer.
    live = sum(c["live"][0] for c in d[1])
    check(live >= 100000 and sum(c["live"][1] for c in d[1]) == 2,
          "left by longjmp: the reallocated block and stdout's buffer are live (%d)" % live)


def table_without_memory():
    """Blocks the block table has no memory for (every anonymous mmap
    failing while crowd() allocates 300,000: tests/progs/mmapfail.c) are
    counted, and the write says how many in one line; those and the
    blocks the profile holds make the program's 300,000 (Note [A table
    without memory] in src/runtime/heap.c).  Before, they went without a
    word, and the peak came out short (helper-176).  A child forked after
    them starts with an empty table and says nothing (helper-177)."""
    shim = preload_shim("mmapfail")
    if shim is None:
        return
    prog = build("heapuse", SRC)
    prof = os.path.join(OUT, "heapuse_nomem.ccprof")
    for f in os.listdir(OUT):
        if f.startswith("heapuse_nomem.ccprof."):  # a child's, from a run before
            os.unlink(os.path.join(OUT, f))
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, "nomem"],
            env=dict(os.environ, LD_PRELOAD=shim))
    said = re.findall(r"^ccprof: heap=1: no memory to follow (\d+) allocations", r.stderr, re.M)
    d = heapdump(prof)
    held = live_under(d[1], "crowd")[1] if d else None
    check(r.returncode == 0 and own(r.stderr).get("crowd") == (4800000, 300000) and
          len(said) == 1 and held is not None and held + int(said[0]) == 300000,
          "heap=1 without memory for its table: one line says how many blocks it could not "
          "follow, and with those the profile holds crowd's 300,000 (%s, %s, %s)"
          % (r.returncode, said, held))
    # The profile keeps the count (STATS key 16), for info and report --heap.
    info = json.loads(run([CCPROF, "info", "--json", prof]).stdout or "{}")
    text = run([CCPROF, "report", "--heap", prof]).stdout
    rep = json.loads(run([CCPROF, "report", "--heap", "--json", prof]).stdout or "{}")
    n = int(said[0]) if said else -1
    check(info.get("heap", {}).get("untracked_allocs") == n and
          rep.get("heap", {}).get("untracked_allocs") == n and
          re.search(r"^    untracked    %d allocations not followed \(no memory" % n, text, re.M),
          "heap=1 without memory: info --json, report --heap and its JSON give the count "
          "the run said (%d)" % n)
    page = os.path.join(OUT, "heapuse_nomem.html")
    run([CCPROF, "convert", "--to", "html", "-o", page, prof])
    check(os.path.exists(page) and '"untracked_allocs":%d' % n in open(page).read(),
          "heap=1 without memory: the HTML report's data has the count (%d)" % n)
    kids = [f for f in os.listdir(OUT) if f.startswith("heapuse_nomem.ccprof.")]
    kid = json.loads(run([CCPROF, "info", "--json", os.path.join(OUT, kids[0])]).stdout or "{}") \
        if len(kids) == 1 else {}
    check(kid.get("heap", {}).get("untracked_allocs") == 0,
          "heap=1 without memory: the forked child's profile counts none (%s)" % kids)


def not_followed():
    """No heap part without heap=1, nor from the runtime that does not see
    allocations (which says so)."""
    prog = build("heapuse", SRC)
    prof = os.path.join(OUT, "heapuse_noheap.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog])
    check(r.returncode == 0 and heapdump(prof) is None, "--alloc alone: no heap part")
    e = dict(os.environ, LD_PRELOAD=os.path.join(LIB, "libccprof.so"),
             CCPROF_OPTIONS="heap=1:output=" + prof)
    r = run([prog], env=e)
    check(r.returncode == 0 and heapdump(prof) is None and
          "heap=1 needs the allocation runtime" in r.stderr,
          "heap=1 with libccprof.so: one warning, no heap part")
    r = run([CCPROF, "record", "--heap-interval=0", "--", prog])
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--heap-interval" in r.stderr,
          "record --heap-interval=0: one usage error, status 2")
    e = dict(os.environ, CCPROF_OPTIONS="heap_interval=soon")
    r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog], env=e)
    check(r.returncode == 0 and "bad heap_interval 'soon'" in r.stderr,
          "CCPROF_OPTIONS heap_interval=soon: warned, the run goes on")


exact_live()
against_valgrind()
saw_tooth()
other_threads()
wide_contexts("cpu")
wide_contexts("cycles")
wide_contexts_slow()
stressed()
stressed_tsan()
forked_child()
fork_child_contexts()
samples_over_time()
sample_at_death()
samples_over_time("cycles")
thinned()
spacing()
dumped_mid_run()
library_first("cpu")
library_first("cycles")
before_start()
library_destructors()
cxx_pool()
fork_under_stdio_locks()
fork_inside_table()
left_by_longjmp()
not_followed()
table_without_memory()
finish()
