"""Issue 4: a profiled program behaves exactly as before and loses no data.

Each case runs an unprofiled build and a profiled one of the same program
and compares stdout, stderr (less ccprof's own lines) and exit status, then
checks the profile against the counts the program printed."""
import glob
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from ccp import *

PRELOAD = os.path.join(LIB, "libccprof.so")
LIBA = os.path.join(LIB, "libccprof.a")  # the runtime to link in
# A suite started in the background (`make check &`, or by a tool that
# runs it so) inherits SIGINT and SIGQUIT ignored (a shell's asynchronous
# command without job control), under nohup SIGHUP too, and so would the
# programs: then raise(SIGQUIT) does nothing and the program lives on
# ("signal quit: the process still dies by SIGQUIT" failed so, now and
# then, never from a terminal).  They must see the default dispositions,
# as from a terminal: the keyboard's two here, and every one of
# default_signals() in same_behaviour's runs (this suite itself keeps
# nohup's SIGHUP).
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
CLOCK = "cpu"  # the clock of same_behaviour's runs; see the end


def link_ways(u_flag=None):
    """same_behaviour's (name suffix, linked) for the runtime preloaded,
    libccprof.a linked in, and linked with -static with u_flag (the
    -Wl,-u option `pkg-config --static` gives for the libc function the
    test needs) and without it; only the first three where no such flag."""
    if u_flag is None:
        return (("", ()), ("_linked", (LIBA,)), ("_static", ("-static", LIBA)))
    return (("", ()), ("_linked", (LIBA,)), ("_static", ("-static", LIBA, u_flag)),
            ("_static_nou", ("-static", LIBA)))


def same_behaviour(name, src, args=(), env=None, cxx=None, extra=(), timeout=None, preexec=None,
                   linked=(), preload=None, wrap=()):
    """Build bare and instrumented, run both, compare.  Returns (run, profile);
    (None, None) if the profiled run outlives `timeout` seconds.  The
    instrumented program runs with the runtime preloaded (`preload`, or
    PRELOAD), or if linked names libccprof.a (and any other flags), with
    it linked in.  Both run under the command wrap, if any."""
    comp = cxx or CC
    if CLOCK != "cpu":
        name += "@" + CLOCK
    bare = os.path.join(OUT, name + "_bare")
    inst = os.path.join(OUT, name)
    for exe, flags in ((bare, []), (inst, ["-finstrument-functions"] + list(linked))):
        r = run([comp, "-g", "-O1", "-I" + os.path.join(TOP, "include"),
                 os.path.join(TOP, src), "-o", exe, "-pthread"] + flags + list(extra))
        if r.returncode != 0:
            check(False, "%s: build with %s: %s" % (name, comp, r.stderr[-300:]))
            return None, None
    d = os.path.join(OUT, "run_" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prof = os.path.join(d, name + ".ccprof")
    e = dict(os.environ)
    e.update(env or {})
    def start():  # as from a terminal, whatever this suite inherited
        default_signals()
        if preexec:
            preexec()
    try:
        b = run(list(wrap) + [bare] + list(args), cwd=d, env=e, timeout=timeout, preexec_fn=start)
    except subprocess.TimeoutExpired:
        check(False, "%s: the bare program ends within %d s" % (name, timeout))
        return None, None
    e["LD_PRELOAD"] = "" if linked else preload or PRELOAD
    e["CCPROF_OPTIONS"] = "clock=" + CLOCK + ":output=" + prof + (":" + env["CCPROF_OPTIONS"] if env and "CCPROF_OPTIONS" in env else "")
    try:
        p = run(list(wrap) + [inst] + list(args), cwd=d, env=e, timeout=timeout, preexec_fn=start)
    except subprocess.TimeoutExpired:
        check(False, "%s: ends within %d s, as the bare program does" % (name, timeout))
        return None, None
    own = "\n".join(l for l in p.stderr.splitlines() if not l.startswith("ccprof:"))
    check(p.returncode == b.returncode, "%s: same exit status (%d, bare %d)" % (name, p.returncode, b.returncode))
    check(p.stdout == b.stdout, "%s: same stdout" % name)
    check(own == b.stderr.rstrip("\n"), "%s: same stderr, less ccprof's lines" % name)
    return p, prof


def exact_calls(name, p, prof):
    if not check(os.path.exists(prof), "%s: profile written" % name):
        return None
    rep = report(prof)
    # C++ functions are shown demangled with their parameters.
    fs = {f["name"].split("(")[0]: f for f in rep["functions"]}
    own = counts(p.stdout)
    check(own, "%s: the program printed its own call counts (%d functions)" % (name, len(own)))
    for fn, n in own.items():
        check(fs.get(fn, {}).get("calls") == n, "%s: calls(%s) = %d, got %s"
              % (name, fn, n, fs.get(fn, {}).get("calls")))
    return rep


def threads():
    p, prof = same_behaviour("threads", "tests/progs/threads.c")
    rep = exact_calls("threads", p, prof)
    if rep:
        r = run([CCPROF, "report", "--threads", prof])
        check(r.returncode == 0 and "worker-3" in r.stdout and "worker-0" in r.stdout,
              "threads: report --threads names every thread, early exits included")
        info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
        check(info.get("threads") == 9, "threads: 9 threads in the profile (got %s)" % info.get("threads"))


def sampler_thread_name():
    """The runtime's sampling thread is named ccprof-sampler, as top -H
    and ps -L show it; it was named as the program, like one of its own
    threads (redis-server's).  The program's three threads keep their
    names."""
    exe = build("sig_names", "tests/progs/signals.c")
    p = subprocess.Popen([exe, "threads"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=/dev/null"),
                         preexec_fn=default_signals)
    line = line_from(p.stdout, "waiting ", 20)
    names = []
    for task in glob.glob("/proc/%d/task/*/comm" % p.pid):
        try:
            with open(task) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    p.kill()
    p.communicate()
    base = os.path.basename(exe)[:15]
    check(line is not None and sorted(names) == sorted([base] * 3 + ["ccprof-sampler"]),
          "the sampling thread is ccprof-sampler, the program's three threads %s (%s)"
          % (base, names))


def helper_not_counted():
    """The sampler is a thread glibc does not count (Note [A helper glibc
    does not count] in rawthread.c): a program with one thread of its own
    stays single-threaded to glibc (__libc_single_threaded 1) while the
    sampler is there beside it (two tasks) and charges its time; with
    helper=pthread it is a POSIX thread and the flag is 0.  A thread the
    program makes, and a fork child, work as before; after a failed exec
    the sampler is made again so (it was a POSIX thread, as under a
    seccomp filter, until the helper took pthread_create's calls only)."""
    exe = build("onethread", "tests/progs/onethread.c")
    d = fresh_dir("onethread_runs")

    def profiled(mode, options=""):
        prof = os.path.join(d, "%s%s.%%p.ccprof" % (mode, options.replace("=", "_")))
        e = dict(os.environ, LD_PRELOAD=PRELOAD,
                 CCPROF_OPTIONS="output=" + prof + (":" + options if options else ""))
        r = run([exe, mode], env=e, timeout=60)
        return r, sorted(glob.glob(prof.replace("%p", "*")))

    bare = run([exe, "plain"], timeout=60)
    check(bare.stdout == "main single=1 tasks=1\n", "helper: bare, one thread (%r)" % bare.stdout)
    r, profs = profiled("plain")
    check(r.returncode == 0 and r.stdout == "main single=1 tasks=2\n",
          "helper: profiled, glibc still counts one thread, the sampler beside it (%r)" % r.stdout)
    if check(len(profs) == 1, "helper: one profile (%s)" % profs):
        rep = report(profs[0])
        work = [f for f in rep["functions"] if f["name"] == "work"]
        check(rep["samples"] > 0 and work and work[0]["calls"] == 20 and
              work[0]["inherited_s"] >= 0.5 * rep["total_time_s"] > 0,
              "helper: the uncounted sampler charged work() (%s of %s s, %d samples)"
              % (work and work[0]["inherited_s"], rep["total_time_s"], rep["samples"]))
    r, profs = profiled("plain", "helper=pthread")
    check(r.returncode == 0 and r.stdout == "main single=0 tasks=2\n" and len(profs) == 1,
          "helper=pthread: a POSIX thread, glibc counts two (%r)" % r.stdout)
    r, profs = profiled("plain", "helper=bogus")
    check(r.returncode == 0 and r.stdout == "main single=1 tasks=2\n" and
          "ccprof: CCPROF_OPTIONS: bad helper 'bogus' (clone or pthread)" in r.stderr,
          "helper=bogus: one warning, the default (%r, %r)" % (r.stdout, r.stderr))
    r, profs = profiled("thread")
    ok = r.returncode == 0 and r.stdout == "main single=1 tasks=2\njoined single=0 tasks=2\n"
    if check(ok and len(profs) == 1, "helper: the program's own thread makes it multi-threaded "
             "to glibc (%r)" % r.stdout):
        rep = report(profs[0])
        work = [f for f in rep["functions"] if f["name"] == "work"]
        check(rep["threads"] == 2 and work and work[0]["calls"] == 30,
              "helper: both of the program's threads recorded (%s threads, %s calls of work)"
              % (rep["threads"], work and work[0]["calls"]))
    r, profs = profiled("exec")
    if check(r.returncode == 0 and r.stdout == "main single=1 tasks=2\nafter exec single=1 tasks=2\n"
             and len(profs) == 1, "helper: after a failed exec the sampler is made again, "
             "uncounted (%r)" % r.stdout):
        work = [f for f in report(profs[0])["functions"] if f["name"] == "work"]
        check(work and work[0]["calls"] == 40 and work[0]["inherited_s"] > 0.05,
              "helper: the restarted sampler charged work() (%s)" % (work and work[0]))
    r, profs = profiled("fork")
    lines = sorted(r.stdout.splitlines())
    if check(r.returncode == 0 and lines == ["child single=1 tasks=2", "main single=1 tasks=2"]
             and len(profs) == 2, "helper: a fork child makes its own uncounted sampler (%r, %d profiles)"
             % (r.stdout, len(profs))):
        times = [report(p)["total_time_s"] for p in profs]
        check(min(times) > 0.05, "helper: the child's profile and the parent's have time (%s)" % times)


def helper_credentials():
    """Note [The helper's credentials] (credentials.c): a process that
    gives up root has every task with the new uids, the sampler (a thread
    glibc does not count, which glibc's setuid does not reach) too, with
    setuid, with initgroups and setres*id, and with seteuid there and
    back, also started under a seccomp filter (the sampler made anew at
    each change, not asked to follow: Note [Credentials by request]); its
    profile is written as the new user.  Only as root."""
    if os.geteuid() != 0:
        return
    exe = build("dropids", "tests/progs/dropids.c")
    d = fresh_dir("dropids_runs")
    os.chmod(d, 0o777)
    want = {"setuid": ["uids 65534 65534 65534 65534: %d tasks"],
            "initgroups": ["uids 65534 65534 65534 65534: %d tasks"],
            "seteuid": ["uids 0 65534 0 65534: %d tasks", "uids 0 0 0 0: %d tasks"],
            "filtered seteuid": ["uids 0 65534 0 65534: %d tasks", "uids 0 0 0 0: %d tasks"]}
    for mode, lines in want.items():
        bare = run([exe] + mode.split(), timeout=60)
        check(bare.stdout.splitlines() == [l % 1 for l in lines],
              "helper credentials %s: bare, one task (%r)" % (mode, bare.stdout))
        prof = os.path.join(d, mode.replace(" ", "_") + ".ccprof")
        r = run([exe] + mode.split(), timeout=60, env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                                           CCPROF_OPTIONS="output=" + prof))
        check(r.returncode == 0 and r.stdout.splitlines() == [l % 2 for l in lines],
              "helper credentials %s: profiled, the sampler's uids are the program's (%r)"
              % (mode, r.stdout))
        if check(os.path.exists(prof), "helper credentials %s: profile written" % mode):
            owner = 0 if mode.endswith("seteuid") else 65534
            work = [f for f in report(prof)["functions"] if f["name"] == "work"]
            check(os.stat(prof).st_uid == owner and work and work[0]["calls"] == len(lines) + 1,
                  "helper credentials %s: the profile is uid %d's, work() called %d times (uid %d, %s)"
                  % (mode, owner, len(lines) + 1, os.stat(prof).st_uid, work and work[0]["calls"]))


def dropped_user():
    """A process that gives up root (a server's worker, as nobody)
    cannot create its profile in a directory only root may write to; the
    runtime's warning says so and what to do, and the program exits as
    before.  Only as root."""
    if os.geteuid() != 0:
        print("# SKIP dropped user: not root")
        return
    exe = build("dropuser", "tests/progs/dropuser.c")
    d = os.path.join(OUT, "dropuser_dir")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
    prof = os.path.join(d, "dropuser.ccprof")
    bare = run([exe, "65534"])
    if bare.returncode != 0:  # root without CAP_SETUID (a user namespace)
        print("# SKIP dropped user: setuid(65534) fails here: %s" % bare.stderr.strip())
        return
    r = run([exe, "65534"], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                       CCPROF_OPTIONS="output=" + prof))
    said = ccprof_said(r.stderr)
    check(r.returncode == 0 and r.stdout == "uid 65534\n" and len(said) == 1 and
          "cannot write %s: Permission denied (the process changed its user from uid 0 to "
          "65534: give output= a directory that user can write" % prof in said[0] and
          not os.path.exists(prof),
          "dropped user: exit 0, one warning saying the user changed (%r)" % said)


def raw_exit():
    """_exit and _Exit write the profile first (Note [Ending by _exit] in
    src/runtime/rawexit.c): from main, from a signal handler, from an
    atexit handler, from a second thread, in a forked child (a profile of
    its own); a vfork child's _exit writes nothing and leaves its parent's
    profile whole.  Each run behaves as the bare program does, and the
    counts are the program's own (on stderr: _exit flushes no stdio).
    Preloaded, and since session 50 with libccprof.a linked in, also
    with -static (it wrote no profile there)."""
    statuses = {"main": 3, "Exit": 4, "child": 5, "vfork": 6, "handler": 7, "atexit": 8,
                "thread": 9, "altstack": 10}
    for (mode, status), (ltag, linked) in [(m, l) for m in statuses.items() for l in link_ways()]:
        name = "rawexit_" + mode + ltag
        p, prof = same_behaviour(name, "tests/progs/rawexit.c", [mode], linked=linked)
        if p is None:
            continue
        check(p.returncode == status, "%s (%s): ends with status %d (got %d)"
              % (name, CLOCK, status, p.returncode))
        if not check(os.path.exists(prof), "%s (%s): profile written (%s)"
                     % (name, CLOCK, p.stderr.strip()[-200:])):
            continue
        fs = functions(report(prof))
        own = counts(p.stderr)
        check(own and all(fs.get(f, {}).get("calls") == n for f, n in own.items()),
              "%s (%s): the program's counts %s (got %s)" % (name, CLOCK, own, {
                  f: fs.get(f, {}).get("calls") for f in own}))
        kids = glob.glob(prof + ".*")
        if mode == "child":
            kid = functions(report(kids[0])) if len(kids) == 1 else {}
            check(kid.get("work", {}).get("calls") == 1 and kid.get("leaf", {}).get("calls") == 30,
                  "%s (%s): the child's _exit wrote its own profile, work 1 and leaf 30 (%s)"
                  % (name, CLOCK, kids))
        else:
            check(kids == [], "%s (%s): no other profile (%s)" % (name, CLOCK, kids))
    raw_exit_last_interval()
    cannot_write_says_why()
    raw_exit_fifo_term()
    raw_exit_small_address_space()
    tight_address_space()
    names_under_limits()
    out_of_address_space()
    errno_without_room()


def names_under_limits():
    """Under tight address-space limits the profile carries the names
    itself (its program is removed before the report): fib linked with
    libccprof.a under 21 limits from 20 to 60 MB.  The names' own mapping
    of at least 16 MB beside the write's (Note [Names without malloc])
    left them out under 12 of those limits (helper-164); a mapping of
    their own beside the write's took the room the ELF file's mapping
    needed (26, 30 and 42 MB).  Where the write's mapping leaves no room
    for that file, the names are left to the tool, as before."""
    exe = build("fib_aslimit", "tests/progs/fib.c", LIBA)
    prof = os.path.join(OUT, "fib_aslimit.ccprof")
    named, runs = [], 0
    for mb in range(20, 61, 2):
        if os.path.exists(prof):
            os.unlink(prof)
        copy = exe + "_gone"
        shutil.copy(exe, copy)
        lim = mb << 20
        p = run([copy, "15"], env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof),
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))
        os.unlink(copy)
        runs += 1
        if p.returncode == 0 and os.path.exists(prof) and \
                functions(report(prof)).get("fib", {}).get("calls") == 1973:
            named.append(mb)
    check(len(named) >= runs - 3, "tight address-space limits: the profile names fib itself "
          "under %d of %d limits (%s MB)" % (len(named), runs, named))


def tight_address_space():
    """An address-space limit too tight for the profiler (helper-130,
    coreutils' csplit-heap and printf-surprise).  aslimit.c limits itself
    to what it maps and 1 MB more, then makes a million calls: the thread's
    state cannot be mapped, and the old build tried again at every call
    (two mmaps each, 12 KB kept each time: 18 times the time here) and said
    nothing of the missing profile.  Now one line says why, the program
    runs as bare, and no profile is written.  A shell that ran no
    instrumented code and dies by SIGPIPE under a 20 MB limit writes
    nothing and says nothing: the old build said it had no memory to write
    the profile from a signal handler.  With room for all but the sampling
    thread's stack, the first call says no time will be recorded (the old
    build said nothing)."""
    exe = build("aslimit", "tests/progs/aslimit.c")
    prof = os.path.join(OUT, "aslimit.ccprof")
    if os.path.exists(prof):
        os.unlink(prof)
    p = run([exe], env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    said = ccprof_said(p.stderr)
    check(p.returncode == 0 and p.stdout == "calls work 1000000\n" and len(said) == 1 and
          "no memory for a thread's profiling state" in said[0] and not os.path.exists(prof),
          "a limit too tight for the thread's state: the program runs as bare, one line says why, "
          "no profile (status %d, %r, %s)" % (p.returncode, p.stdout, said))

    # Room for all but the sampling thread's stack (RLIMIT_STACK's size,
    # glibc's default): the old build's silence left a profile without
    # time unexplained.
    env = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof)
    m = re.match(r"vmsize (\d+)$", run([exe, "size"], env=env).stdout)
    stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
    stack = stack if 0 < stack < (1 << 30) else 8 << 20
    if check(m is not None, "aslimit size: what a profiled process maps"):
        room = int(m.group(1)) - stack + (4 << 20)
        p = run([exe, "work"], env=env,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (room, room)))
        said = ccprof_said(p.stderr)
        fs = functions(report(prof)) if os.path.exists(prof) else {}
        check(p.returncode == 0 and said == ["ccprof: cannot start the sampling thread; no time "
                                             "will be recorded"] and
              fs.get("work", {}).get("calls") == 1000000,
              "no room for the sampling thread's stack: one line says so, the calls are "
              "recorded (status %d, %s, %s)" % (p.returncode, said, fs.get("work", {}).get("calls")))

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (20 << 20, 20 << 20))
    r = run(["sh", "-c", "kill -PIPE $$"], preexec_fn=limit,
            env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == -signal.SIGPIPE and r.stderr == "",
          "sh under a 20 MB limit, dead by SIGPIPE: no line of ours (status %d, %r)"
          % (r.returncode, r.stderr))


def out_of_address_space():
    """A program that used up its address space (`ulimit -v`) and exits
    "out of memory" still gets its profile, from the room kept for the
    write (Note [Room kept for the write] in src/runtime/dump.c): the
    old build said "out of memory; no profile written" (helper-134,
    gawk).  aslimit.c fill makes a million calls, limits itself to what
    it maps and 64 MB more, and mallocs until malloc fails; the names are
    left to the tool, since the write's malloc fails too.  Then exit 2, or
    abort() as xmalloc does (the write from the signal handler)."""
    exe = build("aslimit", "tests/progs/aslimit.c")
    prof = os.path.join(OUT, "aslimit_fill.ccprof")
    for how, status in (("exit", 2), ("abort", -signal.SIGABRT)):
        if os.path.exists(prof):
            os.unlink(prof)
        p = run([exe, "fill", how], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                             CCPROF_OPTIONS="output=%s:crash_stack=0" % prof))
        fs = functions(report(prof)) if os.path.exists(prof) else {}
        check(p.returncode == status and
              re.match(r"calls work 1000000\nfilled \d+ blocks\n$", p.stdout) and
              ccprof_said(p.stderr) == [] and fs.get("work", {}).get("calls") == 1000000 and
              fs.get("fill", {}).get("calls") == 2,
              "a program out of address space (%s): status %d as bare, its profile written with "
              "the calls it made (status %d, %r, %s, work %s, fill %s)"
              % (how, status, p.returncode, p.stdout, ccprof_said(p.stderr),
                 fs.get("work", {}).get("calls"), fs.get("fill", {}).get("calls")))


def errno_without_room():
    """A hook leaves errno alone when the runtime's own mappings fail: the
    thread's state, the room kept for the write (Note [Room kept for the
    write]), the sampler's stack, a thread's lent alternate stack (Note
    [Stacks for other threads]).  aslimit.c errno KB limits the address
    space to what the process maps and KB more, then makes its first
    call with errno 0; threaderrno does it in a second thread.  Swept
    over the limits at which each mapping in turn fails: the build
    before helper-135's review left ENOMEM (12) in errno at all of them
    in main, and in a thread up to 2.3 MB."""
    exe = build("aslimit", "tests/progs/aslimit.c")
    prof = os.path.join(OUT, "aslimit_errno.ccprof")
    bad = []
    for mode in ("errno", "threaderrno"):
        for kb in range(512, 6656, 128):
            p = run([exe, mode, str(kb)], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                                   CCPROF_OPTIONS="output=" + prof))
            if p.returncode != 0 or p.stdout != "errno 0\n":
                bad.append((mode, kb, p.returncode, p.stdout))
    check(bad == [], "errno after a first call whose mappings fail under an address-space "
          "limit: 0, as set before it (%s)" % bad[:6])


def cannot_write_says_why():
    """A profile that cannot be written says why in words, from the write
    at exit and from _exit's (which runs in signal handlers, and said
    only "errno 2": strerror is not async-signal-safe, and may allocate;
    the runtime's text now comes from glibc's own table), and the program
    ends as it chose."""
    exe = build("rawexit_nodir", "tests/progs/rawexit.c")
    prof = os.path.join(OUT, "no_such_dir", "p.ccprof")
    for mode, status, how in (("main", 3, "_exit"), ("atexit", 8, "_exit in an atexit handler"),
                              ("handler", 7, "_exit in a signal handler")):
        r = run([exe, mode], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                        CCPROF_OPTIONS="output=" + prof))
        said = ccprof_said(r.stderr)
        check(r.returncode == status and said == ["ccprof: cannot write %s: No such file or directory"
                                                  % prof],
              "rawexit %s (%s): ends with %d, one line says why the profile was not written (%s)"
              % (mode, how, status, said))
    exe = build("fib_nodir", "tests/progs/fib.c")
    r = run([exe, "10"], env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    said = ccprof_said(r.stderr)
    check(r.returncode == 0 and said == ["ccprof: cannot write %s: No such file or directory" % prof],
          "fib: the write at exit says why it failed, in words (%s)" % said)


def raw_exit_small_address_space():
    """Under `ulimit -v` 1 GB, _exit's write (from no malloc: Note [Memory
    for a write] in dump.c) takes a smaller mapping than its 4 GB and
    writes the profile, with the program's counts; it wrote none."""
    exe = build("rawexit_ulimit", "tests/progs/rawexit.c")
    prof = os.path.join(OUT, "rawexit_ulimit.ccprof")
    if os.path.exists(prof):
        os.unlink(prof)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    p = run([exe, "main"], preexec_fn=limit,
            env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    fs = functions(report(prof)) if os.path.exists(prof) else {}
    own = counts(p.stderr)
    check(p.returncode == 3 and own and all(fs.get(f, {}).get("calls") == n for f, n in own.items()),
          "rawexit under a 1 GB address space: _exit(3) writes the profile, with the program's "
          "counts %s (got %s)" % (own, {f: fs.get(f, {}).get("calls") for f in own}))


def raw_exit_last_interval():
    """A process that ends by _exit before the sampler wakes (30 ms of CPU
    at a 1 s interval) has its time: the write charges each thread the
    time since its last sample, as the sampler's last wake-up does at exit
    (Note [The last interval of a write that ends the process] in
    sampler.c).  Before, the profile had 0 s."""
    said = os.path.join(OUT, "rawexit_short.cpu_ms")  # the profiled run's, written last
    p, prof = same_behaviour("rawexit_short", "tests/progs/rawexit.c", ["short"],
                             env={"CCPROF_OPTIONS": "interval=1s", "RAWEXIT_CPU_MS": said})
    if p is None or not check(p.returncode == 11 and os.path.exists(prof),
                              "rawexit short: _exit(11), profile written"):
        return
    with open(said) as f:
        own = re.search(r"^cpu_ms (\d+)$", f.read(), re.M)
    got = report(prof)["total_time_s"] * 1000
    check(own and 0.5 * int(own.group(1)) <= got <= int(own.group(1)) + 20,
          "rawexit short (%s): %.1f ms charged for the program's own %s ms of CPU"
          % (CLOCK, got, own.group(1) if own else "?"))


def wait_in_openat(pid):
    """Until a thread of process pid waits in the openat system call (257)
    for a FIFO's reader, as a write to one does until a reader comes; at
    most 10 s.  Where the kernel names what it waits in (wchan), an
    openat that waits for something else (the loader's open of a library
    from a slow disk) is not taken for it: a signal sent then ended the
    process before it opened the FIFO, and the reader waited for ever."""
    for _ in range(2000):
        for task in glob.glob("/proc/%d/task/*" % pid):
            try:
                with open(task + "/syscall") as f:
                    call = f.read().split(" ")[0]
                with open(task + "/wchan") as f:
                    wchan = f.read().strip()
            except OSError:
                continue
            if call == "257" and wchan in ("wait_for_partner", "fifo_open", "0", ""):
                return
        time.sleep(0.005)


def term_during_fifo_write(cmd, d):
    """Run cmd preloaded, its profile going to a FIFO in a fresh d; once
    the write waits in open for a reader, send SIGTERM, then read the
    FIFO.  (exit status or None if it outlived 20 s, the bytes read, and
    `ccprof info` of them)."""
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    fifo = os.path.join(d, "prof.fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                  CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, fifo)))
    wait_in_openat(p.pid)  # the write blocks there until a reader comes
    os.kill(p.pid, signal.SIGTERM)
    time.sleep(0.1)  # the signal waits, held back; no race either way
    with open(fifo, "rb") as f:
        data = f.read()
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = None
    got = os.path.join(d, "got.ccprof")
    with open(got, "wb") as f:
        f.write(data)
    return rc, data, run([CCPROF, "info", got])


def raw_exit_fifo_term():
    """A SIGTERM that comes while _exit's write waits for a FIFO's reader:
    the process still ends by _exit(3), as the program chose, not by the
    signal let in after the write; one profile comes through."""
    exe = build("rawexit_fifo", "tests/progs/rawexit.c")
    rc, _, r = term_during_fifo_write([exe, "main"], os.path.join(OUT, "rawexitfifo"))
    check(rc == 3 and r.returncode == 0,
          "rawexit: SIGTERM while _exit's write waits for a FIFO: ends by _exit(3) (got %s), "
          "one profile through the FIFO (%s)" % (rc, r.stderr.strip() or "valid"))


def term_names():
    """A profile written by the SIGTERM handler names the live threads as
    one written at exit does: the program's own and "busy-worker"
    (pthread_setname_np), not "(unnamed)" (tests/progs/termnamed.c)."""
    p, prof = same_behaviour("termnamed", "tests/progs/termnamed.c")
    if p is None or not check(p.returncode == -15 and os.path.exists(prof),
                              "termnamed: ends by SIGTERM as the bare program, profile written"):
        return
    text = run([CCPROF, "report", "--threads", prof]).stdout
    names = re.findall(r"^thread \d+  (\S+)  tid", text, re.M)
    check(sorted(names) == ["busy-worker", "termnamed"],
          "termnamed: the SIGTERM handler's write names both live threads (%s)" % names)


def threads_tsan():
    tsan = os.path.join(OUT, "tsan")
    r = run(["make", "-s", "-C", TOP, "BUILD=" + tsan, "CC=" + CC,
             "CFLAGS=-O1 -g -fsanitize=thread", tsan + "/lib/libccprof.so"])
    if not check(r.returncode == 0, "threads: runtime builds with -fsanitize=thread"):
        print("# " + r.stderr[-500:].replace("\n", "\n# "))
        return
    # The sanitizer runtime must come first: link the runtime instead of preloading it.
    exe = build("threads_tsan", "tests/progs/threads.c", "-fsanitize=thread",
                os.path.join(tsan, "lib/libccprof.so"), "-Wl,-rpath," + os.path.join(tsan, "lib"))
    for clock in ("cpu", "cycles"):
        prof = os.path.join(OUT, "threads_tsan_%s.ccprof" % clock)
        e = dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="clock=%s:output=%s" % (clock, prof),
                 TSAN_OPTIONS="halt_on_error=1:report_signal_unsafe=0")
        r = run([exe], env=e)
        check(r.returncode == 0 and "WARNING: ThreadSanitizer" not in r.stderr,
              "threads, clock=%s: no ThreadSanitizer report (exit %d)%s"
              % (clock, r.returncode, r.stderr[:400]))
        exact_calls("threads under TSan, clock=%s" % clock, r, prof)
    # Cost centres' numbers read without the lock while other threads are
    # given theirs and the table grows (Note [Numbers read without the
    # lock] in src/runtime/cctable.c).
    exe = build("widethreads_tsan", "tests/progs/widethreads.c", "-fsanitize=thread",
                os.path.join(tsan, "lib/libccprof.so"), "-Wl,-rpath," + os.path.join(tsan, "lib"))
    prof = os.path.join(OUT, "widethreads_tsan.ccprof")
    r = run([exe, "3", "parallel"], env=dict(os.environ, LD_PRELOAD="",
                                              CCPROF_OPTIONS="output=" + prof,
                                              TSAN_OPTIONS="halt_on_error=1:report_signal_unsafe=0"))
    check(r.returncode == 0 and "WARNING: ThreadSanitizer" not in r.stderr,
          "wide threads at once: no ThreadSanitizer report (exit %d)%s" % (r.returncode, r.stderr[:400]))
    exact_calls("wide threads at once under TSan", r, prof)
    # vfork from three threads, libccprof.a linked in: the sanitizer's
    # vfork must have the call (Note [A vfork child's calls] in
    # src/runtime/vfork.c); ours, strong, took it from TSan's, which then
    # reported a thread leak, and the children exited 66 (helper-187).
    exe = build("vforktime_tsan", "tests/progs/vforktime.c", "-fsanitize=thread", LIBA)
    prof = os.path.join(OUT, "vforktime_tsan.ccprof")
    p = subprocess.Popen([exe, "threads", "30"], start_new_session=True, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof,
                                  TSAN_OPTIONS="halt_on_error=1:report_signal_unsafe=0"))
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # and a child spinning where it went wrong
        p.communicate()
        check(False, "vfork from threads under TSan, libccprof.a linked: ends within 60 s")
        return
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    check(r.returncode == 0 and r.stdout == "90 children\n" and
          "WARNING: ThreadSanitizer" not in r.stderr and os.path.exists(prof),
          "vfork from threads under TSan, libccprof.a linked: as bare (exit %d, %r)%s"
          % (r.returncode, r.stdout, r.stderr[:400]))
    # The sanitizer's interceptors of sigaction and signal come before the
    # runtime's: what the program is told of its signal actions is still
    # what it is told without ccprof (the runtime's signal functions call
    # one another directly, not through the interceptors). The write in
    # the handler reads the sampler's counters racily: reports off.
    src = "tests/progs/signals.c"
    exe = build("sig_view_tsan", src, "-fsanitize=thread", os.path.join(tsan, "lib/libccprof.so"),
                "-Wl,-rpath," + os.path.join(tsan, "lib"))
    bare = build("sig_view_tsan_bare", src, "-fsanitize=thread", instrument=False)
    prof = os.path.join(OUT, "sig_view_tsan.ccprof")
    e = dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof,
             TSAN_OPTIONS="report_signal_unsafe=0:report_bugs=0")
    b, p = run([bare, "view"], env=e), run([exe, "view"], env=e)
    check(p.stdout == b.stdout and p.returncode == b.returncode == -signal.SIGTERM,
          "signal view under TSan: as bare (%d, bare %d)%s" % (p.returncode, b.returncode,
          "".join("\n# " + l for l in p.stdout.splitlines() if l not in b.stdout.splitlines())))


def early_siginterrupt():
    """siginterrupt from a library's constructor, which runs before the
    runtime's: glibc's signal must leave SA_RESTART out afterwards, as
    without ccprof (the runtime's siginterrupt found no libc to call yet,
    and glibc's own set missed it)."""
    lib = os.path.join(OUT, "libearlysig.so")
    src = "tests/progs/earlysig.c"
    r = run([CC, "-O1", "-fPIC", "-shared", "-DEARLYSIG_LIB", os.path.join(TOP, src), "-o", lib])
    if not check(r.returncode == 0, "libearlysig.so builds"):
        return
    p, _ = same_behaviour("earlysig", src, extra=["-L" + OUT, "-Wl,--no-as-needed", "-learlysig",
                                                  "-Wl,-rpath," + OUT])
    check(p is not None and p.stdout.count("flags 0x4000000") == 2,
          "siginterrupt before the runtime started: no SA_RESTART (%r)" % (p and p.stdout))


def cancel():
    p, prof = same_behaviour("cancel", "tests/progs/cancel.c")
    rep = exact_calls("cancel", p, prof)
    if rep:
        a = arcs(rep)
        check(a.get(("main", "after_cancel"), {}).get("calls") == 3,
              "cancellation: main's later calls attributed to main")
        check(a.get(("cleanup", "cleanup_work"), {}).get("calls") == 1,
              "cancellation: the cleanup handler's calls nest under it")


def late_cancel():
    """A thread with a cancellation request pending that reaches no
    cancellation point of its own is not cancelled bare.  Profiled, the
    runtime's work for it (its end, the write before exec, the sampler's
    stop for unshare, ccprof_dump, the write at exit) opened files and
    joined the sampler, cancellation points: it died there holding a lock
    and the program hung (Note [Cancellation] in cancel.c)."""
    for mode in ("return", "exec", "unshare", "dump", "exit"):
        p, prof = same_behaviour("latecancel_" + mode, "tests/progs/latecancel.c", [mode],
                                 timeout=20)
        if p is not None and mode != "exec":
            check(os.path.exists(prof), "late cancel (%s): the profile written" % mode)
            fs = functions(report(prof)) if os.path.exists(prof) else {}
            want = {"return": 4, "unshare": 3, "dump": 3, "exit": 2}[mode]
            check(fs.get("work", {}).get("calls") == want,
                  "late cancel (%s): work's calls in the profile (%r)" % (mode, fs.get("work")))


def async_cancel():
    """Threads with asynchronous cancellation enabled, cancelled while the
    slow path makes their contexts (24 runs, at delays from 0 to 46 ms):
    no hang, no crash, the profile written.  Before the slow path held
    cancellation off, 6 in 24 crashed or hung."""
    bare = build("asynccancel_bare", "tests/progs/asynccancel.c", instrument=False)
    exe = build("asynccancel", "tests/progs/asynccancel.c")
    want = run([bare, "0"], timeout=20)
    bad = []
    for i in range(24):
        prof = os.path.join(OUT, "asynccancel.ccprof")
        if os.path.exists(prof):
            os.unlink(prof)
        e = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, prof))
        try:
            r = run([exe, str(i * 2000)], env=e, timeout=20)
        except subprocess.TimeoutExpired:
            bad.append((i, "hang"))
            continue
        if r.returncode != want.returncode or r.stdout != want.stdout or not os.path.exists(prof):
            bad.append((i, r.returncode))
    check(want.stdout == "ok\n" and not bad,
          "async cancellation (%s): 24 runs end as bare, with a profile (%r)" % (CLOCK, bad))


def at_levels(name, src, levels, args=(), only=None):
    """Build src with -finstrument-functions at each (cc, flags) of levels
    (a compiler not installed is skipped), run it under `ccprof record`,
    or with libccprof.a linked in where flags name it, at clock=CLOCK,
    and yield (tag, exe, CompletedProcess, report, contexts): contexts
    sorted as (history, entries, recursive), those whose functions are
    all in only if given.  For the tests that an optimised build's
    contexts are -O0's."""
    for cc, flags in levels:
        if shutil.which(cc) is None:
            continue
        static = any(f.endswith("libccprof.a") for f in flags)
        words = ["libccprof.a" if f.endswith("libccprof.a") else f for f in flags]
        tag = "%s %s, clock=%s" % (cc, " ".join(words), CLOCK)
        exe = os.path.join(OUT, "%s_%s%s" % (name, cc, "".join(words)))
        prof = exe + "@%s.ccprof" % CLOCK
        run([cc, "-finstrument-functions", os.path.join(TOP, src), "-o", exe, "-pthread"] + flags)
        if static:
            r = run([exe] + list(args),
                    env=dict(os.environ, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, prof)))
        else:
            r, prof = record(exe, args, clock=CLOCK, profile=prof)
        rep = report(prof)
        got = sorted((history_str(c), c["entries"], c["recursive"]) for c in rep["contexts"]
                     if c["history"] and (only is None or {e["name"] for e in c["history"]} <= only))
        yield tag, exe, r, rep, got


def as_at_O0(what, tag, got, want, r, rep, nfuncs):
    """The checks of a build at_levels made: its contexts (got) are the
    -O0 build's (want; None when this is that build), and its calls those
    the program counted, of nfuncs functions.  Returns the -O0 contexts."""
    if want is not None:
        check(got == want, "%s: %s: the -O0 contexts (%s)" % (what, tag, got))
    fs = functions(rep)
    n = counts(r.stdout)
    check(r.returncode == 0 and len(n) == nfuncs and all(fs[f]["calls"] == n[f] for f in n),
          "%s: %s: the calls the program counted, %s" % (what, tag, n))
    return got if want is None else want


def optimised():
    """Inlined functions' hooks and sibling-called exit hooks (gcc -O1 and
    up, clang -O2): the same contexts as at -O0."""
    want = None
    for tag, _, _, _, got in at_levels("inlined", "tests/progs/inlined.c",
                                       (("gcc", ["-O0"]), ("gcc", ["-O1"]), ("gcc", ["-O2"]),
                                        ("gcc", ["-Os"]), ("clang", ["-O2"]))):
        if want is None:
            want = got
            check(("[main] [outer]", 100, 0) in got, "inlined: -O0 baseline has [main] [outer] x100")
        else:
            check(got == want, "inlined: %s gives the -O0 contexts (%s)" % (tag, got))


def selfinline():
    """A recursive function inlined into itself (gcc -O2, -O3), the hooks
    called by hand in gcc's order (tests/progs/selfinline.c).  The
    runtime nests the copies (Note [Self-inlined copies] in machine.c),
    preloaded and, since session 49, linked in as libccprof.a.  With
    every hook called from one place ("onesite"), the runtime cannot tell
    a copy from a new call after a jump it did not see, and lets each
    copy replace its outer call's entry, as off x86-64 (and libccprof.a
    before session 49): the real recursive call's exit then matches no
    entry, and must not end the outer call as if it were a split
    function's exit (Note [Split functions] in hooks.c).  Either way the
    copy's g() is f's."""
    p, prof = same_behaviour("selfinline", "tests/progs/selfinline.c")
    if p is None:
        return
    reps = [("preloaded", report(prof))]
    # -O2: the real call's last exit hook a sibling call, which sees the
    # outer copy's stack pointer (helper-157)
    for opt, mode in [(o, m) for o in ("-O1", "-O2") for m in ("", "onesite")]:
        exe = build("selfinline_static%s@%s" % (opt, CLOCK), "tests/progs/selfinline.c",
                    LIBA, opt, instrument=False)
        sprof = "%s%s.ccprof" % (exe, mode)
        s = run([exe] + ([mode] if mode else []),
                env=dict(os.environ, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, sprof)))
        check(s.returncode == 0 and s.stdout == p.stdout, "selfinline (%s): libccprof.a linked "
              "in, %s %s, it runs as bare" % (CLOCK, opt, mode))
        reps.append(("libccprof.a %s %s" % (opt, mode), report(sprof)))
    for how, rep in reps:
        fg = arcs(rep).get(("f", "g"), {}).get("calls")
        alone = sum(c["entries"] for c in rep["contexts"]
                    if [e["name"] for e in c["history"]] == ["g"])
        check(fg == 100 and alone == 0, "selfinline (%s, %s): the inlined copy's g() after the real "
              "call of f is f's: 100 calls f->g (got %s), none from the root (got %d)"
              % (CLOCK, how, fg, alone))


def enter_hooks_in(exe, fn):
    """How many calls of the enter hook fn's machine code makes."""
    body = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(fn),
                     run(["objdump", "-d", exe]).stdout, re.M | re.S)
    return body.group(1).count("<__cyg_profile_func_enter") if body else 0


def self_inlined():
    """Recursive functions gcc inlines into themselves at -O3
    (tests/progs/selfrec.c): the copies' hooks run in the outer call's
    frame with its call site and function, and nest in it as recursive
    calls (Note [Self-inlined copies] in src/runtime/machine.c).  Every
    build's contexts are -O0's, and the calls the program counted, also
    in a library's constructor, which runs before the runtime's own;
    also with libccprof.a linked in, which follows longjmp too since
    session 49 (Note [Jumps in a static program]) and so nests the
    copies as well (before, it took each for a new call, and its contexts
    differed).  That gcc -O3 did inline walk into itself, the
    disassembly says: walk's body calls the enter hook more than once."""
    src = os.path.join(TOP, "tests/progs/selfrec.c")
    want = None
    # (clang hooks glibc's atoi, inline in its header, too: only the
    # program's own functions)
    for tag, exe, r, rep, got in at_levels("selfrec", "tests/progs/selfrec.c",
                                         (("gcc", ["-O0"]), ("gcc", ["-O2"]), ("gcc", ["-O3"]),
                                          ("clang", ["-O2"]),
                                          ("gcc", ["-O3", LIBA])),
                                         ["10", "20"], {"main", "walk", "leaf", "build"}):
        if want is None:
            check(("[main] [walk]", 20, 40920) in got and ("[main] [walk] [leaf]", 20460, 0) in got,
                  "self-inlined: -O0 baseline, [main] [walk] entered 20 times (clock=%s): %s"
                  % (CLOCK, got))
        want = as_at_O0("self-inlined", tag, got, want, r, rep, 3)
        if tag.startswith("gcc -O3 "):
            hooks = enter_hooks_in(exe, "walk")
            check(hooks > 1, "self-inlined: %s: gcc inlined walk into itself (its body calls "
                  "the enter hook %d times)" % (tag, hooks))
    # In a library's constructor, which runs before the runtime's own.
    main = os.path.join(OUT, "selfrec_main.c")
    with open(main, "w") as f:
        f.write("int main(void) { return 0; }\n")
    want = None
    for opt in ("-O0", "-O3"):
        lib = os.path.join(OUT, "libselfrec%s.so" % opt)
        exe = os.path.join(OUT, "selfrec_early%s" % opt)
        b = run(["gcc", opt, "-finstrument-functions", "-fPIC", "-shared", "-DSELFREC_EARLY", src,
                 "-o", lib])
        b2 = run(["gcc", main, "-o", exe, "-Wl,--no-as-needed", lib, "-Wl,-rpath," + OUT])
        r, prof = record(exe, clock=CLOCK, profile=exe + "@%s.ccprof" % CLOCK)
        got = sorted((history_str(c), c["entries"], c["recursive"]) for c in report(prof)["contexts"]
                     if c["history"])
        if want is None:
            want = got
            ok = b.returncode == b2.returncode == r.returncode == 0 and ("[early] [walk]", 5, 630) in got
        else:
            ok = got == want
        check(ok, "self-inlined: gcc %s, in a library's constructor, clock=%s: the -O0 contexts (%s)"
              % (opt, CLOCK, got))


def pops_after_enter(exe, fn):
    """How many of fn's calls of the enter hook gcc follows with a pop
    before its next call: stack arguments still pushed as the hook runs."""
    body = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(fn),
                     run(["objdump", "-d", "--no-show-raw-insn", exe]).stdout, re.M | re.S)
    lines = body.group(1).split("\n") if body else []
    n = 0
    for i, line in enumerate(lines):
        if "<__cyg_profile_func_enter" in line:
            for after in lines[i + 1:]:
                if "\tcall" in after or "\tjmp" in after:
                    break
                if "\tpop " in after:
                    n += 1
                    break
    return n


def deferred_pops():
    """A stack argument gcc pops only after the enter hook of the inlined
    copy that follows (tests/progs/deferpop.c): that copy's entry lies 16
    bytes below its frame's, and the calls it makes after the pop took it
    for a frame gone (Note [Arguments not yet popped] in
    src/runtime/machine.c).  Every build's contexts are -O0's, also with
    libccprof.a linked in, and the calls are those the program counted.
    That gcc -O2 did defer the pop, the disassembly says.  (clang hooks
    glibc's atol, inline in its header, too: only the program's own
    functions.)"""
    want = None
    for tag, exe, r, rep, got in at_levels("deferpop", "tests/progs/deferpop.c",
                                         (("gcc", ["-O0"]), ("gcc", ["-O2"]), ("gcc", ["-O3"]),
                                          ("clang", ["-O2"]), ("gcc", ["-O2", LIBA])),
                                         ["300"], {"main", "caller", "emit", "outer", "inner",
                                                   "seven", "leaf", "other", "sibs", "jumper",
                                                   "plain", "dojump"}):
        if want is None:
            check(("[main] [caller] [outer] [inner]", 449, 0) in got and
                  ("[main] [sibs] [plain]", 300, 0) in got,
                  "deferred pops: -O0 baseline, inner under outer, plain under sibs (clock=%s): %s"
                  % (CLOCK, got))
        want = as_at_O0("deferred pops", tag, got, want, r, rep, 9)
        if tag.startswith("gcc -O2,"):
            check(pops_after_enter(exe, "caller") > 0,
                  "deferred pops: %s: gcc pops seven's argument after an enter hook" % tag)


def unseen_jumps():
    """Jumps the runtime does not see (libc's own longjmp, past the
    interposed one; __builtin_longjmp; tests/progs/unseenjump.c) leave
    f's entry, and the next call of f from the same site looks like a
    self-inlined copy (Note [Self-inlined copies] in machine.c).  The
    hook's site tells: each call is a new one, as the program made it,
    and the stale entry goes.  setcontext back out of f on the same stack
    pops f's entry as a longjmp does.  A run of copies past any real
    depth (hooks called by hand) goes whole at RT_SELF_COPIES: the shadow
    stack stays shallow and the calls exact."""
    for mode, most in (("libc", 4), ("builtin", 4), ("setcontext", 4), ("copies", 20)):
        p, prof = same_behaviour("unseenjump_" + mode, "tests/progs/unseenjump.c", [mode, "1000"],
                                 extra=["-ldl"])
        if p is None:
            continue
        rep = report(prof)
        n = counts(p.stdout)
        fc = [(c["entries"], c["recursive"]) for c in rep["contexts"] if history_str(c) == "[main] [f]"]
        g = [(history_str(c), c["entries"]) for c in rep["contexts"]
             if c["history"] and c["history"][-1]["name"] == "g"]
        depth = json.loads(run([CCPROF, "info", "--json", prof]).stdout)["max_depth"]
        calls_ok = len(fc) == 1 and sum(fc[0]) == n.get("f") and (mode == "copies" or fc[0][1] == 0)
        if mode == "setcontext":
            # followed: big, after each jump, is main's, not the left f's
            big = [(history_str(c), c["entries"]) for c in rep["contexts"]
                   if c["history"] and c["history"][-1]["name"] == "big"]
            check(big == [("[main] [big]", 1000)] and n.get("big") == 1000,
                  "unseen jumps (setcontext, %s): setcontext on one stack pops f's entry: big "
                  "called 1000 times from main (%s)" % (CLOCK, big))
        check(n.get("f") in (1000, 1001) and calls_ok and g == [("[main] [g]", 1)] and depth <= most,
              "unseen jumps (%s, %s): f called %s times, [main] [f] (entries, recursive) %s%s, "
              "g from main (%s), the shadow stack at most %d deep (got %d)"
              % (mode, CLOCK, n.get("f"), fc, "" if mode == "copies" else ": every call a new one",
                 g, most, depth))


def split():
    """gcc's partial inlining (ipa-split, on at -O2): a function's head
    inlined into its caller, the rest a clone whose exit hook passes the
    clone's own return address (Note [Split functions] in hooks.c).  The
    exit must still end the call: the caller's later calls are its own, at
    every optimisation level and with the exit hook called or jumped to."""
    want = None
    for tag, exe, r, _, got in at_levels("split", "tests/progs/split.c",
                                         (("gcc", ["-O0"]), ("gcc", ["-O2"]),
                                          ("gcc", ["-O2", "-fno-optimize-sibling-calls"]),
                                          ("gcc", ["-O3"]), ("clang", ["-O2"]))):
        if tag.startswith("gcc -O2"):
            check("join.part." in run(["nm", exe]).stdout,
                  "split: %s splits join into a head and join.part.N" % tag)
        if want is None:
            want = got
            check(("[main] [run] [after]", 2000, 0) in got and r.returncode == 0,
                  "split: -O0 baseline has [main] [run] [after] x2000 (clock=%s)" % CLOCK)
        else:
            check(got == want, "split: %s: the -O0 contexts (%s)" % (tag, got))


def split_recursive():
    """A recursive function split by gcc's ipa-split
    (tests/progs/splitrec.c): every head's entry and the clone's exit
    have call sites an ancestor's entry has too, and an exit ended that
    ancestor's call, with every frame above it (1,550 of 13,219 of
    leaf's calls charged to main, visit entered 1,650 times for 100 at
    gcc -O2).  The contexts are -O0's at every optimisation level, and
    the calls the program counted."""
    want = None
    for tag, exe, r, rep, got in at_levels("splitrec", "tests/progs/splitrec.c",
                                           (("gcc", ["-O0"]), ("gcc", ["-O2"]), ("gcc", ["-O3"]),
                                            ("gcc", ["-Os"]), ("clang", ["-O2"]))):
        if tag.startswith("gcc -O2"):
            check("visit.part." in run(["nm", exe]).stdout,
                  "split recursive: gcc -O2 splits visit into a head and visit.part.N")
        fs = functions(rep)
        n = counts(r.stdout)
        counted = r.returncode == 0 and len(n) == 2 and all(fs[f]["calls"] == n[f] for f in n)
        if want is None:
            want = got
            check(counted and ("[main] [visit]", 100, 31850) in got and
                  ("[main] [visit] [leaf]", n["leaf"], 0) in got,
                  "split recursive: -O0 baseline, leaf's calls all visit's (clock=%s): %s"
                  % (CLOCK, got))
        else:
            check(counted and got == want, "split recursive: %s: the -O0 contexts and "
                  "the calls counted (%s)" % (tag, got))


def storm():
    exe = build("storm", "tests/progs/storm.c")
    r, prof = record(exe, clock=CLOCK, profile=os.path.join(OUT, "storm@%s.ccprof" % CLOCK))
    rep = report(prof)
    lost = [history_str(c) for c in rep["contexts"] if c["history"] and c["history"][0]["name"] != "main"]
    check(not lost, "signal storm: main is never lost from a history (%s)" % lost[:3])
    n = counts(r.stdout)
    handled = int(r.stdout.split("handled")[1].split()[0])
    fs = functions(rep)
    for f in "abc":
        check(fs[f]["calls"] == n[f], "signal storm: calls(%s) = %d exactly (got %d; %d signals handled)"
              % (f, n[f], fs[f]["calls"], handled))
    hcalls = sum(v["calls"] for k, v in fs.items() if k.startswith("h"))
    check(0 < hcalls <= handled, "signal storm: the handler's calls recorded, %d of %d"
          % (hcalls, handled))


def stepped():
    """Instrumented code run from a handler at every instruction of a call
    (tests/progs/stepper.c): no call is charged to another function."""
    exe = build("stepper", "tests/progs/stepper.c")
    r, prof = record(exe, clock=CLOCK, profile=os.path.join(OUT, "stepper@%s.ccprof" % CLOCK))
    if r.stdout.strip() == "unsupported":
        print("# stepped: no trap flag on this architecture, skipped")
        return
    n = counts(r.stdout)
    handled = int(r.stdout.split("handled")[1].split()[0])
    fs = functions(report(prof))
    # main calls each a_k twice, the handler once more in the rounds it acts in
    wrong = sorted(k for k, v in fs.items() if k[0] == "a" and k[1:].isdigit() and v["calls"] not in (2, 3))
    na = sum(v["calls"] for k, v in fs.items() if k[0] == "a" and k[1:].isdigit())
    check(na == n["a"] and not wrong, "stepped (%s): each a_k called 2 or 3 times, %d calls in all (got %d; wrong: %s)"
          % (CLOCK, n["a"], na, wrong[:4]))
    for f in "bcd":
        check(fs[f]["calls"] == n[f], "stepped (%s): calls(%s) = %d exactly (got %d)"
              % (CLOCK, f, n[f], fs[f]["calls"]))
    lost = json.loads(run([CCPROF, "info", "--json", prof]).stdout)["lost_calls"]
    hcalls = sum(v["calls"] for k, v in fs.items() if k[0] == "h" and k[1:].isdigit())
    check(handled > 100 and hcalls + lost == handled,
          "stepped (%s): the handler's calls, %d, and lost calls, %d, add up to its %d rounds"
          % (CLOCK, hcalls, lost, handled))


def nullfn():
    """Hooks called by hand with a null function and call site: no crash,
    the same output, the real calls still counted."""
    p, prof = same_behaviour("nullfn", "tests/progs/nullfn.c")
    if p is None:
        return
    check(p.returncode == 0, "nullfn (%s): exit status 0 (got %d)" % (CLOCK, p.returncode))
    calls = functions(report(prof)).get("f", {}).get("calls")
    check(calls == 6, "nullfn (%s): calls(f) = 6 (got %s)" % (CLOCK, calls))


def fork():
    p, prof = same_behaviour("forker", "tests/progs/forker.c")
    if p is None:
        return
    rep = report(prof)
    fs = functions(rep)
    check(fs.get("parent_work", {}).get("calls") == 5 and "child_work" not in fs,
          "fork: the parent's profile has its 5 calls and none of the child's")
    kids = [f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit()]
    check(len(kids) == 1, "fork: the child wrote <output>.<pid> (%s)" % kids)
    if kids:
        fs = functions(report(kids[0]))
        check(fs.get("child_work", {}).get("calls") == 5 and
              fs.get("parent_work", {}).get("calls", 0) == 0,
              "fork: the child's profile starts fresh: 5 child_work, no parent_work")


def own_malloc():
    """A program that defines malloc itself, instrumented (bash): the
    runtime's allocations in a write run its hooks, which number new
    functions under the lock the write held (Note [The program's malloc]
    in dump.c): a forked child's write before its exec hung for ever."""
    p, prof = same_behaviour("ownmalloc", "tests/progs/ownmalloc.c", timeout=30)
    if p is None:
        return
    check(p.stdout == "child exec'd\ncalls work 3\n" and p.returncode == 5,
          "own malloc: the child exec'd, the parent exited from a nested function")
    exact_calls("own malloc", p, prof)
    kids = [f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit()]
    if check(len(kids) == 1, "own malloc: the child wrote its part before the exec (%s)" % kids):
        fs = functions(report(kids[0]))
        # The child allocates nothing after the fork: an allocation in its
        # profile is the runtime's own, for the write (Note [Memory for a
        # write] in dump.c; 3 calloc and 3 malloc before it).
        allocs = {f: fs[f]["calls"] for f in ("malloc", "calloc", "realloc") if fs.get(f, {}).get("calls")}
        check(fs.get("child_execs", {}).get("calls") == 1 and not allocs,
              "own malloc: the child's profile has child_execs and no allocation the child never made (%s)"
              % allocs)


def own_getenv():
    """A program that defines getenv and strtod, instrumented (bash defines
    getenv): the runtime read CCPROF_OPTIONS through the program's getenv
    as it started, whose hook started it again inside its own
    pthread_once, and the program hung before main (Note [A hook while
    the runtime starts]).  Now the runtime reads environ itself, and a
    function of the program's it calls while starting (strtod, for
    interval=2.5ms) counts nothing and waits for nothing."""
    p, prof = same_behaviour("owngetenv", "tests/progs/owngetenv.c", timeout=30,
                             env={"OWNGETENV_WORD": "yes", "CCPROF_OPTIONS": "interval=2.5ms"})
    if p is None:
        return
    check(p.stdout.startswith("word yes, none -, 2.50\ncalls getenv 2\n"),
          "own getenv: the program's getenv called by main alone (%r)" % p.stdout)
    rep = exact_calls("own getenv", p, prof)
    info = info_json(prof)
    check(rep is not None and functions(rep).get("strtod", {}).get("calls") == 1 and
          info.get("interval_ns") == 2500000,
          "own getenv: CCPROF_OPTIONS' interval=2.5ms taken (%s), strtod's call from main "
          "counted, not the runtime's" % info.get("interval_ns"))


def file_size_limit():
    """RLIMIT_FSIZE below the profile's size (ulimit -f 0): the write at
    exit raised SIGXFSZ, and the program, which exits 0, died by it with
    its stdout unflushed and PATH.tmp* left behind.  Now that profile is
    not written (one ccprof line says so); one that fits is."""
    p, prof = same_behaviour("fsizelimit", "tests/progs/fsizelimit.c", ["0"], timeout=30)
    if p is not None:
        check(p.returncode == 0 and p.stdout == "calls work 7\n",
              "file size limit 0: exit 0 and stdout as without ccprof (%d)" % p.returncode)
        left = glob.glob(prof + "*") + glob.glob(os.path.join(os.path.dirname(prof), "." +
                                                               os.path.basename(prof) + "*"))
        check(left == [], "file size limit 0: no profile, no temporary file (%s)" % left)
        check("File too large" in p.stderr, "file size limit 0: ccprof says why it wrote nothing")
    p, prof = same_behaviour("fsizelimit", "tests/progs/fsizelimit.c", ["1m"], timeout=30)
    if p is not None:
        exact_calls("file size limit 1 MB, profile fits", p, prof)
    # Its own write past the limit: SIGXFSZ, as bare, and record says the
    # limit may be why there is no profile; it said the runtime's handler
    # had not run, right after the handler's own line (helper-166).
    p, prof = same_behaviour("fsizelimit", "tests/progs/fsizelimit.c", ["grow"], timeout=30)
    if p is not None:
        check(p.returncode == -signal.SIGXFSZ and not os.path.exists(prof),
              "file size limit 0, the program's own write: SIGXFSZ as bare, no profile (%d)"
              % p.returncode)
        d = os.path.dirname(prof)
        exe = os.path.join(OUT, "fsizelimit" + ("" if CLOCK == "cpu" else "@" + CLOCK))
        r = run([CCPROF, "record", "-o", prof, "--", exe, "grow"], cwd=d, timeout=30,
                preexec_fn=default_signals)
        said = ccprof_said(r.stderr)
        check(r.returncode == -signal.SIGXFSZ and len(said) == 2 and
              "File too large" in said[0] and "died by SIGXFSZ, past its file size limit" in
              said[1], "file size limit, under record: SIGXFSZ, and record names the limit (%s)"
              % said)


def small_stack():
    """posix_spawn from a thread with a PTHREAD_STACK_MIN stack: the
    interposer's stack use must leave the program running as without."""
    p, prof = same_behaviour("smallstack", "tests/progs/smallstack.c")
    if p is not None:
        exact_calls("smallstack", p, prof)


def small_stack_exit():
    """A worker thread with a PTHREAD_STACK_MIN stack calls exit(3): the
    write at exit runs on a stack of the runtime's own there (Note [A
    write on a small stack] in src/runtime/dump.c), and the program exits
    3, as bare, with every call counted; before, it died by SIGSEGV in
    the write, with no profile.  So does its ccprof_dump() (`dump`).  The
    main thread's exit (status 4) stays where it is."""
    for how in ("worker", "main", "dump"):
        name = "smallexit_" + how
        p, prof = same_behaviour(name, "tests/progs/smallexit.c", args=[how])
        if p is not None:
            check(p.returncode == (3 if how == "worker" else 4),
                  "%s: the program's own exit status (%d)" % (name, p.returncode))
            exact_calls(name, p, prof)


def fork_exec():
    """A forked child that execs: its image writes where the child would,
    OUT.<pid>, not over the parent's OUT, and the child's own part moves
    aside to OUT.<pid>.pre-exec.1 (Note [Exec in a forked child]); through
    execl, execvp and execve with an environment of its own.  A child of
    posix_spawn (no fork) likewise writes OUT.<pid>, and so does the image
    of a vfork child (which itself writes nothing), and of a clone() child
    on a stack of two pages (googletest's death tests: it died by SIGSEGV
    in the exec, helper-172), and of a vfork child with 2,000 variables
    more in its environment (Note [A large environment in a vfork child]:
    past about 480, the image took OUT and the parent's profile replaced
    it, helper-181)."""
    for how in ("execl", "execvp", "execve", "spawn", "vfork", "clone", "double", "doublespawn",
                "vforkbigenv"):
        p, prof = same_behaviour("forkexec_" + how, "tests/progs/forkexec.c", args=[how])
        if p is None:
            continue
        calls = lambda path: {f["name"]: f["calls"] for f in report(path)["functions"]
                              if f["calls"]}
        kids = sorted(f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit())
        pre = [k + ".pre-exec.1" for k in kids]
        got = [calls(prof)] + [calls(f) for f in kids + pre if os.path.exists(f)]
        want = [{"main": 1, "parent_work": 5}, {"main": 1, "image_work": 4}]
        if how == "clone":
            want[0]["clone_on"] = 1
        if how == "vforkbigenv":
            want[0].update(big_environment=1, big_environment_of=1)
        forked = how not in ("spawn", "vfork", "clone", "double", "doublespawn", "vforkbigenv")
        if forked:
            want.append({"exec_image": 1, "child_work": 1})
        check(len(kids) == 1 and got == want,
              "%s: parent 5 parent_work in OUT, image 4 image_work in OUT.<pid>%s (%s)"
              % ({"spawn": "posix_spawn", "vfork": "vfork + execl",
                  "vforkbigenv": "vfork + execl with 2,000 variables more",
                  "clone": "clone on two pages + execl",
                  "double": "fork, then fork + execv in a child that ran nothing instrumented",
                  "doublespawn": "fork, then posix_spawn in a child that ran nothing instrumented"}
                 .get(how, "fork + " + how),
                 ", the child's part in OUT.<pid>.pre-exec.1" if forked else "", got))
    # The same from a thread whose 72 KB stack has no room for that
    # environment and the exec: the child says it cannot name the image's
    # profile, which then takes OUT until the parent's replaces it; the
    # program runs as bare.
    p, prof = same_behaviour("forkexec_vforkbigenvthread", "tests/progs/forkexec.c",
                             args=["vforkbigenvthread"])
    if p is not None:
        said = [l for l in p.stderr.splitlines()
                if "exec: no room to pass the new image its output name" in l]
        got = {f["name"]: f["calls"] for f in report(prof)["functions"] if f["calls"]}
        check(len(said) == 1 and got.get("parent_work") == 5 and
              p.stdout.endswith("parent done, child exit 0\n"),
              "vfork + execl with 2,000 variables more from a thread on 72 KB: one line says "
              "the image's profile is not named, and the parent's is OUT (%s, %s)" % (said, got))
    # Where the room cannot grow safely it stays 4 KB: a thread the
    # runtime knows nothing of, a clone(CLONE_VM | CLONE_VFORK) child on a
    # stack inside its parent's frame (helper-183: SIGSEGV in the child,
    # and in the parent); same stdout as bare ("child exit 0").
    for how in ("vforkbigenvbare", "clonevmbigenv"):
        p, prof = same_behaviour("forkexec_" + how, "tests/progs/forkexec.c", args=[how])
        if p is not None:
            check(p.stdout == "child exit 0\n", "%s: the child execs /bin/true (%r)" % (how, p.stdout))
    # An empty environment stays empty (same stdout as bare: each image
    # prints how many variables it got); CCPROF_OPTIONS was added to it.
    p, prof = same_behaviour("forkexec_emptyenv", "tests/progs/forkexec.c", args=["emptyenv"])
    if p is not None:
        check(p.stdout == "image got 0 variables\n" * 2,
              "clearenv + execv, posix_spawn with a null envp: the image gets no variable (%r)"
              % p.stdout)
    # vfork children execl with 101 arguments, past the interposer's small
    # array: the larger one must not be a mapping left in the parent (the
    # program prints whether its address space grew; same stdout as bare).
    p, prof = same_behaviour("forkexec_vforkmany", "tests/progs/forkexec.c", args=["vforkmany"])
    if p is not None:
        check("0 failed, address space grew: no" in p.stdout,
              "vfork + execl with 101 arguments, 100 times: all ran, nothing left mapped (%r)"
              % p.stdout.strip())
    # Nor in a clone()d child's vfork children: they share the child's
    # memory, not rt_pid's, and kcmp must be asked of their parent
    # (helper-174: 4 KB mapped and left per exec).
    p, prof = same_behaviour("forkexec_clonevfork", "tests/progs/forkexec.c", args=["clonevfork"])
    if p is not None:
        check("clonevfork: 0 failed, address space grew: no" in p.stdout,
              "a clone()d child that vforks and execs 100 times: nothing left mapped (%r)"
              % p.stdout.strip())
    # Under a seccomp filter that kills at kcmp, vfork + exec: the runtime
    # asks no kcmp where the program has a filter (helper-174: SIGSYS).
    same_behaviour("forkexec_vforkseccomp", "tests/progs/forkexec.c", args=["vforkseccomp"])
    # A shell ran no instrumented code: the program it forks and execs
    # keeps the run's name, as `ccprof record sh -c` expects.
    exe = os.path.join(OUT, "forkexec_execl")
    d = os.path.join(OUT, "run_forkexec_sh")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prof = os.path.join(d, "sh.ccprof")
    r, _ = record("sh", ["-c", exe + " image; true"], profile=prof)
    files = sorted(os.listdir(d))
    check(r.returncode == 0 and files == ["sh.ccprof"] and
          functions(report(prof)).get("image_work", {}).get("calls") == 4,
          "record sh -c 'prog; true': the program the shell forks writes OUT itself (%s)" % files)


def vfork_time():
    """A vfork child's calls move its parent's thread state; its parent's
    time must stay where the parent is (Note [A vfork child's calls] in
    src/runtime/vfork.c): vforktime.c's children die inside child_run
    (by _exit, by exec, or after a vfork of their own), and its parent
    works in parent_work's spin and in main after vfork returns.  Before
    session 57, 46 % of the CPU (clock=cpu) went to child_run, which only
    the children run; 16-48 % under clock=cycles.  The children's calls
    are counted in the parent's profile, as before.  Also from three
    threads at once, and (jump) with a handler that runs as vfork returns
    and leaves by siglongjmp: it skipped the restore in the first version,
    and the thread's time then went to the function that called vfork for
    good, after_work's 0.025 s to `vforks` (helper-187)."""
    cases = [("exit", 1000, "", ()), ("exec", 100, "", ()), ("nested", 500, "", ()),
             ("threads", 100, "", ())]
    cases += [("exit", 1000, ltag, linked) for ltag, linked in link_ways()[1:]]
    # Children that end by exit run the atexit handlers in the parent's
    # memory, and the parent wrote no profile (Note [exit in a vfork
    # child] in src/runtime/exitgate.c; not under -static).
    cases += [("childexit", 200, ltag, linked) for ltag, linked in link_ways()[:2]]
    cases += [("jump", 1, ltag, linked) for ltag, linked in link_ways()]
    for how, n, ltag, linked in cases:
        p, prof = same_behaviour("vforktime_" + how + ltag, "tests/progs/vforktime.c",
                                 args=[how, str(n)], linked=linked)
        if p is None or not check(os.path.exists(prof), "vfork (%s%s): the parent's profile "
                                  "is written" % (how, ltag)):
            continue
        if how == "childexit":  # the fork child's: its fork handlers ran
            kids = [f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit()]
            got = [{f["name"]: f["calls"] for f in report(k)["functions"]}.get("parent_work")
                   for k in kids]
            check(got == [1], "vfork (childexit%s): then a fork child writes its profile "
                  "(the runtime's fork handlers, which the vfork child's exit dropped, are "
                  "registered again): parent_work 1 (%s)" % (ltag, got))
        rep = report(prof)
        fs = {f["name"]: f for f in rep["functions"]}
        if how == "jump":
            after, caller = (fs[f]["self_s"] if f in fs else 0 for f in ("after_work", "vforks"))
            check(p.stdout == "1 children\n" and after > caller,
                  "vfork (jump%s): the time after a siglongjmp out of a handler run as vfork "
                  "returned is after_work's, not vfork's caller's (%.4f s, %.4f s)"
                  % (ltag, after, caller))
            continue
        calls = {name: fs[name]["calls"] if name in fs else 0
                 for name in ("parent_work", "spin", "child_run", "in_child")}
        if how == "threads":
            n *= 3
        kids = n * 2 if how == "nested" else n
        check(p.stdout == "%d children\n" % n and
              calls == {"parent_work": n, "spin": n, "child_run": n, "in_child": kids},
              "vfork (%s%s): the children's calls counted in the parent's profile (%s)"
              % (how, ltag, calls))
        total = rep["total_time_s"]
        child = sum(fs[f]["self_s"] + fs[f]["inherited_s"] for f in ("child_run", "in_child")
                    if f in fs)
        # Under clock=cycles a nested child's own vfork and wait are its
        # time in child_run, between its hooks; not the parent's.
        if how == "nested" and CLOCK == "cycles":
            child = fs["in_child"]["self_s"]
        check(total > 0 and child <= 0.05 * total,
              "vfork (%s%s): the parent's time stays in its own functions, not child_run's "
              "(%.4f s of %.4f s in the children's)" % (how, ltag, child, total))


def clone_exec():
    """A child clone() makes without fork's handlers, on two pages, that
    execs (googletest's "threadsafe" death tests): the sampler (every
    100 us here) holds the registry lock now and then as a child is made,
    and the child's exec waited for it for ever (helper-185: 9 of 19 runs
    hung; 2-3 children in 1,000 here).  Now it walks the registry without
    the lock (Note [The registry in a child without fork's handlers] in
    src/runtime/threads.c): 600 children, none stuck, as bare."""
    p, prof = same_behaviour("clonexec", "tests/progs/clonexec.c", args=["600"], timeout=120,
                             env={"CCPROF_OPTIONS": "interval=100us"})
    if p is not None:
        check(p.stdout == "600 children, 0 stuck\n",
              "clone + exec: no child waits for ever for the registry lock (%r)" % p.stdout)
    # Beside a thread that loads and unloads a library, each child first
    # calls a function the process never called: its cost centre took the
    # cc lock and the dynamic linker's, which that thread held now and
    # then (helper-190: 5 of 200 stuck; Note [New cost centres in a child
    # without fork's handlers] in src/runtime/cctable.c).
    lib = os.path.join(OUT, "libclonexec_dep.so")
    run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", "-DDEP=alpha_dep",
         os.path.join(TOP, "tests/progs/swapdep.c"), "-o", lib])
    p, prof = same_behaviour("clonexec_dl", "tests/progs/clonexec.c", args=["200", lib],
                             timeout=300, env={"CCPROF_OPTIONS": "interval=100us"}, extra=["-ldl"])
    if p is not None:
        check(p.stdout == "200 children, 0 stuck\n",
              "clone + exec beside dlopen/dlclose: no child waits for ever for the cc lock or "
              "the dynamic linker's (%r)" % p.stdout)
    # heap=1: beside a thread that allocates and frees, each child
    # allocates and ends by _exit.  The block table's stripe lock, which
    # that thread held now and then, left children spinning for ever
    # (helper-190: 9 of 200); now a child gives up on it at its first
    # wait (spin_lock in src/runtime/heap.c).  Then each child first
    # puts itself under a filter that kills at kcmp, which the runtime
    # asked there (helper-194: 748 of 1,000 died by SIGSYS).
    for extra in ([], ["seal"]):
        tag = "".join("_" + x for x in extra)
        p, prof = same_behaviour("clonexec_heap" + tag, "tests/progs/clonexec.c",
                                 args=["200", "heap"] + extra, timeout=120,
                                 preload=os.path.join(LIB, "libccprof-alloc.so"),
                                 env={"CCPROF_OPTIONS": "interval=100us:heap=1"})
        if p is not None:
            check(p.stdout == "200 children, 0 stuck\n",
                  "clone + %smalloc + _exit beside a thread allocating, heap=1: no child spins "
                  "for ever on the block table's lock, or dies (%r)"
                  % ("a filter + " if extra else "", p.stdout))
    # A child that puts itself under a filter killing at kcmp, then
    # execs: the exec's room for the environment asked kcmp whether the
    # child's memory was its own, and every child died by SIGSYS
    # (helper-194: 50 of 50).  Now the filter is seen as it is installed
    # (rt_sandbox_installing in src/runtime/sandbox.c).
    p, prof = same_behaviour("clonexec_seal", "tests/progs/clonexec.c", args=["100", "seal"],
                             timeout=120)
    if p is not None:
        check(p.stdout == "100 children, 0 stuck\n",
              "clone + a filter killing at kcmp + exec: every child execs (%r)" % p.stdout)


def descriptor_limit():
    """A process with every descriptor its limit allows open (soft = hard
    = 16) writes its profile all the same, by a thread of the runtime's
    with a copy of the descriptor table (Note [At the descriptor limit] in
    src/runtime/dump.c), with no line on stderr: at exit, _exit, a
    handled SIGTERM and ccprof_dump; after the dump its last descriptor
    is still open and its POSIX lock through it still held (the thread
    closed its own copy).  Before session 57 none was written, and a line
    said "Too many open files"."""
    cases = [(how, status, "", ()) for how, status in
             (("exit", 0), ("_exit", 0), ("term", -signal.SIGTERM), ("dump", 0))]
    cases += [("term", -signal.SIGTERM, ltag, linked) for ltag, linked in link_ways()[1:]]
    for how, status, ltag, linked in cases:
        p, prof = same_behaviour("fdlimit_" + how + ltag, "tests/progs/fdlimit.c",
                                 args=[how, "25"], linked=linked)
        if p is None:
            continue
        said = [l for l in p.stderr.splitlines() if l.startswith("ccprof:")]
        calls = ({f["name"]: f["calls"] for f in report(prof)["functions"]}.get("work")
                 if os.path.exists(prof) else None)
        check(p.returncode == status and calls == 25 and said == [],
              "descriptor limit (%s%s): the profile is written, work's 25 calls, no line "
              "(status %d, %s, %s)" % (how, ltag, p.returncode, calls, said))
        if how == "dump":
            check(p.stdout.endswith("descriptor open, lock held\n"),
                  "descriptor limit: after ccprof_dump the program's last descriptor is "
                  "open and its lock held (%r)" % p.stdout)


def own_environment():
    """A forked child that execs with an environment the program builds
    (Note [An environment the program makes] in src/runtime/exec.c).  With
    LD_PRELOAD kept and CCPROF_OPTIONS left out (nginx's binary upgrade),
    the image runs with the run's options, not the defaults: the old build
    sampled it with the cpu clock under record --clock=wall, and merge
    refused the pair.  Without LD_PRELOAD either, the image's environment
    is the program's own: the old build added CCPROF_OPTIONS, which
    /usr/bin/env printed."""
    exe = build("ownenv", "tests/progs/ownenv.c")
    d = fresh_dir("ownenv.d")
    prof = os.path.join(d, "o.ccprof")
    r = run([CCPROF, "record", "-o", prof, "--clock=wall", "--interval=5", exe, "keep"])
    kids = sorted(f for f in os.listdir(d) if re.fullmatch(r"o\.ccprof\.[0-9]+", f))
    check(r.returncode == 0 and r.stdout == "image ran\n" and len(kids) == 1,
          "keep: the image of a child whose environment is LD_PRELOAD alone runs and writes "
          "its profile (status %d, %r, %s)" % (r.returncode, r.stdout, kids))
    for name in ["o.ccprof"] + kids:
        info = info_json(os.path.join(d, name))
        check(info.get("clock") == "wall" and info.get("interval_ns") == 5000000,
              "keep: %s has the run's options, clock wall every 5 ms (%s, %s)"
              % (name, info.get("clock"), info.get("interval_ns")))
    m = run([CCPROF, "merge", "-o", os.path.join(d, "m.ccprof"), prof] +
            [os.path.join(d, k) for k in kids])
    check(m.returncode == 0 and m.stderr == "", "keep: the two profiles merge (%d: %s)"
          % (m.returncode, m.stderr.strip()))
    r = run([CCPROF, "record", "-o", os.path.join(d, "c.ccprof"), exe, "clean"])
    check(r.returncode == 0 and r.stdout == "FOO=1\nTZ=UTC\n",
          "clean: env, exec'd with FOO=1 and TZ=UTC alone, prints just those (%r)" % r.stdout)


def sandboxed():
    """A program under a seccomp filter that kills the process at any
    sched_getattr, sched_setattr or prctl, calls it never makes (Note
    [Sandboxed] in src/runtime/sandbox.c), as a systemd unit with
    SystemCallFilter=~@resources does for the first two.  A child forked
    under it and an image exec'd under it start a sampling helper: the old
    build made those calls for it, and the child died of SIGSYS, the image
    with status 159.  Now both behave as bare.  The image started under the
    filter writes its profile, with the work in it; a process that put
    itself under a filter after its image started (the fork's parent and
    child, the exec's process before it) writes none, and says why on
    stderr: under a filter that kills at link, rename and unlink, the old
    build's write at exit died of SIGSYS, leaving its temporary file.
    Under a filter that kills the thread at unlisted calls (file(1)'s), the
    old build hung at exit (strict), and when the program broke its own
    sandbox, the sampler kept the process alive for ever (violate): now it
    dies by SIGSYS as bare, and the sampler, under no filter, writes.  So
    it did after an image started under a filter raw-exited (execraw): the
    sampler learns of it without a system call.  A filter that kills at
    getrlimit (deep) is met by a dive past the shadow stack's first
    segment, for which the runtime asked for the limits (helper-144)."""
    exe = build("sandboxed", "tests/progs/sandboxed.c")
    d = fresh_dir("sandboxed.d")
    modes = [("fork", "child exited 3\nworked 2\n", {}, 2),
             ("exec", "image worked\n", {"exec.ccprof": 1}, 1),
             # The image's main ends by the exit system call: under the
             # filter it started under, the sampler learns of it as
             # elsewhere (Note [A leader that died alone]).
             ("execraw", "image worked\n", {"execraw.ccprof": 1}, 1),
             ("late", "worked 2\n", {}, 1),
             # file(1)'s kind: calls not listed kill the thread; the exit's
             # gettid killed the main thread, and the sampler lived on for
             # ever (helper-125).
             ("strict", "worked 2\n", {}, 1),
             # The same sandbox broken by the program: the old build's
             # sampler kept the process alive for ever (Note [A leader
             # that died alone]); the sampler, under no filter, writes.
             ("violate", "worked 2\n", {"violate.ccprof": 2}, 0),
             # A filter that kills at getrlimit, and a dive that needs a
             # second shadow stack segment: the runtime asked for the
             # limits then (Note [Segment pool]), and the process died of
             # SIGSYS (helper-144).
             ("deep", "dive 70001\n", {}, 1)]
    # 3,000 groups make the status file longer than the 8 KB the first
    # version read, which then saw no filter: the image died of SIGSYS.
    if os.geteuid() == 0:
        modes.append(("groups", "image worked\n", {"groups.ccprof": 1}, 1))
    else:
        print("# SKIP sandboxed groups, jail: not root")
    for mode, out, want, declined in modes:
        status = {"violate": -signal.SIGSYS, "execraw": 3}.get(mode, 0)
        bare = run([exe, mode])
        if bare.returncode != 0 and "seccomp" in bare.stderr:
            print("# SKIP sandboxed %s: no seccomp filter here (%s)" % (mode, bare.stderr.strip()))
            continue
        check(bare.returncode == status and bare.stdout == out,
              "sandboxed %s: bare run (%d, %r)" % (mode, bare.returncode, bare.stdout))
        out_dir = fresh_dir("sandboxed-%s.d" % mode)
        prof = os.path.join(out_dir, mode + ".ccprof")
        if mode in ("strict", "violate", "execraw"): # preloaded, so that a hang's timeout ends the program itself
            try:
                r = run([exe, mode], timeout=60, env=dict(
                    os.environ, LD_PRELOAD=os.path.join(LIB, "libccprof.so"),
                    CCPROF_OPTIONS="output=" + prof))
            except subprocess.TimeoutExpired:
                check(False, "sandboxed %s: ends (it hung for 60 s)" % mode)
                continue
        else:
            r = run([CCPROF, "record", "-o", prof, exe, mode])
        check(r.returncode == status and r.stdout == out,
              "sandboxed %s: runs under record as bare (%d, %r)" % (mode, r.returncode, r.stdout))
        works = {name: nonzero_calls(os.path.join(out_dir, name)).get("work", 0)
                 for name in sorted(os.listdir(out_dir))}
        check(works == want, "sandboxed %s: profiles and their calls of work %s (want %s)"
              % (mode, works, want))
        said = [l for l in ccprof_said(r.stderr)
                if "put itself under a seccomp filter" in l and "no profile written" in l]
        check(len(said) == declined, "sandboxed %s: %d process%s say%s why it writes no profile (%s)"
              % (mode, declined, "es" if declined > 1 else "", "" if declined > 1 else "s",
                 ccprof_said(r.stderr)))
    sandboxed_heap(exe)
    if os.geteuid() == 0:
        sandboxed_jail(exe)
        sandboxed_other_proc()
    sandboxed_term(exe)
    sandboxed_worker(exe)
    sandboxed_static()


def sandboxed_heap(exe):
    """heap=1 under a filter that kills the process at clock_gettime
    (sandboxed clock): under clock=wall and cycles, which read only the
    monotonic clock (the vDSO's, no system call), the program runs as
    bare, and with no write then possible (the filter came after the
    start) says so.  A heap sample's measure of its own cost read the
    thread's CPU clock, and the process died by SIGSYS (helper-191);
    under a filter it reads the monotonic clock (cost_clock in heap.c).
    clock=cpu cannot sample without that call, and is not tried."""
    bare = run([exe, "clock"])
    if bare.returncode != 0 and "seccomp" in bare.stderr:
        print("# SKIP sandboxed clock: no seccomp filter here (%s)" % bare.stderr.strip())
        return
    check(bare.returncode == 0 and bare.stdout == "allocated 100\n",
          "sandboxed clock: bare run (%d, %r)" % (bare.returncode, bare.stdout))
    for clock in ("wall", "cycles"):
        prof = os.path.join(fresh_dir("sandboxed-clock-%s.d" % clock), "clock.ccprof")
        r = run([CCPROF, "record", "--heap", "--heap-interval=1", "--clock=" + clock, "-o", prof,
                 exe, "clock"])
        check(r.returncode == 0 and r.stdout == bare.stdout,
              "sandboxed clock, --heap --clock=%s: runs as bare (%d, %r)"
              % (clock, r.returncode, r.stdout))


def sandboxed_static():
    """sandboxed.c late linked with libccprof.a and -static: the process
    puts itself under a filter, and at exit says once why it writes no
    profile.  exit's last step there reaches the runtime's _exit, which
    found no write done and asked again, and said it twice
    (helper-164)."""
    exe = build("sandboxed_static", "tests/progs/sandboxed.c", "-static", LIBA)
    d = fresh_dir("sandboxed-static.d")
    r = run([exe, "late"], cwd=d, env=dict(os.environ, CCPROF_OPTIONS="output=" + os.path.join(d, "late.ccprof")))
    if r.returncode != 0 and "seccomp" in r.stderr and not ccprof_said(r.stderr):
        print("# SKIP sandboxed late -static: no seccomp filter here")
        return
    said = [l for l in ccprof_said(r.stderr) if "seccomp filter" in l]
    check(r.returncode == 0 and r.stdout == "worked 2\n" and len(said) == 1 and os.listdir(d) == [],
          "sandboxed late, -static: as bare, one line says why no profile (%d, %r, %s, %s)"
          % (r.returncode, r.stdout, said, os.listdir(d)))


def sandboxed_term(exe):
    """sandboxed.c term: file(1)'s kind of filter (unlisted calls kill the
    thread), then SIGTERM sent from outside.  Bare, the process dies by
    SIGTERM; the old build's handler made calls the filter kills at
    (sigaltstack, gettid), and the process died by SIGSYS.  Now the
    runtime puts the program's actions back before the filter goes in
    (Note [Handlers under a filter] in src/runtime/seccomp.c), whether the
    program installs it with the seccomp call (through syscall(2)) or with
    prctl(PR_SET_SECCOMP) (libseccomp without the call): SIGTERM, as bare,
    and no profile, which is the price."""
    for how in ([], ["libseccomp"]):
        what = " ".join(["term"] + how)
        got = {}
        for who, env in (("bare", os.environ),
                         ("profiled", dict(os.environ, LD_PRELOAD=PRELOAD,
                                           CCPROF_OPTIONS="output=" + os.path.join(
                                               OUT, "sandboxed-term.ccprof")))):
            p = subprocess.Popen([exe, "term"] + how, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                 preexec_fn=default_signals)
            line = line_from(p.stdout, "filtered", 20)
            if line:
                p.send_signal(signal.SIGTERM)
            try:
                _, err = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
            got[who] = (line, p.returncode, err.decode(errors="replace"))
        if got["bare"][0] is None and "seccomp" in got["bare"][2]:
            print("# SKIP sandboxed %s: no seccomp filter here (%s)" % (what, got["bare"][2].strip()))
            continue
        check(got["bare"][:2] == ("filtered", -signal.SIGTERM) and
              got["profiled"][:2] == ("filtered", -signal.SIGTERM) and
              "SIGSYS" not in got["profiled"][2],
              "sandboxed %s: SIGTERM under file(1)'s kind of filter ends it by SIGTERM, as bare "
              "(bare %s, profiled %s)" % (what, got["bare"][:2], got["profiled"]))


def sandboxed_worker(exe):
    """sandboxed.c worker: a thread puts itself alone under a filter that
    kills the process at prctl (then main renames it), or at getrusage
    (then it renames itself by prctl), and ends; main, under no filter,
    writes the profile.  The old build asked the ending thread's name by
    prctl, and the process died by SIGSYS.  Now a thread asks neither its
    name nor its count of blocks as it ends once the program has put
    itself under a filter (Note [Calls as a thread ends] in
    src/runtime/threads.c), and the profile has the name the program gave
    it last, seen as given.  A bystander thread, under no filter, ends
    after the worker is sealed: it keeps the name it inherited, asked as
    its state was made (a first version of this change left it none).
    The filters kill at sigaltstack too: the worker's first call was lent
    an alternate stack, and taking it back as it ended killed the process
    (helper-135; Note [Stacks for other threads] in altstack.c)."""
    for how, name in (("prctl", "renamed"), ("getrusage", "self-renamed")):
        bare = run([exe, "worker", how])
        if bare.returncode != 0 and "seccomp" in bare.stderr:
            print("# SKIP sandboxed worker %s: no seccomp filter here (%s)"
                  % (how, bare.stderr.strip()))
            continue
        prof = os.path.join(OUT, "sandboxed-worker.ccprof")
        if os.path.exists(prof):
            os.unlink(prof)
        r = run([exe, "worker", how], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                               CCPROF_OPTIONS="output=" + prof))
        names = []
        if r.returncode == 0 and os.path.exists(prof):
            names = [t["name"] for t in report(prof, "--threads")["threads"]]
        check(bare.returncode == 0 and bare.stdout == "worker worked 3\n" and
              (r.returncode, r.stdout) == (0, bare.stdout) and name in names and
              sorted(names) == sorted(["sandboxed", "sandboxed", name]),
              "sandboxed worker %s: a thread under a filter that kills at %s ends as bare, and "
              "the profile names it %r, main and the bystander 'sandboxed' (bare %d %r, "
              "profiled %d %r %s, threads %s)"
              % (how, how, name, bare.returncode, bare.stdout, r.returncode, r.stdout,
                 r.stderr.strip()[-200:], names))


def sandboxed_jail(exe):
    """sandboxed.c jail: chroot into a directory without /proc, then a
    filter that kills at link, rename and unlink, as vsftpd and sshd do
    things.  The output path, made absolute at the start, names a
    directory inside the jail too.  With no /proc to say whether a filter
    came, the old build wrote, and died of SIGSYS (status 159), leaving
    its temporary file; now no write, and a line that says why."""
    jail = fresh_dir("sandboxed-jail.d")
    os.makedirs(os.path.join(jail, jail.lstrip("/")))
    env = dict(os.environ, LD_PRELOAD=os.path.join(LIB, "libccprof.so"),
               CCPROF_OPTIONS="output=j.ccprof")
    r = run([exe, "jail"], cwd=jail, env=env)
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(jail) for f in fs]
    check(r.returncode == 0 and r.stdout == "worked 2\n",
          "sandboxed jail: runs as bare (%d, %r)" % (r.returncode, r.stdout))
    check(any("/proc is gone" in l and "no profile written" in l for l in ccprof_said(r.stderr)),
          "sandboxed jail: says why it writes no profile (%s)" % ccprof_said(r.stderr))
    check(files == [], "sandboxed jail: nothing written in the jail (%s)" % files)


def sandboxed_other_proc():
    """tests/progs/nsproc.c makes a PID and a mount namespace and has its
    child mount a /proc there, which does not show the program: its write
    took that for a chroot and wrote nothing (helper-196, 3 of 3); with no
    filter seen it writes (Note [Another namespace's /proc at the write]
    in src/runtime/sandbox.c)."""
    d = fresh_dir("nsproc.d")
    exe = build("nsproc", "tests/progs/nsproc.c")
    prof = os.path.join(d, "nsproc.ccprof")
    r = run([CCPROF, "record", "-o", prof, "--", exe], cwd=d)
    if r.returncode == 3 and r.stdout == "unshare refused\n":
        print("# SKIP nsproc: no PID and mount namespace may be made here")
        return
    check(r.returncode == 0 and r.stdout == "calls work 1000\n",
          "nsproc: runs under record as bare (%d, %r)" % (r.returncode, r.stdout))
    check(os.path.exists(prof) and nonzero_calls(prof).get("work") == 1000 and
          not [l for l in ccprof_said(r.stderr) if "no profile written" in l],
          "nsproc: with another namespace's /proc at its write, the profile is written, work "
          "1000 calls (%s)" % ccprof_said(r.stderr))
    # Linked with libccprof.a and -static, where the runtime's unshare has
    # no libc's behind it: it failed with ENOSYS (helper-199).
    static = build("nsproc_static", "tests/progs/nsproc.c", os.path.join(LIB, "libccprof.a"),
                   "-static")
    prof = os.path.join(d, "nsproc_static.ccprof")
    r = run([static], cwd=d, env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == 0 and r.stdout == "calls work 1000\n" and os.path.exists(prof) and
          nonzero_calls(prof).get("work") == 1000,
          "nsproc linked -static with libccprof.a: unshare works, and the profile is written "
          "(%d, %r, %s)" % (r.returncode, r.stdout, ccprof_said(r.stderr)))


def whose(argv, program):
    """What record adds after a profile's pid: its command, cut to 60
    bytes between characters, when it is not the program's (Note [Whose
    profile] in src/cli/cmd_record.c)."""
    if argv == program:
        return ""
    cmd = " ".join(argv)
    if len(cmd.encode()) > 60:
        cut = ""
        for ch in cmd:
            if len((cut + ch).encode()) > 57:
                break
            cut += ch
        cmd = cut + "..."
    return " (%s)" % cmd


def record_names_commands():
    """record names a profile whose command is not the program's with it
    (Note [Whose profile] in src/cli/cmd_record.c), cut to 60 bytes
    between two characters, never inside one (a cut inside an e-acute
    showed a '?')."""
    exe = build("fib_cmd", "tests/progs/fib.c")
    d = fresh_dir("cmd.d")
    out = os.path.join(d, "c.ccprof")
    # Odd: a cut at byte 57 would fall inside an e-acute (2 bytes).
    pad = "x" if (57 - len((exe + " 6 ").encode())) % 2 == 0 else ""
    long_arg = pad + "\u00e9" * 40
    r = run([CCPROF, "record", "-o", out, "--", "sh", "-c", "%s 5; %s 6 %s" % (exe, exe, long_arg)])
    kids = sorted(f for f in os.listdir(d) if re.fullmatch(r"c\.ccprof\.[0-9]+", f))
    want = ["ccprof: profile written to " + out] + \
        ["ccprof: profile of child %s%s written to %s" % (k[9:], whose([exe, "6", long_arg], None),
                                                          os.path.join(d, k)) for k in kids]
    check(r.returncode == 0 and len(kids) == 1 and r.stderr.splitlines() == want and
          "?" not in r.stderr, "record names the second program's profile with its command, "
          "cut between characters (%r)" % r.stderr)


def one_out_per_namespace():
    """Note [One OUT per run] in pid namespaces, where two processes of
    the run are each pid 1 (`unshare -pf`): the one whose profile has OUT
    is told apart by its start as well as its pid.  fib 36 runs long; fib
    5 x, started after it, ends first and takes OUT; fib 36 must then
    write OUT.1, not replace it (by pid alone it took OUT for its own,
    and fib 5 x's profile was lost: helper-119).  Skipped where
    unshare -pf is refused."""
    if run(["unshare", "-pf", "true"]).returncode != 0:
        print("# SKIP unshare -pf is refused here")
        return
    exe = build("fib_ns", "tests/progs/fib.c")
    d = fresh_dir("ns.d")
    prof = os.path.join(d, "x.ccprof")
    r = run([CCPROF, "record", "-o", prof, "sh", "-c",
             "unshare -pf %s 36 & sleep 0.05; unshare -pf %s 5 x; wait" % (exe, exe)])
    got = {}
    for f in sorted(os.listdir(d)):
        info = info_json(os.path.join(d, f))
        got[f] = " ".join(info.get("argv", [])[1:])
    check(r.returncode == 0 and sorted(got.values()) == ["36", "5 x"],
          "two fibs, each pid 1 in its own namespace: both profiles kept (%s)" % got)


def reused_pid():
    """Note [A reused pid] in src/runtime/preexec.c: a process whose pid an
    earlier process of the run had takes that one's profile for its own
    image's before an exec only if it was written after the process
    started.  Each command below runs in a pid namespace of its own
    (`unshare -pf`), so pids repeat as after a wrap: the old build named
    the earlier process's profile .pre-exec.N (coreutils' suite: 22,219
    such names).  forkexec execl, twice: each child has the same pid K
    and execs; the second child's part finds the first image's OUT.K,
    which moves to OUT.K.1; the .pre-exec files hold only the children's
    parts.  fib,
    three times as pid 1: the third finds OUT taken, and the second's
    OUT.1 moves to OUT.1.1 (helper-121: both wrote OUT.1 and one was
    lost).  record names every profile.  Skipped where unshare -pf is
    refused."""
    if run(["unshare", "-pf", "true"]).returncode != 0:
        print("# SKIP unshare -pf is refused here")
        return
    exe = build("forkexec_ns", "tests/progs/forkexec.c")
    fib = build("fib_ns", "tests/progs/fib.c")
    d = fresh_dir("reused.d")
    prof = os.path.join(d, "x.ccprof")
    r = run([CCPROF, "record", "-o", prof, "sh", "-c",
             "unshare -pf %s execl; sleep 0.1; unshare -pf %s execl" % (exe, exe)])
    calls = lambda f: {n: c["calls"] for n, c in functions(report(os.path.join(d, f))).items()
                       if c["calls"]}
    got = {f: calls(f) for f in sorted(os.listdir(d))}
    parent = {"main": 1, "parent_work": 5}
    child = {"exec_image": 1, "child_work": 1}
    image = {"main": 1, "image_work": 4}
    kid = "x.ccprof." + ([f[9:] for f in got if f[9:].isdigit() and f != "x.ccprof.1"] + ["?"])[0]
    want = {"x.ccprof": parent, "x.ccprof.1": parent, kid: image, kid + ".1": image,
            kid + ".pre-exec.1": child, kid + ".pre-exec.2": child}
    check(r.returncode == 0 and got == want,
          "forkexec execl twice, the children with the same pid K: the first image's OUT.K "
          "moves to OUT.K.1, only the children's parts are .pre-exec (%s)" % got)
    named = sorted(l.split(" written to ")[-1] for l in r.stderr.splitlines()
                   if " written to " in l)
    before = sorted(l.split(" written to ")[-1] for l in r.stderr.splitlines()
                    if " before its exec written to " in l)
    check(named == sorted(os.path.join(d, f) for f in want) and
          before == sorted(os.path.join(d, f) for f in want if "pre-exec" in f),
          "... record names all six, 'before its exec' the two .pre-exec ones (%r)" % r.stderr)
    d = fresh_dir("reused1.d")
    prof = os.path.join(d, "x.ccprof")
    r = run([CCPROF, "record", "-o", prof, "sh", "-c",
             "unshare -pf %s 5 a; sleep 0.1; unshare -pf %s 5 b; sleep 0.1; unshare -pf %s 5 c"
             % (fib, fib, fib)])
    got = {}
    for f in sorted(os.listdir(d)):
        info = info_json(os.path.join(d, f))
        got[f] = " ".join(info.get("argv", [])[2:])
    check(r.returncode == 0 and got == {"x.ccprof": "a", "x.ccprof.1": "c", "x.ccprof.1.1": "b"}
          and r.stderr.count(" written to ") == 3,
          "three fibs as pid 1 one after another: OUT, then the second's OUT.1 moves to OUT.1.1 "
          "for the third's (%s, %r)" % (got, r.stderr))


def record_says_still_running():
    """A program that daemonizes ends at once, and record with it; the
    daemon's profile comes later, beside OUT, which record cannot name.
    It says the daemon is still running, found by the run's run_start= in
    its environment (Note [Processes that outlive the run] in
    src/cli/cmd_record.c); the old build said nothing.  A run that leaves
    nothing behind gets no such line."""
    exe = build("lingering", "tests/progs/lingering.c")
    d = fresh_dir("linger.d")
    prof = os.path.join(d, "l.ccprof")
    r = run([CCPROF, "record", "-o", prof, exe])
    m = re.search(r"^daemon ([0-9]+)$", r.stdout, re.M)
    pid = m.group(1) if m else "?"
    line = ("ccprof: 1 process of the run is still running (pid %s); if it ran instrumented "
            "code, its profile goes to %s when it ends" % (pid, d))
    check(r.returncode == 0 and line in r.stderr.splitlines(),
          "record of a program that daemonizes says the daemon runs on (%r)" % r.stderr)
    check(os.path.exists(prof + "." + pid), "... and the daemon's profile is %s.%s, once it "
          "ended (%s)" % (os.path.basename(prof), pid, sorted(os.listdir(d))))
    r = run([CCPROF, "record", "-o", os.path.join(d, "f.ccprof"), build("fib_linger",
                                                                       "tests/progs/fib.c"), "5"])
    check(r.returncode == 0 and "still running" not in r.stderr,
          "a run that leaves nothing behind: no such line (%r)" % r.stderr)


def one_signal_to_die_by():
    """A second deadly signal that comes while the runtime writes the
    profile of the first stays held through the re-raise (Note [One
    signal to die by] in src/runtime/signals.c): the old build let it in
    first, so the program's handler ran for it too and the process died
    by it, not by the first (helper-120, git).  tests/progs/renamekill.c
    sends SIGTERM from inside the write; tests/progs/sigtwice.c raises
    SIGINT, whose handler re-raises it.  And a record whose stderr reader
    is gone ends with the program's status, not by SIGPIPE as it names
    the profile (git's 0 became 141)."""
    shim = preload_shim("renamekill")
    if shim is None:
        return
    exe = build("sigtwice", "tests/progs/sigtwice.c")
    bare = run([exe])
    d = fresh_dir("sigtwice.d")
    env = dict(os.environ, LD_PRELOAD=shim + " " + os.path.join(LIB, "libccprof.so"),
               CCPROF_OPTIONS="output=" + os.path.join(d, "s.ccprof"))
    r = run([exe], env=env)
    check(bare.returncode == -signal.SIGINT and bare.stdout == "handler 02\n" and
          r.returncode == bare.returncode and r.stdout == bare.stdout and
          os.path.exists(os.path.join(d, "s.ccprof")),
          "SIGTERM during the write of SIGINT's profile: dies by SIGINT, its handler once, "
          "as bare (bare %d %r, profiled %d %r)" % (bare.returncode, bare.stdout,
                                                     r.returncode, r.stdout))
    rd, wr = os.pipe()
    os.close(rd)
    fib = build("fib_pipe", "tests/progs/fib.c")
    p = subprocess.run([CCPROF, "record", "-o", os.path.join(d, "f.ccprof"), fib, "5"],
                       stdout=subprocess.DEVNULL, stderr=wr)
    os.close(wr)
    check(p.returncode == 0, "record whose stderr is a pipe with no reader: the program's "
          "status 0 (%d)" % p.returncode)


def record_probe_hidden():
    """Before the run, record checks that the runtime can make its
    temporary file beside the profile by making one and removing it:
    under the runtime's own hidden name (.BASE.tmpPID.N), so that a record
    killed in between leaves nothing that a glob of the profiles (PATH.*)
    takes.  The old build made PATH.tmpPID.0.  tests/progs/createlog.c,
    preloaded into record, logs every file opened to be created."""
    shim = preload_shim("createlog")
    if shim is None:
        return
    exe = build("fib_probe", "tests/progs/fib.c")
    d = fresh_dir("probe.d")
    log = os.path.join(d, "created.log")
    r = run([CCPROF, "record", "-o", os.path.join(d, "x.ccprof"), exe, "5"],
            env=dict(os.environ, LD_PRELOAD=shim, CREATELOG=log))
    made = open(log).read().split() if os.path.exists(log) else []
    probes = [os.path.basename(m) for m in made if ".tmp" in os.path.basename(m)]
    check(r.returncode == 0 and probes and all(p.startswith(".x.ccprof.tmp") for p in probes),
          "record's probe and the runtime's temporary are hidden (.x.ccprof.tmpPID.N): %s"
          % probes)
    left = [f for f in os.listdir(d) if f not in ("x.ccprof", "created.log")]
    check(left == [], "nothing else is left beside the profile (%s)" % left)


def one_out_per_run():
    """Two instrumented programs that a shell of `ccprof record` runs both
    wrote OUT (a child of a process that ran no instrumented code passes
    its image nothing: Note [Exec in a forked child]), and the last to
    end replaced the other's profile in silence: `sh -c 'p a; p b'`,
    `sh -c 'p a & p b & wait'`, a pipeline of two zstd.  Now the first of
    the run takes OUT, a later one OUT.<pid>, and record names both (Note
    [One OUT per run] in src/runtime/dump.c).  A profile at OUT from an
    earlier run is still replaced; so is one where link(2) fails."""
    exe = build("fib_out", "tests/progs/fib.c")
    d = fresh_dir("one_out")
    out = os.path.join(d, "x.ccprof")
    argv = lambda f: info_json(f).get("argv")
    pid_of = lambda f: f[len(out) + 1:]
    kids = lambda: sorted(f for f in glob.glob(out + ".*") if pid_of(f).isdigit())

    def two(cmd, what, first=None):
        for f in glob.glob(out + ".*"):
            os.unlink(f)
        r = run([CCPROF, "record", "-o", out, "--", "sh", "-c", cmd % {"p": exe}], cwd=d)
        k = kids()
        got = sorted(map(str, [argv(out)] + [argv(f) for f in k]))
        want = sorted(map(str, [[exe, "5"], [exe, "7", "x"]]))
        said = ["ccprof: profile written to " + out] + \
            ["ccprof: profile of child %s%s written to %s" % (pid_of(f), whose(argv(f), None), f)
             for f in k]
        check(r.returncode == 0 and len(k) == 1 and got == want and
              (first is None or argv(out) == first) and
              r.stderr == "".join(l + "\n" for l in said) and
              sorted(os.listdir(d)) == sorted(["x.ccprof"] + [os.path.basename(f) for f in k]),
              "record sh -c %r: %s: OUT and OUT.<pid>, one program's each, both named "
              "(%d, %s, %s, %r)" % (cmd % {"p": "p"}, what, r.returncode, got,
                                   sorted(os.listdir(d)), r.stderr))
        return k

    two("%(p)s 5; %(p)s 7 x; true", "one after the other", first=[exe, "5"])
    # With no OUT before the run: two writers that find an earlier run's
    # OUT at the same moment both replace it, the race Note [One OUT per
    # run] leaves (this check failed so once in a loaded full run).
    os.unlink(out)
    two("%(p)s 5 & %(p)s 7 x & wait", "at once")
    # An earlier run's OUT is replaced by this run's first, not kept.
    run([CCPROF, "record", "-o", out, "--", exe, "3"], cwd=d)
    check(argv(out) == [exe, "3"], "record p 3: writes OUT (%s)" % argv(out))
    k = two("%(p)s 5; %(p)s 7 x; true", "an earlier run's OUT there", first=[exe, "5"])
    # The program alone, over an earlier run's OUT: OUT, named once.
    for args in (["3"], ["5"]):
        r = run([CCPROF, "record", "-o", out, "--", exe] + args, cwd=d)
    check(r.returncode == 0 and argv(out) == [exe, "5"] and kids() == k and
          r.stderr == "ccprof: profile written to %s\n" % out,
          "record -o OUT p, twice: OUT replaced, no OUT.<pid> (%s, %r)" % (argv(out), r.stderr))
    # An exec chain after another program took OUT: the second image
    # writes OUT.<pid>, the first moves aside to OUT.<pid>.pre-exec.1;
    # also when the second dies by SIGTERM (its write from the handler).
    reexec = os.path.join(OUT, "reexec")
    if not os.path.exists(reexec):
        reexec = build("reexec", "tests/progs/reexec.c")
    for mode in ([], ["die"]):
        for f in glob.glob(out + "*"):
            os.unlink(f)
        r = run([CCPROF, "record", "-o", out, "--", "sh", "-c",
                 " ".join([exe, "5;", reexec] + mode + ["; true"])], cwd=d)
        k = kids()
        calls = lambda f: {n: c["calls"] for n, c in functions(report(f)).items() if c["calls"]} \
            if os.path.exists(f) else None
        pre = k[0] + ".pre-exec.1" if len(k) == 1 else "?"
        said = ["ccprof: profile written to " + out,
                "ccprof: profile of child %s%s before its exec written to %s"
                % (pid_of(pre[:-11]), whose(argv(pre), None), pre),
                "ccprof: profile of child %s%s written to %s"
                % (pid_of(pre[:-11]), whose(argv(pre[:-11]), None), pre[:-11])]
        check(len(k) == 1 and argv(out) == [exe, "5"] and
              calls(pre) == {"main": 1, "before": 2} and
              calls(k[0]) == {"main": 1, "after": 3 if mode else 1} and
              # the shell says "Terminated" of the image that dies
              [l for l in r.stderr.splitlines() if l.startswith("ccprof:")] == said,
              "record sh -c 'p 5; reexec%s': p's OUT stays, the image chain in OUT.<pid> and "
              "OUT.<pid>.pre-exec.1 (%s, %s, %s, %r)"
              % (" die" if mode else "", argv(out), calls(pre), k and calls(k[0]), r.stderr))
    # run_start= takes digits only, as max_contexts= does.
    for bad in ("-1", "0", "1e9", " 5", "99999999999999999999"):
        r = run([exe, "3"], cwd=d, env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                             CCPROF_OPTIONS="output=%s:run_start=%s" % (out, bad)))
        check(r.returncode == 0 and "CCPROF_OPTIONS: bad run_start '%s'" % bad in r.stderr,
              "run_start=%r: warned about, the run goes on (%r)" % (bad, r.stderr))
    # Without hard links (vfat: link fails with EPERM) the profile is put
    # in place by rename, as before: the last program's is at OUT.
    shim = preload_shim("nolink")
    if shim:
        for f in glob.glob(out + "*"):
            os.unlink(f)
        r = run([CCPROF, "record", "-o", out, "--", "sh", "-c", "%s 5; %s 7 x; true" % (exe, exe)],
                cwd=d, env=dict(os.environ, LD_PRELOAD=shim))
        check(r.returncode == 0 and r.stderr.count("link refused\n") == 2 and
              argv(out) == [exe, "7", "x"] and kids() == [] and
              "cannot write" not in r.stderr,
              "link(2) refused: the profiles are renamed into place as before (%s, %r)"
              % (argv(out), r.stderr))


def separators_in_paths():
    """A directory with ',', ':' and a backslash in its name: record
    escapes its output= in CCPROF_OPTIONS, and the runtime the output= it
    passes to a child's image (Note [Escapes in CCPROF_OPTIONS] in
    src/runtime/options.c).  Before, record refused such a path, even a
    relative -o there, and a preloaded runtime's forked child's image
    wrote over the parent's profile."""
    exe = build("forkexec_sep", "tests/progs/forkexec.c")
    d = os.path.join(OUT, "run_sep", "a,b:c\\d")
    shutil.rmtree(os.path.join(OUT, "run_sep"), ignore_errors=True)
    os.makedirs(d)
    calls = lambda path: {f["name"]: f["calls"] for f in report(path)["functions"] if f["calls"]}
    want = [{"main": 1, "parent_work": 5}, {"main": 1, "image_work": 4},
            {"exec_image": 1, "child_work": 1}]

    def profiles(out, what):
        kids = sorted(f for f in glob.glob(glob.escape(out) + ".*") if f[len(out) + 1:].isdigit())
        got = [calls(f) for f in [out] + kids + [k + ".pre-exec.1" for k in kids]
               if os.path.exists(f)]
        check(len(kids) == 1 and got == want,
              "%s: parent in OUT, the forked child's image in OUT.<pid>, the child's "
              "part before its exec in OUT.<pid>.pre-exec.1 (%s)" % (what, got))

    for name in ("forkexec_sep.ccprof", "x,y:z.ccprof"):
        what = "record%s in a directory named %r" % (" -o " + name if "," in name else "", "a,b:c\\d")
        r = run([CCPROF, "record"] + (["-o", name] if "," in name else []) + ["--", exe, "execl"],
                cwd=d)
        out = os.path.join(d, name)
        kids = sorted(f for f in glob.glob(glob.escape(out) + ".*") if f[len(out) + 1:].isdigit())
        kid = kids[0][len(out) + 1:] if len(kids) == 1 else "?"
        said = ["ccprof: profile written to " + out,
                "ccprof: profile of child %s before its exec written to %s.%s.pre-exec.1"
                % (kid, out, kid),
                "ccprof: profile of child %s%s written to %s.%s"
                % (kid, whose([exe, "image"], [exe, "execl"]), out, kid)]
        check(r.returncode == 0 and r.stderr == "".join(l + "\n" for l in said),
              "%s: runs, and says where each profile went, the forked child's too (%d, %r)"
              % (what, r.returncode, r.stderr))
        profiles(out, what)
        for f in glob.glob(glob.escape(out) + "*"):
            os.unlink(f)
    what = "preloaded, in a directory named %r" % "a,b:c\\d"
    run([exe, "execl"], cwd=d, env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS=""))
    profiles(os.path.join(d, "forkexec_sep.ccprof"), what)
    r = run([exe, "execl"], cwd=d,
            env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=p\\,q\\:r\\\\s"))
    check(r.stderr == "", "output=p\\,q\\:r\\\\s: no warning (%r)" % r.stderr)
    profiles(os.path.join(d, "p,q:r\\s"), "output=p\\,q\\:r\\\\s, preloaded")
    # A lone backslash at the very end stays (options.c); the output= a
    # child's image gets after it must not be escaped by it (the image
    # wrote "PATH:output=PATH.<pid>", which failed on stderr).
    for f in glob.glob(os.path.join(glob.escape(d), "*")):
        os.unlink(f)
    r = run([exe, "execl"], cwd=d, env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=t\\"))
    check(r.stderr == "", "output=t\\ (a lone backslash at the end): no warning (%r)" % r.stderr)
    profiles(os.path.join(d, "t\\"), "output=t\\, preloaded")


def shell_children():
    """system and popen run the image through a shell that libc spawns,
    out of reach of the exec interposers: the image still writes
    OUT.<pid>, not over the parent's OUT, and environ is as it was once
    they return (Note [Shell children]).  Two threads in system at once
    share the copy of environ; each image writes its own profile.  A
    thread cancelled inside system leaves the window too, and a thread
    reading the environment meanwhile finds it whole.  Under
    `ccprof record`, the shell between is preloaded too and passes the
    image's name on."""
    cases = [(how, n, "", ()) for how, n in (("system", 1), ("popen", 1), ("systhreads", 2),
                                             ("syscancel", 1))]
    # popen with libccprof.a linked in too (Note [Shell children in
    # libccprof.a]), shared libc and -static: the image wrote over the
    # parent's OUT before session 51.
    cases += [("popen", 1, ltag, linked) for ltag, linked in link_ways()[1:]]
    # system too since session 52 (Note [system in a static program]):
    # under -static the runtime's own system.
    cases += [(how, n, ltag, linked) for how, n in (("system", 1), ("systhreads", 2),
                                                    ("syscancel", 1))
              for ltag, linked in link_ways()[1:]]
    for how, kids_want, ltag, linked in cases:
        p, prof = same_behaviour("shellkids_" + how + ltag, "tests/progs/forkexec.c", args=[how],
                                 linked=linked)
        if p is None:
            continue
        how += ltag
        check("environ kept: yes" in p.stdout, "%s: environ as before once it returns" % how)
        calls = lambda path: {f["name"]: f["calls"] for f in report(path)["functions"]
                              if f["calls"]}
        kids = sorted(f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit())
        parent = calls(prof)
        check(parent.get("parent_work") == 5 and "image_work" not in parent,
              "%s: the parent's OUT has its own 5 parent_work, no image_work (%s)" % (how, parent))
        got = [calls(k) for k in kids]
        check(got == [{"main": 1, "image_work": 4}] * kids_want,
              "%s: %d image%s wrote OUT.<pid>, 4 image_work each (%s)"
              % (how, kids_want, "s" if kids_want > 1 else "", got))
    # Another thread reads the environment all the while: it must find
    # the whole array every time (environ pointed at a copy that was
    # unmapped after the call: SIGSEGV in getenv).
    for how, ltag, linked in (("popen", "", ()), ("system", "", ()), ("popen", "_static", ("-static", LIBA))):
        p, _ = same_behaviour("shellenv_" + how + ltag, "tests/progs/shellenv.c", args=[how],
                              timeout=120, linked=linked)
        if p is not None:
            check(p.stdout == "%s: 600 of 600 runs succeeded, getenv wrong 0 times, read: yes\n" % how,
                  "%s%s in one thread, getenv in another: no crash, every read right (%r)"
                  % (how, ltag, p.stdout))
    exe = os.path.join(OUT, "shellkids_system")
    d = os.path.join(OUT, "run_shellkids_record")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prof = os.path.join(d, "kids.ccprof")
    r, _ = record(exe, ["system"], profile=prof)
    kids = [f for f in os.listdir(d) if f.startswith("kids.ccprof.") and f[12:].isdigit()]
    check(r.returncode == 0 and len(kids) == 1 and
          functions(report(prof)).get("parent_work", {}).get("calls") == 5 and
          functions(report(os.path.join(d, kids[0]))).get("image_work", {}).get("calls") == 4,
          "record prog system: the parent in OUT, the image in OUT.<pid> (%s)"
          % sorted(os.listdir(d)))


def like_libc(stem, src, want, fn, other_name):
    """stem's program (src) preloaded, linked with libccprof.a and with
    -static, each beside its bare build (same_behaviour): its output has
    every line of want, and under -static fn is the runtime's, weak, and
    libc.a's object for it (which also defines other_name) not linked
    in.  Yields (name, profile) of each way that ran."""
    for ltag, linked in link_ways():
        name = stem + ltag
        p, prof = same_behaviour(name, src, timeout=30, linked=linked)
        if p is None:
            continue
        lines = p.stdout.splitlines()
        check(all(w in lines for w in want), "%s: %s as libc's (lines missing: %s)"
              % (name, fn, [w for w in want if w not in lines]))
        if ltag == "_static":
            exe = os.path.join(OUT, name + ("" if CLOCK == "cpu" else "@" + CLOCK))
            syms = {w[2]: w[1] for w in (l.split() for l in run(["nm", exe]).stdout.splitlines())
                    if len(w) == 3}
            check(syms.get(fn) == "W" and other_name not in syms,
                  "%s: %s is the runtime's, libc.a's not linked in (%s %s, %s %s)"
                  % (name, fn, fn, syms.get(fn), other_name, syms.get(other_name)))
        yield name, prof


def system_semantics():
    """system(3) as the bare program's libc does it, preloaded, with
    libccprof.a linked in (libc's system behind the archive's) and with
    -static, where the runtime does glibc's work itself (Note [system in
    a static program] in src/runtime/ownsystem.c): statuses, SIGINT and
    SIGQUIT ignored while the command runs and put back, the caller's
    mask, two threads at once (tests/progs/systemsem.c)."""
    want = ["system(NULL): 1", "exit 3: exit 3", "kill -INT $$: killed by Interrupt",
            "not found: exit 127", "interrupts while in system: 0",
            "after: SIGINT on_int, SIGQUIT ignored", "after: SIGCHLD blocked 0, SIGUSR1 blocked 1",
            "thread a: exit 4", "thread b: exit 5", "raise(SIGINT) after: 1 interrupt"]
    for _ in like_libc("systemsem", "tests/progs/systemsem.c", want, "system", "__libc_system"):
        pass


def forkpty_ways():
    """forkpty(3) preloaded, with libccprof.a linked in (the archive's
    forkpty in front of libc's since session 52: it was local, and the
    child started its sampler from the fork handler) and with -static,
    where the runtime does glibc's work itself (Note [daemon in a static
    program] in src/runtime/forkchild.c): the child on a terminal of its
    own as the bare program's is (tests/progs/ptychild.c), the parent's
    profile and the child's."""
    want = ["child: isatty 1 1 1", "child: session leader yes",
            "child: foreground group is ours yes", "child: /dev/tty opens yes",
            "child: stdin is a pts", "parent: child exit 3, 1 call"]
    for name, prof in like_libc("ptychild", "tests/progs/ptychild.c", want, "forkpty",
                                "__forkpty"):
        kids = numbered(prof)
        check(os.path.exists(prof) and daemon_calls(prof) == {"main": 1, "in_parent": 1} and
              len(kids) == 1 and daemon_calls(kids[0]) == {"in_child": 1},
              "%s: the parent's profile and the child's (%s, %s)"
              % (name, os.path.exists(prof) and daemon_calls(prof),
                 [daemon_calls(k) for k in kids]))


def exit_race():
    """Threads call exit while main returns, all at once: the profile is
    written every time, with every call (Note [Concurrent exit]; the
    first thread to reach _exit cut the write short, 39 runs in 40).
    Preloaded, with libccprof.a linked in (none written in 20 runs of 20
    before session 51 put the gate in it) and with -static (where our
    _exit waits instead: Note [The gate in libccprof.a])."""
    for n, (ltag, linked) in [(n, l) for n in (1, 3) for l in link_ways()]:
        name = "exitrace%d%s" % (n, ltag)
        p, prof = same_behaviour(name, "tests/progs/exitrace.c", args=[str(n)],
                                 timeout=60, linked=linked)
        if p is None:
            continue
        exe = os.path.join(OUT, name + ("" if CLOCK == "cpu" else "@" + CLOCK))
        env = dict(os.environ, LD_PRELOAD="" if linked else PRELOAD)
        got = []
        for i in range(12):
            out = "%s.%d" % (prof, i)
            env["CCPROF_OPTIONS"] = "clock=%s:output=%s" % (CLOCK, out)
            r = run([exe, str(n)], env=env, timeout=60)
            got.append((r.returncode, os.path.exists(out) and
                        functions(report(out)).get("work", {}).get("calls")))
        check(got == [(3, n + 1)] * 12,
              "%s: %d thread%s exit while main returns: 12 runs of 12 exit 3 with the profile, "
              "work called %d times (%s)" % (name, n, "s" if n > 1 else "", n + 1, got))


def static_pie():
    """libccprof.a in a program linked with -static-pie: libc's exit is a
    local symbol there, not libc.a's global one, and the runtime's _exit
    waits for the write as under -static (Note [The gate in libccprof.a]).
    Exact calls, exit from three threads while main returns (6 runs of
    6), and daemon's two profiles."""
    probe = run([CC, "-static-pie", "-x", "c", "-", "-o", os.path.join(OUT, "static_pie_probe")],
                input="int main(void) { return 0; }\n")
    if probe.returncode != 0:
        print("# SKIP -static-pie: %s cannot link one here (%s)" % (CC, probe.stderr[-200:]))
        return
    linked = ("-static-pie", LIBA)
    p, prof = same_behaviour("fib_static_pie", "tests/progs/fib.c", args=["18"], linked=linked)
    if p is not None:
        exact_calls("-static-pie", p, prof)
    p, prof = same_behaviour("exitrace3_static_pie", "tests/progs/exitrace.c", args=["3"],
                             timeout=60, linked=linked)
    if p is not None:
        exe = os.path.join(OUT, "exitrace3_static_pie" + ("" if CLOCK == "cpu" else "@" + CLOCK))
        got = []
        for i in range(6):
            out = "%s.%d" % (prof, i)
            r = run([exe, "3"], env=dict(os.environ, LD_PRELOAD="",
                                         CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, out)),
                    timeout=60)
            got.append((r.returncode, os.path.exists(out) and
                        functions(report(out)).get("work", {}).get("calls")))
        check(got == [(3, 4)] * 6, "-static-pie: 3 threads exit while main returns: 6 runs of 6 "
              "exit 3 with the profile, work called 4 times (%s)" % got)
    p, prof = same_behaviour("daemonize_static_pie", "tests/progs/daemonize.c", timeout=30,
                             linked=linked)
    if p is not None:
        kids = numbered(prof)
        check(os.path.exists(prof) and daemon_calls(prof) == {"main": 1, "before_daemon": 5} and
              len(kids) == 1 and daemon_calls(kids[0]) == {"after_daemon": 7},
              "-static-pie: daemon's parent writes OUT, the daemon OUT.<pid> (%s, %s)"
              % (os.path.exists(prof) and daemon_calls(prof), [daemon_calls(k) for k in kids]))


def exit_wait():
    """The exit gate waits no longer than the first exit allows: a child
    forked while the parent's exit runs has a gate of its own, and a
    thread that calls exit holding a lock the first exit's handler needs
    ends the process as before (tests/progs/exitwait.c; both took 10 s,
    the gate's bound, past the bare run's few ms)."""
    p, _ = same_behaviour("exitwait_fork", "tests/progs/exitwait.c", args=["fork"], timeout=8)
    if p is not None:
        check(p.stdout == "child exit status 7, within 5 s: yes\n",
              "a child forked during the parent's exit: its exit at once (%r)" % p.stdout)
    p, _ = same_behaviour("exitwait_hold", "tests/progs/exitwait.c", args=["hold"], timeout=8)
    if p is not None:
        check(p.returncode == 1, "exit holding a lock the first exit needs: ends within 8 s, "
              "status 1 as without ccprof (%d)" % p.returncode)


def last_thread():
    """main calls pthread_exit; the process ends with the program's last
    thread, not with the runtime's sampler (Note [Last thread]).  main ends
    by the exit system call itself, alone (raw) or before its workers
    (rawfirst): the registry still listed it, and the old build's sampler
    kept the process alive for ever, deaf to SIGTERM (Note [A leader that
    died alone]).  Now it ends as bare, with the same status, and under
    the sampling clocks with a profile the helper writes: exact counts.
    So does main's pthread_exit with workers that end by the exit system
    call (rawlast): glibc's count never reaches 0, and the sampler finds
    itself alone; a POSIX one (helper=pthread) returned, and glibc, which
    still counted the workers, ended it alone and the process without a
    profile.
    Under clock=cycles there is no helper to write one."""
    p, prof = same_behaviour("lastthread", "tests/progs/lastthread.c", timeout=60)
    if p is not None:
        exact_calls("lastthread", p, prof)
    # In a PID namespace whose /proc is the one outside it (unshare
    # --pid without a /proc of its own), /proc's numbers are not getpid's:
    # the helper looked for the leader's file by getpid's, and raw and
    # rawlast ran for ever (helper-196).
    ns = ["unshare", "--pid", "--fork", "--kill-child"]  # no program left behind if it hangs
    if run(ns + ["true"]).returncode != 0:
        print("# SKIP unshare --pid is refused here: last_thread's runs in a PID namespace")
        ns = None
    for mode, env, wrap in (("raw", None, ()), ("rawfirst", None, ()), ("rawlast", None, ()),
                            ("rawlast", {"CCPROF_OPTIONS": "helper=pthread"}, ()),
                            ("raw", None, ns), ("rawlast", {"CCPROF_OPTIONS": "helper=pthread"}, ns)):
        if wrap is None:
            continue
        name = "lastthread_" + mode + ("_pthread" if env else "") + ("_pidns" if wrap else "")
        p, prof = same_behaviour(name, "tests/progs/lastthread.c", [mode], env=env, timeout=20,
                                 wrap=wrap)
        if p is None:
            continue
        if CLOCK == "cycles":
            check(not os.path.exists(prof), "%s: no helper under clock=cycles, no profile" % name)
        else:
            exact_calls(name, p, prof)


def quiet_helper():
    """While main runs, the sampler thread opens no file: Note [Last
    thread] looks in /proc only once the registry shows main ended (an
    open of ours takes the lowest free descriptor for a moment, which a
    program that closes 0 and opens /dev/null expects to get)."""
    if shutil.which("strace") is None:
        print("# quiet_helper: no strace, skipped")
        return
    exe = build("fib_quiet", "tests/progs/fib.c")
    log = os.path.join(OUT, "fib_quiet.strace")
    t = time.monotonic()
    r = run(["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log, exe, "37"],
            env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=/dev/null"))
    secs = time.monotonic() - t
    if r.returncode != 0 or not os.path.exists(log):
        print("# quiet_helper: strace does not run here (%s), skipped" % r.stderr.strip()[-200:])
        return
    if secs < 0.3:
        print("# quiet_helper: the run took %.2f s, less than three checks' worth" % secs)
    with open(log) as f:
        stats = [l for l in f if "/proc/self/task/" in l and "/stat" in l]
    check(not stats, "quiet_helper: no /proc/self/task/*/stat opened while main runs "
          "(%d in %.1f s)" % (len(stats), secs))


def exits():
    """quick_exit, a _Fork child's exit, destructors, fexecve (progs/exits.c)."""
    p, prof = same_behaviour("exits", "tests/progs/exits.c", ["quick"], timeout=60)
    if p is not None:
        check(p.returncode == 4, "quick_exit(4): exit status 4 (got %d)" % p.returncode)
        exact_calls("quick_exit", p, prof)
    p, prof = same_behaviour("exits", "tests/progs/exits.c", ["_Fork"], timeout=60)
    if p is not None:
        check("child exit 3" in p.stdout, "_Fork: the child's exit(3) ends it")
        exact_calls("_Fork", p, prof)
        check(glob.glob(prof + ".*") == [],
              "_Fork: the child, without fork handlers, writes nothing (%s)" % glob.glob(prof + ".*"))
    p, prof = same_behaviour("exits", "tests/progs/exits.c", ["dtor"], timeout=60)
    if p is not None:
        exact_calls("destructor", p, prof)
    p, prof = same_behaviour("exits", "tests/progs/exits.c", ["fexecve"], timeout=60)
    if p is not None:
        check("exec'd" in p.stdout, "fexecve: /bin/echo ran")
        exact_calls("fexecve (the part before it)", p, prof)
    # Linked in, the write must still come after the program's destructors.
    exe = build("exits_static", "tests/progs/exits.c", LIBA)
    d = os.path.join(OUT, "run_exits_static")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prof = os.path.join(d, "exits.ccprof")
    r = run([exe, "dtor"], cwd=d, timeout=60,
            env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
    if check(r.returncode == 0 and r.stdout == "calls work 11\n" and os.path.exists(prof),
             "static link: destructor ran, profile written"):
        exact_calls("static link, destructor", r, prof)


def daemonized():
    """daemon(3) ends the parent by libc's own _exit, out of the
    interposer's reach, and the child starts with fresh counts: the work
    before the call was in no profile (Note [daemon's parent]).  Now the
    parent writes OUT, the daemon OUT.<pid>.  The daemon keeps stdout, so
    the run ends when it does."""
    p, prof = same_behaviour("daemonize", "tests/progs/daemonize.c", timeout=30)
    if p is None:
        return
    kids = numbered(prof)
    calls = daemon_calls
    check(os.path.exists(prof) and calls(prof) == {"main": 1, "before_daemon": 5},
          "daemon: the parent writes OUT, main and 5 before_daemon (%s)"
          % (os.path.exists(prof) and calls(prof)))
    check(len(kids) == 1 and calls(kids[0]) == {"after_daemon": 7},
          "daemon: the daemon writes OUT.<pid>, 7 after_daemon (%s)" % [calls(k) for k in kids])
    # A program whose allocator holds its lock across fork (its fork
    # handlers registered after the runtime's): the parent's write came
    # from the runtime's parent handler, before the program's gave the
    # lock back, and waited for ever; and under a sampling clock the
    # child, which started its sampler thread in the runtime's child
    # handler, waited so too (Note [The child's sampler]).  Through
    # daemon, fork and forkpty; the child's 60 ms of CPU in spin() show
    # its sampler ran.  fork and forkpty also with libccprof.a linked in
    # (since sessions 50 and 52: Note [fork in a static program]; not with -static,
    # where the program's own malloc clashes with libc.a's), with the
    # sampler made as a POSIX thread too (helper=pthread), which
    # allocates: the archive without the fork interposer hung there, and
    # without its forkpty (local in it before session 52) too.
    ways = [(m, "", (), None) for m in ("daemon", "fork", "forkpty")] + \
        [("fork", "_linked", (LIBA,), None), ("forkpty", "_linked", (LIBA,), None),
         ("fork", "_linked_pthread", (LIBA,), {"CCPROF_OPTIONS": "helper=pthread"}),
         ("forkpty", "_linked_pthread", (LIBA,), {"CCPROF_OPTIONS": "helper=pthread"})]
    for mode, ltag, linked, env in ways:
        p, prof = same_behaviour("forklock" + ltag, "tests/progs/forklock.c", args=[mode],
                                 timeout=20, linked=linked, env=env)
        if p is None:
            continue
        kids = numbered(prof)
        # fork is called before wait_child, which both processes enter.
        parent = {"main": 1, "before_daemon": 5,
                  "run_daemon" if mode == "daemon" else "wait_child": 1}
        child = {"after_daemon": 7, "spin": 1, "child_work": 1}
        if mode != "daemon":
            child["wait_child"] = 1
        check(os.path.exists(prof) and calls(prof) == parent and
              len(kids) == 1 and calls(kids[0]) == child,
              "%s with an allocator locked across fork: no wait, the parent's profile and "
              "the child's (%s, %s)" % (mode + ltag, os.path.exists(prof) and calls(prof),
                                        [calls(k) for k in kids]))
        if CLOCK == "cpu" and len(kids) == 1:
            spin = [f["self_s"] for f in report(kids[0])["functions"] if f["name"] == "spin"]
            # Some of it: a sampler kept off the CPU on a loaded machine
            # leaves the rest to the child's last sample, at its exit;
            # with no sampler, all of it.
            check(spin and 0.01 <= spin[0] <= 0.09,
                  "%s, clock=cpu: the child's sampler ran, spin charged for its 60 ms of CPU "
                  "(%s s)" % (mode + ltag, spin))
    # A fork from a signal handler that interrupted another fork (raised
    # by the program's parent fork handler): only the inner fork's child
    # handler deferred the sampler, and its end started it only outside
    # every other call, so that child had none (helper-105: 1 sample).
    if CLOCK == "cpu":
        p, prof = same_behaviour("forknest", "tests/progs/forknest.c", timeout=20)
        kids = numbered(prof) if p else []
        info = json.loads(run([CCPROF, "info", "--json", kids[0]]).stdout) if len(kids) == 1 else {}
        spin = [f["self_s"] for f in report(kids[0])["functions"] if f["name"] == "spin"] \
            if len(kids) == 1 else []
        check(info.get("samples", 0) >= 5 and spin and spin[0] >= 0.01,
              "a fork nested in a fork: the inner child's sampler ran (%s wake-ups; spin "
              "%s s of its 60 ms)" % (info.get("samples"), spin))
    # daemon's fork fails: glibc runs the parent's fork handlers all the
    # same, and the process lives on.
    if CLOCK == "cpu":
        daemon_fails("daemonize", os.path.join(OUT, "daemonize"), PRELOAD)


def daemon_fails(name, exe, preload):
    """daemonize's fork made to fail (exe, its bare build exe_bare):
    daemon returns -1 with EAGAIN, the process goes on with its signals
    not held and writes its profile at exit, with the calls after daemon.  As root, the program
    gives up root to uid 65534 first, so it writes in a directory of its
    own under /tmp, which anyone may reach."""
    bare = run([exe + "_bare", "fail"], timeout=30)
    if bare.returncode != 0:
        print("# SKIP %s failing: the program cannot forbid its fork here (%s)"
              % (name, bare.stderr.strip()))
        return
    d = tempfile.mkdtemp(prefix="ccprof-daemon-")
    try:
        os.chmod(d, 0o777)
        prof = os.path.join(d, "daemonize.ccprof")
        p = run([exe, "fail"], cwd=d, timeout=30, env=dict(
            os.environ, LD_PRELOAD=preload, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, prof)))
        check(p.returncode == 0 and p.stdout == bare.stdout and
              "daemon: -1 (Resource temporarily unavailable), 0 signals blocked" in p.stdout,
              "%s: daemon fails: -1, EAGAIN, no signal blocked after it, as bare (%r)"
              % (name, p.stdout))
        check(os.path.exists(prof) and
              daemon_calls(prof) == {"main": 1, "before_daemon": 5, "forbid_fork": 1,
                                     "blocked_signals": 1, "after_daemon": 7},
              "%s: daemon fails: the process writes its profile at exit, the calls after it "
              "in it (%s)" % (name, os.path.exists(prof) and daemon_calls(prof)))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def daemon_calls(path):
    """A profile's functions with calls, and how many."""
    return {f["name"]: f["calls"] for f in report(path)["functions"] if f["calls"]}


def numbered(prof):
    """The profiles PROF.<pid> of a run's other processes."""
    return [f for f in glob.glob(prof + ".*") if f[len(prof) + 1:].isdigit()]


def daemon_linked():
    """libccprof.a's daemon (Note [daemon in a static program]).  Linked
    with a shared libc, the program's daemon was libc's (the archive's
    was local), and the parent's profile was lost; now it is the
    archive's, which writes it and calls libc's.  Under -static it does
    glibc's work itself: the parent's profile, the daemon's OUT.<pid>;
    daemon(0, 0) leaves the daemon in /, /dev/null on its streams and
    leading a session, as glibc's daemon leaves the bare program; and a
    fork that fails is -1 with EAGAIN, the process going on."""
    calls, kids_of = daemon_calls, numbered
    for tag, linked in link_ways()[1:]:
        name = "daemonize" + tag
        p, prof = same_behaviour(name, "tests/progs/daemonize.c", timeout=30, linked=linked)
        if p is None:
            continue
        kids = kids_of(prof)
        check(os.path.exists(prof) and calls(prof) == {"main": 1, "before_daemon": 5},
              "%s: the parent writes OUT, main and 5 before_daemon (%s)"
              % (name, os.path.exists(prof) and calls(prof)))
        check(len(kids) == 1 and calls(kids[0]) == {"after_daemon": 7},
              "%s: the daemon writes OUT.<pid>, 7 after_daemon (%s)"
              % (name, [calls(k) for k in kids]))
        exe = os.path.join(OUT, name + ("@" + CLOCK if CLOCK != "cpu" else ""))
        d = os.path.dirname(prof)
        seen = {}
        for which, env in (("bare", {}), ("profiled", {
                "LD_PRELOAD": "", "CCPROF_OPTIONS": "clock=%s:output=%s.detach" % (CLOCK, prof)})):
            path = os.path.join(d, "detach-" + which)
            r = run([exe + ("_bare" if which == "bare" else ""), "detach", path], cwd=d,
                    timeout=30, env=dict(os.environ, **env))
            waited = [path] + ([prof + ".detach"] if which == "profiled" else [])
            for _ in range(200):  # the daemon runs on after its parent ends
                if all(os.path.exists(w) for w in waited) and \
                        (which == "bare" or len(kids_of(prof + ".detach")) == 1):
                    break
                time.sleep(0.05)
            seen[which] = (r.returncode, r.stdout, open(path).read() if os.path.exists(path) else None)
        check(seen["bare"][2] is not None and "cwd /\nfd 0 /dev/null" in seen["bare"][2] and
              seen["profiled"] == seen["bare"],
              "%s: daemon(0, 0) as glibc's: in /, /dev/null on 0-2, a session leader (%r, bare %r)"
              % (name, seen["profiled"], seen["bare"]))
        kids = kids_of(prof + ".detach")
        check(os.path.exists(prof + ".detach") and len(kids) == 1 and
              calls(prof + ".detach") == {"main": 1, "before_daemon": 5} and
              calls(kids[0]) == {"after_daemon": 7, "describe": 1},
              "%s: daemon(0, 0), the parent's profile and the daemon's (%s, %s)"
              % (name, os.path.exists(prof + ".detach") and calls(prof + ".detach"),
                 [calls(k) for k in kids]))
        daemon_fails(name, exe, "")


def exec_():
    p, prof = same_behaviour("execer", "tests/progs/execer.c")
    if p is None:
        return
    if check(os.path.exists(prof), "exec: the part before the exec was written"):
        check(functions(report(prof)).get("before_exec", {}).get("calls") == 4,
              "exec: 4 calls before the exec")


def reexec():
    p, prof = same_behaviour("reexec", "tests/progs/reexec.c")
    if p is None:
        return
    check("3003 arguments, last end" in p.stdout, "exec: execl passes 3002 arguments through")
    first = prof + ".pre-exec.1"
    if check(os.path.exists(prof) and os.path.exists(first),
             "re-exec: the first image's profile is kept beside the second's"):
        check(functions(report(first)).get("before", {}).get("calls") == 2 and
              functions(report(prof)).get("after", {}).get("calls") == 1,
              "re-exec: each image's profile has its own calls")


def exec_then_signal():
    """The image after an exec dies by SIGTERM: its profile, written from
    the handler, replaced the first image's at the same path (the move to
    PATH.pre-exec.N was left out of a handler's write, since it decoded
    the old file); now the old file's pid and start are peeked at."""
    p, prof = same_behaviour("execdie", "tests/progs/reexec.c", args=["die"], timeout=60)
    if p is None:
        return
    check(p.returncode == -signal.SIGTERM and "3003 arguments" in p.stdout,
          "exec then SIGTERM: the second image ran and died by it (%d)" % p.returncode)
    first = prof + ".pre-exec.1"
    if check(os.path.exists(prof) and os.path.exists(first),
             "exec then SIGTERM: the first image's profile is kept beside the second's"):
        check(functions(report(first)).get("before", {}).get("calls") == 2 and
              "after" not in functions(report(first)) and
              functions(report(prof)).get("after", {}).get("calls") == 3,
              "exec then SIGTERM: each image's profile has its own calls")


def jumps():
    p, prof = same_behaviour("jump", "tests/progs/jump.c")
    rep = exact_calls("longjmp", p, prof)
    if rep:
        a = arcs(rep)
        check(a.get(("main", "after_jump"), {}).get("calls") == 1,
              "longjmp: after_jump is called from main, not from abandoned frames")
        check(a.get(("main", "descend"), {}).get("calls") == 50,
              "longjmp: main entered descend 50 times (got %s)" % a.get(("main", "descend"), {}).get("calls"))


def jump_siblings():
    """After a longjmp the setjmp frame, rounds(), calls big(), whose frame
    is bigger than the abandoned ones (Note [Longjmp]): big is rounds'
    call, by every way of jumping, fortified or not; out of a signal
    handler on an alternate stack below the thread's stack or above it;
    and past a function inlined into rounds.  Before the jump was
    interposed, big showed under jump() every time.  The same with
    libccprof.a linked in (since session 49: Note [Jumps in a static
    program]), and in a program linked with -static, with and without
    the flag `pkg-config --static` gives for glibc's siglongjmp."""
    links = link_ways("-Wl,-u,__libc_siglongjmp")
    for how, (ltag, linked) in [(h, l) for h in ("longjmp", "_longjmp", "siglongjmp", "handler",
                                                 "altabove", "inlined") for l in links]:
        if ltag.startswith("_static") and how not in ("longjmp", "siglongjmp", "handler"):
            continue
        for tag, extra in (("", ()), ("_fortify", ("-O2", "-D_FORTIFY_SOURCE=2"))):
            name = "jumpsibling_%s%s%s" % (how.replace("_longjmp", "underscore_longjmp"), tag, ltag)
            p, prof = same_behaviour(name, "tests/progs/jumpsibling.c", args=[how], extra=extra,
                                     linked=linked)
            rep = p and exact_calls(name, p, prof)
            if not rep:
                continue
            if how == "altabove":
                check("alternate stack above the thread's" in p.stdout,
                      "%s: the alternate stack lies above the thread's stack" % name)
            into = sorted((k[0], v["calls"]) for k, v in arcs(rep).items() if k[1] == "big")
            check(into == [("rounds", 20)], "%s: big is called from rounds 20 times (%s)" % (name, into))
            leaf = sorted((k[0], v["calls"]) for k, v in arcs(rep).items() if k[1] == "leaf")
            signalled = how in ("handler", "altabove")
            want = [("big", 200)] + ([("on_usr1", 20)] if signalled else [])
            check(leaf == want, "%s: leaf's callers %s (%s)" % (name, want, leaf))


def alt_stack_inside():
    """A handler on an alternate stack inside the thread's own stack (a
    buffer in main's frame, or in a thread's start function), above the
    frames it interrupts, returns to them: they are not gone (Note [An
    alternate stack on the thread's stack] in src/runtime/signals.c).
    tests/progs/altinside.c: the deepest dive() raises SIGUSR1, then
    calls after(), whose caller is dive, 20 times; it had none,
    <spontaneous>, where the handler's first call dropped dive's frames.
    on_usr1 runs as dive's callee, as on a stack outside (static).  A
    handler there that siglongjmps back to rounds() leaves its own
    frames too: after() is then rounds' call (it was on_usr1's, 20 of
    20, helper-150)."""
    for where, how in (("main", ""), ("thread", ""), ("static", ""), ("main", "jump"),
                       ("static", "jump")):
        name = "altinside_" + where + ("_" + how if how else "")
        p, prof = same_behaviour(name, "tests/progs/altinside.c", args=[where, how])
        rep = p and exact_calls(name, p, prof)
        if not rep:
            continue
        a = arcs(rep)
        into = {f: sorted((k[0], v["calls"]) for k, v in a.items() if k[1] == f)
                for f in ("after", "on_usr1", "leaf")}
        want = {"after": [("rounds" if how else "dive", 20)], "on_usr1": [("dive", 20)],
                "leaf": [("after", 200)]}
        check(into == want, "%s: after() is %s's call, the handler dive's, leaf() after's (%s)"
              % (name, want["after"][0][0], into))


def main_stack_limits():
    """Note [The main thread's stack] in threads.c: the main thread's
    stack is worked out from __libc_stack_end, AT_EXECFN and RLIMIT_STACK
    where the limit is at most 128 MB, and asked of glibc above that.
    Both ways, a handler on an alternate stack below the main thread's
    (jumpsibling.c's `handler`) jumps back to its setjmp frame, and only
    a top at or above that frame's entries lets the jump drop the frames
    it leaves: `big` then is rounds' callee, not small's."""
    for kb in (256, 8 * 1024, 128 * 1024, 512 * 1024):
        def limit(kb=kb):
            hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
            want = kb * 1024 if hard == resource.RLIM_INFINITY else min(kb * 1024, hard)
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
        name = "mainstack_%dk" % kb
        p, prof = same_behaviour(name, "tests/progs/jumpsibling.c", args=["handler"], preexec=limit)
        rep = p and exact_calls(name, p, prof)
        if rep:
            into = sorted((k[0], v["calls"]) for k, v in arcs(rep).items() if k[1] == "big")
            check(into == [("rounds", 20)],
                  "%s: with a %d KB stack limit, big is called from rounds 20 times (%s)"
                  % (name, kb, into))


def coroutines():
    """swapcontext between two stacks: calls do not nest on one stack any
    more, yet every count stays exact and nothing is lost, whether the
    coroutine's stack lies below the driver's or above it; also with
    libccprof.a linked in (since session 49 it follows the switches too),
    and linked with -static, with and without glibc's swapcontext asked
    for (Note [Switches in a static program]).  These checks hold with
    the switches unfollowed too: that the switches are followed,
    generators() checks."""
    for where, (ltag, linked) in [(w, l) for w in ("below", "above")
                                  for l in link_ways("-Wl,-u,__swapcontext")]:
        name = "coroutines_" + where + ltag
        p, prof = same_behaviour(name, "tests/progs/coroutines.c", args=[where], linked=linked)
        if exact_calls(name, p, prof):
            info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
            check(info.get("lost_calls") == 0 and info.get("calls") == 5003,
                  "%s: 5,003 calls, none lost (%s, %s)" % (name, info.get("calls"), info.get("lost_calls")))


def generators():
    """Coroutines made with makecontext and switched by swapcontext
    (tests/progs/generators.c; Note [One shadow stack a stack] in
    src/runtime/stacks.c).  A generator resumed from first_half(), then
    from second_half(): its frames continue the stack of whoever resumes
    it while they run.  Its step() is tally()'s and burn()'s caller
    (before, the coroutine's frames were lost at each switch, and both
    were resume_gen's calls), burn()'s time is under second_half alone,
    and main's own call after the generator ended is main's.  The same
    when it ends by setcontext, when its stack is a buffer inside the main
    thread's own stack, when a second thread resumes it after the first
    thread ended, and with 300 generators alive at once.  Then the cases
    helper-153 found: stacks reused by tasks left at their first yield
    (their shadow stacks were kept: 2 MiB of address space each), also
    by threads that end after leaving one each (helper-154);
    coroutines returning to a uc_link saved by getcontext, and a longjmp
    out of a coroutine (main's calls went on under the coroutine's
    frames); a generator pulling from another (the outer one's time was
    charged under the inner one); a thread whose first instrumented
    call is on the generator's stack; and preemptive green threads, whose
    timer handler switches tasks in the middle of the slow path (the
    runtime crashed there 1 run in 16; 8 in 16 before this work): the
    program runs as bare, and pleaf's calls are no more than it made
    (those made while another task held the slow path are lost).  Each
    also with libccprof.a linked in, which follows the switches too since
    session 49; and some linked with -static, with glibc's swapcontext
    asked for as `pkg-config --static` does and without it, where the
    runtime makes it of getcontext and setcontext (Note [Switches in a
    static program] in src/runtime/ucontext.c)."""
    n = 200
    links = link_ways("-Wl,-u,__swapcontext")
    modes = ("two", "set", "inside", "threads", "many", "pool", "threadpool", "ulink", "jump",
             "pipe", "plain", "preempt")
    for mode, (ltag, linked) in [(m, l) for m in modes for l in links]:
        if ltag.startswith("_static") and mode not in ("two", "set", "inside", "ulink", "jump",
                                                        "preempt"):
            continue
        name = "generators_" + mode + ltag
        p, prof = same_behaviour(name, "tests/progs/generators.c", args=[mode], linked=linked)
        rep = p and exact_calls(name, p, prof)
        if not rep:
            continue
        ctx = {tuple(e["name"] for e in c["history"]): c for c in rep["contexts"]}
        def entries(*path):
            return ctx.get(path, {}).get("entries")
        def ending(*tail):
            return sum(c["entries"] for k, c in ctx.items() if k[-len(tail):] == tail)
        def time_under(*path):
            return sum(c["time_s"] for k, c in ctx.items() if k[:len(path)] == path)
        check(entries("main", "after_end") == 1,
              "%s: after_end is main's call after the generator ended (%s)"
              % (name, entries("main", "after_end")))
        if mode == "many":
            gen = ("main", "many_rounds", "resume_gen", "numbers")
            got = (entries(*gen), entries(*gen + ("step",)), entries(*gen + ("step", "tally")))
            check(got == (300, 6000, 6000),
                  "%s: numbers 300 times, step and tally 6,000 under many_rounds (%s)" % (name, got))
            # 300 shadow stacks of a page at least, given back to the pool
            # as their generators ended, still resident (Note [Shadow
            # memory measured] in src/runtime/shadow.c): 31 KB before.
            mem = info_json(prof).get("memory_bytes", 0)
            check(mem >= 300 * 4096, "%s: profiling memory counts the 300 generators' shadow "
                  "stacks, at least 1.2 MB (got %d)" % (name, mem))
            if linked:
                continue
            # A forked child's memory is its own, not its parent's pages
            # (4.2 MB for 64 threads' deep stacks in helper-160's test).
            d = fresh_dir("generators_many_fork@" + CLOCK)
            out = os.path.join(d, "g.ccprof")
            r = run([CCPROF, "record", "--clock=" + CLOCK, "-o", out, "--", p.args[0], "many",
                     "fork"])
            kid = out + "." + (r.stdout.split("child ") + ["?"])[1].split()[0]
            mems = [info_json(f).get("memory_bytes", -1) for f in (out, kid)]
            check(r.returncode == 0 and mems[0] >= 300 * 4096 and 0 <= mems[1] < 300 * 4096,
                  "%s: a forked child's profiling memory is its own, not its parent's 300 "
                  "shadow stacks (parent, child: %s)" % (name, mems))
        elif mode == "pool":
            got = ending("pool_round", "resume_gen", "task_body", "yield_value")
            check(got == 2000, "%s: 2,000 tasks' yields under pool_round (%s)" % (name, got))
        elif mode == "threadpool":
            got = ending("one_task", "resume_gen", "task_body", "yield_value")
            check(got == 300, "%s: 300 tasks' yields under one_task (%s)" % (name, got))
        elif mode == "ulink":
            got = (ending("ulink_round", "start_one"), ending("ulink_round", "start_one", "body"))
            check(got == (100, 100), "%s: start_one and its coroutine's body 100 times "
                  "under ulink_round (%s)" % (name, got))
        elif mode == "jump":
            got = (ending("jump_round", "resume_gen"),
                   ending("jump_round", "resume_gen", "failing", "fail"))
            check(got == (20, 10), "%s: 20 resumes and 10 failures under jump_round (%s)"
                  % (name, got))
        elif mode == "pipe":
            burn = ("pipe_consume", "resume_gen", "filter", "burn")
            got = ending(*burn)
            check(got == n, "%s: filter's burn, %d calls under pipe_consume, not under the "
                  "source it pulls from (%s)" % (name, n, got))
            if CLOCK == "cpu":
                t1 = sum(c["time_s"] for k, c in ctx.items() if k[-len(burn):] == burn)
                t2 = sum(c["time_s"] for k, c in ctx.items() if "source" in k)
                check(t1 >= 0.1 and t2 < 0.25 * t1, "%s: burn's time under filter (%.3f s), "
                      "little under source (%.3f s)" % (name, t1, t2))
        elif mode == "preempt":
            made = sum(int(l.split()[2]) for l in p.stdout.splitlines() if l.startswith("task "))
            got = next((f["calls"] for f in rep["functions"] if f["name"] == "pleaf"), 0)
            check(made == 4 * 200000 and 0 < got <= made,
                  "%s: pleaf recorded %d of the %d calls made, none extra" % (name, got, made))
        elif mode == "plain":
            got = (entries("numbers"), entries("numbers", "step"),
                   entries("numbers", "step", "tally"))
            check(got == (1, 2 * n, 2 * n), "%s: the generator's frames from the thread's "
                  "root (%s)" % (name, got))
        else:
            first = ("first_thread", "first_half") if mode == "threads" else ("main", "first_half")
            second = ("second_thread", "second_half") if mode == "threads" else ("main", "second_half")
            gen1, gen2 = first + ("resume_gen", "numbers"), second + ("resume_gen", "numbers")
            got = (entries(*gen1), entries(*gen1 + ("step",)), entries(*gen2 + ("step",)),
                   entries(*gen1 + ("step", "tally")), entries(*gen2 + ("step", "tally")),
                   entries(*gen2 + ("step", "burn")))
            want = (1, n, n, n - 1, n + 1, n + 1)
            check(got == want, "%s: numbers, step (each half), tally (each half) and burn "
                  "entered under the half that resumed them %s (%s)" % (name, want, got))
            if CLOCK == "cpu":
                t1, t2 = time_under(*first), time_under(*gen2 + ("step", "burn"))
                check(t2 >= 0.1 and t1 < 0.25 * t2, "%s: burn's time under second_half "
                      "(%.3f s), little under first_half (%.3f s)" % (name, t2, t1))


def exceptions():
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx) is None:
            print("# %s not installed: skipped" % cxx)
            continue
        name = "exceptions_" + cxx.replace("+", "x")
        p, prof = same_behaviour(name, "tests/progs/exceptions.cpp", cxx=cxx)
        rep = exact_calls(name, p, prof)
        if rep:
            a = arcs(rep)
            check(a.get(("main", "after_catch()"), {}).get("calls") == 40,
                  "%s: after_catch attributed to main after each catch" % name)
            check(a.get(("main", "throw_deep(int)"), {}).get("calls") == 40,
                  "%s: main entered throw_deep 40 times" % name)
            names = [f["name"] for f in rep["functions"]]
            check(any(n.startswith("Box<int>::get") for n in names),
                  "%s: C++ names demangled (%s)" % (name, [n for n in names if "get" in n]))


def plugin_catch():
    """A C program that opens a C++ library with RTLD_LOCAL
    (tests/progs/plugcatch.c): the library's catches reach the runtime's
    __cxa_begin_catch, which dlsym(RTLD_NEXT) cannot find libstdc++'s
    for, and the runtime aborted the program (helper-162); it now asks
    the calling object (Note [A catch in a library of its own]).
    Preloaded, and with libccprof.a linked in and exported by -rdynamic,
    each with the library built by g++ and clang++: the output of the
    run without the runtime, and the library's calls counted.  The
    runtime's failed lookups leave dlerror() with nothing pending, as the
    program's own successful calls do."""
    host = os.path.join(TOP, "tests/progs/plugcatch.c")
    bare = os.path.join(OUT, "plugcatch_bare")
    linked = os.path.join(OUT, "plugcatch_linked")
    inst = os.path.join(OUT, "plugcatch")
    for exe, flags in ((bare, []), (inst, ["-finstrument-functions"]),
                       (linked, ["-finstrument-functions", LIBA, "-rdynamic", "-pthread"])):
        r = run([CC, "-O1", host, "-o", exe] + flags + ["-ldl"])
        if not check(r.returncode == 0, "plugcatch: the host builds (%s)" % r.stderr[-200:]):
            return
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx) is None:
            continue
        lib = os.path.join(OUT, "libplugcatch_%s.so" % cxx.replace("+", "x"))
        r = run([cxx, "-O1", "-fPIC", "-shared", "-finstrument-functions",
                 os.path.join(TOP, "tests/progs/plugcatch_lib.cpp"), "-o", lib])
        if not check(r.returncode == 0, "plugcatch: the %s library builds" % cxx):
            continue
        want = run([bare, lib])
        for how, exe, env in (("preloaded", inst, {"LD_PRELOAD": PRELOAD}), ("linked", linked, {})):
            prof = os.path.join(OUT, "plugcatch_%s_%s.ccprof" % (cxx, how))
            e = dict(os.environ, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, prof), **env)
            got = run([exe, lib], env=e)
            check(got.returncode == 0 and got.stdout == want.stdout ==
                  "caught 25\ndlerror none\n",
                  "plugcatch (%s, %s): a catch in a library opened with RTLD_LOCAL, as "
                  "without the runtime (status %d, %r; %s)"
                  % (cxx, how, got.returncode, got.stdout, got.stderr[-200:]))
            fs = functions(report(prof)) if os.path.exists(prof) else {}
            check(fs.get("after_catch(long)", {}).get("calls") == 25,
                  "plugcatch (%s, %s): after_catch's 25 calls counted" % (cxx, how))


def linked_beside_others():
    """libccprof.a's jumps and switches are weak (the Makefile's
    STATIC_WEAK), so a definition of the program's own, or one a
    sanitizer links into it, comes first.  clang puts ThreadSanitizer's
    and AddressSanitizer's runtimes in the program, whose longjmp and
    swapcontext must see every jump: tests/progs/sanjump.c runs as its
    sanitized build without the runtime does (with the runtime's strong,
    ThreadSanitizer died of SIGSEGV after 200,000 jumps it did not see,
    and the process then hung).  And a program
    that defines swapcontext itself links (it did not, "multiple
    definition")."""
    src = os.path.join(TOP, "tests/progs/sanjump.c")
    for san in ("thread", "address"):
        if shutil.which("clang") is None:
            print("# SKIP linked_beside_others: clang not installed")
            break
        bare = os.path.join(OUT, "sanjump_bare_" + san)
        exe = os.path.join(OUT, "sanjump_" + san)
        rb = run(["clang", "-O1", "-fsanitize=" + san, src, "-o", bare])
        if rb.returncode != 0:
            print("# SKIP linked_beside_others, %s: clang cannot build it here" % san)
            continue
        r = run(["clang", "-O1", "-fsanitize=" + san, "-finstrument-functions", src, LIBA,
                 "-o", exe])
        if not check(r.returncode == 0, "sanjump (%s): links with libccprof.a (%s)"
                     % (san, r.stderr[-200:])):
            continue
        want = run([bare, "300000"], timeout=60)
        prof = exe + ".ccprof"
        try:
            got = run([exe, "300000"], timeout=60,
                      env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
        except subprocess.TimeoutExpired:
            check(False, "sanjump (%s): ends within 60 s" % san)
            continue
        check(got.returncode == 0 and got.stdout == want.stdout and "ERROR:" not in got.stderr,
              "sanjump (%s): with libccprof.a linked in, runs as its sanitized build does "
              "(status %d, %r; %s)" % (san, got.returncode, got.stdout, got.stderr[-200:]))
        check(functions(report(prof)).get("inner", {}).get("calls") == 300000 if os.path.exists(prof)
              else False, "sanjump (%s): the profile counts inner's 300,000 calls" % san)
    own = os.path.join(OUT, "ownswap.c")
    with open(own, "w") as f:
        f.write("#include <ucontext.h>\n"
                "int swapcontext(ucontext_t *a, const ucontext_t *b) { (void)a; (void)b; return 7; }\n"
                "int main(void) { ucontext_t x; return swapcontext(&x, &x) == 7 ? 0 : 1; }\n")
    exe = os.path.join(OUT, "ownswap")
    r = run([CC, "-finstrument-functions", own, LIBA, "-pthread", "-o", exe])
    check(r.returncode == 0 and run([exe], env=dict(os.environ, CCPROF_OPTIONS="output=" + exe +
                                                    ".ccprof")).returncode == 0,
          "a program's own swapcontext links beside libccprof.a and is the one called (%s)"
          % r.stderr[-200:])


def catch_big():
    """After a catch, the catching function calls big(), whose frame is
    bigger than those the exception unwound (Note [Caught exceptions] in
    src/runtime/catch.c): big and small are catcher's calls, 10 each, with
    g++ and clang++ at -O0 and -O2, preloaded and (since session 49)
    with libccprof.a linked in.  clang runs no exit hooks while unwinding,
    and at -O0 big showed under thrower 10 times of 10.  Linked with
    -static, libstdc++.a's __cxa_begin_catch takes the place of the
    runtime's weak one (Note [Caught exceptions]): the program links and
    runs as bare, with exact calls, and g++'s exit hooks still put big
    and small under catcher.  A destructor run while an exception passes
    through a frame (a cleanup) calls in_cleanup, with a big frame too:
    from the frame it runs in, with clang preloaded too since session 56
    (helper-180; Note [Cleanups on the way] in src/runtime/cleanup.c);
    with clang and libccprof.a the stack pointers decide, and it shows
    under small_caller there (README, Known limits)."""
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx) is None:
            print("# SKIP catch_big with %s: not installed" % cxx)
            continue
        opts = [("-O0",), ("-O2",)]
        if cxx == "clang++":  # where the cleanup showed under the thrower
            opts.append(("-O2", "-finstrument-functions-after-inlining"))
        for opt, (ltag, linked) in [(o, l) for o in opts for l in link_ways()]:
            name = "catchbig_%s%s%s%s" % (cxx.replace("+", "x"), opt[0], "-ai" if opt[1:] else "",
                                          ltag)
            p, prof = same_behaviour(name, "tests/progs/catchbig.cpp", cxx=cxx, extra=opt,
                                     linked=linked)
            rep = p and exact_calls(name, p, prof)
            if not rep or (ltag == "_static" and cxx != "g++"):
                continue
            a = arcs(rep)
            for callee in ("big()", "small()"):
                into = sorted((k[0], v["calls"]) for k, v in a.items() if k[1] == callee)
                check(into == [("catcher()", 10)],
                      "%s: %s is called from catcher 10 times (%s)" % (name, callee, into))
            # The Guard's destructor, run while the exception passes
            # through passer, calls in_cleanup: from the destructor, or
            # from passer where it is inlined; never from a frame the
            # exception had left (Note [Cleanups on the way]).
            into = sorted((k[0], v["calls"]) for k, v in a.items() if k[1] == "in_cleanup()")
            if linked and cxx != "g++":
                continue  # libccprof.a has no personality routine: Known limits
            check(into in ([("Guard::~Guard()", 10)], [("passer()", 10)]),
                  "%s: in_cleanup is called from Guard's destructor or passer 10 times (%s)"
                  % (name, into))


def userns():
    """unshare(CLONE_NEWUSER) works profiled where it works bare: the
    sampler thread steps aside (namespaces.c)."""
    p, prof = same_behaviour("userns", "tests/progs/userns.c")
    if p is None:
        return
    if "unshare: ok" not in p.stdout:
        print("# userns (%s): unshare(CLONE_NEWUSER) fails here bare too (%s): only the sameness checked"
              % (CLOCK, p.stdout.splitlines()[0]))
        return
    check(counts(p.stdout).get("f") == 2 and functions(report(prof)).get("f", {}).get("calls") == 2,
          "userns (%s): f's 2 calls, before and after unshare, in the profile" % CLOCK)


def pid_namespace():
    """A process that ran no instrumented code (unshare(1)) and calls
    unshare(CLONE_NEWPID) can start no thread after it, so the sampler
    does not come back: that cost it no time, and it printed a line of
    ours all the same (unshare -pf bash)."""
    exe = build("pidns", "tests/progs/pidns.c", instrument=False)
    bare = run([exe], timeout=30)
    if "unshare: ok" not in bare.stdout:
        print("# pid namespace: unshare(CLONE_NEWPID) fails here bare too (%s): not checked"
              % bare.stdout.strip())
        return
    prof = os.path.join(OUT, "pidns.ccprof")
    r = run([exe], timeout=30, env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                        CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == bare.returncode and r.stdout == bare.stdout and r.stderr == bare.stderr,
          "pid namespace, uninstrumented: same output, no line of ours (%r)" % r.stderr)


def many_threads():
    """2,000 short threads: every call counted, also those made after the
    runtime saw the thread end; an ended thread keeps at most 3 KB
    resident (27 KB before its lookups were given back; 12, then 4.7
    since a new thread takes over its shadow stack; 10-13 while the memo
    of its cost-centre numbers stayed, Note [Cost centres a thread
    remembers]; 1.4 and 2.0 since a new thread takes over its whole state
    and the ended one keeps only its record, Note [States reborn]),
    also one that ran instrumented code after that (24 KB before the
    runtime gave back the lookups that code rebuilt:
    rt_thread_used_after_end)."""
    exe = build("manythreads", "tests/progs/manythreads.c")
    for mode in ("plain", "late"):
        r, prof = record(exe, ["2000", mode], profile=os.path.join(OUT, "manythreads-%s.ccprof" % mode))
        n = counts(r.stdout)
        fs = functions(report(prof))
        wrong = {f: (n[f], fs.get(f, {}).get("calls")) for f in n if fs.get(f, {}).get("calls", 0) != n[f]}
        check(r.returncode == 0 and n and not wrong,
              "many threads (%s): every count exact (%s wrong)" % (mode, wrong))
        kb = float(r.stdout.split("resident per thread")[1].split()[0])
        check(kb <= 3, "many threads (%s): %.1f KB resident per ended thread (at most 3)" % (mode, kb))


def segments_under_a_limit():
    """Under an address-space limit (`ulimit -v`, which counts what is
    reserved), shadow stack segments are mapped one at a time, none
    ahead (Note [Segment pool] in src/runtime/shadow.c): livethreads.c
    with 3 threads, one of them two segments deep, maps 2 MiB or more
    less under an 8 GB limit than with none (4 MiB here: the chunk of 4
    segments that served the last two holds two more; the threads start
    one after another, so that two never map a chunk at once), every
    count exact in both runs.  The same under a data limit (`ulimit -d`,
    which counts private writable mappings since Linux 4.7)."""
    exe = build("livethreads", "tests/progs/livethreads.c")
    sizes = {}
    for what, which in (("no limit", None), ("an 8 GB address-space limit", resource.RLIMIT_AS),
                        ("an 8 GB data limit", resource.RLIMIT_DATA)):
        prof = os.path.join(OUT, "livethreads_limit.ccprof")
        r = run([exe, "3"], env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof),
                preexec_fn=(lambda: resource.setrlimit(which, (8 << 30, 8 << 30))) if which else None)
        m = re.search(r"^vmsize (\d+)$", r.stdout, re.M)
        sizes[what] = int(m.group(1)) if r.returncode == 0 and m else None
        exact_calls("livethreads under %s" % what, r, prof)
    for what in ("an 8 GB address-space limit", "an 8 GB data limit"):
        check(None not in sizes.values() and sizes["no limit"] - sizes[what] >= 2 << 20,
              "3 live threads: 2 MiB or more less mapped under %s (no segment ahead) than with "
              "none (%s)" % (what, sizes))


def have_strace(test):
    """Whether strace is here; if not, says that `test` is skipped."""
    if shutil.which("strace") is None:
        print("# %s: no strace, skipped" % test)
        return False
    return True


def strace_counts(argv, env, names, log):
    """argv run under strace -f with env: the run, and how often it (all
    its tasks) made each of the system calls `names`."""
    r = run(["strace", "-f", "-qq", "-e", "trace=" + ",".join(names), "-o", log] + argv, env=env)
    text = open(log).read() if os.path.exists(log) else ""
    return r, {c: len(re.findall(r"\b%s\(" % c, text)) for c in names}


def thread_system_calls():
    """What a short thread costs the runtime as it ends: its name read
    from /proc under the registry lock (the sampler and the next thread
    waited for the walk through /proc), and pages given back, each a TLB
    flush on every CPU: 120 us per thread here, 4 us now (docs/
    performance.md).  300 threads one after another, counted with strace
    against the bare run: no open per thread (own_name asks prctl), no
    munmap per thread (its lookups' pages wait for the next thread: Note
    [Pages for the next thread] in src/runtime/pagepool.c), and no mmap
    or madvise per thread either: a thread takes an ended one's state
    whole, thread cache included, which the ended one kept (Note [States
    reborn] in threads.c; a shadow stack taken over is cleared by writing
    its resident pages, not given back: rt_shadow_clear in shadow.c;
    rt_shadow_trim makes no call with nothing to give back).  The old
    build: an open, 3 munmaps and 3 madvises more per thread; session
    40's, an mmap (the state) and a madvise (its thread cache) per thread
    (360 mmaps and 603 madvises against 9 and 300 bare, now 64 and 303).
    Skipped without strace."""
    if not have_strace("thread_system_calls"):
        return
    exe = build("manythreads", "tests/progs/manythreads.c")
    prof = os.path.join(OUT, "threadcalls.ccprof")

    def calls(env):
        return strace_counts([exe, "300"], env, ("mmap", "munmap", "madvise", "open", "openat"),
                             os.path.join(OUT, "threadcalls.strace"))

    bare, was = calls(os.environ)
    if bare.returncode != 0:
        print("# thread_system_calls: strace does not run here (%s), skipped"
              % bare.stderr.strip()[-200:])
        return
    r, got = calls(dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    more = {c: got[c] - was[c] for c in got}
    check(r.returncode == 0 and more["munmap"] <= 20 and more["madvise"] <= 20 and
          more["mmap"] <= 100 and more["open"] + more["openat"] <= 40,
          "300 short threads: at most 20 munmaps, 20 madvises, 100 mmaps and 40 opens more "
          "than bare (bare %s, profiled %s)" % (was, got))


def wide_thread_calls():
    """What a short thread costs the runtime for the functions it enters,
    all of them entered by the threads before it: 100 threads one after
    another, each calling the same 100 functions, counted with strace
    against the bare run.  Each thread asked the process-wide table for
    each function's number under the cc lock, two sigprocmask calls each
    (202 of a thread's 230 system calls), and unmapped its two grown hash
    tables as it ended, a TLB flush on every CPU each; now a number the
    table has is read without the lock (Note [Numbers read without the
    lock] in src/runtime/cctable.c) and grown tables wait for the next
    thread (Note [Pages for the next thread] in pagepool.c), and a new
    thread takes an ended one's state with its thread cache's pages
    (Note [States reborn] in threads.c: one madvise a thread before).
    The old build: 2 munmaps and about 200 sigprocmask calls more per
    thread.
    Every count exact.  Skipped without strace."""
    if not have_strace("wide_thread_calls"):
        return
    exe = build("widethreads", "tests/progs/widethreads.c")
    prof = os.path.join(OUT, "widethreads.ccprof")
    names = ("rt_sigprocmask", "munmap", "madvise")

    def calls(env):
        """The run, each call's count, and a typical thread's sigprocmask
        calls (the median over the tasks: most are the 100 threads)."""
        log = os.path.join(OUT, "widethreads.strace")
        r = run(["strace", "-f", "-qq", "-e", "trace=" + ",".join(names), "-o", log, exe, "100"],
                env=env)
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        got = {c: sum(1 for l in lines if re.search(r"\b%s\(" % c, l)) for c in names}
        per_task = {}
        for l in lines:
            if re.search(r"\brt_sigprocmask\(", l):
                per_task[l.split()[0]] = per_task.get(l.split()[0], 0) + 1
        masks = sorted(per_task.values())
        return r, got, masks[len(masks) // 2] if masks else 0

    bare, was, bare_masks = calls(os.environ)
    if bare.returncode != 0:
        print("# wide_thread_calls: strace does not run here (%s), skipped"
              % bare.stderr.strip()[-200:])
        return
    r, got, masks = calls(dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    more = {c: got[c] - was[c] for c in got}
    check(r.returncode == 0 and masks - bare_masks <= 12,
          "100 threads entering 100 known functions: at most 12 sigprocmask calls a thread "
          "more than bare (bare %d, profiled %d)" % (bare_masks, masks))
    check(r.returncode == 0 and more["munmap"] <= 20 and more["madvise"] <= 20,
          "100 threads entering 100 known functions: at most 20 munmaps and 20 madvises more "
          "than bare (bare %s, profiled %s)" % (was, got))
    if r.returncode == 0:
        exact_calls("widethreads", r, prof)
    p, prof = same_behaviour("widethreads_par", "tests/progs/widethreads.c", ["20", "parallel"])
    exact_calls("widethreads, 4 at once", p, prof)


def live_thread_mappings():
    """200 threads running at once, one of them 70,000 calls deep: the
    mappings ccprof adds for each, counted from /proc/self/maps while all
    of them wait, against the bare run (both with one malloc arena).
    Each shadow stack segment was a mapping of its own, aligned, which
    its neighbours seldom joined: 3.15 mappings a thread more than bare
    here; now segments come from chunks of up to 32 (Note [Segment pool]
    in src/runtime/shadow.c): 2.51-2.57, at most 2.8 allowed.  Every
    count exact, the deep thread's second segment included."""
    n = 200
    exe = build("livethreads", "tests/progs/livethreads.c")
    # A thread's start mallocs in the runtime (pthread_getattr_np), which
    # makes glibc an arena for it, two mappings, up to 8 a CPU: not the
    # shadow stack's, and as many as the machine has CPUs (helper-144).
    one_arena = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.arena_max=1")
    bare = run([exe, str(n)], env=one_arena)
    prof = os.path.join(OUT, "livethreads.ccprof")
    r = run([exe, str(n)], env=dict(one_arena, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))

    def mappings(p):
        m = re.search(r"^mappings (\d+)$", p.stdout, re.M)
        return int(m.group(1)) if p.returncode == 0 and m else None

    was, got = mappings(bare), mappings(r)
    if check(was is not None and got is not None,
             "%d live threads: both runs count their mappings" % n):
        per = (got - was) / n
        check(per <= 2.8, "%d live threads: %.2f mappings a thread more than bare, at most 2.8 "
              "(bare %d, profiled %d)" % (n, per, was, got))
    if r.returncode == 0:
        if exact_calls("livethreads", r, prof):
            # body and every dive: the deep thread's, across two segments.
            depth = json.loads(run([CCPROF, "info", "--json", prof]).stdout)["max_depth"]
            want = counts(r.stdout)["dive"] + 1
            check(depth == want, "livethreads: max depth %d = 1 + calls(dive) (got %d)"
                  % (want, depth))


def threads_at_once_calls():
    """Threads started together, each making its first calls before the
    others end, in rounds joined one after another (bench/workloads/
    churn.c), counted with strace against the bare run.

    50 at once, 20 times: the pools of pages for threads' first tables
    and of alternate signal stacks held 21 and 32 threads' worth, and the
    rest were mapped and unmapped each time (2,345 mmaps and 2,117
    munmaps more than bare); then 85 and 128 (Note [Pages for the next
    thread] in src/runtime/pagepool.c): 367 and 29 more.  At most 600
    and 100 more.

    400 at once, 1 round against 4: from the second round on, a thread
    takes an ended one's state with the lookups and thread cache it kept
    (up to 1,024 warm ended threads: Note [States reborn] in
    src/runtime/threads.c) and its alternate stack from a pool of 1,024,
    so a later round maps and unmaps about what bare does: 1-3 calls more
    a round now, 1,210 of each before.  At most 40.  And the shadow stack
    is asked about with mincore about twice a thread (its end, its state
    reborn; the write once for each of the last round's, its depth and
    its memory in one pass: rt_shadow_measure): 3,203 calls for 1,600
    threads, 6,406 before (Note [Resident pages from the bottom] in
    shadow.c; 3,603 while the write read them twice); at most 2.1 a
    thread.  Skipped
    without strace."""
    if not have_strace("threads_at_once_calls"):
        return
    exe = os.path.join(OUT, "churn")
    bare = os.path.join(OUT, "churn_bare")
    for out, flags in ((exe, ["-finstrument-functions"]), (bare, [])):
        b = run([CC, "-O2", "-pthread", os.path.join(TOP, "bench/workloads/churn.c"), "-o", out] + flags)
        if not check(b.returncode == 0, "churn.c builds (%s)" % b.stderr[-200:]):
            return
    prof = os.path.join(OUT, "churn.ccprof")
    profiled = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof)

    def calls(prog, env, args, names=("mmap", "munmap")):
        return strace_counts([prog] + args, env, names, os.path.join(OUT, "churn.strace"))

    b, was = calls(bare, os.environ, ["20", "50"])
    r, got = calls(exe, profiled, ["20", "50"])
    check(b.returncode == 0 and r.returncode == 0 and r.stdout == b.stdout and
          got["mmap"] - was["mmap"] <= 600 and got["munmap"] - was["munmap"] <= 100,
          "20 rounds of 50 threads at once: at most 600 mmaps and 100 munmaps more than bare "
          "(bare %s, profiled %s)" % (was, got))

    runs = {}
    for rounds in ("1", "4"):
        b, was = calls(bare, os.environ, [rounds, "400"])
        r, got = calls(exe, profiled, [rounds, "400"], ("mmap", "munmap", "mincore"))
        if not check(b.returncode == 0 and r.returncode == 0 and r.stdout == b.stdout,
                     "400 threads at once, %s round(s): runs as bare under strace" % rounds):
            return
        runs[rounds] = (was, got)
    later = {c: ((runs["4"][1][c] - runs["1"][1][c]) - (runs["4"][0][c] - runs["1"][0][c])) / 3
             for c in ("mmap", "munmap")}
    check(later["mmap"] <= 40 and later["munmap"] <= 40,
          "400 threads at once, a round after the first: at most 40 mmaps and 40 munmaps more "
          "than bare (%.1f and %.1f; 1 round %s, 4 rounds %s)"
          % (later["mmap"], later["munmap"], runs["1"], runs["4"]))
    check(runs["4"][1]["mincore"] <= 2.1 * 1600,
          "4 rounds of 400 threads at once: at most 2.1 mincore calls a thread (%d for 1,600)"
          % runs["4"][1]["mincore"])

    # Under a limit that counts address space, only 128 alternate stacks
    # wait (Note [Stacks for other threads] in src/runtime/altstack.c):
    # the other 272 of a round's are unmapped as their threads end.
    if shutil.which("prlimit") is None:
        print("# threads_at_once_calls: no prlimit, the limited run skipped")
        return
    limited = {}
    for rounds in ("1", "4"):
        cmd = ["prlimit", "--as=%d" % (16 << 30)]
        b, was = calls(cmd[0], os.environ, cmd[1:] + [bare, rounds, "400"])
        r, got = calls(cmd[0], profiled, cmd[1:] + [exe, rounds, "400"])
        if not check(b.returncode == 0 and r.returncode == 0 and r.stdout == b.stdout,
                     "400 threads at once, %s round(s), under a 16 GB address-space limit: "
                     "runs as bare" % rounds):
            return
        limited[rounds] = (was["munmap"], got["munmap"])
    given = ((limited["4"][1] - limited["1"][1]) - (limited["4"][0] - limited["1"][0])) / 3
    check(given >= 200, "400 threads at once under an address-space limit, a round after the "
          "first: at least 200 munmaps more than bare, the alternate stacks beyond 128 "
          "(%.1f; %s)" % (given, limited))


def leader_check_calls():
    """The sampling thread asks every 100 ms whether the process's leader
    still runs (Note [Last thread] in src/runtime/lastthread.c), walking
    the live threads under the registry lock: it called getpid() for each
    thread it passed, and the leader, the oldest, is last.  200 live
    threads (livethreads.c), counted with strace: 2,464 getpid calls
    before, 426 now (about two a thread as it starts); at most 1,000.
    Every count exact.  Skipped without strace."""
    if not have_strace("leader_check_calls"):
        return
    exe = build("livethreads", "tests/progs/livethreads.c")
    prof = os.path.join(OUT, "leadercheck.ccprof")
    log = os.path.join(OUT, "leadercheck.strace")
    r, got = strace_counts([exe, "200"],
                           dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof),
                           ("getpid",), log)
    if r.returncode != 0 and "ptrace" in r.stderr:
        print("# leader_check_calls: strace does not run here, skipped")
        return
    n = got["getpid"] if os.path.exists(log) else -1
    check(r.returncode == 0 and 0 <= n <= 1000,
          "200 live threads: at most 1,000 getpid calls in all (got %d)" % n)
    if r.returncode == 0:
        exact_calls("livethreads under strace", r, prof)


def thread_churn():
    """3,000 short threads one after another, then 1,000 mmaps, under a
    1 GB limit on the address space: as bare, every count exact.  Each
    ended thread kept its 2 MiB shadow stack reserved before (all 1,000
    mmaps failed, and pthread_create too); now the next thread takes it
    over (Note [Ended threads' reserve] in threads.c)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    p, prof = same_behaviour("threadchurn", "tests/progs/threadchurn.c", ["3000"], timeout=60,
                             preexec=limit)
    if p is not None:
        check("mmap fails 0" in p.stdout, "thread churn: the program's mmaps succeed (%r)" % p.stdout)
        exact_calls("threadchurn", p, prof)


def reborn_states():
    """Threads started in rounds of 8 at once, 20 rounds, each joined
    before the next: from the second round on, a new thread takes the
    state of an ended one whose task is gone, and the ended thread's
    record (its counts, contexts and name) moves to its arena (Note
    [States reborn] in src/runtime/threads.c).  Every thread's own
    counts, by the name it gave itself before its first call: body once,
    leaf n times and mid n // 2 times (n = its number % 7 + 1), and with
    `late`, late() once from a key's destructor after the runtime saw the
    thread end; 161 threads, the totals exact, the run as bare."""
    for mode in ("plain", "late"):
        args = ["20", "8"] + (["late"] if mode == "late" else [])
        p, prof = same_behaviour("threadrounds_" + mode, "tests/progs/threadrounds.c", args,
                                 timeout=60)
        if p is None or not exact_calls("threadrounds " + mode, p, prof):
            continue
        r = run([CCPROF, "report", "--threads", "--json", prof])
        threads = json.loads(r.stdout)["threads"] if r.returncode == 0 else []
        wrong = []
        for t in threads:
            m = re.match(r"r(\d+)\.(\d+)$", t["name"])
            if not m:
                continue
            n = (int(m.group(1)) * 8 + int(m.group(2))) % 7 + 1
            want = {"body": 1, "leaf": n}
            if n // 2:
                want["mid"] = n // 2
            if mode == "late":
                want["late"] = 1
            got = {f["name"]: f["calls"] for f in t["functions"] if f["name"] in ("body", "leaf", "mid", "late")}
            if got != want:
                wrong.append((t["name"], want, got))
        named = sum(1 for t in threads if re.match(r"r\d+\.\d+$", t["name"]))
        check(len(threads) == 161 and named == 160 and not wrong,
              "threadrounds %s: 161 threads, each of the 160 named ones with its own counts "
              "(%d threads, %d named, wrong: %s)" % (mode, len(threads), named, wrong[:3]))


def late_code_depth():
    """Instrumented code that runs on a thread after the runtime saw it
    end (a later key's destructor: tests/progs/latedeep.c recurses 3,000
    calls deep there and calls 64 functions through a table): the
    profile's deepest is that code's, 3,001, and every count exact; one
    thread, three one after another (the next takes the state over: Note
    [States reborn] in src/runtime/threads.c), twenty at once.  Once an
    ended thread kept its first tables, its destructor's calls no longer
    made the runtime end the thread once more, and the profile said 2
    (helper-148)."""
    for args in (["1", "3000"], ["3", "3000"], ["20", "3000", "together"]):
        name = "latedeep_" + "_".join(args)
        p, prof = same_behaviour(name, "tests/progs/latedeep.c", args, timeout=60)
        if p is None or not exact_calls(name, p, prof):
            continue
        r = run([CCPROF, "info", "--json", prof])
        depth = json.loads(r.stdout)["max_depth"] if r.returncode == 0 else None
        check(depth == 3001, "%s: max depth 3,001, the destructor's (got %s)" % (name, depth))


def walks_without_the_lock():
    """A write in a signal handler that cannot have the registry lock
    walks the registry without it, while new threads take over ended
    threads' states (Note [States reborn] in src/runtime/threads.c):
    before a state was kept from rebirth during such a walk, walks found
    5 of 2,237 threads, or some threads twice and others not, or a name
    half-written (helper-146; an unreadable profile, "string contains a
    NUL byte").  sigchurn.c starts 400 rounds of 8 threads while another
    thread sends dump_signal every 100 us and copies every third profile
    written: each copy readable, every thread in it once, and at least
    half as many threads as the most in a copy before it (the registry
    only grows; two handlers' writes may end out of order).  Two runs;
    the fault showed in about 4 runs of 10 before.  The profile at exit
    has every count exact."""
    exe = build("sigchurn", "tests/progs/sigchurn.c")
    for n in range(2):
        d = os.path.join(OUT, "sigchurn_copies%d" % n)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        prof = os.path.join(OUT, "sigchurn%d.ccprof" % n)
        r = run([exe, prof, d, "400", str(int(signal.SIGUSR2))], timeout=120,
                env=dict(os.environ, LD_PRELOAD=PRELOAD,
                         CCPROF_OPTIONS="output=%s:dump_signal=SIGUSR2" % prof))
        if not check(r.returncode == 0, "sigchurn run %d: exits 0 (got %d: %s)"
                     % (n, r.returncode, r.stderr.strip()[-200:])):
            continue
        exact_calls("sigchurn run %d" % n, r, prof)
        copies = sorted(glob.glob(os.path.join(d, "dump.*")), key=lambda f: int(f.rsplit(".", 1)[1]))
        bad, most = [], 0
        for f in copies:
            q = run([CCPROF, "report", "--threads", "--json", f])
            if q.returncode != 0:
                bad.append((os.path.basename(f), q.stderr.strip()[:120]))
                continue
            tids = [t["tid"] for t in json.loads(q.stdout)["threads"]]
            if len(set(tids)) != len(tids) or len(tids) < most // 2:
                bad.append((os.path.basename(f), len(tids), len(set(tids)), most))
            most = max(most, len(tids))
        # 106-195 copies on a quiet machine; 13 and 14 with helpers
        # loading it (sessions 57 and 58), where 20 was asked for.
        check(len(copies) >= 8 and not bad,
              "sigchurn run %d: %d profiles written in handlers as threads start and end, each "
              "readable, each thread once, none with less than half the threads of one before "
              "(wrong: %s)" % (n, len(copies), bad[:3]))


def uninstrumented_signals():
    """A process that ran no instrumented function (a shell) and dies by a
    signal under ccprof record: no profile, no line of the runtime's, the
    same death."""
    for sig in (signal.SIGSEGV, signal.SIGTERM):
        prof = os.path.join(OUT, "sh_%d.ccprof" % sig)
        r = run([CCPROF, "record", "-o", prof, "--", "sh", "-c", "kill -%d $$" % sig])
        name = signal.Signals(sig).name
        check(r.returncode == -sig, "uninstrumented sh, %s: record dies by it too (got %d)"
              % (name, r.returncode))
        check(not os.path.exists(prof), "uninstrumented sh, %s: no profile written" % name)
        check(name not in r.stderr, "uninstrumented sh, %s: no crash report from the runtime (%r)"
              % (name, r.stderr.strip()))


def sent_fault():
    """A SIGSEGV another process sends (kill -SEGV) is no crash: the
    report says who sent it, before the stack of the thread that took it
    (helper-128 read `kill -SEGV` to make as a crash in make's stack).
    The process still dies by it, its profile written."""
    exe = build("sig_sent", "tests/progs/signals.c")
    prof = os.path.join(OUT, "sig_sent.ccprof")
    p = subprocess.Popen([exe, "wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof),
                         preexec_fn=default_signals)
    line = line_from(p.stdout, "waiting ", 20)
    if line:
        os.kill(p.pid, signal.SIGSEGV)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    err = err.decode(errors="replace")
    first = [l for l in err.splitlines() if l.startswith("ccprof: SIGSEGV")]
    check(p.returncode == -signal.SIGSEGV and first ==
          ["ccprof: SIGSEGV sent by process %d, in thread %d; cost-centre stack, innermost first:"
           % (os.getpid(), p.pid)] and "wait_here" in err and os.path.exists(prof),
          "kill -SEGV: dies by it, the report names the sender, then the stack; profile "
          "written (status %s, %r)" % (p.returncode, err[-300:]))


def signals_():
    src = "tests/progs/signals.c"
    for how, sig in (("segv", signal.SIGSEGV), ("fpe", signal.SIGFPE), ("abort", signal.SIGABRT),
                     ("bus", signal.SIGBUS), ("term", signal.SIGTERM), ("int", signal.SIGINT)):
        p, prof = same_behaviour("sig_" + how, src, [how])
        if p is None:
            continue
        check(p.returncode == -sig, "signal %s: the process still dies by it" % how)
        if check(os.path.exists(prof), "signal %s: profile written" % how):
            fs = functions(report(prof))
            if how in ("segv", "fpe", "abort", "bus"):
                check(fs.get("crash_here", {}).get("calls") == 1,
                      "signal %s: names resolved from module+offset after a crash" % how)
                check("crash_here" in p.stderr and "level2" in p.stderr,
                      "signal %s: cost-centre stack printed" % how)
                check("sent by" not in p.stderr,
                      "signal %s: a fault, or raised by the program: no sender named" % how)
            else:
                check(fs.get("work", {}).get("calls") == 1, "signal %s: work() recorded" % how)
    sent_fault()
    p, prof = same_behaviour("sig_quiet", src, ["segv"], env={"CCPROF_OPTIONS": "crash_stack=0"})
    if p is not None:
        check("crash_here" not in p.stderr, "crash_stack=0: no stack printed")
    p, prof = same_behaviour("sig_handled", src, ["handled"])
    if p is not None:
        check(p.returncode == 3, "the program's own SIGINT handler runs (exit 3)")
        rep = exact_calls("sig_handled", p, prof)
        if rep:
            check(arcs(rep).get(("on_int", "in_handler"), {}).get("calls") == 1,
                  "instrumented code in a handler nests under it")
    # Asking for dump_signal changes what that one signal does, on purpose:
    # the program goes on instead of dying by it.
    exe = build("sig_usr2", src)
    prof = os.path.join(OUT, "sig_usr2.ccprof")
    r = run([exe, "usr2"], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                      CCPROF_OPTIONS="dump_signal=SIGUSR2:output=" + prof))
    check(r.returncode == 0 and "survived 12" in r.stdout and os.path.exists(prof),
          "dump_signal=SIGUSR2 writes a profile and the program goes on")
    p, prof = same_behaviour("sig_nested", src, ["nested"])
    rep = exact_calls("sig_nested", p, prof) if p else None
    if rep:
        a = arcs(rep)
        ticks = int(p.stdout.split("ticks ")[1].split()[0])
        check(a.get(("on_alarm", "in_handler"), {}).get("calls") == ticks,
              "nested handler: on_alarm -> in_handler = %d ticks" % ticks)
        check(a.get(("spin", "on_alarm"), {}).get("calls", 0) > 0,
              "nested handler: on_alarm runs inside spin's context")
        check(a.get(("spin", "spin"), {}).get("calls") == 50, "nested handler: spin recursion intact")


def static_exec():
    """A statically linked program with libccprof.a in it: dlsym finds no
    libc after the runtime there, so the exec family is made of its system
    calls (runtime/execsys.c); every exec used to fail with ENOSYS. Each
    call gives what it gives bare, errors included, and the parent's
    profile is written. posix_spawnp needs glibc's spawn linked in, which
    `pkg-config --static` asks for; without it the runtime says so."""
    d = os.path.join(OUT, "staticexec")
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("bare", "inst", "nou", "bin", "run"):
        os.makedirs(os.path.join(d, sub))
    src = os.path.join(TOP, "tests/progs/staticexec.c")
    spawn_u = ["-Wl,-u,__posix_spawn", "-Wl,-u,__posix_spawnp"]
    builds = (("bare", []), ("inst", ["-finstrument-functions", LIBA] + spawn_u),
              ("nou", ["-finstrument-functions", LIBA]))
    for sub, flags in builds:
        r = run([CC, "-O1", "-static", src, "-o", os.path.join(d, sub, "staticexec"), "-pthread"] + flags)
        if r.returncode != 0:
            print("# static exec: cannot link statically here (%s): skipped" % r.stderr.strip()[-200:])
            return
    script = os.path.join(d, "bin", "staticexec-script")
    with open(script, "w") as f:
        f.write('echo "script ran $1 $2"\n')
    os.chmod(script, 0o755)
    with open(os.path.join(d, "bin", "staticexec-denied"), "w") as f:
        f.write("exit 0\n")

    def go(sub, how):
        prof = os.path.join(d, "run", "%s-%s.ccprof" % (sub, how))
        e = dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof,
                 PATH=os.path.join(d, sub) + ":" + os.path.join(d, "bin") + ":" + os.environ["PATH"])
        return run([os.path.join(d, sub, "staticexec"), how], env=e, cwd=os.path.join(d, "run")), prof

    for how in ("execv", "execvp", "script", "fexecve", "fexecvenull", "missing", "denied", "spawnp"):
        b, _ = go("bare", how)
        p, prof = go("inst", how)
        check(p.returncode == b.returncode and p.stdout == b.stdout and "failed" not in b.stdout
              if how not in ("missing", "denied", "fexecvenull") else p.stdout == b.stdout,
              "static exec %s: as bare (%r, bare %r)" % (how, p.stdout, b.stdout))
        if check(os.path.exists(prof), "static exec %s: the parent's profile written" % how):
            check(functions(report(prof)).get("parent_work", {}).get("calls") == 1,
                  "static exec %s: parent_work counted once" % how)
    p, _ = go("nou", "spawnp")
    check("posix_spawnp failed: ENOSYS" in p.stdout and "-Wl,-u,__posix_spawn" in p.stderr,
          "static exec without glibc's spawn linked in: ENOSYS, and the runtime names the flags (%r)"
          % p.stderr.strip())


def execsys_as_glibc():
    """A static program's execvp (runtime/execsys.c) does as glibc's: each
    case of tests/progs/execsys.c runs glibc's execvpe and ours, each in a
    forked child, and compares (scripts without an interpreter line, also
    without arguments; EACCES and the search going on; empty and long
    PATH entries; a 100 KB PATH from a thread with a 64 KB stack). Built
    plain and, where the compiler has it, with AddressSanitizer. Then the
    scripts again where /bin/sh cannot be run (an empty file mounted on it
    in a namespace of their own, where unshare can make one): glibc goes
    on along PATH with the shell's errno."""
    d = os.path.join(OUT, "execsys")
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("bin", "denied", "prog"):
        os.makedirs(os.path.join(d, sub))
    for name, text, mode in (("script", 'echo "cwd $0 $1 $2"\n', 0o755),
                             ("bin/script", 'echo "bin $0 $1 $2"\n', 0o755),
                             ("bin/denied", "exit 0\n", 0o644), ("denied/script", "exit 0\n", 0o644),
                             ("nosh", "", 0o644)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(d, name), mode)
    os.symlink(shutil.which("echo"), os.path.join(d, "prog", "script"))
    srcs = [os.path.join(TOP, x) for x in ("tests/progs/execsys.c", "src/runtime/execsys.c",
                                           "src/runtime/sys.c")]  # sys.c: rt_getenv
    inc = ["-I" + os.path.join(TOP, x) for x in ("src/runtime", "src", "include")]
    exes = []
    for name, flags in (("execsys", []), ("execsys_asan", ["-fsanitize=address"])):
        exe = os.path.join(d, name)
        r = run([CC, "-std=c11", "-D_GNU_SOURCE", "-g", "-O1", "-pthread"] + inc + srcs + ["-o", exe] + flags)
        if r.returncode == 0:
            exes.append(exe)
        elif flags:
            print("# execsys: no AddressSanitizer here: skipped")
        else:
            check(False, "execsys: builds (%s)" % r.stderr[-300:])

    def compare(what, r):
        lines = r.stdout.splitlines()
        for l in lines:
            if not l.startswith(("same ", "cases ")):
                check(False, "%s: as glibc: %s" % (what, l))
        same = sum(l.startswith("same ") for l in lines)
        check(r.returncode == 0 and lines[-1:] == ["cases %d" % same],
              "%s: every case as glibc (%d; exit %d)" % (what, same, r.returncode))

    for exe in exes:
        compare("execsys " + os.path.basename(exe),
                run([exe], cwd=d, env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0")))
    if exes:
        cmd = 'mount --bind nosh /bin/sh && exec "$0" "script, then a program"'
        r = run(["unshare", "-rm", "sh", "-c", cmd, exes[0]], cwd=d)
        if r.returncode != 0 and "cases" not in r.stdout:
            print("# execsys without /bin/sh: no mount namespace here (%s): skipped" % r.stderr.strip()[-200:])
        else:
            compare("execsys without /bin/sh", r)


def signals_kept():
    """Deaths that write a profile since the runtime keeps the program's
    view of its signal actions (Note [The program's dispositions]): a
    program that catches SIGINT, cleans up, restores the default action
    and raises it again (xz does); a crash reporter that restores the
    default action in its SIGSEGV handler; the other signals that end a
    program by default (SIGPIPE, as in `ccprof record prog | head`). What
    sigaction and signal tell the program is what it gets without ccprof
    ("view" prints it: same_behaviour compares), and it still dies by the
    same signal, under record too. A vfork child that dies by a signal
    before its exec runs the handler in the parent's memory, and must not
    leave the parent's own death later without a profile. Nor may a
    small alternate signal stack of the program's (gnulib's c-stack,
    Rust's threads) end a SIGTERM or an abort() by SIGSEGV: only SIGSEGV's
    handler runs there, and a fault's report and write move to a stack of
    the runtime's own (Note [A small alternate stack]; the profile was
    lost), also from one set up with SS_AUTODISARM, which reads as
    disabled while in use (altdisarm: the move never happened)."""
    src = "tests/progs/signals.c"
    for how, sig in (("reraise", signal.SIGINT), ("view", signal.SIGTERM),
                     ("segvreraise", signal.SIGSEGV), ("pipe", signal.SIGPIPE),
                     ("hup", signal.SIGHUP), ("alrm", signal.SIGALRM), ("quit", signal.SIGQUIT),
                     ("usr1", signal.SIGUSR1), ("vtalrm", signal.SIGVTALRM),
                     ("xcpu", signal.SIGXCPU), ("xfsz", signal.SIGXFSZ),
                     ("vforkterm", signal.SIGTERM), ("altterm", signal.SIGTERM),
                     ("altabort", signal.SIGABRT), ("altsegv", signal.SIGSEGV),
                     ("altdisarm", signal.SIGSEGV), ("overflow", signal.SIGSEGV),
                     ("altoff", signal.SIGSEGV), ("alt4k", signal.SIGSEGV),
                     ("threadoverflow", signal.SIGSEGV), ("threadalt", signal.SIGSEGV),
                     ("threadownalt", signal.SIGSEGV)):
        name = signal.Signals(sig).name
        p, prof = same_behaviour("sig_" + how, src, [how])
        if p is None:
            continue
        check(p.returncode == -sig, "signal %s: the process still dies by %s" % (how, name))
        overflows = ("overflow", "altoff", "alt4k", "threadoverflow", "threadalt", "threadownalt")
        if how == "alt4k" and "clang" in os.path.basename(CC):
            # clang's build of the handler needs about 1.5 KB more before
            # its move than gcc's: 4 KB dies as bare, with no report
            # (README, known limits); 5 KB works.
            continue
        if how in overflows:
            # Note [A stack to overflow onto]: the main thread's stack
            # lent by the runtime, also after the program took its own
            # away (helper-134); the old build wrote nothing.  On the
            # program's own 6 KB, the handler's first call into libc
            # resolved its symbol there (lazy binding saves every
            # register on the stack): no report, no profile, before the
            # runtime was linked with -z now.  Other threads are lent
            # one too (Note [Stacks for other threads]), from a pool:
            # threadalt's view of its own is bare's (same_behaviour),
            # and its twenty short threads, one after another, leave a
            # stack for the one that overflows.  threadownalt's thread
            # had its own at its first call, and takes it away: it is
            # lent one then (it was not: helper-135).
            check("ccprof:   deeper  (" in p.stderr,
                  "signal %s: the cost-centre stack is reported (%r)" % (how, p.stderr[-300:]))
        if how == "threadalt":
            check("\naltstack disabled\naltstack of 16384 bytes, flags 0\naltstack disabled\n"
                  "20 short calls\n" in p.stdout,
                  "signal threadalt: a thread sees no alternate stack until it sets its own (%r)"
                  % p.stdout)
        if check(os.path.exists(prof), "signal %s: profile written" % how):
            fs = functions(report(prof))
            if how in overflows:
                check(fs.get("deeper", {}).get("calls", 0) > 1000,
                      "signal %s: deeper()'s calls recorded (%s)"
                      % (how, fs.get("deeper", {}).get("calls")))
                continue
            last = "crash_here" if how in ("segvreraise", "altabort", "altsegv", "altdisarm") else "work"
            check(fs.get(last, {}).get("calls") == 1, "signal %s: %s() recorded" % (how, last))
    # Started by a library's instrumented constructor, before the
    # runtime's own (tests/progs/ctorlib.c): the stack is lent all the
    # same (it was not: helper-133).
    lib = os.path.join(OUT, "libctorlib.so")
    r = run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions",
             os.path.join(TOP, "tests/progs/ctorlib.c"), "-o", lib])
    if check(r.returncode == 0, "ctorlib.c builds (%s)" % r.stderr[-200:]):
        exe = build("sig_overflow_ctorlib", src, "-L" + OUT, "-Wl,--no-as-needed", "-lctorlib",
                    "-Wl,-rpath," + OUT)
        r, prof = record(exe, ["overflow"], profile=os.path.join(OUT, "sig_overflow_ctorlib.ccprof"))
        check(r.returncode == -signal.SIGSEGV and "ccprof:   deeper  (" in r.stderr and
              os.path.exists(prof),
              "signal overflow, the runtime started by a library's constructor: reported, "
              "profile written (%d, %r)" % (r.returncode, r.stderr[-300:]))
    # A handler of the program's with SA_ONSTACK and no stack of its own
    # runs on the lent one: 200 KB of it, as on the thread's stack (64 KB
    # of static memory, no guard, let 60 KB write over the runtime's).
    p, prof = same_behaviour("sig_onstack", src, ["onstack"])
    if p is not None:
        check(p.returncode == 0 and "handled " in p.stdout,
              "signal onstack: a 200 KB SA_ONSTACK handler runs as bare (%d, %r)"
              % (p.returncode, p.stdout))
    # The stack lent to the main thread does not show: sigaltstack says
    # there is none, and the program's own replaces it (same_behaviour
    # compares the output with the bare run's).
    p, prof = same_behaviour("sig_altview", src, ["altview"])
    if p is not None:
        check(p.returncode == 0 and p.stdout.endswith("\naltstack disabled\naltstack of 16384 bytes, "
                                                      "flags 0\naltstack disabled\n"),
              "signal altview: the program sees no alternate stack until it sets its own (%r)"
              % p.stdout)
    early_siginterrupt()
    # A static program (libccprof.a): sigaction is glibc's __sigaction, and
    # signal is built as glibc builds it, with no libc to find by dlsym.
    exe = os.path.join(OUT, "sig_static")
    r = run([CC, "-O1", "-static", "-finstrument-functions", os.path.join(TOP, src), "-o", exe,
             LIBA, "-pthread"])
    if r.returncode != 0:
        print("# signals, static: cannot link statically here: skipped")
    for how, sig in (("view", signal.SIGTERM), ("reraise", signal.SIGINT), ("handled", None)):
        if r.returncode != 0:
            break
        prof = os.path.join(OUT, "sig_static_%s.ccprof" % how)
        p = run([exe, how], env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof))
        b = run([os.path.join(OUT, "sig_%s_bare" % how if how != "handled" else "sig_handled_bare"), how])
        check(p.stdout == b.stdout and p.returncode == b.returncode and os.path.exists(prof),
              "signal %s, static: as bare, profile written (%d, bare %d)" % (how, p.returncode, b.returncode))
    # A stack overflow on an alternate stack of the program's too small
    # for the kernel's frame (2 KB): no handler can run, and record says
    # that may be why (it blamed a handler of the program's own;
    # helper-132).
    exe = build("sig_alt2k", src)
    r, prof = record(exe, ["alt2k"], profile=os.path.join(OUT, "sig_alt2k.ccprof"))
    check(r.returncode == -signal.SIGSEGV and "a stack overflow where no handler can run" in r.stderr,
          "signal alt2k under record: dies by SIGSEGV, and record names a stack "
          "overflow (%d, %r)" % (r.returncode, r.stderr[-300:]))
    for how, sig in (("reraise", signal.SIGINT), ("pipe", signal.SIGPIPE)):
        name = signal.Signals(sig).name
        prof = os.path.join(OUT, "sig_%s_record.ccprof" % how)
        r, prof = record(os.path.join(OUT, "sig_" + how), [how], profile=prof)
        check(r.returncode == -sig and os.path.exists(prof) and "profile written" in r.stderr,
              "signal %s under record: dies by %s, profile written (got %d, %r)"
              % (how, name, r.returncode, r.stderr[-200:]))


def signals_own_writes():
    """What the runtime itself writes (the crash stack, verbose's line, on
    stderr) to a pipe nobody reads puts no SIGPIPE into the program: a
    crash still ends it by SIGSEGV, and an exit with status 0, each with
    its profile, as in `prog 2>&1 | head -1` once head has gone."""
    src = "tests/progs/signals.c"
    for how, env, want in (("segvpipe", None, -signal.SIGSEGV),
                           ("endpipe", {"CCPROF_OPTIONS": "verbose=1"}, 0)):
        p, prof = same_behaviour("sig_" + how, src, [how], env=env, timeout=30)
        if p is None:
            continue
        check(p.returncode == want, "signal %s: ends as bare (%d), not by SIGPIPE (got %d)"
              % (how, want, p.returncode))
        check(os.path.exists(prof), "signal %s: profile written" % how)


def sigaction_across_fork():
    """fork while another thread is in sigaction: the child's own
    sigaction must not wait for ever for the lock the fork copied taken
    (Note [The program's dispositions])."""
    p, _ = same_behaviour("sig_forks", "tests/progs/signals.c", ["forks"], timeout=60)
    if p is not None:
        check("300 children ended" in p.stdout, "fork during sigaction: no child hangs (%r)"
              % p.stdout.strip().splitlines()[-1:])


def handlers_present_at_start():
    """Handlers a library's constructor installed before the runtime
    started keep their whole action (Note [Handlers present at start]):
    a SIGALRM handler without SA_RESTART still cuts a read short with
    EINTR (it hung: the read restarted) and runs with its own mask; a
    SIGSEGV handler that jumps out of faults handles them with no crash
    stack printed and no profile written mid-run (one was, at the first
    fault).  With dump_signal=SIGALRM the runtime's handler stands in
    front of the program's, with that handler's flags and mask: the
    same EINTR, and the dump.  With dump_signal=SIGUSR2 and a handler
    for it with SA_RESETHAND, which ours does by hand: the first signal
    dumps and runs the handler, the second kills as without ccprof (it
    only dumped: the reset left the runtime's dump handler behind the
    default action)."""
    lib = os.path.join(OUT, "libpresig.so")
    src = "tests/progs/presig.c"
    r = run([CC, "-O1", "-fPIC", "-shared", "-DPRESIG_LIB", os.path.join(TOP, src), "-o", lib])
    if not check(r.returncode == 0, "libpresig.so builds"):
        return
    link = ["-L" + OUT, "-Wl,--no-as-needed", "-lpresig", "-Wl,-rpath," + OUT]
    for how, env in (("intr", None), ("handled", None),
                     ("intr", {"CCPROF_OPTIONS": "dump_signal=SIGALRM"}),
                     ("resethand", {"CCPROF_OPTIONS": "dump_signal=SIGUSR2"})):
        name = "presig_" + how + ("_dump" if env else "")
        p, prof = same_behaviour(name, src, [how], env=env, extra=link, timeout=20)
        if p is None:
            continue
        if how == "intr":
            check("read -1: Interrupted system call" in p.stdout
                  and "SIGUSR2 blocked 1, SIGALRM blocked 1" in p.stdout,
                  "%s: EINTR, the handler's mask (%r)" % (name, p.stdout))
        elif how == "resethand":
            check(p.returncode == -signal.SIGUSR2 and "handled 1; then SIGUSR2 default" in p.stdout,
                  "%s: handled once, then killed by SIGUSR2 (%d, %r)" % (name, p.returncode, p.stdout))
        else:
            check("faults 3, a profile already absent" in p.stdout and "SIGSEGV" not in p.stderr,
                  "%s: handled faults, no stack, no profile before exit (%r)" % (name, p.stdout))
        check(os.path.exists(prof), "%s: profile written" % name)


def dump_signal_handler_installed_later():
    """A handler the program installs for dump_signal after the runtime
    started (xz's SIGUSR1, for its progress line) goes behind the
    runtime's, as one present at start does (Note [Handlers present at
    start]): each signal writes the profile, then runs the program's
    handler, which finds the dump written.  It took the runtime's place
    before, and --dump-signal=SIGUSR1 wrote nothing.  By sigaction, by
    signal, and by sysv_signal, whose SA_RESETHAND lets the second signal
    kill as without ccprof.  The program sees its own action either way."""
    src = "tests/progs/latesig.c"
    for how, dumps, status in (("sigaction", 3, 0), ("signal", 3, 0),
                               ("sysv", 1, -signal.SIGUSR1)):
        name = "latesig_" + how
        bare, inst = os.path.join(OUT, name + "_bare"), os.path.join(OUT, name)
        builds = [run([CC, "-g", "-O1", os.path.join(TOP, src), "-o", exe] + flags)
                  for exe, flags in ((bare, []), (inst, ["-finstrument-functions"]))]
        if not check(all(b.returncode == 0 for b in builds), "%s builds" % name):
            continue
        prof = os.path.join(OUT, name + ".ccprof")
        env = dict(os.environ, LATESIG_PROFILE=prof)
        b = run([bare, how], env=env, timeout=20, preexec_fn=default_signals)
        p = run([inst, how], env=dict(env, LD_PRELOAD=PRELOAD,
                                      CCPROF_OPTIONS="dump_signal=SIGUSR1:output=" + prof),
                timeout=20, preexec_fn=default_signals)
        seen = [l for l in p.stderr.splitlines() if l.startswith("dumps seen ")]
        check(p.returncode == b.returncode == status and p.stdout == b.stdout and
              "ours 1" in p.stdout and b.stderr.splitlines()[-1:] == ["dumps seen 0"],
              "%s: same exit status (%d), same stdout, the program's handler in its view "
              "(%r)" % (name, p.returncode, p.stdout))
        check(seen[-1:] == ["dumps seen %d" % dumps],
              "%s: each of %d SIGUSR1 wrote the profile before the program's handler ran "
              "(%s)" % (name, dumps, seen))
        if status == 0:
            check(nonzero_calls(prof).get("step") == 3,
                  "%s: the profile at exit has step's 3 calls" % name)


def unmanaged_children_view():
    """A child made by _Fork or vfork (no fork handlers, pid not the
    runtime's) asks sigaction and signal about SIGTERM: it is told the
    program's action, the default, as without ccprof (it was told the
    runtime's handler), and the parent's own view is unchanged."""
    for how in ("ufork", "vfork"):
        p, _ = same_behaviour("sigkids_" + how, "tests/progs/sigkids.c", [how], timeout=20)
        check(p is not None and "a handler" not in p.stdout,
              "%s child: the default action, not the runtime's handler (%r)"
              % (how, p and p.stdout))


def unmanaged_children_static_signal():
    """In a static program (libccprof.a) the runtime builds signal()'s
    action from its own set of siginterrupt'ed signals.  A _Fork child's
    siginterrupt(sig, 1) then signal(sig, h) got SA_RESTART, where glibc
    gives none: the child did not write the set (Note [Children that are
    not managed]); it now keeps its own copy.  Same lines as bare."""
    src = os.path.join(TOP, "tests/progs/sigkids.c")
    outs = []
    for name, extra in (("bare", []), ("ccprof", ["-finstrument-functions",
                                                  LIBA])):
        exe = os.path.join(OUT, "sigkids_uintr_static_" + name)
        r = run([CC, "-O1", "-static", "-I" + os.path.join(TOP, "include"), src, "-o", exe]
                + extra + ["-pthread"])
        if r.returncode != 0:
            print("# SKIP static _Fork child: cannot link statically here")
            return
        prof = os.path.join(OUT, "sigkids_uintr_static.ccprof")
        p = run([exe, "uintr"], env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof),
                timeout=20)
        outs.append(p.stdout)
    check(outs[0] == outs[1] and "after siginterrupt 1, restart=0" in outs[1],
          "static _Fork child: siginterrupt(sig, 1) then signal(sig, h) gives no SA_RESTART, "
          "as bare (%r, bare %r)" % (outs[1], outs[0]))


def unmanaged_children_siginterrupt():
    """_Fork children call siginterrupt while a thread of the parent's
    changes the same signal's action over and over: a child that
    inherited the runtime's lock taken by that thread waited for it for
    ever, all signals blocked (Note [Children that are not managed]).  A
    hang is the failure (each child is given 3 s)."""
    p, _ = same_behaviour("sigkids_usi", "tests/progs/sigkids.c", ["usi"], timeout=60)
    check(p is not None and "0 of 300 hung" in p.stdout,
          "siginterrupt in _Fork children: none hangs (%r)" % (p and p.stdout))


def fork_in_handler():
    """fork, or exit, from a signal handler that interrupted a thread
    starting or ending (the runtime's registry lock held): the fork's
    handlers, or the write at exit, must not wait for ever for that lock
    (Note [Locks and signals] in quietlock.c).  A hang is the failure: the runs
    take seconds."""
    p, _ = same_behaviour("sigkids_fork", "tests/progs/sigkids.c", ["fork", "1500"], timeout=45)
    check(p is not None and "1500 rounds ended" in p.stdout,
          "fork in a handler: every round ends (%r)" % (p and p.stdout))
    # exit from a handler: the write at exit takes the same locks.  The
    # program counts children that hang (3 s each) and kills them.
    p, _ = same_behaviour("sigkids_exit", "tests/progs/sigkids.c", ["exit"], timeout=50)
    check(p is not None and "0 of 200 children hung" in p.stdout,
          "exit in a handler: no child hangs (%r)" % (p and p.stdout))
    # exit from a handler that interrupted malloc, its locks held (in
    # `exit` above, glibc's frees as a thread ends): the write at exit
    # called malloc and waited for ever for its own thread (Note [Names
    # without malloc] in dump.c); 1 child in ~30,000 there, half of them here.
    # Linked in and with -static too: there exit's last step reaches the
    # runtime's _exit, which looked libc's up with dlsym at each call, and
    # dlsym allocates (helper-164: 12 of 60 children hung).
    for ltag, linked in link_ways():
        p, _ = same_behaviour("sigkids_mallocexit" + ltag, "tests/progs/sigkids.c", ["mallocexit"],
                              timeout=90, linked=linked)
        check(p is not None and "0 of 20 children hung" in p.stdout,
              "exit in a handler in malloc%s: no child hangs (%r)" % (ltag, p and p.stdout))
    # exit from a handler that interrupted its thread's ccprof_dump(),
    # held in open by a FIFO as output: exit's write waited for ever for
    # the dump's lock.
    p, _ = same_behaviour("sigkids_dumpexit", "tests/progs/sigkids.c", ["dumpexit", "dump.fifo"],
                          env={"CCPROF_OPTIONS": "output=dump.fifo"}, timeout=30)
    check(p is not None and p.returncode == 0, "exit in a handler during a dump: it ends")


def cancel_in_handler_write():
    """A thread with asynchronous cancellation raises dump_signal; the
    handler's write waits in open for a reader of the FIFO that is the
    output, and the thread is cancelled there.  It died mid-write holding
    the dump lock: nothing came through the FIFO and the exit's write
    waited for ever.  Now the write finishes first (Note [Cancellation]
    in cancel.c): a whole profile, then the thread dies and the process
    ends.  A hang is the failure (the run takes well under a second)."""
    exe = build("sigkids_ac", "tests/progs/sigkids.c")
    d = os.path.join(OUT, "asynccancel_fifo")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    p = subprocess.Popen([exe, "asynccancel", "dump.fifo"], cwd=d, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS=
                                  "clock=%s:dump_signal=SIGUSR2:output=dump.fifo" % CLOCK))
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    r = run([CCPROF, "info", os.path.join(d, "dump.fifo.got")])
    check(p.returncode == 0 and "joined" in out and r.returncode == 0,
          "asynchronous cancellation during a handler's write: a whole profile (%s), "
          "the process ends (%s, %r)" % (r.stderr.strip() or "valid", p.returncode, out))


def cancel_in_term_write():
    """As cancel_in_handler_write, with SIGTERM: the thread's cancellation,
    held off for the handler's write, acted as the write ended, and the
    thread died before its handler re-raised the signal, so the process
    went on without it ("joined", exit 0).  Bare, a SIGTERM raised with
    the default action ends the process.  Now cancellation stays held
    until the re-raise (Note [Cancellation] in cancel.c): one whole profile
    through the FIFO, death by SIGTERM."""
    exe = build("sigkids_ac", "tests/progs/sigkids.c")
    d = os.path.join(OUT, "asynccancel_term")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    fifo = os.path.join(d, "term.fifo")
    p = subprocess.Popen([exe, "asynccancelterm", fifo], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS=
                                  "clock=%s:output=%s" % (CLOCK, fifo)))
    first = p.stdout.readline()
    got = os.path.join(d, "term.got")
    if first == "cancelled\n":
        with open(fifo, "rb") as f, open(got, "wb") as o:
            o.write(f.read())
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    r = run([CCPROF, "info", got])
    check(first == "cancelled\n" and p.returncode == -signal.SIGTERM and r.returncode == 0,
          "asynchronous cancellation during SIGTERM's write: a whole profile (%s), "
          "death by SIGTERM (%s, %r)" % (r.stderr.strip() or "valid", p.returncode, first + out))


def signal_after_exit_write():
    """A SIGTERM that comes while the write at exit is held in open by a
    FIFO: the runtime's locks hold it back until the write is over, and
    its handler then wrote the profile a second time (a reader got two
    profiles back to back, checksum mismatch, or, gone after the first,
    left the process blocked in open).  Now the FIFO gets one profile and
    the process dies by the signal (Note [A signal after the write at
    exit] in init.c)."""
    exe = build("fib_fifo", "tests/progs/fib.c")
    for attempt in range(5):
        rc, data, r = term_during_fifo_write([exe, "20"], os.path.join(OUT, "exitfifo%d" % attempt))
        if not check(rc == -signal.SIGTERM and r.returncode == 0,
                     "SIGTERM during the write at exit (%s): one profile through the FIFO "
                     "(%d bytes: %s), dies by SIGTERM (%s)"
                     % (CLOCK, len(data), r.stderr.strip() or "valid", rc)):
            break


def signals_unwritten():
    """A death by a signal the runtime leaves alone (a real-time signal)
    writes no profile: the program dies as before, and record names the
    signal instead of asking whether the program was built with
    -finstrument-functions."""
    p, _ = same_behaviour("sig_rt", "tests/progs/signals.c", ["rt"])
    if p is None:
        return
    sig = signal.SIGRTMIN + 2
    check(p.returncode == -sig, "signal rt: the process still dies by SIGRTMIN+2")
    prof = os.path.join(OUT, "sig_rt_record.ccprof")
    r, prof = record(os.path.join(OUT, "sig_rt"), ["rt"], profile=prof)
    said = [l for l in r.stderr.splitlines() if l.startswith("ccprof:")]
    check(r.returncode == -sig and not os.path.exists(prof),
          "signal rt under record: dies by it, no profile (got %d)" % r.returncode)
    check(len(said) == 1 and "died by signal %d" % sig in said[0]
          and "-finstrument-functions" not in said[0],
          "signal rt under record: says the program died by signal %d (%r)" % (sig, said))
    # A crash with the runtime's handlers turned off by the user: record
    # names that setting (helper-189: it listed other causes only).
    for how, name in (("segv", "SIGSEGV"), ("abort", "SIGABRT")):
        prof = os.path.join(OUT, "sig_%s_nohandlers.ccprof" % how)
        r, prof = record(os.path.join(OUT, "sig_rt"), [how], profile=prof,
                         env={"CCPROF_OPTIONS": "handle_signals=0"})
        said = [l for l in r.stderr.splitlines() if l.startswith("ccprof:")]
        check(r.returncode == -getattr(signal, name) and not os.path.exists(prof) and
              said == ["ccprof: no profile written: %s died by %s, and CCPROF_OPTIONS has "
                       "handle_signals=0: the runtime installed no handler for it"
                       % (os.path.join(OUT, "sig_rt"), name)],
              "%s with handle_signals=0 under record: no profile, and record says why (%r)"
              % (how, said))
    # An escaped '=' makes no key=value: the runtime warns and keeps its
    # handlers, and the crash writes a profile; record read it as the
    # setting (helper-194).
    prof = os.path.join(OUT, "sig_segv_escaped.ccprof")
    r, prof = record(os.path.join(OUT, "sig_rt"), ["segv"], profile=prof,
                     env={"CCPROF_OPTIONS": "handle_signals\\=0"})
    check(r.returncode == -signal.SIGSEGV and os.path.exists(prof) and
          "handle_signals=0:" not in r.stderr,
          "segv with handle_signals\\=0 (escaped) under record: the runtime's handler writes, "
          "record does not blame the setting (%r)" % ccprof_said(r.stderr))


def job_in_pty(cmd, timeout=30, ctrl_c=False, then_kill=False, ctrl_z=False):
    """cmd run as an interactive shell runs a job, on a new terminal: in
    a process group of its own holding the terminal; each time it stops
    (up to 3), the "shell" says "job stopped by SIG", takes the terminal
    back, and 1.5 s later continues it as `fg` does (the terminal to the
    job's group, SIGCONT to the group).  Returns
    what the terminal showed, and how the job ended (waitpid's status).
    With ctrl_c (ctrl_z), once the job says "ready", Ctrl-C (Ctrl-Z) is
    typed; with then_kill, its first process alone then gets a SIGINT."""
    import pty
    pid, master = pty.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            job = os.fork()
            if job == 0:
                os.setpgid(0, 0)
                signal.signal(signal.SIGTTOU, signal.SIG_DFL)
                os.execvp(cmd[0], cmd)
            try:
                os.setpgid(job, job)  # as the child did: EACCES once it has exec'd
            except PermissionError:
                pass
            os.tcsetpgrp(0, job)
            os.write(1, b"job %d\n" % job)
            for _ in range(3):
                _, st = os.waitpid(job, os.WUNTRACED)
                os.tcsetpgrp(0, os.getpgrp())
                if not os.WIFSTOPPED(st):
                    break
                os.write(1, b"job stopped by %d\n" % os.WSTOPSIG(st))
                time.sleep(1.5)
                os.tcsetpgrp(0, job)
                os.killpg(job, signal.SIGCONT)
            os.write(1, b"job status %d\n" % st)
        finally:
            os._exit(0)
    out = b""
    end = time.time() + timeout
    typed = False
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
            m = re.search(rb"job (\d+)\r?\n", out)
            if (ctrl_c or ctrl_z) and not typed and m and b"ready" in out:
                typed = True
                os.write(master, b"\x03" if ctrl_c else b"\x1a")
                if then_kill:
                    time.sleep(0.5)
                    os.kill(int(m.group(1)), signal.SIGINT)
        elif os.waitpid(pid, os.WNOHANG)[0] == pid:
            pid = None
            break
    if pid is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    os.close(master)
    return out.decode(errors="replace").replace("\r\n", "\n")


def term_own_group(cmd):
    """cmd started as the leader of a process group of its own; once it
    prints its first line, a SIGTERM to that group.  Returns its exit
    status and output."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=os.setpgrp)
    first = p.stdout.readline()
    os.killpg(p.pid, signal.SIGTERM)
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    return p.returncode, first + out


def stopped_within(pid, seconds=10):
    """waitpid's status of child pid once it stops or ends within seconds,
    else None."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        got, st = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
        if got:
            return st
        time.sleep(0.02)
    return None


def stopped_own_group(cmd):
    """cmd started as the leader of a process group of its own; once it
    says "ready PGID" and the first process stops, a SIGCONT to that
    group, as `fg` sends.  Returns its exit status and output; a group
    PGID left stopped is killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=os.setpgrp)
    first = p.stdout.readline()
    _, st = os.waitpid(p.pid, os.WUNTRACED)
    if os.WIFSTOPPED(st):
        os.killpg(p.pid, signal.SIGCONT)
    try:
        out, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        m = re.match(r"ready (\d+)", first)
        for g in ([int(m.group(1))] if m else []) + [p.pid]:
            try:
                os.killpg(g, signal.SIGKILL)
            except ProcessLookupError:
                pass
        out, _ = p.communicate()
    rc = p.returncode if os.WIFSTOPPED(st) else os.waitstatus_to_exitcode(st)
    return rc, first + out


def own_group():
    """A program that moves into a process group of its own (bash -i
    does) under record (Note [A program in a group of its own] in
    src/cli/cmd_record.c).  A signal sent to the group record was started
    in reached record and its canary only, and record passed nothing on:
    the program ran on (helper-192).  And after the program stopped
    holding the terminal (bash's `suspend`), `fg` gave the terminal to
    record's group, and the program found itself in the background (bash
    read EIO and exited): record gives it back (Note [The terminal of a
    program that stopped])."""
    exe = build("ownpgrp", "tests/progs/ownpgrp.c")
    prof = os.path.join(OUT, "ownpgrp.ccprof")
    for tag, cmd in (("bare", [exe, "group"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "group"])):
        rc, out = term_own_group(cmd)
        check(out.startswith("ready\n") and "not terminated" not in out and
              rc == -signal.SIGTERM,
              "own group, %s: a SIGTERM to the group it was started in ends the program "
              "(%d, %r)" % (tag, rc, out))
    # In a PID namespace whose session leader lies outside it, as under
    # CI's harness, getsid says 0 for the whole session: record passed
    # nothing on there (session 58's CI).  The same check, run there.
    inside = ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c",
              "import os, signal, subprocess, sys; "
              "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True, "
              "preexec_fn=os.setpgrp); first = p.stdout.readline(); "
              "os.killpg(p.pid, signal.SIGTERM); out = p.communicate(timeout=30)[0]; "
              "print(os.getsid(0), p.returncode, repr(first + out))"]
    if run(inside + ["true"]).returncode != 0:
        print("# SKIP unshare --pid --mount-proc is refused here: no check in session 0")
    else:
        r = run(inside + [CCPROF, "record", "-o", prof, "--", exe, "group"])
        check(r.stdout == "0 -15 'ready\\n'\n",
              "own group, record in a PID namespace (session id 0): a SIGTERM to the group it "
              "was started in ends the program (%r %r)" % (r.stdout, r.stderr[-200:]))
    # Where record does not lead its group (its parent does, as
    # timeout(1) or a CI runner), the program's move takes it out of the
    # group bare too: a signal to the group does not reach it, under
    # record either (helper-195: the first fix passed it on, and under
    # timeout the program had it twice).
    holder = [sys.executable, "-c", "import signal, subprocess, sys; "
              "signal.signal(signal.SIGTERM, lambda *a: None); "
              "sys.exit(subprocess.call(sys.argv[1:]))"]
    for tag, cmd in (("bare", holder + [exe, "group"]),
                     ("record", holder + [CCPROF, "record", "-o", prof, "--", exe, "group"])):
        rc, out = term_own_group(cmd)
        check(out.startswith("ready\n") and "not terminated" in out and rc == 0,
              "own group, %s not leading its group: a SIGTERM to that group does not reach "
              "the program (%d, %r)" % (tag, rc, out))
    # The terminal's Ctrl-C reaches the program itself, and record lets
    # it be; the canary had it too, and its copy was left pending: the
    # next SIGINT sent to record alone was taken for the group's and
    # dropped (helper-195).
    for tag, cmd in (("bare", [exe, "count"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "count"])):
        shown = job_in_pty(cmd, ctrl_c=True, then_kill=True)
        check("INT 2" in shown,
              "own group, %s: Ctrl-C, then a SIGINT to the job's first process: the program "
              "has each once (%r)" % (tag, shown[-200:]))
    # A program in a group of its own that does not hold the terminal:
    # the terminal's Ctrl-C went to record's group alone, and record,
    # taking it for one the program had too, passed nothing on
    # (helper-195).  Bare, the move changed nothing: the program and its
    # child have it.
    for tag, cmd in (("bare", [exe, "group"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "group"])):
        shown = job_in_pty(cmd, ctrl_c=True)
        check("job status %d" % signal.SIGINT in shown and "not terminated" not in shown,
              "own group, %s: the terminal's Ctrl-C ends the program and its child, "
              "though the program left the job's group (%r)" % (tag, shown[-300:]))
    for tag, cmd in (("bare", [exe, "stop"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "stop"])):
        shown = job_in_pty(cmd)
        check("foreground" in shown and "background" not in shown and "job status 0" in shown,
              "own group, %s: stopped holding the terminal and continued as by fg, the "
              "program holds it again (%r)" % (tag, shown[-300:]))


def own_group_stops():
    """Job control under record (Note [A stop sent to record], Note [When
    the program stops] and Note [The terminal of a program that stopped]
    in src/cli/cmd_record.c) with tests/progs/ownpgrp.c: stops and
    continues, of a program in record's group and of one in a group of
    its own, as bare."""
    exe = build("ownpgrp", "tests/progs/ownpgrp.c")
    prof = os.path.join(OUT, "ownpgrp.ccprof")
    # The program stops its group, a child with it; `fg` continues
    # record's: record continued the program alone, and its child stayed
    # stopped (helper-195).
    for tag, cmd in (("bare", [exe, "stopgroup"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "stopgroup"])):
        rc, out = stopped_own_group(cmd)
        check(rc == 0 and re.match(r"ready \d+\nchild continued\ncontinued\n$", out),
              "own group, %s: the program stops its group, and a SIGCONT to the group it was "
              "started in continues the program and its child (%d, %r)" % (tag, rc, out))
    # A SIGTSTP sent to record alone stopped record, by its default, and
    # the program ran on; the terminal's Ctrl-Z did the same to a program
    # in a group of its own that does not hold the terminal (Note [A stop
    # sent to record]).
    for tag, cmd in (("bare", [exe, "tstp"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "tstp"])):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=os.setpgrp)
        first = p.stdout.readline()
        os.kill(p.pid, signal.SIGTSTP)
        st = stopped_within(p.pid)
        if st is not None and os.WIFSTOPPED(st):
            time.sleep(1.5)
            os.killpg(p.pid, signal.SIGCONT)
        out, _ = p.communicate(timeout=30)
        check(st is not None and os.WIFSTOPPED(st) and first + out == "ready\nstopped\n",
              "own group, %s: a SIGTSTP to the job's first process stops the program, and the "
              "job (%s, %r)" % (tag, st, first + out))
    for tag, cmd in (("bare", [exe, "tstp", "move"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "tstp", "move"]),
                     ("record, the program in its group",
                      [CCPROF, "record", "-o", prof, "--", exe, "tstp"])):
        shown = job_in_pty(cmd, ctrl_z=True)
        check("stopped\n" in shown and "never stopped" not in shown and "job status 0" in shown,
              "own group, %s: the terminal's Ctrl-Z stops the program, and fg continues it "
              "(%r)" % (tag, shown[-300:]))
    # After Ctrl-Z and fg, record continued a program that stayed in its
    # group a second time: a program that stops again at once lost that
    # stop, and one that counts its SIGCONTs had 2 (helper-198).
    for tag, cmd in (("bare", [exe, "conts"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "conts"])):
        shown = job_in_pty(cmd, ctrl_z=True)
        check("job stopped by %d" % signal.SIGTSTP in shown and "CONT 1\n" in shown,
              "own group, %s: Ctrl-Z then fg: the program is continued once (%r)"
              % (tag, shown[-300:]))
    for tag, cmd in (("bare", [exe, "restop"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "restop"])):
        shown = job_in_pty(cmd, ctrl_z=True)
        check(shown.count("job stopped by %d" % signal.SIGTSTP) == 2 and
              "after second stop" in shown and "job status 0" in shown,
              "own group, %s: a program that stops again as fg continues it is seen stopped "
              "twice (%r)" % (tag, shown[-300:]))
    # A group's SIGCONT while all ran stayed in the canary, and the next
    # SIGCONT to record alone, taken for the group's, continued the
    # group of a program in a group of its own: its stopped child too
    # (helper-198).
    for tag, cmd in (("bare", [exe, "stale"]),
                     ("record", [CCPROF, "record", "-o", prof, "--", exe, "stale"])):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=os.setpgrp)
        first = p.stdout.readline()
        os.killpg(p.pid, signal.SIGCONT)
        st = stopped_within(p.pid)
        os.kill(p.pid, signal.SIGCONT)
        out, _ = p.communicate(timeout=30)
        check(st is not None and os.WIFSTOPPED(st) and first + out == "ready\nchild state T\n",
              "own group, %s: a group's SIGCONT while all runs, then after a stop one to the "
              "job's first process alone: the program's child stays stopped (%r)"
              % (tag, first + out))
    # Ctrl-Z or a SIGTSTP before the program's exec (a PATH of 15,000
    # directories to look through) stopped it holding record's exec
    # pipe, and record waited on it for ever (helper-198).
    bindir = os.path.dirname(exe)
    # (/n/N: one variable is at most 128 KB)
    slow = dict(os.environ, PATH=":".join("/n/%d" % i for i in range(15000)) + ":" + bindir)
    p = subprocess.Popen([CCPROF, "record", "-o", prof, "--", os.path.basename(exe), "conts"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=slow,
                         preexec_fn=os.setpgrp)
    for _ in range(500):
        try:
            kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
        except OSError:
            kids = []
        if len(kids) >= 2:
            break
        time.sleep(0.001)
    os.kill(p.pid, signal.SIGTSTP)
    st = stopped_within(p.pid)
    os.killpg(p.pid, signal.SIGCONT)
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    check(st is not None and os.WIFSTOPPED(st) and p.returncode == 0 and "CONT" in out,
          "own group, record: a SIGTSTP while the program is not yet exec'd stops the job, which "
          "then runs to its end (%s, %s, %r)" % (st, p.returncode, out))


def line_from(f, prefix, timeout):
    """The first line of the pipe f that starts with prefix, or None after
    timeout seconds or at its end."""
    deadline, buf, fd = time.time() + timeout, b"", f.fileno()
    while time.time() < deadline:
        if not select.select([fd], [], [], max(0, deadline - time.time()))[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        buf += chunk
        for line in buf.decode(errors="replace").splitlines():
            if line.startswith(prefix):
                return line
    return None


def blocked_or_ignored(pid, sigs):
    """Those of sigs that process pid blocks or ignores (/proc status)."""
    masks = 0
    for line in open("/proc/%d/status" % pid):
        if line.startswith(("SigBlk:", "SigIgn:")):
            masks |= int(line.split()[1], 16)
    return [s.name for s in sigs if masks & (1 << (s - 1))]


def default_signals():
    """In record: the default actions and no mask, as from a terminal,
    whatever this suite inherited (nohup, a background job)."""
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
              signal.SIGUSR2, signal.SIGALRM):
        signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def record_waiting(prof, exe, mode, start, what):
    """`ccprof record exe mode`, started by start() in a session of its own
    (the group can be signalled, and cleaned up), until the program says
    "waiting PID": (the record process, the program's pid or None)."""
    p = subprocess.Popen([CCPROF, "record", "-o", prof, "--", exe, mode],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, preexec_fn=start)
    line = line_from(p.stdout, "waiting ", 20)
    child = int(line.split()[1]) if line else None
    check(child is not None, "%s: the program started (%s)" % (what, line))
    return p, child


def record_passes_signals():
    """A signal sent to record while the program runs (SIGTERM, SIGHUP,
    and any other that would end it: SIGUSR1, SIGALRM; SIGINT sent by
    kill): record passes it on, waits for the program, says what became
    of the profile and then ends as the program did (Note [Signals while
    the program runs] in cmd_record.c): by the signal, or with exit 0
    when the program's own handler exits cleanly; sent to the whole
    group, record still reports.  Before, record died by SIGUSR1 and
    SIGALRM, leaving the program running on its own, and took no notice
    of a SIGINT sent to it alone; and by SIGPIPE, SIGXFSZ, SIGXCPU and
    SIGABRT, which record's own doings may raise and which it now passes
    on when another process sent them (helper-132).  SIGABRT is a crash
    signal to the runtime, which says the stack first."""
    exe = build("sig_wait", "tests/progs/signals.c")
    run_sigs = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                signal.SIGUSR2, signal.SIGALRM)
    for sig, group, mode in ((signal.SIGTERM, False, "wait"), (signal.SIGHUP, False, "wait"),
                             (signal.SIGTERM, True, "wait"), (signal.SIGTERM, False, "waitexit"),
                             (signal.SIGUSR1, False, "wait"), (signal.SIGALRM, False, "wait"),
                             (signal.SIGINT, False, "wait"), (signal.SIGQUIT, True, "wait"),
                             (signal.SIGPIPE, False, "wait"), (signal.SIGXFSZ, False, "wait"),
                             (signal.SIGXCPU, False, "wait"), (signal.SIGABRT, False, "wait")):
        what = "%s to record's %s (%s)" % (sig.name, "process group" if group else "pid alone", mode)
        prof = os.path.join(OUT, "sig_%s_%s%s.ccprof" % (mode, sig.name, "_group" if group else ""))
        if os.path.exists(prof):
            os.unlink(prof)
        p, child = record_waiting(prof, exe, mode, default_signals, what)
        if child is not None:
            check(blocked_or_ignored(child, run_sigs) == [],
                  "%s: the program runs with record's signals neither blocked nor ignored (%s)"
                  % (what, blocked_or_ignored(child, run_sigs)))
            if group:
                os.killpg(p.pid, sig)
            else:
                os.kill(p.pid, sig)
        try:
            status = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            status = None
        alive = child is not None and os.path.exists("/proc/%d" % child)
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what is left of this run
        except ProcessLookupError:
            pass
        _, err = p.communicate()
        said = [l for l in err.decode(errors="replace").splitlines() if l.startswith("ccprof:")]
        if child is None:
            continue
        want = 0 if mode == "waitexit" else -sig
        check(status == want, "%s: record ends as the program did, %d (status %s)" % (what, want, status))
        check(not alive, "%s: the program got it too, ended, and record reaped it" % what)
        if sig == signal.SIGABRT and said[:1] == ["ccprof: SIGABRT sent by process %d, in thread "
                                                  "%d; cost-centre stack, innermost first:"
                                                  % (p.pid, child)]:
            said = [l for l in said if not l.startswith("ccprof:   ")][1:]
        check(said == ["ccprof: profile written to " + prof],
              "%s: record says where the profile went (%s)" % (what, said))
        fs = functions(report(prof)) if os.path.exists(prof) else {}
        check(fs.get("wait_here", {}).get("calls") == 1,
              "%s: the runtime wrote the profile, wait_here in it" % what)


def record_linked_in():
    """A program with libccprof.a linked in, run under `ccprof record`,
    which preloads the shared runtime too: that one stands down (Note
    [Linked in and preloaded] in src/runtime/instrumented.c), and the
    linked one writes the profile when the program dies by SIGTERM, and
    when it crashes says the stack first.  Before, the preloaded
    runtime's handlers ran, with nothing recorded: no profile, no stack,
    and record blamed a handler of the program's own (helper-173).  And
    the shared runtime that dlopen loads records as before."""
    exe = build("signals_linked", "tests/progs/signals.c", LIBA, "-ldl")
    for mode, sig, fn in (("term", signal.SIGTERM, "work"), ("segv", signal.SIGSEGV, "crash_here")):
        prof = os.path.join(OUT, "signals_linked_%s.ccprof" % mode)
        if os.path.exists(prof):
            os.unlink(prof)
        r = run([CCPROF, "record", "-o", prof, "--", exe, mode], preexec_fn=default_signals)
        said = ccprof_said(r.stderr)
        fs = functions(report(prof)) if os.path.exists(prof) else {}
        stack = [l.split()[1] for l in said if l.startswith("ccprof:   ")]
        check(r.returncode == -sig and fs.get(fn, {}).get("calls") == 1 and
              said[-1:] == ["ccprof: profile written to " + prof] and
              (stack[:1] == [fn] if sig == signal.SIGSEGV else stack == []),
              "record of a program with libccprof.a linked in, dying by %s: the profile, %s in it"
              "%s (%d, %s)" % (sig.name, fn, ", and the stack first" if stack else "",
                               r.returncode, said))
    # The shared runtime loaded by dlopen, as a library's dependency, comes
    # after libc, which defines the hooks and execve too: it must not take
    # libc for a runtime linked in (helper-174; the first version did).
    plug, host = os.path.join(OUT, "libccplug.so"), os.path.join(OUT, "ccplughost")
    with open(plug + ".c", "w") as f:
        f.write('#include <ccprof.h>\nvolatile long s;\nvoid plug_run(void) {\n'
                '  ccprof_cc_t cc = ccprof_cc("plugin/work");\n'
                '  for (long i = 0; i < 1000; i++) { ccprof_enter(cc); s += i; ccprof_leave(cc); }\n}\n')
    with open(host + ".c", "w") as f:
        f.write('#include <dlfcn.h>\nint main(int argc, char **argv) {\n'
                '  void *h = dlopen(argv[1], RTLD_NOW);\n  if (!h) return 1;\n'
                '  ((void (*)(void))dlsym(h, "plug_run"))();\n  return 0;\n}\n')
    b = [run([CC, "-shared", "-fPIC", "-I" + os.path.join(TOP, "include"), plug + ".c", "-o", plug,
              "-L" + LIB, "-Wl,--no-as-needed", "-lccprof", "-Wl,-rpath," + LIB]),
         run([CC, host + ".c", "-o", host, "-ldl"])]
    prof = os.path.join(OUT, "ccplug.ccprof")
    if os.path.exists(prof):
        os.unlink(prof)
    r = run([host, plug], env=dict(os.environ, LD_PRELOAD="", CCPROF_OPTIONS="output=" + prof))
    fs = functions(report(prof)) if os.path.exists(prof) else {}
    check(all(x.returncode == 0 for x in b) and r.returncode == 0 and
          fs.get("plugin/work", {}).get("calls") == 1000,
          "the runtime as a dependency of a library dlopen loads: it records (%s, %s)"
          % ([x.stderr[-200:] for x in b], r.returncode))


def background_start():
    """As a non-interactive shell starts a job in the background: SIGINT
    and SIGQUIT ignored, the rest at their defaults."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def record_small_stack():
    """`ccprof record` under `ulimit -s 64` (soft and hard, as bash sets
    them): the program runs under that limit as it would bare, and record
    reads the source lines on a thread of its own stack size (Note
    [Record's own stack] in src/cli/cmd_record.c).  The old record died by
    SIGSEGV in libdw's line tables after the program had run (helper-136,
    xz and jq; fib.c built with -g shows it too)."""
    exe = build("fib_g", "tests/progs/fib.c")
    prof = os.path.join(OUT, "record_small_stack.ccprof")

    def limit():
        resource.setrlimit(resource.RLIMIT_STACK, (64 << 10, 64 << 10))
    r = run([CCPROF, "record", "-o", prof, exe, "25"], preexec_fn=limit)
    inner = run([CCPROF, "record", "-o", prof + ".sh", "sh", "-c", "ulimit -s"], preexec_fn=limit)
    check(r.returncode == 0 and "calls fib 242785" in r.stdout and os.path.exists(prof) and
          functions(report(prof)).get("fib", {}).get("calls") == 242785 and
          inner.stdout == "64\n",
          "record under a 64 KB stack limit: runs, writes, the program keeps the limit "
          "(%d, %r, %r)" % (r.returncode, r.stderr[-200:], inner.stdout))


def record_own_fault():
    """A fault in record itself (tests/progs/recordfault.c, preloaded)
    with SIGSEGV ignored by record's parent: record dies by SIGSEGV at
    once, as before it caught SIGSEGV to pass on (Note [Signals while the
    program runs]); after, it returned to the fault from its handler for
    the whole run (helper-133: 4.45 s of CPU in 6 s).  Its CPU time is
    the check, not a clock."""
    shim = preload_shim("recordfault")
    if shim is None:
        return
    marker = "7.31%d" % os.getpid()  # the program, orphaned, found by its argument
    def cpu():
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        return u.ru_utime + u.ru_stime
    before = cpu()
    r = run(["sh", "-c", 'trap "" SEGV; LD_PRELOAD=%s exec "$@"' % shim, "sh", CCPROF, "record",
             "-o", os.path.join(OUT, "recordfault.ccprof"), "--", "sleep", marker], timeout=60)
    used = cpu() - before
    run(["pkill", "-f", "sleep " + marker])
    check(r.returncode == -signal.SIGSEGV and used < 2.0,
          "record's own fault with SIGSEGV ignored: record dies by SIGSEGV at once, %.2f s of "
          "CPU (under 2; %d, %r)" % (used, r.returncode, r.stderr[-200:]))


def record_passes_ignored_signals():
    """record started with SIGINT ignored (`ccprof record prog &` in a
    script) still passes on a SIGINT sent to it, and the program starts
    with it ignored, as bare.  One that sets its own handler anyway (Lua
    does) gets it, as a kill of its own pid would give it; before, record
    kept it ignored and such a program never got it, and ran on
    (helper-100).  One that keeps it ignored still ignores it, and record
    does not die by it."""
    exe = build("sig_wait", "tests/progs/signals.c")
    for mode in ("countint", "wait"):
        what = "SIGINT to a record started with it ignored (%s)" % mode
        prof = os.path.join(OUT, "sig_ignored_%s.ccprof" % mode)
        p, child = record_waiting(prof, exe, mode, background_start, what)
        if child is not None:
            check(blocked_or_ignored(child, (signal.SIGINT, signal.SIGQUIT)) ==
                  (["SIGQUIT"] if mode == "countint" else ["SIGINT", "SIGQUIT"]),
                  "%s: the program starts with them ignored, as bare, until it sets a "
                  "handler (%s)" % (what, blocked_or_ignored(child, (signal.SIGINT,
                                                                      signal.SIGQUIT))))
            os.kill(p.pid, signal.SIGINT)
        try:
            status = p.wait(timeout=5 if mode == "countint" else 1)
        except subprocess.TimeoutExpired:
            status = None
        alive = child is not None and os.path.exists("/proc/%d" % child)
        if mode == "wait" and child is not None:
            check(status is None and alive,
                  "%s: the program ignores it, as bare, and record goes on waiting (%s)"
                  % (what, status))
            os.kill(p.pid, signal.SIGTERM)
            try:
                status = p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                status = None
            check(status == -signal.SIGTERM,
                  "%s: a SIGTERM then ends both, as the program did (%s)" % (what, status))
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what is left of this run
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        if mode == "countint" and child is not None:
            check(status == 0 and "SIGINT 1 times" in out.decode(errors="replace"),
                  "%s: the program's own handler got it once and it exited 0, record "
                  "with it (%s, %r)" % (what, status, out[-60:]))


def record_terminal_interrupt():
    """Ctrl-C at the terminal sends SIGINT to the whole foreground group,
    record and the program: record lets it pass (si_code SI_KERNEL), so
    the program gets it once, as without record, and not a second time
    from record (Note [Signals while the program runs])."""
    import fcntl
    import pty
    import termios
    exe = build("sig_countint", "tests/progs/signals.c")
    prof = os.path.join(OUT, "sig_countint.ccprof")
    master, slave = pty.openpty()

    def terminal():  # a session of its own, with the pty as its terminal
        default_signals()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    p = subprocess.Popen([CCPROF, "record", "-o", prof, "--", exe, "countint"], stdin=slave,
                         stdout=slave, stderr=slave, start_new_session=True, preexec_fn=terminal)
    os.close(slave)
    out = b""
    try:
        deadline = time.time() + 20
        while b"waiting " not in out and time.time() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                out += os.read(master, 4096)
        os.write(master, b"\x03")  # the terminal's interrupt character
        status = p.wait(timeout=20)
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO once every writer has gone
                break
            if not chunk:
                break
            out += chunk
    except subprocess.TimeoutExpired:
        status = None
        p.kill()
    finally:
        os.close(master)
    text = out.decode(errors="replace")
    check(status == 0 and "SIGINT 1 times" in text,
          "Ctrl-C under record: the program gets one SIGINT, as without record (status %s, %r)"
          % (status, text[-200:]))


def comm_of(pid):
    """A process's name, or None once it has gone."""
    try:
        with open("/proc/%s/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def parent_of(pid):
    """A process's parent pid, or None once it has gone."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def record_group_signal_once():
    """A signal sent to record's whole process group (kill -INT -PGID, as a
    supervisor or timeout(1) sends) reached the program already: record
    does not pass it on a second time, while one sent to record alone it
    does (Note [The group's canary] in src/cli/group_canary.c).  The
    program counts the SIGINTs it gets within 0.3 s of the first.  Before,
    a group's SIGINT came twice (GNU make, interrupted, then died in its
    handler before deleting its intermediate files)."""
    exe = build("sig_countint", "tests/progs/signals.c")
    prof = os.path.join(OUT, "sig_group.ccprof")
    ours = []  # this test's canaries: another suite's records have theirs
    for seq, want in ((("group",), 1), (("group", "record"), 2), (("record", "group"), 2),
                      (("group", "group"), 2)):
        what = "SIGINT to %s" % " then ".join(seq)
        p, child = record_waiting(prof, exe, "countint", default_signals, what)
        # The canary names itself once it runs, which on a loaded machine
        # can be after the program is up (3 of 4 seen once in CI).
        for _ in range(50):
            mine = [d for d in os.listdir("/proc")
                    if d.isdigit() and comm_of(d) == "ccprof-canary" and parent_of(d) == p.pid]
            if mine or child is None:
                break
            time.sleep(0.1)
        ours += mine
        if child is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            continue
        for to in seq:
            if to == "group":
                os.killpg(p.pid, signal.SIGINT)
            else:
                os.kill(p.pid, signal.SIGINT)
            time.sleep(0.1)
        try:
            out, _ = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
        said = re.findall(r"SIGINT (\d+) times", out.decode(errors="replace"))
        check(p.returncode == 0 and said == [str(want)],
              "%s: the program gets %d, as without record (status %s, %s)"
              % (what, want, p.returncode, said))
    canaries = [d for d in ours if comm_of(d) == "ccprof-canary"]
    check(len(ours) == 4 and not canaries,
          "record's canaries (%d of 4 seen) are gone when it ends (%s)" % (len(ours), canaries))
    # In a PID namespace whose /proc is the one outside it, the canary's
    # /proc/PID/status by fork's number was a stranger's, and a group's
    # SIGINT came twice (helper-196): the canary is asked over its pipe
    # there (Note [A /proc of another PID namespace] in
    # src/common/procfs.h).
    ns = ["unshare", "--pid", "--fork"]
    if run(ns + ["true"]).returncode != 0:
        print("# SKIP unshare --pid is refused here: no check with another namespace's /proc")
        return
    # argv: the record command (7 words), then "group" or "record" for
    # each SIGINT.
    inside = ns + [sys.executable, "-c",
                   "import os, signal, subprocess, sys, time\n"
                   "p = subprocess.Popen(sys.argv[1:8], stdout=subprocess.PIPE, text=True,\n"
                   "                     start_new_session=True)\n"
                   "first = ''\n"
                   "while not first.endswith('\\n') or 'waiting' not in first:\n"
                   "    line = p.stdout.readline()\n"
                   "    first += line\n"
                   "    if not line: break\n"
                   "for to in sys.argv[8:]:\n"
                   "    (os.killpg if to == 'group' else os.kill)(p.pid, signal.SIGINT)\n"
                   "    time.sleep(0.1)\n"
                   "rest = p.communicate(timeout=20)[0]\n"
                   "print(p.returncode, repr(first + rest))\n"]
    for seq, want in ((("group",), 1), (("group", "record"), 2)):
        r = run(inside + [CCPROF, "record", "-o", prof, "--", exe, "countint"] + list(seq),
                timeout=60)
        check(re.search(r"SIGINT %d times" % want, r.stdout) is not None,
              "in a PID namespace with the outer /proc, SIGINT to %s: the program gets %d, as "
              "without record (%r %r)" % (" then ".join(seq), want, r.stdout, r.stderr[-200:]))


def namespace_init():
    """A program that is PID 1 of its namespace (a container's first
    process) never gets a signal at its default action from outside but
    SIGKILL and SIGSTOP: bare, a SIGTERM does nothing.  The runtime's
    handler caught it, wrote the profile, raised it again in vain, and
    the program went on with its nanosleep cut short (helper-196): Note
    [A namespace's init] in src/runtime/signals.c.  Its fork child, no
    longer PID 1, takes the runtime's handlers then: a SIGTERM to it
    writes its profile (signals.c's sleepone and forkwait)."""
    ns = ["unshare", "--pid", "--fork", "--mount-proc"]
    if run(ns + ["true"]).returncode != 0:
        print("# SKIP namespace_init: unshare --pid --mount-proc is refused here")
        return
    exe = build("sig_init", "tests/progs/signals.c")
    prof = os.path.join(OUT, "sig_init.ccprof")
    for tag, env in (("bare", {}), ("profiled", {"LD_PRELOAD": PRELOAD,
                                                 "CCPROF_OPTIONS": "output=" + prof})):
        p = subprocess.Popen(ns + [exe, "sleepone"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ, **env),
                             preexec_fn=default_signals)
        first = ""
        while "waiting" not in first and p.poll() is None:
            first += p.stdout.readline()
        inner = [int(c) for c in open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()]
        for pid in inner:
            os.kill(pid, signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        check(p.returncode == 0 and first.endswith("waiting 1\n") and out == "slept\n",
              "namespace_init, %s: a SIGTERM to PID 1 at its default action does nothing "
              "(%d, %r, %r)" % (tag, p.returncode, first + out, ccprof_said(err)))
    check(nonzero_calls(prof).get("sleep_once") == 1 if os.path.exists(prof) else False,
          "namespace_init: the profile is written as PID 1 ends")
    # A crash signal another process sends does nothing to init either:
    # on_fatal printed a crash report for it (helper-199).  (A handler
    # of the runtime's is there, for real faults: the sleep is cut short.)
    p = subprocess.Popen(ns + [exe, "sleepone"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=default_signals,
                         env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof))
    first = ""
    while "waiting" not in first and p.poll() is None:
        first += p.stdout.readline()
    for pid in open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split():
        os.kill(int(pid), signal.SIGSEGV)
    out, err = p.communicate(timeout=30)
    check(p.returncode == 0 and not [l for l in ccprof_said(err) if "SIGSEGV" in l],
          "namespace_init: a SIGSEGV sent to PID 1 does not end it, and no crash is reported "
          "(%d, %r)" % (p.returncode, ccprof_said(err)))
    # A fork child that becomes PID 1 (its parent's unshare(CLONE_NEWPID))
    # kept the runtime's SIGTERM handler; a PID 1 under a seccomp filter
    # gave its fork child the handlers back, which died by SIGSYS
    # (helper-199).
    nsp = build("nsproc", "tests/progs/nsproc.c")
    sbx = build("sandboxed", "tests/progs/sandboxed.c")
    for what, cmd, want in (("a fork child that became PID 1", [nsp, "init"],
                             "child slept\nchild exited 0\n"),
                            ("PID 1 under a filter, its fork child",
                             ns + [sbx, "initfork"], "child killed by signal 15\n")):
        outs = []
        for env in ({}, {"LD_PRELOAD": PRELOAD, "CCPROF_OPTIONS": "output=" + prof}):
            r = run(cmd, env=dict(os.environ, **env), timeout=60, preexec_fn=default_signals)
            outs.append((r.returncode, r.stdout))
        if outs[0][1] == "unshare refused\n":
            print("# SKIP namespace_init, %s: unshare refused" % what)
            continue
        check(outs[0] == (0, want) and outs[1] == outs[0],
              "namespace_init, %s: a SIGTERM as bare (bare %r, profiled %r)" % (what, outs[0], outs[1]))
    d = fresh_dir("sig_initfork.d")
    p = subprocess.Popen(ns + [exe, "forkwait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=default_signals, env=dict(
                             os.environ, LD_PRELOAD=PRELOAD,
                             CCPROF_OPTIONS="output=" + os.path.join(d, "f.ccprof")))
    first = ""
    while "waiting" not in first and p.poll() is None:
        first += p.stdout.readline()
    init = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
    child = int(open("/proc/%d/task/%d/children" % (init, init)).read().split()[0])
    os.kill(child, signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    profs = os.listdir(d)
    check(p.returncode == 0 and out == "child died by %d\n" % signal.SIGTERM and
          any(nonzero_calls(os.path.join(d, f)).get("wait_here") == 1 for f in profs),
          "namespace_init: PID 1's fork child, killed by SIGTERM, writes its profile (%d, %r, %s)"
          % (p.returncode, out, profs))


def record_as_init():
    """ccprof record as PID 1 of its namespace (docker run IMAGE ccprof
    record PROG): Note [record as a namespace's init] in cmd_record.c.
    The orphans of the namespace, record's children then, stayed zombies
    (helper-196: 20 of 20); a SIGSTOP sent to the program from outside
    was undone at once (record, init, could not stop itself, and
    continued the program); record said an orphan still running would
    write its profile later, where it is killed as record ends."""
    ns = ["unshare", "--pid", "--fork", "--mount-proc"]
    if run(ns + ["true"]).returncode != 0:
        print("# SKIP record_as_init: unshare --pid --mount-proc is refused here")
        return
    zombies = ("for i in 1 2 3 4 5 6 7 8 9 10; do (sleep 0.1 &); done; sleep 1; "
               "for f in /proc/[0-9]*/stat; do read -r a b c rest < $f; "
               "[ \"$c\" = Z ] && echo z; done | wc -l")
    prof = os.path.join(OUT, "init.ccprof")
    r = run(ns + [CCPROF, "record", "-o", prof, "--", "sh", "-c", zombies], timeout=60)
    check(r.stdout.strip() == "0", "record as init: the orphans it adopts are reaped (%r zombies, "
          "%r)" % (r.stdout.strip(), ccprof_said(r.stderr)))
    exe = build("sig_wait_init", "tests/progs/signals.c")
    p = subprocess.Popen(ns + [CCPROF, "record", "-o", prof, "--", exe, "wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_signals)
    first = ""
    while "waiting" not in first and p.poll() is None:
        first += p.stdout.readline()
    init = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
    kids = open("/proc/%d/task/%d/children" % (init, init)).read().split()
    prog = next((int(k) for k in kids if comm_of(k) == "sig_wait_init"), None)
    states = []
    if prog:
        os.kill(prog, signal.SIGSTOP)
        for _ in range(5):
            time.sleep(0.1)
            states.append(proc_state(prog))
        os.kill(prog, signal.SIGCONT)
        os.kill(prog, signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    # record, init, cannot die by the signal: it exits with 128 + 15.
    check(prog is not None and states == ["T"] * 5 and p.returncode == 128 + signal.SIGTERM,
          "record as init: a SIGSTOP sent to the program from outside keeps it stopped, and a "
          "SIGTERM then ends it (%s, %s)" % (states, p.returncode))
    r = run(ns + [CCPROF, "record", "-o", prof, "--", "sh", "-c", "(sleep 2 &)"], timeout=60)
    said = ccprof_said(r.stderr)
    check(any("killed as ccprof, the PID namespace's init, ends" in l for l in said),
          "record as init: an orphan still running is said to end with it (%s)" % said)
    # With the outer /proc, the canary is asked over its pipe, and an
    # orphan's end (record as init wakes for each) cut the wait for its
    # answer short: a group's signal was passed on a second time
    # (helper-199: 41 of 40 in 4 of 9 runs).  Never more than were sent.
    d = fresh_dir("init_orphans.d")
    p = subprocess.Popen(ns[:3] + ["setsid", CCPROF, "record", "-o", os.path.join(d, "o.ccprof"),
                                   "--", exe, "orphans"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_signals)
    first = ""
    while "waiting" not in first and p.poll() is None:
        first += p.stdout.readline()
    lead = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
    for _ in range(40):
        os.killpg(lead, signal.SIGUSR1)
        time.sleep(0.03)
    out, err = p.communicate(timeout=60)
    got = re.findall(r"USR1 (\d+)", out)
    check(got and 0 < int(got[0]) <= 40,
          "record as init with the outer /proc, making orphans: 40 SIGUSR1s to its group reach "
          "the program at most once each (%s)" % got)


def record_without_proc():
    """record where no /proc is mounted (a container or a chroot without
    one): it looked for the runtime beside its own executable by
    /proc/self/exe only, and said "cannot find the runtime library"
    (helper-196); it takes the path exec was given (AT_EXECFN) then.
    Root only: a mount namespace with a tmpfs over /proc."""
    if os.geteuid() != 0:
        print("# SKIP record_without_proc: needs root for a mount namespace")
        return
    exe = build("fib_noproc", "tests/progs/fib.c")
    prof = os.path.join(OUT, "fib_noproc.ccprof")
    if os.path.exists(prof):
        os.unlink(prof)
    r = run(["unshare", "--mount", "--pid", "--fork", "sh", "-c",
             'mount -t tmpfs none /proc && test ! -e /proc/self && exec "$@"', "sh",
             CCPROF, "record", "-o", prof, "--", exe, "20"], env=dict(os.environ, CCPROF_LIBRARY=""))
    if r.returncode != 0 and "unshare" in r.stderr:
        print("# SKIP record_without_proc: unshare --mount --pid refused (%s)" % r.stderr.strip())
        return
    check(r.returncode == 0 and "calls fib 21891" in r.stdout and os.path.exists(prof) and
          nonzero_calls(prof).get("fib") == 21891,
          "record without /proc finds the runtime and the profile has fib's 21,891 calls "
          "(%d, %r)" % (r.returncode, ccprof_said(r.stderr)))
    # Run by a script's #! line, exec's path is the script's: not the
    # program's file, which is the interpreter (helper-199).
    script = os.path.join(OUT, "fib_noproc.sh")
    with open(script, "w") as f:
        f.write("#!%s\n" % exe)
    os.chmod(script, 0o755)
    if os.path.exists(prof):
        os.unlink(prof)
    r = run(["unshare", "--mount", "--pid", "--fork", "sh", "-c",
             'mount -t tmpfs none /proc && exec "$@"', "sh",
             CCPROF, "record", "-o", prof, "--", script])
    program = json.loads(run([CCPROF, "info", "--json", prof]).stdout).get("program") \
        if os.path.exists(prof) else None
    check(program == os.path.realpath(exe) and nonzero_calls(prof).get("fib") == 1,
          "record without /proc of a #! script: the profile names the interpreter, the program, "
          "and its functions (%r)" % program)


def record_dump_signal():
    """record --dump-signal=SIG passes dump_signal=SIG on: when SIG
    arrives the program writes its profile and goes on (here waiting in
    wait_here), and a SIGTERM to record later ends it as before, record
    then saying where the profile went.  By name and by number."""
    exe = build("sig_dump", "tests/progs/signals.c")
    # Sent to the program, or to record, which passes it on (SIGUSR1 would
    # have ended record, SIGWINCH did nothing).
    # Or given in the user's CCPROF_OPTIONS, which record reads to know it.
    for value, sig, to_record, via_env in (
            ("USR1", signal.SIGUSR1, False, False),
            (str(int(signal.SIGUSR2)), signal.SIGUSR2, False, False),
            ("SIGUSR1", signal.SIGUSR1, True, False), ("WINCH", signal.SIGWINCH, True, False),
            ("WINCH", signal.SIGWINCH, True, True)):
        what = "record %s=%s%s" % ("with CCPROF_OPTIONS dump_signal" if via_env else "--dump-signal",
                                   value, ", sent to record" if to_record else "")
        prof = os.path.join(OUT, "sig_dump_%s%s.ccprof" % (value, "_env" if via_env else ""))
        if os.path.exists(prof):
            os.unlink(prof)
        opt = [] if via_env else ["--dump-signal=" + value]
        env = dict(os.environ, CCPROF_OPTIONS="verbose=0,dump_signal=" + value) if via_env else None
        p = subprocess.Popen([CCPROF, "record", "-o", prof] + opt + ["--", exe, "wait"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             start_new_session=True, preexec_fn=default_signals)
        line = line_from(p.stdout, "waiting ", 20)
        child = int(line.split()[1]) if line else None
        if check(child is not None, "%s: the program started (%s)" % (what, line)):
            os.kill(p.pid if to_record else child, sig)
            deadline = time.time() + 20
            while not os.path.exists(prof) and time.time() < deadline:
                time.sleep(0.05)
            running = p.poll() is None and os.path.exists("/proc/%d" % child)
            info = info_json(prof)
            fs = functions(report(prof)) if info else {}
            check(running and info.get("pid") == child and
                  fs.get("wait_here", {}).get("calls") == 1 and
                  "dump_signal=" + value in re.split("[:,]", info.get("options", "")),
                  "%s: %s makes the program (pid %d) write its profile, wait_here's call in it, "
                  "and go on running (running %s, pid %s, options %s)"
                  % (what, sig.name, child, running, info.get("pid"), info.get("options")))
            try:
                os.kill(p.pid, signal.SIGTERM)
            except ProcessLookupError:  # record died by the dump signal
                pass
        try:
            status = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            status = None
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what is left of this run
        except ProcessLookupError:
            pass
        _, err = p.communicate()
        said = ccprof_said(err.decode(errors="replace"))
        check(status == -signal.SIGTERM and said == ["ccprof: profile written to " + prof],
              "%s: then a SIGTERM to record ends the program and record by it, record saying "
              "where the profile went (status %s, %s)" % (what, status, said))


def proc_state(pid):
    """The state letter of process pid (/proc/PID/stat), or None."""
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def record_stops_with_program():
    """A program that stops itself (raise(SIGSTOP), or SIGTSTP): record
    stops by the same signal, so that its shell sees the job stopped,
    and once continued it continues the program, then ends with its
    status and the profile written (Note [When the program stops] in
    cmd_record.c).  Before, record waited for ever for the program's
    end.  SIGTSTP is discarded in an orphaned process group, so that
    run has a group of its own in this session, not a session."""
    exe = build("sig_stop", "tests/progs/signals.c")
    for mode, sig in (("stop", signal.SIGSTOP), ("tstp", signal.SIGTSTP)):
        what = "record of a program that raises %s" % sig.name
        prof = os.path.join(OUT, "sig_%s.ccprof" % mode)
        if os.path.exists(prof):
            os.unlink(prof)
        p = subprocess.Popen([CCPROF, "record", "-o", prof, "--", exe, mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: (default_signals(), os.setpgid(0, 0)))
        line = line_from(p.stdout, "stopping ", 20)
        child = int(line.split()[1]) if line else None
        deadline, st = time.time() + 20, None
        while time.time() < deadline:
            pid, st = os.waitpid(p.pid, os.WUNTRACED | os.WNOHANG)
            if pid:
                break
            st = None
            time.sleep(0.02)
        stopped = st is not None and os.WIFSTOPPED(st)
        check(stopped and os.WSTOPSIG(st) == sig,
              "%s: record stops by it too (status %s)" % (what, st))
        if stopped:
            check(child is not None and proc_state(child) == "T",
                  "%s: the program is stopped meanwhile (%s)"
                  % (what, child and proc_state(child)))
            os.kill(p.pid, signal.SIGCONT)
            deadline, st = time.time() + 20, None
            while time.time() < deadline:
                pid, st = os.waitpid(p.pid, os.WNOHANG)
                if pid:
                    break
                st = None
                time.sleep(0.02)
        if st is None or not os.WIFEXITED(st):
            try:
                os.killpg(p.pid, signal.SIGKILL)
                os.waitpid(p.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        p.returncode = 0  # reaped here, not by Popen
        out, err = p.communicate()
        check(st is not None and os.WIFEXITED(st) and os.WEXITSTATUS(st) == 4,
              "%s: once continued, record ends with the program's status 4 (%s)" % (what, st))
        check(b"resumed" in out, "%s: the program was continued" % what)
        said = [l for l in err.decode(errors="replace").splitlines() if l.startswith("ccprof:")]
        check(said == ["ccprof: profile written to " + prof],
              "%s: record says where the profile went (%s)" % (what, said))
        fs = functions(report(prof)) if os.path.exists(prof) else {}
        check(fs.get("stop_here", {}).get("calls") == 1,
              "%s: the profile has stop_here" % what)


def fifo_contents(path, proc, timeout):
    """What is written into the FIFO path until its writer closes it (or
    proc ends without opening it), within timeout seconds."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # lets a blocked writer's open through
    data, deadline = b"", time.time() + timeout
    try:
        while time.time() < deadline:
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if chunk:
                data += chunk
            elif data or proc.poll() is not None:
                break  # the writer closed it, or there was none
            else:
                time.sleep(0.01)  # no writer yet: its open is on the way
    finally:
        os.close(fd)
    return data


def second_signal_mid_write():
    """A second terminating signal that arrives while the first one's
    handler writes the profile waits for that write (write_once in
    src/runtime/signals.c): record passing on a SIGTERM that the
    program's group got too makes two of them common. Taken by another
    thread, it waits for the writer; taken by the writing thread itself (a
    SIGINT during the SIGTERM handler's write), it is blocked until the
    write ends. The profile goes to a FIFO that nobody reads until the
    second signal is in, so the first write is still going on then."""
    exe = build("sig_threads", "tests/progs/signals.c")
    for mode, second in (("threads", signal.SIGTERM), ("wait", signal.SIGINT)):
        what = "second signal (%s, %s)" % (mode, signal.Signals(second).name)
        fifo = os.path.join(OUT, "sig_mid_write.fifo")
        if os.path.exists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        env = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + fifo)
        p = subprocess.Popen([exe, mode], stdout=subprocess.PIPE, env=env,
                             start_new_session=True, preexec_fn=default_signals)
        started = line_from(p.stdout, "waiting ", 20)
        if not check(started is not None, "%s: the program started" % what):
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            continue
        os.kill(p.pid, signal.SIGTERM)
        # Until its handler waits in open() for a reader: a second signal
        # sent before that (a sleep's guess, on a loaded machine) could
        # find the first still pending, and test nothing.
        wait_in_openat(p.pid)
        os.kill(p.pid, second)
        time.sleep(0.3)
        check(p.poll() is None, "%s: the process outlives the second signal while the "
              "first one's write goes on (status %s)" % (what, p.poll()))
        data = fifo_contents(fifo, p, 20)
        try:
            status = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            status = p.wait()
        p.stdout.close()
        check(status in (-signal.SIGTERM, -second),
              "%s: then dies by one of them (status %s)" % (what, status))
        prof = os.path.join(OUT, "sig_mid_write_%s.ccprof" % mode)
        open(prof, "wb").write(data)
        r = run([CCPROF, "report", "--json", prof])
        fs = functions(json.loads(r.stdout)) if r.returncode == 0 else {}
        idle = 2 if mode == "threads" else None
        check(fs.get("wait_here", {}).get("calls") == 1 and fs.get("idle", {}).get("calls") == idle,
              "%s: the whole profile was written, wait_here%s in it (%d bytes)"
              % (what, " and both idle threads" if idle else "", len(data)))


def deep():
    p, prof = same_behaviour("deep", "tests/progs/deep.c")
    rep = exact_calls("deep", p, prof)
    if rep:
        ctx = [c for c in rep["contexts"] if c["history"]]
        check(len(ctx) == 3, "deep: a million-deep recursion is 3 contexts: [main], [run], [run] [down] (got %d)" % len(ctx))
        # run's frame and every down: the deepest the thread's stack went,
        # although no transition was new down there.
        depth = json.loads(run([CCPROF, "info", "--json", prof]).stdout)["max_depth"]
        want = counts(p.stdout)["down"] + 1
        check(depth == want, "deep: max depth %d = 1 + calls(down) (got %d)" % (want, depth))
    # The same on a thread still running when the profile is written:
    # main, and fib(20) down to fib(1).
    r, fprof = record(build("fib_depth", "tests/progs/fib.c"), ["20"],
                      profile=os.path.join(OUT, "fib_depth.ccprof"))
    depth = json.loads(run([CCPROF, "info", "--json", fprof]).stdout)["max_depth"]
    check(depth == 21, "deep: fib(20) on the main thread has max depth 21 (got %d)" % depth)


def explode():
    p, prof = same_behaviour("explode", "tests/progs/explode.c")
    full = exact_calls("explode", p, prof)
    p, prof = same_behaviour("explode_budget", "tests/progs/explode.c",
                             env={"CCPROF_OPTIONS": "max_contexts=200"})
    rep = exact_calls("explode_budget", p, prof)
    if full and rep:
        n = len(full["contexts"])
        m = len(rep["contexts"])
        check(n > 1000, "explode: %d contexts without a budget" % n)
        check(m <= 200 + 20, "explode: max_contexts=200 keeps %d contexts (+ one overflow each)" % m)
        info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
        check("lost_time_s" in info, "explode: info reports the time charged to overflow")


def dlopen():
    so = os.path.join(OUT, "libshlib.so")
    run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions",
         os.path.join(TOP, "tests/progs/shlib.c"), "-o", so])
    p, prof = same_behaviour("dl", "tests/progs/dl.c", [so], extra=["-ldl"])
    if p and check(os.path.exists(prof), "dlopen: profile written"):
        fs = functions(report(prof))
        check(fs.get("lib_entry", {}).get("calls") == 6 and fs.get("helper", {}).get("calls") == 6,
              "dlopen: a closed library's functions keep names and counts")


def dlmove():
    """A plugin loop whose plugin lands somewhere else at each load
    (tests/progs/dlmove.c keeps a mapping where it was): every call
    counted, one cost centre per function, and no more memory per reload
    than 1 KB beyond the bare run's.  Each reload at a new place moves
    the plugin's keys in the table of cost centres, whose replaced index
    stays mapped for readers without the lock; one was left behind at
    every reload, 16 KB each here (helper-137), before the next reload
    reused it (Note [Numbers read without the lock] in
    src/runtime/cctable.c)."""
    dep = os.path.join(OUT, "libmove_dep.so")
    so = os.path.join(OUT, "libmove.so")
    flags = [CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", "-DDEP=move_dep"]
    run(flags + [os.path.join(TOP, "tests/progs/swapdep.c"), "-o", dep])
    run(flags + ["-DWORK=move_work", os.path.join(TOP, "tests/progs/swaplib.c"), "-o", so, dep,
                 "-Wl,-rpath," + OUT])
    p, prof = same_behaviour("dlmove", "tests/progs/dlmove.c", [so, "1000"], extra=["-ldl"])
    if p is None or not check(os.path.exists(prof), "dlmove (%s): profile written" % CLOCK):
        return
    moved = re.search(r"^moved (\d+) of (\d+)$", p.stdout, re.M)
    if moved is None or int(moved.group(1)) < int(moved.group(2)) // 2:
        print("# dlmove (%s): the loader put the plugin back in place (%s); the check is weaker"
              % (CLOCK, moved and moved.group(0)))
    exe = os.path.join(OUT, "dlmove" + ("@" + CLOCK if CLOCK != "cpu" else ""))
    bare = run([exe + "_bare", so, "1000", "rss"])
    prof_rss = os.path.join(OUT, "dlmove_rss.ccprof")
    inst = run([exe, so, "1000", "rss"], env=dict(os.environ, LD_PRELOAD=PRELOAD,
                                                   CCPROF_OPTIONS="output=" + prof_rss))

    def kb(out):
        m = re.search(r"resident per reload ([0-9.-]+) KB", out)
        return float(m.group(1)) if m else float("inf")
    check(kb(inst.stdout) <= kb(bare.stdout) + 1.0,
          "dlmove (%s): %.2f KB resident per reload (bare %.2f; at most 1 KB more)"
          % (CLOCK, kb(inst.stdout), kb(bare.stdout)))
    rows = report(prof)["functions"]
    check([f["name"] for f in rows].count("move_work") == 1,
          "dlmove (%s): one move_work over %s loads" % (CLOCK, moved and moved.group(2)))
    exact_calls("dlmove (%s)" % CLOCK, p, prof)


def dlswap():
    """A plugin closed and another loaded at the same addresses: each keeps
    its own calls and module, and so does the dependency each plugin
    brings and takes away with it (dlclose.c)."""
    libs = []
    for name in ("alpha", "beta"):
        dep = os.path.join(OUT, "lib%s_dep.so" % name)
        so = os.path.join(OUT, "lib%s.so" % name)
        flags = [CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions", "-DDEP=%s_dep" % name]
        run(flags + [os.path.join(TOP, "tests/progs/swapdep.c"), "-o", dep])
        run(flags + ["-DWORK=%s_work" % name, os.path.join(TOP, "tests/progs/swaplib.c"), "-o", so,
                     dep, "-Wl,-rpath," + OUT])
        libs.append(so)
    p, prof = same_behaviour("dlswap", "tests/progs/dlswap.c", libs, extra=["-ldl"])
    if p is None or not check(os.path.exists(prof), "dlswap (%s): profile written" % CLOCK):
        return
    if "same address yes" not in p.stdout:
        print("# dlswap (%s): the loader put the second plugin elsewhere; the check is weaker" % CLOCK)
    rows = report(prof)["functions"]
    fs = {f["name"]: f for f in rows}
    n = counts(p.stdout)
    for f, lib in (("alpha_work", "libalpha.so"), ("beta_work", "libbeta.so"),
                   ("alpha_dep", "libalpha_dep.so"), ("beta_dep", "libbeta_dep.so")):
        got = fs.get(f, {})
        check(got.get("calls") == n[f] and got.get("module", "").endswith("/" + lib),
              "dlswap (%s): %s called %d times, in its own library (got %s in %s)"
              % (CLOCK, f, n[f], got.get("calls"), got.get("module")))
    # One name in two plugins: the text report names the module.
    text = run([CCPROF, "report", prof]).stdout
    check("plugin_entry [libalpha.so]" in text and "plugin_entry [libbeta.so]" in text,
          "dlswap (%s): the text report tells the two plugin_entry apart by module" % CLOCK)
    # Loaded again where it was: the same cost centres, not a second set
    # (one more per dlopen filled the module table of a plugin loop).
    if "again yes" in p.stdout:
        check([f["name"] for f in rows].count("alpha_work") == 1,
              "dlswap (%s): alpha loaded again at its place keeps one alpha_work (%d rows)"
              % (CLOCK, [f["name"] for f in rows].count("alpha_work")))
    else:
        print("# dlswap (%s): the loader put the first plugin elsewhere the second time" % CLOCK)


def static_dlclose():
    """dlclose in a program linked -static with libccprof.a: the runtime's
    took the name, dlsym found no libc's behind it, and it failed with
    ENOSYS (helper-200); it calls libc.a's own now (dlclose.c)."""
    outs = []
    for name, flags in (("dlcloserc_static_bare", ["-static"]),
                        ("dlcloserc_static", [os.path.join(LIB, "libccprof.a"), "-static"])):
        exe = build(name, "tests/progs/dlcloserc.c", *flags, instrument=bool(flags[:-1]))
        prof = os.path.join(OUT, name + ".ccprof")
        r = run([exe], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
        outs.append((r.returncode, r.stdout))
    check(outs[0] == (0, "dlclose 0\n") and outs[1] == outs[0],
          "dlclose linked -static with libccprof.a: as bare (bare %r, profiled %r)" % tuple(outs))


def dlreplace():
    """A plugin without a build-id closed, replaced on disk by another
    build whose functions lie at the same offsets, and loaded again from
    the same path: each build's functions keep their own calls (Note
    [Modules without a build-id] in combine.c).  The first build's file
    is gone, so its functions may stay unnamed; they were counted as the
    second build's before.  merge of the profile with itself doubles each."""
    d = os.path.join(OUT, "dlreplace@" + CLOCK)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    builds = {}
    for name in ("alpha", "beta"):
        dep = os.path.join(d, "lib%s_dep.so" % name)
        so = os.path.join(d, "%s.so" % name)
        flags = [CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions",
                 "-Wl,--build-id=none", "-DDEP=%s_dep" % name]
        run(flags + [os.path.join(TOP, "tests/progs/swapdep.c"), "-o", dep])
        r = run(flags + ["-DWORK=%s_work" % name, os.path.join(TOP, "tests/progs/swaplib.c"),
                         "-o", so, dep, "-Wl,-rpath," + d])
        if not check(r.returncode == 0, "dlreplace: build %s (%s)" % (name, r.stderr[-200:])):
            return
        builds[name] = so
    exe = os.path.join(d, "dlreplace")
    r = run([CC, "-g", "-O1", "-finstrument-functions", os.path.join(TOP, "tests/progs/dlreplace.c"),
             "-o", exe, "-ldl"])
    if not check(r.returncode == 0, "dlreplace: build (%s)" % r.stderr[-200:]):
        return
    plugin, new = os.path.join(d, "plugin.so"), os.path.join(d, "plugin.so.new")
    shutil.copy(builds["alpha"], plugin)
    shutil.copy(builds["beta"], new)
    prof = os.path.join(d, "dlreplace.ccprof")
    e = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="clock=%s:output=%s" % (CLOCK, prof))
    p = run([exe, plugin, new], env=e)
    if not check(p.returncode == 0 and os.path.exists(prof),
                 "dlreplace (%s): runs and writes its profile (%s)" % (CLOCK, p.stdout + p.stderr)):
        return
    n = counts(p.stdout)
    for times, path in ((1, prof), (2, os.path.join(d, "twice.ccprof"))):
        if times == 2:
            ok_merge = run([CCPROF, "merge", "-o", path, prof, prof])
            if not check(ok_merge.returncode == 0, "dlreplace: merge (%s)" % ok_merge.stderr):
                return
        fs = [f for f in report(path)["functions"] if f.get("module", "").endswith("/plugin.so")]
        at = {f["offset"] for f in fs if f["name"] == "beta_work"}
        rows = [(f["name"], f["calls"]) for f in fs if f["offset"] in at]
        beta = [c for f, c in rows if f == "beta_work"]
        alpha = [c for f, c in rows if f != "beta_work"]
        check(beta == [n["beta_work"] * times] and alpha == [n["alpha_work"] * times],
              "dlreplace (%s)%s: beta_work called %d times, alpha_work (named or not) %d, "
              "never one row of both (got %s)" % (CLOCK, " merged with itself" if times == 2 else "",
                                                  n["beta_work"] * times,
                                                  n["alpha_work"] * times, rows))


def dlstorm():
    """A library opened and closed in a loop, moving each time (an mmap
    between loads): its functions are one function each (docs/format.md
    §3.3: a module is a file; module path, build-id and offset), one row with
    the calls the program made, and the runtime's module table stays small."""
    so = os.path.join(OUT, "libstorm.so")
    run([CC, "-g", "-O1", "-fPIC", "-shared", "-finstrument-functions",
         os.path.join(TOP, "tests/progs/shlib.c"), "-o", so])
    n = 6000
    p, prof = same_behaviour("dlstorm", "tests/progs/dlstorm.c", [so, str(n)], extra=["-ldl"],
                             timeout=120)
    if p is None or not check(os.path.exists(prof), "dlstorm (%s): profile written" % CLOCK):
        return
    rows = report(prof)["functions"]
    own = counts(p.stdout)
    check(own, "dlstorm (%s): the program printed its own call counts (%d functions)"
          % (CLOCK, len(own)))
    for f, calls in own.items():
        got = [r for r in rows if r["name"] == f]
        check(len(got) == 1 and got[0]["calls"] == calls,
              "dlstorm (%s): one row for %s, %d calls (got %s)"
              % (CLOCK, f, calls, [r["calls"] for r in got][:5]))
    check(not [r for r in rows if r["name"].startswith("0x")],
          "dlstorm (%s): every function named" % CLOCK)
    text = run([CCPROF, "report", prof]).stdout
    check(text.count("lib_entry") >= 1 and "lib_entry [" not in text,
          "dlstorm (%s): the text report shows lib_entry plainly, not qualified by module" % CLOCK)
    info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
    check(info["modules"] <= 10 and info["cost_centres"] <= 10,
          "dlstorm (%s): %d modules, %d cost centres recorded for %d loads of one library"
          % (CLOCK, info["modules"], info["cost_centres"], n))
    # Merged with itself: still one row each, twice the calls.
    both = prof + ".merged"
    run([CCPROF, "merge", "-o", both, prof, prof])
    rows = report(both)["functions"]
    for f, calls in own.items():
        got = [r["calls"] for r in rows if r["name"] == f]
        check(got == [2 * calls], "dlstorm (%s): merged with itself, %s once with %d calls (got %s)"
              % (CLOCK, f, 2 * calls, got[:5]))


def twins():
    """Two static functions of one name in one program: the text report
    qualifies each with module and offset, the other names stay plain."""
    if not with_libdw():
        print("# SKIP twins: ccprof built without libdw, no SRC column to tell them by")
        return
    exe = build("twins", "tests/progs/twins.c", os.path.join(TOP, "tests/progs/twins2.c"))
    r, prof = record(exe, profile=os.path.join(OUT, "twins.ccprof"))
    n = counts(r.stdout)
    rows, srcs = {}, {}
    for line in run([CCPROF, "report", prof]).stdout.splitlines():
        w = line.split()
        # Rows of the top table end in the SRC column, file:line.
        if len(w) == 7 and w[0] == "step" and w[1].startswith("[twins+0x") and \
                re.match(r"twins2?\.c:\d+$", w[6]):
            rows[w[1]] = int(w[4])
            srcs[w[6].split(":")[0]] = int(w[4])
        if len(w) == 6 and w[0] == "main" and re.match(r"twins\.c:\d+$", w[5]):
            rows["main"] = int(w[3])
    steps = sorted(v for k, v in rows.items() if k != "main")
    check(steps == sorted([n["step_here"], n["step_there"]]) and rows.get("main") == 1,
          "twins: two rows 'step [twins+0x...]' with %d and %d calls, main plain (%s)"
          % (n["step_here"], n["step_there"], rows))
    # The SRC column tells them apart too: the debug information's files.
    check(srcs == {"twins.c": n["step_here"], "twins2.c": n["step_there"]},
          "twins: SRC column gives twins.c for the %d calls, twins2.c for the %d (%s)"
          % (n["step_here"], n["step_there"], srcs))


def twins_and_lib():
    """The twins' two steps and a third in a library of its own: the
    library's is "step [libtwins.so]", the shortest label that tells it
    apart, while the program's two keep their offsets (the library's took
    an offset too, as if it shared the program's module name).  The
    library found through a relative rpath (the runtime may record it as
    ./libtwins.so) and through an absolute one."""
    d = os.path.join(OUT, "twinslib")
    os.makedirs(d, exist_ok=True)
    lib = build("twinslib/libtwins.so", "tests/progs/twins3.c", "-shared", "-fPIC")
    for rpath in (".", d):
        exe = build("twinslib/twins", "tests/progs/twins.c",
                    os.path.join(TOP, "tests/progs/twins2.c"), "-DTWINS_LIB", lib,
                    "-Wl,-rpath," + rpath)
        prof = os.path.join(d, "twins.ccprof")
        r = run([CCPROF, "record", "-o", prof, "--", "./twins"], cwd=d)
        n = counts(r.stdout)
        rows = {}
        for line in run([CCPROF, "report", prof]).stdout.splitlines():
            w = line.split()
            # the top table's rows come first: calls in the fifth column
            if len(w) >= 6 and w[0] == "step" and w[1].startswith("[") and w[1] not in rows:
                rows[w[1]] = int(w[4])
        lab = sorted(k for k in rows if k.startswith("[twins+0x"))
        check(r.returncode == 0 and rows.get("[libtwins.so]") == n.get("step_lib") == 7
              and len(lab) == 2 and sorted(rows[k] for k in lab) == [3, 5]
              and len(rows) == 3,
              "twins and lib (rpath %s): 'step [libtwins.so]' with 7 calls, two "
              "'step [twins+0x...]' with 3 and 5 (%s)" % (rpath, rows))


def setuid():
    if os.getuid() != 0:
        print("# not root: setuid case skipped")
        return
    exe = build("secure", "tests/progs/fib.c", LIBA)
    prof = os.path.join(OUT, "secure_should_not_exist.ccprof")
    d = os.path.join(OUT, "secure_dir")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o777)
    shutil.copy(exe, os.path.join(d, "secure"))
    os.chown(os.path.join(d, "secure"), 65534, 65534)
    os.chmod(os.path.join(d, "secure"), 0o4755)
    r = run([os.path.join(d, "secure"), "10"], cwd=d,
            env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
    check(r.returncode == 0 and not os.path.exists(prof) and not glob.glob(d + "/*.ccprof"),
          "setuid: CCPROF_OPTIONS ignored and nothing written (AT_SECURE)")


def symlink():
    exe = build("fib_link", "tests/progs/fib.c")
    d = os.path.join(OUT, "links")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    victim = os.path.join(d, "victim")
    open(victim, "w").write("keep me\n")
    target = os.path.join(d, "out.ccprof")
    os.symlink(victim, target)
    run([exe, "5"], env=dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + target))
    check(open(victim).read() == "keep me\n", "symlink: the file a symlink points to is untouched")
    check(os.path.isfile(target) and not os.path.islink(target),
          "symlink: the profile replaced the link with a regular file")
    check((os.stat(target).st_mode & 0o777) & ~0o644 == 0, "profile mode is 0644 or stricter")


def replaced():
    """The program's file replaced (renamed over) or deleted while it runs:
    names come from the file that was loaded, or stay unnamed, never from
    the new file, whose functions lie at the same offsets (Note [Names from
    the loaded file] in dump.c).  A profile written from a signal handler
    names them too, from the file loaded (Note [Names in every write];
    before session 57 it named none, and the tool must not take them from
    the new file either)."""
    src = os.path.join(TOP, "tests/progs/replaced.c")
    for how, buildid, end in (("mv", True, ""), ("rm", True, ""), ("mv", False, ""),
                              ("mv", True, "term"), ("mv", False, "term"), ("mv", True, "abort")):
        term = end != ""
        name = "replaced_%s%s%s" % (how, "" if buildid else "_noid", "_" + end if end else "")
        d = os.path.join(OUT, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        exe, new = os.path.join(d, "prog"), os.path.join(d, "prog.new")
        flags = [] if buildid else ["-Wl,--build-id=none"]
        for out, extra in ((exe, []), (new, ["-DOTHER"])):
            r = run([CC, "-g", "-O1", "-finstrument-functions", src, "-o", out] + flags + extra)
            if not check(r.returncode == 0, "%s: build: %s" % (name, r.stderr[-300:])):
                return
        prof = os.path.join(d, "prog.ccprof")
        ready, go = os.path.join(d, "ready"), os.path.join(d, "go")
        e = dict(os.environ, LD_PRELOAD=PRELOAD, CCPROF_OPTIONS="output=" + prof)
        p = subprocess.Popen([exe, ready, go] + ([end] if end else []), cwd=d, env=e,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2500):
            if os.path.exists(ready) or p.poll() is not None:
                break
            time.sleep(0.002)
        if how == "mv":
            os.rename(new, exe)
        else:
            os.unlink(exe)
        open(go, "w").close()
        out, err = p.communicate(timeout=30)
        if end == "abort":
            check("ccprof:   beta" in err and "zzz_pad" not in err,
                  "%s: the crash's cost-centre stack names beta, from the file loaded (%r)"
                  % (name, err[-200:]))
        if not check(os.path.exists(prof), "%s: profile written (%s)" % (name, err[-300:])):
            continue
        fs = functions(report(prof))
        wrong = sorted(f for f in fs if f.startswith("zzz_pad"))
        check(not wrong, "%s: no names from the file that replaced the program (%s)" % (name, wrong))
        n = counts(out)
        check(n, "%s: the program printed its own call counts (%d functions)" % (name, len(n)))
        for f, calls in n.items():
            calls += f == "beta" and end == "abort"  # the call that aborts, after the count
            check(fs.get(f, {}).get("calls") == calls,
                  "%s: %s named, called %d times (got %s)" % (name, f, calls, fs.get(f, {}).get("calls")))


threads()
sampler_thread_name()
helper_not_counted()
helper_credentials()
dropped_user()
raw_exit()
term_names()
threads_tsan()
optimised()
split()
split_recursive()
selfinline()
self_inlined()
deferred_pops()
unseen_jumps()
storm()
stepped()
nullfn()
cancel()
late_cancel()
async_cancel()
fork()
last_thread()
quiet_helper()
exits()
daemonized()
daemon_linked()
forkpty_ways()
exec_()
reexec()
exec_then_signal()
fork_exec()
vfork_time()
descriptor_limit()
clone_exec()
one_out_per_run()
own_environment()
record_probe_hidden()
one_signal_to_die_by()
record_says_still_running()
record_names_commands()
one_out_per_namespace()
reused_pid()
separators_in_paths()
shell_children()
system_semantics()
exit_race()
static_pie()
exit_wait()
own_malloc()
own_getenv()
file_size_limit()
small_stack()
small_stack_exit()
jumps()
jump_siblings()
alt_stack_inside()
main_stack_limits()
coroutines()
generators()
exceptions()
catch_big()
plugin_catch()
linked_beside_others()
static_exec()
execsys_as_glibc()
signals_()
sandboxed()
signals_kept()
signals_unwritten()
own_group()
own_group_stops()
signals_own_writes()
sigaction_across_fork()
fork_in_handler()
cancel_in_handler_write()
cancel_in_term_write()
signal_after_exit_write()
handlers_present_at_start()
dump_signal_handler_installed_later()
unmanaged_children_view()
unmanaged_children_static_signal()
unmanaged_children_siginterrupt()
record_passes_signals()
record_linked_in()
record_own_fault()
record_small_stack()
record_passes_ignored_signals()
record_terminal_interrupt()
record_group_signal_once()
record_without_proc()
namespace_init()
record_as_init()
record_dump_signal()
record_stops_with_program()
second_signal_mid_write()
uninstrumented_signals()
userns()
pid_namespace()
many_threads()
live_thread_mappings()
segments_under_a_limit()
thread_system_calls()
wide_thread_calls()
thread_churn()
leader_check_calls()
threads_at_once_calls()
reborn_states()
late_code_depth()
walks_without_the_lock()
deep()
explode()
dlopen()
dlswap()
static_dlclose()
dlmove()
dlreplace()
dlstorm()
twins()
twins_and_lib()
setuid()
symlink()
replaced()
# clock=cycles takes its own paths through the hooks: the programs that
# stress the shadow stack run again under it.
CLOCK = "cycles"
vfork_time()
daemonized()
last_thread()
storm()
stepped()
nullfn()
cancel()
late_cancel()
async_cancel()
jumps()
jump_siblings()
alt_stack_inside()
split()
split_recursive()
selfinline()
self_inlined()
deferred_pops()
unseen_jumps()
coroutines()
generators()
dlswap()
dlreplace()
dlstorm()
exceptions()
catch_big()
deep()
finish()
