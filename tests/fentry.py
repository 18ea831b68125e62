"""gcc's -pg -mfentry -minstrument-return=call (src/runtime/fentry.c):
tests/progs/fentry.c built so, linked with the runtime, shared and
static, with and without PIE and endbr64 (-fcf-protection).  Each run must
print what the uninstrumented build prints (its values survive the hooks),
and its profile must hold the calls the program counted itself, each
function at its own address (nm's), and contexts a longjmp and a signal
handler leave right.  Beside it, built with either flavour of hooks, the
paths both take when rt_hot is NULL (Note [The hooks' thread] in
src/runtime/threads.c): clock=cycles and a full shadow stack."""
import platform
import re
import resource
import shutil
from ccp import *

SRC = os.path.join(TOP, "tests/progs/fentry.c")
FLAGS = ["-pg", "-mfentry", "-minstrument-return=call"]
# The program's calls are gcc's: the runtime under test may be clang's.
GCC = "gcc"
ROUNDS = "150"


SHARED = ("-L" + LIB, "-lccprof", "-Wl,-rpath," + LIB)


def build_fentry(name, extra=(), link=SHARED, src=SRC):
    """OUT/name: compiled with FLAGS (never linked with -pg: that would
    start gprof's collector), linked with the runtime; None (a failed
    check) if it does not build."""
    obj = os.path.join(OUT, name + ".o")
    exe = os.path.join(OUT, name)
    r = run([GCC, "-g", "-O2"] + FLAGS + list(extra) + ["-c", src, "-o", obj])
    if r.returncode == 0:
        r = run([GCC] + list(extra) + [obj, "-o", exe] + list(link) + ["-pthread"])
    return exe if check(r.returncode == 0, "%s builds (%s)" % (name, r.stderr[-300:])) else None


def symbols(exe):
    """{function: address} from nm."""
    out = {}
    for line in run(["nm", exe]).stdout.splitlines():
        w = line.split()
        if len(w) == 3 and w[1] in "tT":
            out[w[2]] = int(w[0], 16)
    return out


def bare_output():
    exe = os.path.join(OUT, "fentry_bare")
    r = run([GCC, "-g", "-O2", SRC, "-o", exe, "-pthread"])
    if not check(r.returncode == 0, "fentry.c builds uninstrumented"):
        return None
    r = run([exe, ROUNDS])
    check(r.returncode == 0 and "bad 0" in r.stdout, "fentry.c, uninstrumented, finds its values "
          "right (%r)" % r.stdout[:80])
    return r.stdout.splitlines()[0]


def first_line(out):
    return (out.splitlines() or [""])[0]


def check_profile(tag, exe, r, prof, bare_first):
    check(r.returncode == 0 and first_line(r.stdout) == bare_first,
          "%s: exit 0 and the uninstrumented build's values (%r, want %r; %s)"
          % (tag, first_line(r.stdout), bare_first, r.stderr[-200:]))
    rep = report(prof)
    got = dict((f["name"], f["calls"]) for f in rep["functions"])
    want = counts(r.stdout)
    wrong = dict((k, (v, got.get(k))) for k, v in want.items() if got.get(k) != v)
    check(want and not wrong, "%s: every function's calls as the program counted them (%d "
          "functions; wrong: %r)" % (tag, len(want), wrong))
    syms = symbols(exe)
    off = dict((f["name"], f["offset"]) for f in rep["functions"] if f["name"] in syms)
    moved = dict((k, (hex(v), hex(syms[k]))) for k, v in off.items() if v != syms[k])
    check(len(off) >= len(want) and not moved,
          "%s: each function's cost centre at its own address (%d of them; elsewhere: %r)"
          % (tag, len(off), moved))
    return rep


def contexts_right(tag, rep):
    """leaf is called in neither dive (whose frames a longjmp left) nor
    the handler; handler_leaf only in on_alarm."""
    wrong = []
    for c in rep["contexts"]:
        names = [e["name"] for e in c["history"]]
        for i, n in enumerate(names):
            if n == "leaf" and ("dive" in names[:i] or "on_alarm" in names[:i]):
                wrong.append(names)
            if n == "handler_leaf" and names[i - 1:i] != ["on_alarm"]:
                wrong.append(names)
    jumped = [c for c in rep["contexts"] if [e["name"] for e in c["history"]][-2:] == ["main", "leaf"]]
    check(not wrong and jumped, "%s: after the longjmps and in the handler, calls in their "
          "callers' contexts (wrong: %r)" % (tag, wrong[:3]))


def builds():
    if platform.machine() != "x86_64":
        print("# not x86-64: gcc has no -minstrument-return here")
        return
    bare_first = bare_output()
    if bare_first is None:
        return
    for extra, tag in (((), "PIE"), (("-fno-pie", "-no-pie"), "not PIE"),
                       (("-fcf-protection=full",), "PIE, endbr64"),
                       (("-fno-pie", "-no-pie", "-fcf-protection=full"), "not PIE, endbr64")):
        name = "fentry_" + tag.replace(",", "").replace(" ", "_")
        exe = build_fentry(name, extra)
        if exe is None:
            continue
        prof = os.path.join(OUT, name + ".ccprof")
        r = run([exe, ROUNDS], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
        rep = check_profile("fentry, " + tag, exe, r, prof, bare_first)
        contexts_right("fentry, " + tag, rep)
    # clock=cycles takes the slow path, with the vector state saved, at
    # every hook.
    exe = os.path.join(OUT, "fentry_PIE")
    if os.path.exists(exe):
        prof = os.path.join(OUT, "fentry_cycles.ccprof")
        r = run([exe, ROUNDS], env=dict(os.environ, CCPROF_OPTIONS="clock=cycles,output=" + prof))
        rep = check_profile("fentry, clock=cycles", exe, r, prof, bare_first)
        contexts_right("fentry, clock=cycles", rep)
        # enabled=0: the hooks return at once (rt_stateless), and nothing
        # is written
        d = fresh_dir("fentry_disabled")
        r = run([exe, ROUNDS], cwd=d, env=dict(os.environ, CCPROF_OPTIONS="enabled=0"))
        check(r.returncode == 0 and first_line(r.stdout) == bare_first and "bad 0" in r.stdout
              and os.listdir(d) == [], "fentry, enabled=0: the same values, no profile (%r)"
              % os.listdir(d))
        # ccprof record preloads the runtime the program already links
        r, prof = record(exe, [ROUNDS], profile=os.path.join(OUT, "fentry_record.ccprof"))
        check_profile("fentry under ccprof record", exe, r, prof, bare_first)
    # Linked with the static runtime.
    exe = build_fentry("fentry_static", (), (os.path.join(LIB, "libccprof.a"),))
    if exe:
        prof = os.path.join(OUT, "fentry_static.ccprof")
        r = run([exe, ROUNDS], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
        check_profile("fentry, libccprof.a", exe, r, prof, bare_first)



def exceptions():
    """C++ exceptions thrown through hooked frames: gcc puts __return__
    before each return, and the unwinder skips it.  In the shared runtime
    __cxa_begin_catch pops the frames the exception left (Note [Caught
    exceptions] in src/runtime/catch.c), and since session 49 in
    libccprof.a too, whose __cxa_begin_catch is weak.  Every
    count is the program's own, after_catch is main's, and big and small
    (the first with an 8 KB frame) are the catching function's, or for
    small at -O2 main's: catcher's last call is a jump there, after its
    __return__."""
    if shutil.which("g++") is None:
        print("# SKIP fentry exceptions: g++ not installed")
        return
    # callee: (its callers, its calls), for every build
    want_arcs = {"exceptions": {"after_catch()": ({"main"}, 40), "throw_deep(int)": ({"main"}, 40)},
                 "catchbig": {"big()": ({"catcher()"}, 10), "small()": ({"catcher()", "main"}, 10)}}
    for prog, expect in sorted(want_arcs.items()):
        src = os.path.join(TOP, "tests/progs", prog + ".cpp")
        bare = os.path.join(OUT, prog + "_bare")
        r = run(["g++", "-O2", src, "-o", bare])
        if not check(r.returncode == 0, "%s.cpp builds uninstrumented (%s)" % (prog, r.stderr[-200:])):
            continue
        want_out = run([bare]).stdout
        for opt in ("-O0", "-O2"):
            obj = os.path.join(OUT, "%s_fentry%s.o" % (prog, opt))
            r = run(["g++", "-g", opt] + FLAGS + ["-c", src, "-o", obj])
            for link, how in ((["-L" + LIB, "-lccprof", "-Wl,-rpath," + LIB], "shared"),
                              ([os.path.join(LIB, "libccprof.a"), "-pthread"], "libccprof.a")):
                tag = "fentry %s.cpp %s, %s" % (prog, opt, how)
                exe = os.path.join(OUT, "%s_fentry%s_%s" % (prog, opt, how.split(".")[0]))
                if r.returncode == 0:
                    r = run(["g++", obj, "-o", exe] + link)
                if not check(r.returncode == 0, "%s builds (%s)" % (tag, r.stderr[-300:])):
                    continue
                prof = exe + ".ccprof"
                p = run([exe], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
                check(p.returncode == 0 and p.stdout == want_out,
                      "%s: exit 0 and the uninstrumented build's output (%r; %s)"
                      % (tag, p.stdout[:60], p.stderr[-200:]))
                if not os.path.exists(prof):
                    check(False, "%s: profile written" % tag)
                    continue
                rep = report(prof)
                got = dict((f["name"].split("(")[0], f["calls"]) for f in rep["functions"])
                own = counts(p.stdout)
                wrong = dict((k, (v, got.get(k))) for k, v in own.items() if got.get(k) != v)
                check(own and not wrong, "%s: every function's calls as the program counted them "
                      "(%d functions; wrong: %r)" % (tag, len(own), wrong))
                a = arcs(rep)
                into = dict((callee, sorted((k[0], v["calls"]) for k, v in a.items()
                                            if k[1] == callee and k[0] != callee))
                            for callee in expect)
                right = all(sum(n for _, n in into[callee]) == calls and
                            set(k for k, _ in into[callee]) <= callers
                            for callee, (callers, calls) in expect.items())
                check(right, "%s: calls after the catch in the catching function's "
                      "context (%r)" % (tag, into))



def dispatcher():
    """tests/progs/dispatcher.c built with FLAGS, under core.py's checks:
    the hooks' fast paths in assembly (Note [Fentry fast paths]) follow
    the inline cache's slots and the thread cache as hotpath.h does, and
    keep every count under a storm of signals whose handler calls hooked
    functions; with the shared and the static runtime."""
    if platform.machine() != "x86_64":
        return
    src = os.path.join(TOP, "tests/progs/dispatcher.c")
    for tag, link in (("fentry-dispatcher", SHARED),
                      ("fentry-dispatcher-static", (os.path.join(LIB, "libccprof.a"),))):
        # No sibling calls (a call that ends scatter would be main's:
        # Note [Fentry keys]) and no constprop clones, whose names differ.
        exe = build_fentry(tag, ("-fno-optimize-sibling-calls", "-fno-ipa-cp"), link, src)
        if exe is None:
            continue

        def run_profiled(args, clock, profile, exe=exe):
            opts = "clock=%s,output=%s" % (clock, profile)
            return run([exe] + args, env=dict(os.environ, CCPROF_OPTIONS=opts)), profile
        dispatcher_checks(run_profiled, tag, OUT)


def slow_finds():
    """The -mfentry hooks count slow finds (STATS key 15) in their light
    path (Note [Fentry light path]): tests/progs/manycallees.c's 2,048
    callees of one context, 5 rounds, give 6,136 to 8,192 as with
    -finstrument-functions (runtime.py slow_finds), with the shared and
    the static runtime."""
    if platform.machine() != "x86_64":
        return
    src = os.path.join(TOP, "tests/progs/manycallees.c")
    for tag, link in (("fentry-manycallees", SHARED),
                      ("fentry-manycallees-static", (os.path.join(LIB, "libccprof.a"),))):
        exe = build_fentry(tag, ("-I" + os.path.join(TOP, "tests/progs"),), link, src)
        if exe is None:
            continue
        for clock in ("cpu", "cycles"):
            prof = os.path.join(OUT, "%s@%s.ccprof" % (tag, clock))
            r = run([exe, "5"], env=dict(os.environ, CCPROF_OPTIONS="clock=%s,output=%s" % (clock, prof)))
            info = info_json(prof)
            n = info.get("slow_finds")
            check(r.returncode == 0 and r.stdout == "calls f 10240\n" and 6136 <= (n or 0) <= 8192,
                  "%s (%s): slow finds 6,136 to 8,192 (got %s)" % (tag, clock, n))


def disassembly(path):
    """{function: [(mnemonic, operands)]} from objdump -d."""
    funcs, cur = {}, None
    for line in run(["objdump", "-d", "--no-show-raw-insn", path]).stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(\S+)\s*(.*)$", line)
        if m and cur is not None:
            cur.append((m.group(1), m.group(2)))
    return funcs


def light_path_code():
    """Note [Fentry light path]: what __fentry__ runs with only xmm0-7
    saved, rt_fentry_enter_known and every function it calls or jumps
    to, uses no VEX or EVEX instruction (which would clear the upper
    halves of the vector registers), no ymm, zmm or mask register, no x87
    instruction, and calls nothing outside the runtime (libc's string
    functions use AVX) and nothing indirectly.  The runtime built with
    -march=native in place of -mno-avx failed tests/progs/fentry.c's
    value checks (avx_add, spread)."""
    funcs = disassembly(os.path.join(LIB, "libccprof.so"))
    todo, seen, bad = ["rt_fentry_enter_known"], set(), []
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        if f not in funcs:
            bad.append("%s: not found" % f)
            continue
        for mnem, ops in funcs[f]:
            if mnem.startswith(("v", "f")) or re.search(r"%[yz]mm|%k[0-7]\b|%st", ops):
                bad.append("%s: %s %s" % (f, mnem, ops))
            if mnem.startswith(("call", "jmp")) or mnem.startswith("j") and "<" in ops:
                m = re.search(r"<([^>+]+)(\+0x[0-9a-f]+)?>", ops)
                if m is None:
                    bad.append("%s: %s %s (indirect)" % (f, mnem, ops))
                elif m.group(1) != f:
                    todo.append(m.group(1))
    # At least rt_fentry_enter_known and rt_transition_known (and
    # rt_cache_adapt before session 51, where the compiler kept it apart).
    check(len(seen) >= 2 and "rt_transition_known" in seen and not bad,
          "fentry light path: %d functions (%s), no vector register but xmm's low halves, "
          "no x87, no call out of the runtime (%r)" % (len(seen), ", ".join(sorted(seen)), bad[:5]))


def both_flavours(name, fentry_extra=(), extra=()):
    """(tag, OUT/name_tag) for tests/progs/NAME.c built by gcc -O2 and
    `extra` with each flavour of hooks (-mfentry on x86-64 only) and
    linked with the shared runtime, the builds that fail left out (a
    failed check each)."""
    src = os.path.join(TOP, "tests/progs/%s.c" % name)
    flags = [("finstrument", ["-finstrument-functions"])]
    if platform.machine() == "x86_64":
        flags.insert(0, ("fentry", FLAGS + list(fentry_extra)))
    for tag, f in flags:
        exe = os.path.join(OUT, "%s_%s" % (name, tag))
        r = run([GCC, "-g", "-O2"] + f + list(extra) + [src, "-o", exe] + list(SHARED))
        if check(r.returncode == 0, "%s, %s: builds (%s)" % (name, tag, r.stderr[-300:])):
            yield tag, exe


def after_call():
    """Under clock=cycles neither build's hooks take a fast path (Note [The
    hooks' thread] in threads.c): every exit must still reach the slow
    path, or the caller's time after a call goes to its callee until the
    next call finds the frame gone.  tests/progs/aftercall.c's callee
    burns a ninth of what its caller burns after it; the profile's self
    times must show the ratio the program measured.  No sibling calls:
    gcc ends a function's call before its tail call (Note [Fentry
    registers]), and burn's time would be the caller's."""
    for tag, exe in both_flavours("aftercall", ["-fno-optimize-sibling-calls"]):
        prof = os.path.join(OUT, "aftercall_%s.ccprof" % tag)
        r = run([exe, "40"], env=dict(os.environ, CCPROF_OPTIONS="clock=cycles,output=" + prof))
        m = re.search(r"spent callee (\d+) caller (\d+)", r.stderr)
        fns = functions(report(prof)) if r.returncode == 0 and os.path.exists(prof) else {}
        if not check(m and "callee" in fns and "caller" in fns,
                     "aftercall, %s, clock=cycles: runs and profiles (%r)" % (tag, r.stderr[-300:])):
            continue
        want = int(m.group(1)) / max(int(m.group(2)), 1)
        got = fns["callee"]["self_s"] / max(fns["caller"]["self_s"], 1e-9)
        check(fns["callee"]["calls"] == 40 and fns["caller"]["calls"] == 40 and
              abs(got - want) < 0.5 * want,
              "aftercall, %s, clock=cycles: callee's self time %.3f of caller's, as the program "
              "measured (%.3f), and 40 calls each (%d, %d)" % (tag, got, want, fns["callee"]["calls"],
                                                            fns["caller"]["calls"]))


def alt_stack_inside():
    """The -mfentry hooks too: a handler on an alternate stack inside the
    thread's stack leaves the frames it interrupted where they are (Note
    [An alternate stack on the thread's stack] in src/runtime/signals.c;
    robust.py's alt_stack_inside runs the -finstrument-functions build
    under both clocks)."""
    for tag, exe in both_flavours("altinside"):
        for where in ("main", "thread"):
            prof = os.path.join(OUT, "altinside_%s_%s.ccprof" % (tag, where))
            r = run([exe, where], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
            a = arcs(report(prof)) if r.returncode == 0 and os.path.exists(prof) else {}
            into = sorted((k[0], v["calls"]) for k, v in a.items() if k[1] == "after")
            check("calls after 20" in r.stdout and into == [("dive", 20)],
                  "altinside, %s, %s: after() is dive's call, 20 times (%s)" % (tag, where, into))


def shadow_full():
    """Calls past the end of the shadow stack, which cannot grow: the slow
    paths count them, and rt_hot is NULL meanwhile (Note [The hooks'
    thread] in threads.c), because the exits' fast paths no longer look
    at the count.  tests/progs/shadowfull.c dives 80,000 deep under an
    address-space limit, each level calling mark() as it returns, then
    burns 30 ms of CPU time, calls after() 1000 times and burns 10 ms,
    outside any function: the calls past the end are lost and counted,
    the others recorded, mark() only ever in dive, after() at the root,
    and the burns charged to none.
    An exit fast path that ran meanwhile would pop recorded frames for
    the lost calls' exits (the same function from the same call site),
    and mark() would be recorded at levels past the end (the -mfentry
    exits match the frame's stack pointer too: theirs cannot).  An exit
    dropped while rt_hot is NULL would leave the count up and rt_hot
    NULL for good, and the second burn charged to the last after().

    Then the same dive left by a jump from its deepest level, so that no
    call past the end exits (Note [Calls past the end left] in
    machine.c): glibc's longjmp to outer() (the interposed jump pops),
    __builtin_longjmp to outer() (outer's exit, from above the full
    stack's top, clears the count) and to main (after()'s first entry
    finds the dive's frames gone).  A count left up took each of the
    next exits for a lost call's: main's first burn went to outer() or
    dive, its second to after().  No sibling calls: a -finstrument-
    functions exit hook reached by a jump sees the function's CFA, above
    its entry's stack pointer, and ends the calls past the end itself
    (exit_past_end in hooks.c), so that the pops' part went untested.

    Mode grow returns from the dive, but gives the address space back at
    its deepest level: while calls past the end still run, the shadow
    stack must not grow, or the entries pushed on it would be taken for
    theirs (the -finstrument-functions build recorded 14,466 marks at
    the root, 7,233 before the exits' check came).

    Mode top lands a glibc longjmp from 51 calls past the end in the
    frame of the shadow stack's top entry, land(): no entry is left, but
    the calls past the end are, and the count must go (Note [A jump to
    the top entry's frame] in machine.c), or land()'s exit is taken for
    a lost call's and the 30 ms its caller then burns are charged to
    land() (the -finstrument-functions build did so).  Mode builtin-top
    jumps there by __builtin_longjmp, which nothing sees: with -mfentry
    land()'s exit, at its entry's own stack pointer, ends the calls past
    the end (exit_past_end: `<`, not `<=`) and pops land(); with
    -finstrument-functions an exit at the top entry's sp is taken for a
    lost call's (a function inlined into that frame shares it), and the
    burn is land()'s, as docs/semantics.md says: not checked there."""
    for tag, exe in both_flavours("shadowfull", extra=["-fno-optimize-sibling-calls"]):
        for mode in ("return", "grow", "longjmp", "outer", "main", "top", "builtin-top"):
            shadow_full_run(tag, exe, mode)
        for mode in ("return", "longjmp", "outer", "main"):
            shadow_full_run(tag, exe, mode, room=True)


def big_stack():
    """The main thread's stack up to 64 MB, for a dive of 200,000 levels."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = 64 << 20
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_STACK,
                           (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))


def shadow_full_run(tag, exe, mode, room=False):
    """room: no address-space limit, and 200,000 levels, so that the
    shadow stack goes on into three more segments (Note [Shadow stack
    segments] in src/runtime/runtime.h): no call lost, all recorded,
    the deepest level the dive's, and a jump out pops across the links
    (rt_pop_left, rt_discard_gone, exit_past_end's caller)."""
    what = "shadowfull %s%s, %s" % (mode, " with room" if room else "", tag)
    prof = os.path.join(OUT, "shadowfull_%s%s_%s.ccprof" % (mode, "_room" if room else "", tag))
    depth = 200000 if room else 80000
    r = run([exe, str(depth), mode] + (["room"] if room else []),
            env=dict(os.environ, CCPROF_OPTIONS="output=" + prof),
            preexec_fn=big_stack if room else None)
    top = mode in ("top", "builtin-top")
    jumped = mode not in ("return", "grow") and not top
    levels = 0 if jumped else TOP_LEVEL if top else depth + 1
    ok = r.returncode == 0 and r.stdout == "dive %d mark %d after 1000\n" % (levels, levels) and \
        os.path.exists(prof)
    if not check(ok, "%s: runs as bare and writes its profile (%d, %r, %r)"
                 % (what, r.returncode, r.stdout, r.stderr[-300:])):
        return
    rep = report(prof)
    fns = functions(rep)
    info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
    lost = info["lost_calls"]
    dive, mark = (fns.get(f, {}).get("calls", 0) for f in ("dive", "mark"))
    if room:
        # outer() or mark() one level deeper than the dive, but mode main's.
        deepest = depth + 1 + (mode != "main")
        check(lost == 0 and dive == depth + 1 and mark == levels and info["max_depth"] == deepest,
              "%s: every call recorded (dive %d, mark %d, %d lost, of %d and %d) and the "
              "deepest level (%d, want %d)"
              % (what, dive, mark, lost, depth + 1, levels, info["max_depth"], deepest))
    elif top:
        # Every level down to land() records its calls; the 51 below it
        # are lost, and land() returns to the level that called it.
        land = fns.get("land", {}).get("calls", 0)
        check(lost == 51 and dive == TOP_LEVEL and mark == TOP_LEVEL and land == 1 and
              info["max_depth"] == TOP_LEVEL + 1,
              "%s: the 51 calls past the end lost, the others recorded (dive %d, mark %d, land %d, "
              "%d lost, max depth %d)" % (what, dive, mark, land, lost, info["max_depth"]))
    elif jumped:
        # Every level enters dive; none returns to call mark().
        check(lost > 0 and dive + lost == 80001 and dive > 60000 and mark == 0,
              "%s: the calls past the end lost and counted, the others recorded "
              "(dive %d, %d lost, of 80001)" % (what, dive, lost))
    else:
        # A call is recorded where its frame fits: the first `dive` levels
        # of the dive, and mark() at each of them but the deepest, where
        # mark's own frame would be one past the end; in mode grow there
        # too, as the stack may grow again once the calls past the end
        # have returned.
        marks = dive if mode == "grow" else dive - 1
        check(lost > 0 and dive + mark + lost == 2 * 80001 and dive > 60000 and mark == marks,
              "%s: the calls past the end lost and counted, the others recorded "
              "(dive %d, mark %d = %d, %d lost, of 2 x 80001)" % (what, dive, mark, marks, lost))
    names = lambda c: [e["name"] for e in c["history"]]
    at = lambda f: [(names(c), c["entries"] + c["recursive"]) for c in rep["contexts"]
                    if names(c)[-1:] == [f]]
    check(at("mark") == ([] if jumped else [(["dive", "mark"], mark)]) and
          at("after") == [(["after"], 1000)] and
          at("outer") == ([(["outer"], 1)] if mode in ("longjmp", "outer") else []),
          "%s: mark() in dive alone, after() at the root, 1000 calls, outer() at the root "
          "if called (%r, %r, %r)" % (what, at("mark")[:4], at("after")[:4], at("outer")[:4]))
    m = re.search(r"burnt (\d+) (\d+) (\d+)", r.stderr)
    first, second, third = (int(m.group(i)) / 1e9 for i in (1, 2, 3)) if m else (0, 0, 0)
    if mode == "top" or (mode == "builtin-top" and tag == "fentry"):
        land_s = fns.get("land", {}).get("self_s", 0)
        check(third > 0.005 and fns["dive"]["self_s"] > 0.7 * third and land_s < third / 3,
              "%s: the burn after land() returned (%.3f s of CPU) charged to dive (%.3f s), "
              "not to land() (%.3f s)" % (what, third, fns["dive"]["self_s"], land_s))
    # Mode main: nothing sees the jump before after() is called, and the
    # first burn is still in dive.
    at_root = second if mode == "main" else first + second
    check(second > 0.005 and rep["root_time_s"] > 0.7 * at_root and
          fns["after"]["self_s"] < second / 3,
          "%s: main's burns after the dive (%.3f s, %.3f s of CPU) charged to no function "
          "(%.3f s), not to after() (%.3f s)"
          % (what, first, second, rep["root_time_s"], fns["after"]["self_s"]))


SEGMENT = 65535  # the shadow stack's first segment, but its sentinel
TOP_LEVEL = SEGMENT - 1  # shadowfull.c's: the level whose callee is the top entry


def segment_stepped():
    """A signal handler that runs instrumented code at every instruction
    of a call made where the shadow stack's first segment ends
    (tests/progs/segstep.c; Note [Shadow stack segments] in
    src/runtime/runtime.h): its calls go on into the next segment while
    the interrupted hook holds a pointer into the first.  Every call
    recorded or counted lost, none charged to another function, and the
    deepest the stack went: the dive, y, x and the handler's r(3).  Then
    each round in a child of its own, whose next segment is new, as in a
    process not so deep before: the shadow stack was one mapping that
    grew with mremap, which may move it, and a handler's call finding it
    full moved it under the hook: 33 of 76 children died of SIGSEGV (34
    of 69 with -finstrument-functions) with x's entry the first
    segment's last or the one before."""
    for tag, exe in both_flavours("segstep", extra=["-fno-optimize-sibling-calls"]):
        for offset in (0, 1, 2):
            what = "segment stepped, %s, x's entry %s" % (tag, ("the next segment's first",
                                                               "the first segment's last",
                                                               "the one before")[offset])
            prof = os.path.join(OUT, "segstep_%d_%s.ccprof" % (offset, tag))
            r = run([exe, str(offset)], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
            if r.stdout.strip() == "unsupported":
                print("# segment_stepped: no trap flag on this architecture, skipped")
                return
            n = counts(r.stdout)
            handled = int(r.stdout.split("handled")[1].split()[0]) if "handled" in r.stdout else 0
            if not check(r.returncode == 0 and os.path.exists(prof) and handled > 50,
                         "%s: runs as bare and writes its profile (%d, %r, %r)"
                         % (what, r.returncode, r.stdout, r.stderr[-300:])):
                continue
            fs = functions(report(prof))
            info = json.loads(run([CCPROF, "info", "--json", prof]).stdout)
            hcalls = sum(v["calls"] for k, v in fs.items() if k[0] == "h" and k[1:].isdigit())
            others = sorted(k for k in fs if k not in ("dive", "y", "x", "r") and not
                            (k[0] == "h" and k[1:].isdigit()))
            got = dict((f, fs.get(f, {}).get("calls", 0)) for f in ("dive", "y", "x", "r"))
            over = dict((f, (got[f], n[f])) for f in got if got[f] > n[f])
            recorded = sum(got.values()) + hcalls
            check(got["dive"] == n["dive"] == SEGMENT - offset - 1 and not over and not others and
                  recorded + info["lost_calls"] == sum(n.values()) + handled,
                  "%s: every call recorded or lost, none charged elsewhere (%r; %d recorded, "
                  "%d lost, of %d; over: %r; others: %r)"
                  % (what, got, recorded, info["lost_calls"], sum(n.values()) + handled, over,
                     others[:4]))
            want = SEGMENT - offset + 1 + 4
            check(info["max_depth"] == want, "%s: max depth %d, the dive, y, x and r(3) (got %d)"
                  % (what, want, info["max_depth"]))
            r = run([exe, str(offset), "fork"], env=dict(os.environ, CCPROF_OPTIONS="output=" + prof))
            m = re.match(r"forked (\d+) crashed (\d+)$", r.stdout.strip())
            check(r.returncode == 0 and m and int(m.group(1)) > 50 and m.group(2) == "0",
                  "%s, each round in a child where the next segment is new: no child crashed "
                  "(%r, %r)" % (what, r.stdout.strip(), r.stderr[-200:]))


builds()
exceptions()
dispatcher()
slow_finds()
after_call()
alt_stack_inside()
shadow_full()
segment_stepped()
if platform.machine() == "x86_64":
    light_path_code()
finish()
