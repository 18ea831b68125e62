"""Hostile files: whatever is passed as a profile, `ccprof report`, `ccprof
info` and `ccprof report --json` end with status 1 and exactly one line
"ccprof: FILE: REASON" on stderr, within 10 s, in bounded memory, never by
a signal.  (Files that stay valid after damage, or are valid but extreme,
may instead succeed: status 0, nothing on stderr.)

Every file is made here, deterministically, from the valid profiles that
tests/fuzz/gen_seeds.c writes through ccp_format_encode (built against
build/lib/libccprof-tool.a) or from scratch with the small encoder below
(docs/format.md), the CRC recomputed where a damaged file should reach the
checks behind it.  The files stay in tests/out/t_hostile/hostile/; a failure names
its file in a '#' line.  HOSTILE_TIMING=1 prints the time taken.
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib

from ccp import *

HOST = os.path.join(OUT, "hostile")
TIMEOUT = 10
COMMANDS = (("report",), ("info",), ("report", "--json"), ("convert", "--to", "html"))
RSS_LIMIT_KB = 2 * 1024 * 1024  # 2 GiB
HAVE_TIME = os.access("/usr/bin/time", os.X_OK)

# ---- a tiny encoder (docs/format.md) -------------------------------------

MAGIC = b"\x89CCP\r\n\x1a\n"


def header(version=1, hsize=16):
    return MAGIC + version.to_bytes(2, "little") + hsize.to_bytes(2, "little") + b"\x01\x02\x03\x04"


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def vs(*values):
    return b"".join(varint(v) for v in values)


def section(tag, payload, length=None):
    return varint(tag) + varint(len(payload) if length is None else length) + payload


def with_crc(body):
    """body (header and sections) + END with the CRC of everything before it."""
    return body + b"\x00\x04" + zlib.crc32(body).to_bytes(4, "little")


def fix_crc(data):
    """Recompute the CRC of a file that ends in the END section's shape."""
    return with_crc(data[:-6])


def strings_sec(*strs, count=None):
    p = bytearray(varint(len(strs) if count is None else count))  # += in place
    for s in strs:
        p += varint(len(s)) + s
    return section(1, bytes(p))


# META: program #1, argc 0, pid, start, end, clock, interval, tps, overhead,
# options #0, hostname #0.
META = section(2, vs(1, 0, 1, 0, 0, 0, 0, 1000, 0, 0, 0))
MODULES = section(3, vs(0))
# Two cost centres: function "main" (#2), function "f" (#3), no module.
CCS = section(4, vs(2, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0))
STATS = section(6, vs(9, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0))
STRS = strings_sec(b"", b"./t", b"main", b"f")


def profile(strings=STRS, meta=META, modules=MODULES, ccs=CCS, threads=None, stats=STATS,
            hdr=None):
    """A file from its sections; threads defaults to one thread with the
    contexts [main] and [main] [f]."""
    if threads is None:
        threads = [section(5, vs(7, 0, 2, 0, 1, 1, 1, 0, 1, 1, 1, 3, 1, 0, 1))]
    return with_crc((hdr or header()) + strings + meta + modules + ccs + b"".join(threads) + stats)


def thread(*contexts, tid=7, raw=None):
    """A THREAD section; each context (shared, entries, E, R, T)."""
    p = bytearray(vs(tid, 0, len(contexts)))  # += in place
    for shared, entries, e, r, t in contexts:
        p += vs(shared, len(entries), *entries, e, r, t)
    return section(5, bytes(p) if raw is None else raw)


def named(*names):
    """STRINGS and CCS sections for functions named names: CC i is
    names[i], string 2 + i (string 1 is the program)."""
    strs = strings_sec(b"", b"./t", *names)
    ccs = section(4, vs(len(names)) + b"".join(vs(0, 2 + i, 0, 0, 0, 0)
                                               for i in range(len(names))))
    return strs, ccs


def histories(*contexts, tid=7):
    """A THREAD section from (history, E, R, T), a history a list of
    (cc, marked): each shares its prefix with the one before."""
    out, prev = [], []
    for hist, e, r, t in contexts:
        h = [cc << 1 | marked for cc, marked in hist]
        shared = 0
        while shared < min(len(prev), len(h)) and prev[shared] == h[shared]:
            shared += 1
        out.append((shared, h[shared:], e, r, t))
        prev = h
    return thread(*out, tid=tid)


def run_long(args, limit=60):
    """args run with a generous time limit whose expiry is the failure:
    (CompletedProcess, or None after limit seconds)."""
    try:
        return subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        return None


# ---- running ccprof --------------------------------------------------------


def run_one(path, cmd, measure=False):
    """(status or None on timeout, stderr, peak RSS in KB or None)."""
    args = [CCPROF] + list(cmd) + [path]
    tf = None
    if measure and HAVE_TIME:
        tf = os.path.join(HOST, "time.out")
        args = ["/usr/bin/time", "-f", "%M", "-o", tf] + args
    try:
        r = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return None, (e.stderr or b"").decode("utf-8", "replace"), None
    rss = None
    status = r.returncode
    if tf:
        # "%M" alone, after "Command terminated by signal N" if it was.
        text = open(tf).read()
        words = text.split()
        if words and words[-1].isdigit():
            rss = int(words[-1])
        if "terminated by signal" in text:
            status = -int(text.split("signal")[1].split()[0])
    return status, r.stderr.decode("utf-8", "replace"), rss


def verdict(status, err, allow_success):
    """None if the outcome is acceptable, else what went wrong."""
    if status is None:
        return "still running after %d s" % TIMEOUT
    if status < 0:
        return "killed by signal %d" % -status
    if allow_success and status == 0:
        return None if err == "" else "status 0 but stderr %r" % err[:200]
    lines = err.splitlines()
    if status != 1:
        return "status %d (stderr %r)" % (status, err[:200])
    if len(lines) != 1 or not err.endswith("\n") or not lines[0].startswith("ccprof: "):
        return "stderr is not one 'ccprof: ' line: %r" % err[:300]
    return None


def expect_fail(what, path, valid=False, measure=False, cmds=COMMANDS):
    """One assertion per command for one file: it fails with one 'ccprof: '
    line, or with valid, it succeeds (status 0, nothing on stderr: a clean
    rejection of a valid file is a failure).  After a timeout the other
    commands are not run (they would wait as long): they fail too."""
    hung = False
    for cmd in cmds:
        if hung:
            check(False, "%s: %s not run: the previous command hung" % (what, " ".join(cmd)))
            continue
        status, err, rss = run_one(path, cmd, measure)
        hung = status is None
        if valid:
            bad = verdict(status, err, True)
            if bad is None and status != 0:
                bad = "a valid file rejected"
        else:
            bad = verdict(status, err, False)
        if bad is None and measure and rss is not None and rss > RSS_LIMIT_KB:
            bad = "peak RSS %d KB" % rss
        note = " (peak RSS %d MB)" % (rss // 1024) if rss is not None else ""
        if valid:
            desc = "%s: %s succeeds, status %s, nothing on stderr%s" % (what, " ".join(cmd), status, note)
        else:
            desc = "%s: %s fails with one 'ccprof: ' line%s" % (what, " ".join(cmd), note)
        if not check(bad is None, desc):
            print("# %s %s: %s" % (" ".join(cmd), path, bad))
            print("# stderr: %r" % err[:300])


def valid_output(path, *cmd):
    """ccprof CMD PATH's standard output (JSON decoded if --json is in cmd),
    or None if it does not succeed in TIMEOUT seconds with nothing on
    stderr (the reason printed as a comment)."""
    try:
        r = subprocess.run([CCPROF] + list(cmd) + [path], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        print("# %s %s: still running after %d s" % (" ".join(cmd), path, TIMEOUT))
        return None
    if r.returncode != 0 or r.stderr:
        print("# %s %s: status %d, stderr %r" % (" ".join(cmd), path, r.returncode, r.stderr[:300]))
        return None
    return json.loads(r.stdout) if "--json" in cmd else r.stdout


def json_depth(text):
    """The deepest nesting of objects in a JSON text, counted without
    decoding it (json.loads recurses, and a tree 20000 deep is past
    Python's recursion limit)."""
    depth = deepest = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[{}]', text):
        if m.group() == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif m.group() == "}":
            depth -= 1
    return deepest


def expect_fail_all(what, paths, allow_success=False):
    """One assertion per command for a family of files; the first few
    failures are described and their files kept."""
    for cmd in COMMANDS:
        bad = []
        succeeded = 0
        for p in paths:
            status, err, _ = run_one(p, cmd)
            v = verdict(status, err, allow_success)
            if v:
                bad.append((p, v))
            elif status == 0:
                succeeded += 1
        extra = ", %d still valid" % succeeded if allow_success else ""
        if not check(not bad, "%s: %s on %d files: %s%s (%d bad)" % (
                what, " ".join(cmd), len(paths),
                "exit 0 or 1 with one line" if allow_success else "exit 1 with one 'ccprof: ' line",
                extra, len(bad))):
            for p, v in bad[:5]:
                print("# %s %s: %s" % (" ".join(cmd), p, v))


def write(name, data):
    path = os.path.join(HOST, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ---- the corpus ------------------------------------------------------------


GEN = os.path.join(OUT, "gen_seeds")


def make_generator():
    exe = GEN
    r = run([CC, "-std=c11", "-D_GNU_SOURCE", "-g", "-O1", "-I" + os.path.join(TOP, "include"),
             "-I" + os.path.join(TOP, "src"), os.path.join(TOP, "tests/fuzz/gen_seeds.c"),
             os.path.join(TOP, BUILD, "lib", "libccprof-tool.a"), "-lm", "-ldl", "-pthread",
             "-o", exe])
    if not check(r.returncode == 0, "tests/fuzz/gen_seeds.c builds against libccprof-tool.a"):
        sys.stderr.write(r.stderr)
        finish()
    seeds = os.path.join(HOST, "seeds")
    os.makedirs(seeds)
    r = run([exe, seeds])
    check(r.returncode == 0, "gen_seeds writes the valid profiles")
    return seeds


def valid_baseline(seeds):
    """The generated profiles are valid: every command succeeds on them."""
    for name in sorted(os.listdir(seeds)):
        path = os.path.join(seeds, name)
        for cmd in COMMANDS + (("report", "--graph", "--contexts", "--top", "0"),):
            status, err, _ = run_one(path, cmd)
            check(status == 0 and err == "", "valid %s: %s succeeds" % (name, " ".join(cmd)))


def truncations(base, name):
    data = open(base, "rb").read()
    n = len(data)
    step = max(1, n // 200)
    lengths = sorted(set(range(0, n, step)) | set(range(max(0, n - 24), n)))
    d = os.path.join(HOST, "trunc")
    os.makedirs(d)
    paths = []
    for k in lengths:
        p = os.path.join(d, "%s.%d" % (name, k))
        with open(p, "wb") as f:
            f.write(data[:k])
        paths.append(p)
    expect_fail_all("%d truncations of %s (%d bytes)" % (len(paths), name, n), paths)


def bit_flips(base, name, count=300):
    """count single-bit flips spread over the file (deterministic), as they
    are (the CRC must catch them) and with the CRC recomputed (the
    structural checks must; some flips leave a valid file)."""
    data = open(base, "rb").read()
    n = len(data)
    d = os.path.join(HOST, "flip")
    os.makedirs(d)
    raw, fixed = [], []
    for k in range(count):
        i = (k * 7919 + k // 8) % n
        bit = (k * 3) % 8
        m = bytearray(data)
        m[i] ^= 1 << bit
        p = os.path.join(d, "%s.%d.%d" % (name, i, bit))
        with open(p, "wb") as f:
            f.write(m)
        raw.append(p)
        if k % 2 == 0 and i < n - 6:  # not in END itself
            p = p + ".crc"
            with open(p, "wb") as f:
                f.write(fix_crc(bytes(m)))
            fixed.append(p)
    expect_fail_all("%d bit flips of %s" % (len(raw), name), raw)
    expect_fail_all("%d bit flips of %s, CRC recomputed" % (len(fixed), name), fixed,
                    allow_success=True)


def huge_counts():
    """Counts and lengths far beyond the file, CRC recomputed so that the
    reader's bounds (not the checksum) must catch them."""
    files = {
        "strings count 2^60": profile(strings=section(1, vs(1 << 60, 0))),
        "string length 2^50": profile(strings=section(1, vs(2, 0, 1 << 50) + b"abc")),
        "argc 2^60": profile(meta=section(2, vs(1, 1 << 60, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        "modules count 2^60": profile(modules=section(3, vs(1 << 60, 0, 0, 0))),
        "modules count 2^31": profile(modules=section(3, vs(1 << 31, 0, 0, 0))),
        "cost centres count 2^60": profile(ccs=section(4, vs(1 << 60, 0, 2, 0, 0, 0, 0))),
        "contexts count 2^60": profile(threads=[thread(raw=vs(7, 0, 1 << 60, 0, 1, 1, 1, 0, 1))]),
        "contexts count 2^32": profile(threads=[thread(raw=vs(7, 0, 1 << 32, 0, 1, 1, 1, 0, 1))]),
        "history length 2^40": profile(threads=[thread(raw=vs(7, 0, 1, 0, 1 << 40, 1, 1, 0, 1))]),
        "shared prefix 2^40": profile(threads=[thread(raw=vs(7, 0, 2, 0, 1, 1, 1, 0, 1,
                                                            1 << 40, 1, 3, 1, 0, 1))]),
        "stats count 2^60": profile(stats=section(6, vs(1 << 60, 1, 0))),
        "ALLOC records count 2^60": profile(stats=STATS + section(7, vs(0, 0, 1 << 60, 0, 0, 1, 1))),
        "ALLOC record of context 2^40": profile(stats=STATS + section(7, vs(0, 0, 1, 0, 1 << 40, 1, 1))),
        "ALLOC bytes past 2^64": profile(stats=STATS + section(7, vs((1 << 64) - 1, 0, 1, 0, 0, 1, 0))),
        "ALLOC before STATS": with_crc(header() + STRS + META + MODULES + CCS + section(7, vs(0, 0, 0)) + STATS),
        "HEAP records count 2^60": profile(stats=STATS + section(7, vs(0, 0, 0)) +
                                           section(8, vs(1, 0, 0, 0, 1 << 60, 0, 0, 1, 1))),
        "HEAP samples count 2^60": profile(stats=STATS + section(7, vs(0, 0, 0)) +
                                           section(8, vs(1, 0, 0, 0, 0, 1 << 60, 0, 0, 0))),
        "HEAP sample records 2^60": profile(stats=STATS + section(7, vs(0, 0, 0)) +
                                            section(8, vs(1, 0, 0, 0, 0, 1, 0, 0, 1 << 60, 0))),
        "HEAP sample steps past 2^64": profile(stats=STATS + section(7, vs(0, 0, 0)) +
                                               section(8, vs(1, 0, 0, 0, 0, 2, (1 << 64) - 1,
                                                             0, 0, 1, 0, 0))),
        "HEAP live past allocated": profile(stats=STATS + section(7, vs(0, 0, 1, 0, 0, 5, 1)) +
                                            section(8, vs(1, 6, 0, 0, 1, 0, 0, 6, 1, 0))),
        "HEAP without ALLOC": profile(stats=STATS + section(8, vs(1, 0, 0, 0, 0, 0))),
        "section length 2^60": with_crc(header() + varint(1) + varint(1 << 60) + b"\x01\x00"),
        "section length 2^64-1": with_crc(header() + varint(1) + varint((1 << 64) - 1) + b"\x01\x00"),
        "unknown section length 2^62": with_crc(header() + varint(9) + varint(1 << 62)),
        "string index 2^40": profile(meta=section(2, vs(1 << 40, 0, 1, 0, 0, 0, 0, 1000, 0, 0, 0))),
        "cost-centre index 2^31 in a history": profile(
            threads=[thread((0, [(1 << 31) * 2 + 1], 1, 0, 1))]),
        "cost-centre index 5 of 2 in a history": profile(threads=[thread((0, [11], 1, 0, 1))]),
        "entry 2^40 in a history": profile(threads=[thread((0, [1 << 40], 1, 0, 1))]),
        "module index 2^33": profile(ccs=section(4, vs(1, 0, 2, 1 << 33, 0, 0, 0))),
        "cost-centre kind 2^40": profile(ccs=section(4, vs(1, 1 << 40, 2, 0, 0, 0, 0))),
        "clock 99": profile(meta=section(2, vs(1, 0, 1, 0, 0, 99, 0, 1000, 0, 0, 0))),
        "line 2^32": profile(ccs=section(4, vs(1, 0, 2, 0, 0, 0, 1 << 32))),
        "11-byte varint": with_crc(header() + b"\x01" + b"\xff" * 10 + b"\x01"),
        "overlong varint": profile(strings=section(1, b"\x84\x00" + vs(0, 3) + b"./t" + vs(4) + b"main" + vs(1) + b"f")),
        "header size 0xffff": profile(hdr=header(hsize=0xFFFF)),
        "header size 8": profile(hdr=header(hsize=8)),
        "version 99": profile(hdr=header(version=99)),
        "version 0": profile(hdr=header(version=0)),
        "END length 2^40": header() + STRS + META + MODULES + CCS + STATS + b"\x00" + varint(1 << 40) + b"\0\0\0\0",
        "no END": header() + STRS + META + MODULES + CCS + STATS,
        "bytes after END": profile() + b"\x00",
        "sections out of order": with_crc(header() + STRS + MODULES + META + CCS + STATS),
        "duplicate STRINGS": with_crc(header() + STRS + STRS + META + MODULES + CCS + STATS),
        "text-mode line endings": profile().replace(b"\r\n", b"\n", 1),
        "string with a NUL": profile(strings=strings_sec(b"", b"./\0t", b"main", b"f")),
        "string 0 not empty": profile(strings=strings_sec(b"x", b"./t", b"main", b"f")),
        "unmarked running entry": profile(threads=[thread((0, [0], 1, 0, 1))]),
        "cost centre marked twice": profile(threads=[thread((0, [1, 3, 1], 1, 0, 1))]),
    }
    for what, data in sorted(files.items()):
        p = write("huge." + what.replace(" ", "_").replace("/", "_"), data)
        expect_fail(what, p)


def quadratic_histories():
    """Prefix sharing: each 6-byte context repeats a 4000-entry history.
    Past the cap (64 entries per input byte + 2^22) the reader refuses the
    file; well within it, the file is valid and must be reported quickly."""
    L = 4000
    first = (0, [0] * (L - 1) + [1], 1, 0, 1)  # main ... main [main]
    rep = (L, [], 1, 0, 1)
    over = profile(threads=[thread(first, *([rep] * 3000))])  # 12M entries in ~22 KB
    expect_fail("12M history entries from %d KB" % (len(over) // 1024),
                write("quadratic.over", over), measure=True)
    # Within the cap, about the most a byte can stand for: 256 KB of 6-byte
    # contexts repeating a 350-entry history, 15M entries.  Valid; the
    # reader and the model's merge walk every entry, and the writers print
    # the one context they add up to (repeated_histories below).
    L = 350
    first = (0, [0] * (L - 1) + [1], 1, 0, 1)
    rep = (L, [], 1, 0, 1)
    n = (256 << 10) // 6
    big = profile(threads=[thread(first, *([rep] * n))])
    what = "%dM shared history entries from %d KB (within the cap)" % (n * L // 1000000,
                                                                       len(big) // 1024)
    path = write("quadratic.within", big)
    expect_fail(what, path, valid=True, measure=True)
    j = valid_output(path, "report", "--json")
    check(j is not None and j["total_calls"] == n + 1 and j["ncontexts"] == 1
          and [len(c["history"]) for c in j["contexts"]] == [L],
          "%s: %d calls, all in one context %d entries long (%s)"
          % (what, n + 1, L, j and (j["total_calls"], [len(c["history"]) for c in j["contexts"]][:3])))


def extreme_values():
    """Valid files at the edges of what the format allows."""
    # Calls or times adding up past 2^64 would wrap every total a view
    # makes: the reader refuses them (docs/format.md section 4); up to
    # 2^64 - 1 is valid.
    top = (1 << 64) - 1
    full = profile(threads=[thread((0, [1], 1, 0, 1 << 63), (1, [3], 1, 0, (1 << 63) - 2),
                                   (0, [], top - 2, 0, 0))])
    path = write("extreme.full", full)
    expect_fail("calls and time adding up to 2^64 - 1", path, valid=True)
    j = valid_output(path, "report", "--json")
    calls = j and sum(c["entries"] + c["recursive"] for c in j["contexts"])
    check(j is not None and calls == top and j["total_ticks"] == top - 1,
          "calls and time adding up to 2^64 - 1: calls in the contexts %s = 2^64 - 1, "
          "total ticks %s = 2^64 - 2" % (calls, j and j["total_ticks"]))
    for i, (name, ctxs) in enumerate((
            ("times adding up past 2^64", [(0, [1], 1, 0, 1 << 63), (1, [3], 1, 0, 1 << 63)]),
            ("calls adding up past 2^64 within a context", [(0, [1], 1 << 63, 1 << 63, 0)]),
            ("calls adding up past 2^64 across threads", None))):
        threads = [thread(*ctxs)] if ctxs else [thread((0, [1], top, 0, 0)),
                                                thread((0, [1], 1, 0, 0), tid=8)]
        path = write("extreme.wrap%d" % i, profile(threads=threads))
        expect_fail(name, path)
        status, err, _ = run_one(path, ("info",))
        check("past 2^64" in err, "%s: the reason says so (%r)" % (name, err.strip()))
    # Two valid files whose sum would wrap: merge refuses, names the file.
    half = [write("extreme.half%d" % i, profile(threads=[thread((0, [1], 1, 0, 1 << 63))]))
            for i in (1, 2)]
    out = os.path.join(HOST, "extreme.merged")
    r = subprocess.run([CCPROF, "merge", "-o", out] + half, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and half[1] in r.stderr
          and "past 2^64" in r.stderr and not os.path.exists(out),
          "merge: times adding up past 2^64 fail with one line naming the file (%d, %r)"
          % (r.returncode, r.stderr.strip()))
    # One history through 20000 cost centres, each marked: a stack tree
    # 20000 deep (no recursion in the model or the writers may overflow).
    n = 20000
    strs = strings_sec(b"", b"./t", *[b"f%d" % i for i in range(n)])
    ccs = section(4, vs(n) + b"".join(vs(0, 2 + i, 0, 0, 0, 0) for i in range(n)))
    deep = profile(strings=strs, ccs=ccs,
                   threads=[thread((0, [2 * i + 1 for i in range(n)], 1, 0, 1))])
    path = write("extreme.deep", deep)
    expect_fail("a stack tree 20000 deep", path, valid=True)
    out = valid_output(path, "report")
    check(out is not None and json_depth(run([CCPROF, "report", "--json", path]).stdout) == n + 2,
          "a stack tree 20000 deep: report --json nests f0 ... f19999 under the root, "
          "%d objects deep with the report's own" % (n + 2))


def subtracted_key():
    """STATS key 11, clock=cycles' subtracted ticks: shown when the file has
    it, estimated (overhead x calls) in a file from before it existed, and a
    merge with such a file does not pretend to know."""
    # clock 1 (cycles), 1000 ticks/s, an estimate of 5 ticks per call.
    meta = section(2, vs(1, 0, 1, 0, 0, 1, 0, 1000, 5000, 0, 0))
    calls = vs(1, 2) + b"".join(vs(k, 0) for k in range(2, 11))
    old = write("subtracted.old", profile(meta=meta, stats=section(6, vs(10) + calls)))
    new = write("subtracted.new", profile(meta=meta, stats=section(6, vs(11) + calls + vs(11, 3))))
    huge = write("subtracted.huge",
                 profile(meta=meta, stats=section(6, vs(11) + calls + vs(11, (1 << 64) - 1))))
    rep = lambda path: run([CCPROF, "report", path]).stdout
    inf = lambda path: json.loads(run([CCPROF, "info", "--json", path]).stdout)
    check("subtracted   0.010000 secs, the profiler's estimated own cost (per call x calls)" in rep(old) and inf(old)["subtracted_ticks"] == 0,
          "a file without STATS key 11: the report estimates 2 calls x 5 ticks")
    check("subtracted   0.003000 secs, the profiler's estimated own cost:" in rep(new)
          and inf(new)["subtracted_ticks"] == 3,
          "STATS key 11: the report and info show the 3 ticks recorded")
    expect_fail("subtracted ticks 2^64 - 1", huge, valid=True)
    j = valid_output(huge, "info", "--json")
    check(j is not None and j["subtracted_ticks"] == (1 << 64) - 1,
          "subtracted ticks 2^64 - 1: info shows them (%s)" % (j and j["subtracted_ticks"]))
    both = os.path.join(HOST, "subtracted.merged")
    ok = subprocess.run([CCPROF, "merge", "-o", both, new, new], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode == 0
    check(ok and inf(both)["subtracted_ticks"] == 6, "merge adds subtracted ticks")
    ok = subprocess.run([CCPROF, "merge", "-o", both, new, old], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode == 0
    check(ok and inf(both)["subtracted_ticks"] == 0 and "(per call x calls)" in rep(both),
          "merge with a file without key 11: subtracted unknown, estimated")


def hook_cost_bounded():
    """report --hook-cost on 50,000 functions that are all candidates (an
    estimate of 10^6 ticks per call) and 900 that do work: the checks of
    names and files against the latter stay bounded (Note [Bounded
    suggestions] in src/model/hookcost.c)."""
    n = 50000
    strs = strings_sec(b"", b"./t", b"main", *[b"f%d" % i for i in range(n)])
    ccs = section(4, vs(n + 1, 0, 2, 0, 0, 0, 0) + b"".join(vs(0, 3 + i, 0, 0, 0, 0)
                                                               for i in range(n)))
    meta = section(2, vs(1, 0, 1, 0, 0, 0, 0, 1000, 10 ** 9, 0, 0))
    ctxs = [(0, [1], 1, 0, 0)] + [(1, [2 * (i + 1) + 1], 1 + i % 7, 0, 1 if i < 900 else 0)
                                  for i in range(n)]
    path = write("hookcost.many", profile(strings=strs, ccs=ccs, meta=meta,
                                          threads=[thread(*ctxs)]))
    expect_fail("50,000 candidates for report --hook-cost", path, valid=True,
                cmds=(("report", "--hook-cost"), ("report", "--json", "--hook-cost")))
    j = valid_output(path, "report", "--json", "--hook-cost")
    calls = 1 + sum(1 + i % 7 for i in range(n))
    h = j and j["hook_cost"]
    check(h is not None and h["calls"] == calls and h["hooks_s"] == calls * 1000
          and len(h["functions"]) == n + 1,
          "50,000 candidates for report --hook-cost: %d calls, hooks 1000 s each, every "
          "function listed (%s)" % (calls, h and (h["calls"], h["hooks_s"], len(h["functions"]))))


def hook_cost_debt():
    """report --hook-cost under clock=cycles when an estimate too high left
    a debt that ate the work of the functions that paid it (Note [A debt
    that ate work] in src/model/hookcost.c): hookcost.c's run, as 3 in 8
    runs on this VM recorded it, made here so that the case does not
    depend on the machine.  A 46 ns estimate, 3 M calls of helpers, 138
    ms subtracted, and rescale's 400 calls and work's one showing no self
    time.  The old build counted them as doing no work and suggested
    leaving out their file, a.c, whole; now their self times are taken up
    to 5 % of what was subtracted (6.9 ms) and a.c is not suggested:
    add_one by name, the header by file.  With rescale's 10 ms kept, the
    same advice."""
    names = [b"main", b"work", b"add_one", b"rescale", b"clamp01"]
    strs = strings_sec(b"", b"./t", *names, b"/src/a.c", b"/src/h.h")
    files = [7, 7, 7, 7, 8]
    ccs = section(4, vs(len(names)) + b"".join(vs(0, 2 + i, 0, 0, files[i], 10 + i)
                                               for i in range(len(names))))
    # clock 1 (cycles), 10^9 ticks a second (a tick a ns), 46 ns a call.
    meta = section(2, vs(1, 0, 1, 0, 0, 1, 0, 10 ** 9, 46000, 0, 0))
    calls = 1 + 1 + 2000000 + 400 + 1000000
    subtracted = 46 * calls
    for rescale_ns, what in ((0, "eaten"), (10 ** 7, "kept")):
        ctxs = histories(([(0, 1)], 1, 0, 0), ([(0, 1), (1, 1)], 1, 0, 0),
                         ([(0, 1), (1, 1), (2, 1)], 2000000, 0, 0),
                         ([(0, 1), (1, 1), (3, 1)], 400, 0, rescale_ns),
                         ([(0, 1), (1, 1), (4, 1)], 1000000, 0, 0))
        stats = section(6, vs(11) + vs(1, calls) + b"".join(vs(k, 0) for k in range(2, 11)) +
                        vs(11, subtracted))
        path = write("hookcost.debt." + what, profile(strings=strs, ccs=ccs, meta=meta,
                                                      threads=[ctxs], stats=stats))
        j = valid_output(path, "report", "--json", "--hook-cost")
        h = j and j["hook_cost"]
        marked = h and sorted(f["name"] for f in h["functions"] if f["hooks_outweigh"])
        check(h is not None and h["exclude_file_list"] == ["h.h"] and
              h["exclude_function_list"] == ["add_one"] and marked == ["add_one", "clamp01"],
              "hook-cost, clock=cycles, rescale's time %s: add_one by name, h.h by file, not "
              "a.c (%s)" % (what, h and (h["exclude_file_list"], h["exclude_function_list"],
                                          marked)))
    text = run([CCPROF, "report", "--hook-cost", path]).stdout
    check("Self\ntimes are taken up to 5 % of what the hooks subtracted" in text and
          "bound/call" in text, "hook-cost, clock=cycles: the text says how self times are "
          "bounded, and shows the bounds")


def cycles_bounded():
    """report --cycles in near linear time (src/model/cycles.c).  Not a
    timing test: each file is sized so that the quadratic code took
    minutes (measured: about 8 and 2) where the fixed one takes a fraction
    of a second; the limit is a generous 60 s and its expiry the failure.

    - 100 cycles (r x … y … x … y … e_i), each 32,000 items long (a
      history [main] r (x y)^8000 [e_i] [r]): a naive search for the least
      rotation, the key that joins a cycle's rotations, is quadratic in
      the length;
    - 30,000 cycles (r y0 … y99 e_i) through r, unmarked in every closing
      context: trying each context against every cycle of r is quadratic
      in their number (Note [Candidate cycles])."""
    k, n = 8000, 100
    strs, ccs = named(b"main", b"r", b"x", b"y", *[b"e%d" % i for i in range(n)])
    base = [(0, 1), (1, 0)] + [(2, 0), (3, 0)] * k
    path = write("cycles.long", profile(strings=strs, ccs=ccs, threads=[histories(
        *[(base + [(4 + i, 1), (1, 1)], 1, 0, 1) for i in range(n)])]))
    r = run_long([CCPROF, "report", "--cycles", path])
    rows = [l.split() for l in r.stdout.decode().splitlines() if l.endswith("→ r")] if r else []
    check(r is not None and r.returncode == 0 and r.stderr == b"" and len(rows) == n
          and all(w[2] == "1" and len(w) == 4 + 2 * (4 * k + 2) for w in rows),
          "report --cycles: %d cycles of %d items each, within 60 s (%s)"
          % (n, 4 * k + 2, "status %d, %d rows" % (r.returncode, len(rows)) if r else "timed out"))
    n, m = 30000, 100
    strs, ccs = named(b"main", b"r", *[b"y%d" % i for i in range(m)],
                      *[b"e%d" % i for i in range(n)])
    base = [(0, 1), (1, 0)] + [(2 + i, 1) for i in range(m)]
    path = write("cycles.many", profile(strings=strs, ccs=ccs, threads=[histories(
        *[(base + [(2 + m + i, 1), (1, 1)], 1, 0, 1) for i in range(n)])]))
    r = run_long([CCPROF, "report", "--cycles", path])
    rows = [l.split() for l in r.stdout.decode().splitlines() if l.endswith("→ r")] if r else []
    check(r is not None and r.returncode == 0 and r.stderr == b"" and len(rows) == n
          and all(w[2] == "1" and w[-3] == "e%d" % i for i, w in enumerate(rows)),
          "report --cycles: %d cycles sharing r, within 60 s (%s)"
          % (n, "status %d, %d rows" % (r.returncode, len(rows)) if r else "timed out"))


def shared_names():
    """The text report qualifies a name that several functions share by
    module, and by offset where module names collide too (Note [Names
    that collide] in src/output/names.c).  150,000 functions named f, each
    in a module of its own: finding whether two modules share a base name
    must not compare every pair.  Not a timing test: the pairwise code
    took minutes here (34 s for 60,000), the sort a fraction of a second;
    the limit is a generous 60 s and its expiry the failure."""
    n = 150000
    strs = strings_sec(b"", b"./t", b"f", *[b"/l/m%d.so" % i for i in range(n)])
    mods = section(3, vs(n, *[v for i in range(n) for v in (3 + i, 0, 0)]))
    ccs = section(4, vs(n, *[v for i in range(n) for v in (0, 2, 1 + i, 16, 0, 0)]))
    path = write("names.shared", profile(strings=strs, modules=mods, ccs=ccs, threads=[
        histories(*[([(i, 1)], 1, 0, 1) for i in range(n)])]))
    r = run_long([CCPROF, "report", path])
    out = r.stdout.decode() if r else ""
    check(r is not None and r.returncode == 0 and r.stderr == b"" and "\nf [m0.so] " in out
          and "+0x" not in out, "report: %d functions named f in modules of their own, "
          "qualified by module, within 60 s (%s)"
          % (n, "status %d" % r.returncode if r else "timed out"))
    # Two of the modules with one base name: their fs get their offsets,
    # the f alone in y.so does not (it once did: [y.so+0x30]).
    strs = strings_sec(b"", b"./t", b"f", b"/a/x.so", b"/b/x.so", b"/c/y.so")
    mods = section(3, vs(3, 3, 0, 0, 4, 0, 0, 5, 0, 0))
    ccs = section(4, vs(3, 0, 2, 1, 16, 0, 0, 0, 2, 2, 32, 0, 0, 0, 2, 3, 48, 0, 0))
    path = write("names.collide", profile(strings=strs, modules=mods, ccs=ccs, threads=[
        histories(*[([(i, 1)], 1, 0, 1) for i in range(3)])]))
    out = run([CCPROF, "report", path]).stdout
    check(all("\nf [%s] " % q in out for q in ("x.so+0x10", "x.so+0x20", "y.so")),
          "report: f in /a/x.so, /b/x.so and /c/y.so, qualified by module, and by offset "
          "where the module's base name is shared (%s)"
          % [l.split()[1] for l in out.splitlines() if l.startswith("f [")])


def reloaded_library():
    """A library loaded again at another base after dlclose: one file, two
    modules with the same path and build-id, so two cost centres with the
    same key (module, offset).  merge maps the i-th of a key in each file
    onto the i-th of the result (Note [Cost centres of one key] in
    src/model/combine.c): merging the file with itself keeps its 3 cost
    centres and doubles every count, as does a merge of three copies.
    A reader folds the two cost centres of plugin_f into one function
    (docs/format.md §3.3; Note [One function, several cost centres]), so the
    report has plugin_f once, with both its parts."""
    strs = strings_sec(b"", b"./t", b"main", b"plugin_f", b"/x/prog", b"/x/plug.so")
    mods = section(3, vs(3, 4, 0, 0, 5, 0, 0, 5, 0, 0))
    ccs = section(4, vs(3, 0, 2, 1, 0x1100, 0, 0, 0, 3, 2, 0x1200, 0, 0, 0, 3, 3, 0x1200, 0, 0))
    one = write("reload.ccprof", profile(strings=strs, modules=mods, ccs=ccs, threads=[
        histories(([(0, 1)], 1, 0, 1), ([(0, 1), (1, 1)], 1, 0, 2), ([(0, 1), (2, 1)], 1, 0, 3))]))
    for copies in (2, 3):
        out = os.path.join(HOST, "reload.merged%d" % copies)
        r = run([CCPROF, "merge", "-o", out] + [one] * copies)
        if not check(r.returncode == 0 and r.stderr == "", "merge of %d copies of a file "
                     "with a library loaded twice (%r)" % (copies, r.stderr.strip())):
            continue
        info = json.loads(run([CCPROF, "info", "--json", out]).stdout)
        fns = sorted((f["name"], f["calls"], round(f["self_s"] * 1000))
                     for f in report(out)["functions"])
        want = [("main", copies, copies), ("plugin_f", 2 * copies, 5 * copies)]
        check(info["cost_centres"] == 3 and fns == want,
              "merged %d copies: 3 cost centres in the file, plugin_f one function in the "
              "report, counts times %d (%d cost centres, %s)"
              % (copies, copies, info["cost_centres"], fns))


def diff_separators():
    """diff matches stacks by the names along them.  Region names are the
    program's strings and may hold any byte but NUL, so the key cannot be
    the names joined by a separator: main → "a\\x1fb" in A must not be
    main → a → b in B (src/model/diff.c keys each name by its length)."""
    paths = []
    for side, names, ctxs in (
            ("a", (b"main", b"a\x1fb"), [([(0, 1)], 1, 0, 1), ([(0, 1), (1, 1)], 5, 0, 7)]),
            ("b", (b"main", b"a", b"b"), [([(0, 1)], 1, 0, 1), ([(0, 1), (1, 1)], 1, 0, 0),
                                        ([(0, 1), (1, 1), (2, 1)], 2, 0, 3)])):
        strs = strings_sec(b"", b"./t", *names)
        ccs = section(4, vs(len(names), *[v for i in range(len(names))
                                          for v in (1, 2 + i, 0, 0, 0, 0)]))  # regions
        paths.append(write("diff.sep_" + side, profile(strings=strs, ccs=ccs,
                                                       threads=[histories(*ctxs)])))
    r = run([CCPROF, "diff", "--json"] + paths)
    stacks = sorted((s["stack"], s["only_in"], s["a_calls"], s["b_calls"])
                    for s in json.loads(r.stdout)["stacks"]) if r.returncode == 0 else r.stderr
    check(stacks == [(["main"], None, 1, 1), (["main", "a"], "b", 0, 1),
                     (["main", "a", "b"], "b", 0, 2), (["main", "a\x1fb"], "a", 5, 0)],
          "diff: main → a\\x1fb (A) and main → a → b (B) are two stacks (%s)" % (stacks,))


def program_names_in_warnings():
    """diff's and merge's warnings name the profiles' programs, which a
    file may spell with any bytes: an escape sequence there must reach the
    terminal escaped, as report shows it, not drive it."""
    paths = []
    for side, prog in (("a", b"./sp\x1b[31mX\x07"), ("b", b"./other")):
        strs = strings_sec(b"", prog, b"main")
        ccs = section(4, vs(1, 1, 2, 0, 0, 0, 0))
        paths.append(write("warn.prog_" + side, profile(strings=strs, ccs=ccs,
                                                        threads=[histories(([(0, 1)], 1, 0, 1))])))
    merged = os.path.join(HOST, "warn.merged")
    for cmd in (["diff"] + paths, ["merge", "-o", merged] + paths):
        r = run([CCPROF] + cmd)
        check(r.returncode == 0 and "sp?[31mX?" in r.stderr and "\x1b" not in r.stderr and
              "\x07" not in r.stderr,
              "%s: the program's name in the warning is escaped (%r)" % (cmd[0], r.stderr))


def c1_controls():
    """The C1 controls U+0080..U+009F are valid UTF-8, and some terminals act
    on them as on C0 ones (U+009B is CSI, U+0085 a new line): text on the
    terminal shows them as '?', as it shows ESC, in the report, info and
    stderr, while U+00A0 and later are kept.  JSON keeps them: they are
    valid there, and escape nothing in a page."""
    fn, prog = b"f\xc2\x9b2Jg\xc2\x85h\xc2\x80\xc2\xa0\xc3\xa9", b"./c1\xc2\x9b31mX"
    shown = "f?2Jg?h?\u00a0\u00e9"
    paths = []
    for side, p in (("a", prog), ("b", b"./other")):
        strs = strings_sec(b"", p, b"main", fn)
        ccs = section(4, vs(2, 1, 2, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0))  # regions
        paths.append(write("c1." + side, profile(
            strings=strs, ccs=ccs,
            threads=[histories(([(0, 1)], 1, 0, 1), ([(0, 1), (1, 1)], 5, 0, 7))])))
    c1 = [chr(c) for c in range(0x80, 0xa0)]
    for cmd, want in ((["report", paths[0]], shown), (["report", "--contexts", paths[0]], shown),
                      (["info", paths[0]], "./c1?31mX"),
                      (["diff", paths[0], paths[1]], shown)):
        r = run([CCPROF] + cmd)
        text = r.stdout + r.stderr
        check(r.returncode == 0 and want in text and not any(c in text for c in c1),
              "%s: C1 controls shown as '?', U+00A0 and U+00E9 kept (%r)"
              % (" ".join(cmd[:-1] if cmd[0] != "diff" else cmd[:1]), text[:300]))
    r = run([CCPROF, "diff", paths[0], paths[1]])
    check("(c1?31mX, other)" in r.stderr and "\x9b" not in r.stderr,
          "diff: the program's name with a C1 control escaped in its warning (%r)" % r.stderr)
    names = [f["name"] for f in report(paths[0])["functions"]]
    check(fn.decode() in names, "report --json: a name with C1 controls kept as it is (%r)" % names)


def dot_long_program():
    """convert --to dot cuts the program's name in the graph's label to
    DOT_NAME_MAX bytes as it cuts function names (src/output/export_dot.c):
    4000 '&' escape to 20,000 bytes, past the longest quoted string dot
    reads; a cut never splits a UTF-8 character."""
    have_dot = shutil.which("dot") is not None
    for what, prog in (("4000 '&'", b"&" * 4000), ("'x' and 2000 '\u20ac'", "x\u20ac".encode() +
                                                     "\u20ac".encode() * 1999)):
        strs = strings_sec(b"", b"/x/" + prog, b"main", b"f")
        path = write("dot.program", profile(strings=strs))
        out = os.path.join(HOST, "dot.program.dot")
        r = run([CCPROF, "convert", "--to", "dot", "-o", out, path])
        label = open(out, "rb").read().split(b'label="', 1)[1].split(b'"', 1)[0] \
            if r.returncode == 0 else b""
        try:
            label.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
        check(r.returncode == 0 and r.stderr == "" and utf8 and
              "\u2026: ".encode() in label and len(label) < 8000,
              "dot: a program named %s: the label is cut, with \u2026 (%d bytes)"
              % (what, len(label)))
        if have_dot:
            r = run(["dot", "-Tsvg", "-o", os.devnull, out])
            check(r.returncode == 0 and r.stderr == "", "dot: a program named %s: dot -Tsvg "
                  "renders it (%r)" % (what, r.stderr.strip()[:200]))
    if not have_dot:
        print("# SKIP dot not installed (package graphviz): syntax not checked")


def peak_rss_kb(args):
    """(status, peak RSS in KB) of args, run from a fresh Python whose only
    child it is (RUSAGE_CHILDREN is the largest child's peak)."""
    code = ("import resource, subprocess, sys\n"
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL)\n"
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    r = run([sys.executable, "-c", code] + args, timeout=TIMEOUT * 6)
    status, kb = r.stdout.split()
    return int(status), int(kb)


def many_threads():
    """50,000 threads of one context each (1.3 MB): merge sized every
    result thread for 64 contexts (4.6 KB each, 274 MB in all), and
    report --threads each thread's view by all the base's contexts (473
    MB).  Now both go by the contexts at hand (src/model/combine.c,
    src/model/view.c, and a model's first arena chunk of 1 KiB): under
    100 MB and 200 MB here.  Peak memory is deterministic enough to
    bound, unlike time."""
    n = 50000
    path = write("threads.many", profile(threads=[
        thread((0, [1], 1, 0, 1), (1, [3], 1, 0, 1), tid=i) for i in range(n)]))
    out = os.path.join(HOST, "threads.merged")
    for what, args, limit in (("merge", ["merge", "-o", out, path, path], 100),
                              ("report --threads", ["report", "--threads", path], 200)):
        status, kb = peak_rss_kb([CCPROF] + args)
        check(status == 0 and kb < limit * 1024, "%s of %d threads: peak RSS %d MB, under %d MB "
              "(status %d)" % (what, n, kb >> 10, limit, status))
    r = run([CCPROF, "info", "--json", out])
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(info.get("threads") == n and info.get("distinct_contexts") == 2,
          "merge of %d threads with itself: %d threads, 2 distinct contexts (%s, %s)"
          % (n, n, info.get("threads"), info.get("distinct_contexts")))


def repeated_histories():
    """A history listed twice in one thread: the runtime never writes that,
    a made-up file can.  Like the same two contexts in two threads, it is
    one context whose counters are the sums: the reports are the same but
    for the thread count.  Calls or time added past 2^64 that way are
    refused as across threads."""
    ctxs = [(0, [1], 1, 0, 10), (1, [3], 2, 1, 20), (0, [1], 3, 0, 5), (1, [3], 1, 0, 1)]
    one = write("repeat.one", profile(threads=[thread(*ctxs)]))
    two = write("repeat.two", profile(threads=[thread(*ctxs[:2]), thread(*ctxs[2:], tid=8)]))
    rep = {p: report(p) for p in (one, two)}
    rows = sorted((history_str(c), c["entries"], c["recursive"], round(c["time_s"] * 1000))
                  for c in rep[one]["contexts"])
    check(rep[one]["ncontexts"] == 2 and rows == [("[main]", 4, 0, 15), ("[main] [f]", 3, 1, 21)],
          "one thread, [main] and [main] [f] twice each: one JSON row per history, "
          "counters added (%d: %s)" % (rep[one]["ncontexts"], rows))
    check(rep[one].pop("threads") == 1 and rep[two].pop("threads") == 2
          and rep[one] == rep[two], "report --json: as with the copies in two threads")
    text = {}
    for p in (one, two):
        r = run([CCPROF, "report", "--contexts", p])
        text[p] = [l for l in r.stdout.splitlines() if not l.lstrip().startswith("contexts ")]
    rows = [l.split() for l in text[one] if l.rstrip().endswith("]") and l[:1].isdigit()]
    check(rows == [["0.021", "58.3", "3", "1", "[main]", "[f]"], ["0.015", "41.7", "4", "0", "[main]"]],
          "report --contexts: one row per history (%s)" % rows)
    check(text[one] == text[two], "report: as with the copies in two threads, but the thread count")
    r = run([CCPROF, "info", one])
    check("(2 distinct histories)" in r.stdout, "info: 2 distinct histories")
    # Times of 2^63 twice: refused by the reader, within a thread as across.
    half = (0, [1], 1, 0, 1 << 63)
    errs = []
    for name, threads in (("in one thread", [thread(half, half)]),
                          ("in two threads", [thread(half), thread(half, tid=8)])):
        path = write("repeat.wrap." + name.split()[1], profile(threads=threads))
        expect_fail("a history listed twice %s, times adding up past 2^64" % name, path)
        errs.append(run_one(path, ("report",))[1].split(":")[-1].strip())
    check(all("calls or time add up past 2^64" in e for e in errs),
          "the same reason either way (%s)" % errs)


def hash_flood():
    """A valid 3 MB profile of 300001 distinct contexts whose history hashes
    collide in the model's merge table (gen_seeds --flood): without a
    defence the merge is quadratic: about 70 s here, a day at 100 MB."""
    # Not *.ccprof, and removed after: t_sanitize.sh runs every *.ccprof
    # in tests/out under ASan, with no time limit.
    path = os.path.join(HOST, "flood.prof")
    r = run([GEN, "--flood", "300000", path])
    if check(r.returncode == 0, "gen_seeds --flood writes the profile"):
        expect_fail("300001 contexts with colliding history hashes (%d KB)" %
                    (os.path.getsize(path) // 1024), path, valid=True)
        j = valid_output(path, "info", "--json")
        check(j is not None and j["distinct_contexts"] == 300001 and j["threads"] == 2,
              "300001 contexts with colliding history hashes: info counts 300001 distinct "
              "histories in 2 threads (%s)" % ((j and (j["distinct_contexts"], j["threads"])),))
        os.unlink(path)


def garbage():
    rnd = random.Random(20240521)
    expect_fail("1 MB of zeros", write("zeros.1m", bytes(1 << 20)))
    expect_fail("1 MB of random bytes", write("random.1m", rnd.randbytes(1 << 20)))
    expect_fail("a header then 1 MB of random bytes",
                write("random.hdr", header() + rnd.randbytes(1 << 20)))
    tail = rnd.randbytes(1 << 20)
    expect_fail("a header, 1 MB of random bytes, a valid END",
                write("random.end", with_crc(header() + tail)))
    expect_fail("empty file", write("empty", b""))
    expect_fail("the magic alone", write("magic", MAGIC))
    expect_fail("the header alone", write("header", header()))
    expect_fail("an ELF file", "/bin/sh")
    expect_fail("a text file", os.path.join(TOP, "Makefile"))


def special_files():
    expect_fail("a directory", HOST)
    expect_fail("/dev/null", "/dev/null")
    expect_fail("a missing file", os.path.join(HOST, "no-such-file"))
    loop = os.path.join(HOST, "loop")
    os.symlink(loop, loop)
    expect_fail("a symlink loop", loop)
    fifo = os.path.join(HOST, "fifo")
    os.mkfifo(fifo)
    # No writer: open(2) of a FIFO for reading waits for one.  The tool
    # must not wait forever.
    expect_fail("a FIFO with no writer", fifo)
    # A profile through a FIFO, as from `ccprof report <(...)`: fed by a
    # writer that waits for the reader.
    good = os.path.join(HOST, "seeds", "spivey.ccprof")
    stop = []

    def feed():  # once a reader has the FIFO open, write the profile once
        while not stop:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.005)
                continue
            try:
                os.write(fd, open(good, "rb").read())
            except OSError:
                pass
            os.close(fd)
            return

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    status, err, _ = run_one(fifo, ("report",))
    stop.append(1)
    t.join()
    check(status in (0, 1) and verdict(status, err, True) is None,
          "a FIFO with a writer: report ends cleanly (status %s)" % status)
    big = os.path.join(HOST, "zeros.100m")
    with open(big, "wb") as f:
        f.truncate(100 << 20)
    expect_fail("100 MB of zeros", big, measure=True)
    os.unlink(big)
    huge = os.path.join(HOST, "zeros.2g")
    with open(huge, "wb") as f:
        f.truncate(2 << 30)
    expect_fail("a 2 GiB file", huge, measure=True)
    os.unlink(huge)


def endless_inputs():
    """Input that is not a regular file is refused as soon as its first
    bytes cannot start a profile, with the reason a regular file of the
    same bytes gets: /dev/zero and zeros on a pipe were read up to the 1
    GiB limit first (1 s, 1 GB of memory; 2.2 GB under ASan), then "file
    too large"."""
    zeros = os.path.join(HOST, "zeros.1m")
    want = run_one(zeros, ("info",))[1].split(": ", 2)[-1]
    for what, args in (("info /dev/zero", [CCPROF, "info", "/dev/zero"]),
                       ("2 GB of zeros on a pipe to report -",
                        ["sh", "-c", 'head -c 2G /dev/zero | "$0" report -', CCPROF])):
        status, kb = peak_rss_kb(args)
        check(status == 1 and kb < 100 * 1024, "%s: refused at once, peak RSS %d MB, under 100 MB "
              "(status %d)" % (what, kb >> 10, status))
        r = run(args)
        lines = r.stderr.splitlines()
        check(len(lines) == 1 and lines[0].split(": ", 2)[-1] + "\n" == want,
              "%s: the reason a regular file of zeros gets (%r, %r)" % (what, r.stderr, want))


def module_paths():
    """A valid profile whose unnamed function lives in a module whose path
    is not an ELF file: the model tries to look the name up there (model.c
    resolve_names) and must go on with 0x<offset>@<module>, whatever the
    path names, without waiting on it."""
    fifo = os.path.join(HOST, "module.fifo")
    os.mkfifo(fifo)
    for what, path in (("a FIFO", fifo), ("a directory", HOST), ("/dev/zero", "/dev/zero"),
                       ("/dev/null", "/dev/null"), ("a text file", os.path.join(TOP, "Makefile"))):
        strs = strings_sec(b"", b"./t", b"main", path.encode())
        mods = section(3, vs(1, 3, 0, 0x400000))
        ccs = section(4, vs(2, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0x1234, 0, 0))
        p = write("module." + what.replace(" ", "_").replace("/", "_"),
                  profile(strings=strs, modules=mods, ccs=ccs))
        expect_fail("module path is %s" % what, p, valid=True)
        j = valid_output(p, "report", "--json")
        want = "0x1234@" + os.path.basename(path)
        names = j and sorted(f["name"] for f in j["functions"])
        check(names == sorted(["main", want]),
              "module path is %s: the function is named %s (%s)" % (what, want, names))


def overlapping_dwarf():
    """A module whose DWARF is crafted so that every one of 200,000
    subprograms covers every address 20 times over (one shared range
    list), and a profile that wants 20,000 functions from it: the source
    lines are looked up in near linear time (model/sources.c, Note [One
    walk per unit]), not 8*10^10 steps."""
    version = run([CCPROF, "--version"]).stdout
    if "source lines: libdw" not in version:
        print("# SKIP built without libdw: no DWARF is read")
        return
    asm = ["\t.text\n\t.globl main\nmain:\n\txorl %eax, %eax\n\tret\n",
           '\t.section .note.GNU-stack,"",@progbits\n',
           # 1: compile unit (low_pc addr, ranges sec_offset); 2: subprogram (ranges).
           '\t.section .debug_abbrev,"",@progbits\n',
           "\t.byte 1, 0x11, 1, 0x11, 0x01, 0x55, 0x17, 0, 0\n",
           "\t.byte 2, 0x2e, 0, 0x55, 0x17, 0, 0, 0\n",
           '\t.section .debug_ranges,"",@progbits\n.Lranges:\n']
    asm += ["\t.quad %d, 0xffffffffffff\n" % (k + 1) for k in range(20)]
    asm += ["\t.quad 0, 0\n", '\t.section .debug_info,"",@progbits\n',
            "\t.long .Lend - .Lstart\n.Lstart:\n\t.value 4\n\t.long 0\n\t.byte 8\n",
            "\t.byte 1\n\t.quad 0\n\t.long .Lranges\n",
            "\t.rept 200000\n\t.byte 2\n\t.long .Lranges\n\t.endr\n\t.byte 0\n.Lend:\n"]
    src = write("overlap.s", "".join(asm).encode())
    exe = os.path.join(HOST, "overlap")
    r = subprocess.run([CC, src, "-o", exe, "-Wl,--build-id"], capture_output=True, text=True)
    if not check(r.returncode == 0, "overlapping DWARF: the crafted module builds"):
        print("# %s" % r.stderr[:300])
        return
    notes = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True).stdout
    build_id = notes.split("Build ID: ")[1].split()[0].encode() if "Build ID: " in notes else b""
    n = 20000
    strs = strings_sec(b"", b"./t", b"main", exe.encode(), build_id)
    mods = section(3, vs(1, 3, 4, 0x400000))
    ccs = vs(1 + n, 0, 2, 0, 0, 0, 0) + b"".join(vs(0, 0, 1, 0x1000 + i, 0, 0) for i in range(n))
    contexts = [(0, [1], 1, 0, 1)] + [(1, [(i + 1) << 1 | 1], 1, 0, 1) for i in range(n)]
    p = write("overlap.ccprof", profile(strings=strs, modules=mods, ccs=section(4, ccs),
                                        threads=[thread(*contexts)]))
    expect_fail("overlapping DWARF, 20,000 functions", p, valid=True, measure=True)
    j = valid_output(p, "report", "--json")
    got = j and (j["total_calls"], len(j["functions"]), j["total_ticks"])
    check(got == (n + 1, n + 1, n + 1),
          "overlapping DWARF, 20,000 functions: %d calls of %d functions, %d ticks (%s)"
          % (n + 1, n + 1, n + 1, got))
    # The same file as 2,000 modules, a function in each: read once, not
    # walked 2,000 times.
    n = 2000
    mods = section(3, vs(n, *[3, 4, 0x400000] * n))
    ccs = vs(1 + n, 0, 2, 0, 0, 0, 0) + b"".join(vs(0, 0, 1 + i, 0x1000, 0, 0) for i in range(n))
    p = write("overlap.modules.ccprof", profile(strings=strs, modules=mods, ccs=section(4, ccs),
                                                threads=[thread(*contexts[:n + 1])]))
    expect_fail("overlapping DWARF as %d modules" % n, p, valid=True, measure=True)
    j = valid_output(p, "report", "--json")
    got = j and (j["total_calls"], j["total_ticks"], sorted(f["calls"] for f in j["functions"]))
    check(got == (n + 1, n + 1, [1, n]),
          "overlapping DWARF as %d modules: %d calls, main's and %d of the one function at "
          "offset 0x1000 (%s)" % (n, n + 1, n, got))

# ---- crafted modules: symbol tables (src/common/elfsym.c) ------------------

BUILD_ID = bytes(range(1, 21))


def elf_module(name, syms, strtab=b"\0fn\0", shift=0, strtab_size=None):
    """A minimal x86-64 ELF file with a build-id note, a .symtab of function
    symbols syms ((name offset, global, address, size) each) and its
    .strtab; its path.  shift moves the note, the symbol table and the
    section headers that many bytes off their natural alignment (the file
    stays valid: ELF readers must not assume alignment of what a file
    places).  strtab_size makes .strtab that long, the file sparse past
    its first bytes."""
    note = struct.pack("<III", 4, len(BUILD_ID), 3) + b"GNU\0" + BUILD_ID
    symtab = bytes(24) + b"".join(struct.pack("<IBBHQQ", n, (1 if g else 0) << 4 | 2, 0, 1, a, z)
                                  for n, g, a, z in syms)
    off_note = 64 + shift
    off_sym = (off_note + len(note) + 7) // 8 * 8 + shift
    off_sh = (off_sym + len(symtab) + 7) // 8 * 8 + shift
    off_str = off_sh + 4 * 64

    def shdr(typ, off, size, link=0, entsize=0):
        return struct.pack("<IIQQQQIIQQ", 0, typ, 0, 0, off, size, link, 0, 1, entsize)

    shdrs = (shdr(0, 0, 0) + shdr(7, off_note, len(note)) +
             shdr(3, off_str, strtab_size or len(strtab)) + shdr(2, off_sym, len(symtab), 2, 24))
    data = bytearray(b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) +
                     struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, off_sh, 0, 64, 56, 0, 64, 4, 0))
    for off, part in ((off_note, note), (off_sym, symtab), (off_sh, shdrs), (off_str, strtab)):
        data += bytes(off - len(data)) + part
    path = os.path.join(HOST, name)
    with open(path, "wb") as f:
        f.write(data)
        if strtab_size:
            f.truncate(off_str + strtab_size)
    return path


def module_profile(name, elf, nmods, ccs, modules=None):
    """A profile of main and the unnamed functions ccs ((module, offset)
    each) in nmods modules that all name the file elf, with its build-id,
    or each as modules (a list of (path, build-id)) says."""
    mods = modules or [(elf.encode(), BUILD_ID.hex().encode())] * nmods
    paths = sorted(set(m[0] for m in mods))
    ids = sorted(set(m[1] for m in mods))
    strs = strings_sec(b"", b"./t", b"main", *(paths + ids))
    num = {v: 3 + i for i, v in enumerate(paths + ids)}
    mtab = section(3, vs(len(mods), *[v for p, b in mods for v in (num[p], num[b], 0x400000)]))
    cctab = vs(1 + len(ccs), 0, 2, 0, 0, 0, 0) + b"".join(vs(0, 0, 1 + m, off, 0, 0)
                                                          for m, off in ccs)
    shown = ccs[:2048]  # in contexts; all are named
    contexts = [(0, [1], 1, 0, 1)] + [(1, [(i + 1) << 1 | 1], 1, 0, 1) for i in range(len(shown))]
    return write(name, profile(strings=strs, modules=mtab, ccs=section(4, cctab),
                               threads=[thread(*contexts)]))


def module_names():
    """Names from a module's symbol table are those of the file: at an
    address that a local and a global symbol share, the global one's; an
    offset past a symbol's size has none.  And the table of a file that
    2,000 modules name (a library reloaded, or one path spelt many ways)
    is loaded once (src/model/symtabs.c), not 2,000 times: 10,000
    symbols took 2,000 copies of 0.5 MB each."""
    strtab = b"\0lf\0gf\0lo\0"
    elf = elf_module("syms.names", [(1, 0, 0x2000, 16), (4, 1, 0x2000, 16), (7, 0, 0x3000, 8)],
                     strtab=strtab)
    other = elf_module("syms.other", [(1, 1, 0x2000, 16)], strtab=b"\0xf\0")
    path = module_profile("syms.names.ccprof", elf, 1, [(0, 0x2004), (0, 0x3000), (0, 0x3010)])
    names = sorted(f["name"] for f in report(path)["functions"])
    check(names == ["0x3010@syms.names", "gf", "lo", "main"],
          "names from a symbol table: the global of two at one address, none past a "
          "symbol's size (%s)" % names)
    names = sorted(f["name"] for f in report(path, "--only-exported")["functions"])
    check("gf" in names and "lo" not in names and "lf" not in names,
          "--only-exported keeps the global one, not the local (%s)" % names)
    n, nsyms = 2000, 10000
    strtab = b"\0" + b"".join(b"f%d\0" % i for i in range(nsyms))
    offs = [strtab.index(b"\0f%d\0" % i) + 1 for i in range(n)]
    elf = elf_module("syms.many", [(offs[i] if i < n else 1, 1, 0x1000 + 16 * i, 16)
                                   for i in range(nsyms)], strtab=strtab)
    # The same file spelt n ways ("//" or "/." per bit); one module whose
    # build-id differs from the file's, and one of another file: those
    # share nothing with the rest.
    spell = lambda i: ("".join("/." if (i >> b) & 1 else "//" for b in range(11)) + elf).encode()
    mods = [(spell(i), BUILD_ID.hex().encode()) for i in range(n)]
    mods[7] = (mods[7][0], b"00" * 20)
    mods[9] = (other.encode(), BUILD_ID.hex().encode())
    ccs = [(i, 0x1000 + 16 * i) for i in range(n)]
    ccs[9] = (9, 0x2004)
    path = module_profile("syms.modules.ccprof", elf, n, ccs, modules=mods)
    for what, args, limit in (("report", ["report", path], 100),
                              ("convert --to html", ["convert", "--to", "html", "-o", os.devnull,
                                                     path], 100)):
        status, kb = peak_rss_kb([CCPROF] + args)
        check(status == 0 and kb < limit * 1024, "%s of %d modules naming one file: peak RSS "
              "%d MB, under %d MB (status %d)" % (what, n, kb >> 10, limit, status))
    names = {f["name"] for f in report(path)["functions"]}
    want = {"f%d" % i for i in range(n) if i not in (7, 9)} | {"main", "xf"}
    bad = sorted(names ^ want)
    check(len(bad) == 1 and bad[0].startswith("0x1070@"), "report: each module's function "
          "named from the shared table; the one with another build-id unnamed (%s)" % bad[:5])


def module_symbols_bounded():
    """Symbol tables a file makes costly.  400,000 symbols at one address
    and 400,000 unnamed functions there: each lookup walked back over every
    alias (minutes); now one symbol per address is kept.  A .strtab of 1
    GiB in a sparse 8 KB file: the whole table was copied (2 GB); now only
    the names used.  The time limit is generous and its expiry the
    failure; memory is measured."""
    n = 400000
    elf = elf_module("syms.aliases", [(1, 1, 0x1000, 16)] * n)
    path = module_profile("syms.aliases.ccprof", elf, 1, [(0, 0x1000 + i % 16) for i in range(n)])
    r = run_long([CCPROF, "info", path], limit=TIMEOUT * 3)
    check(r is not None and r.returncode == 0 and r.stderr == b"", "info: %d unnamed "
          "functions at one address of %d aliases, within %d s (%s)"
          % (n, n, TIMEOUT * 3, "status %d" % r.returncode if r else "timed out"))
    elf = elf_module("syms.sparse", [(1, 1, 0x1000, 16)], strtab_size=1 << 30)
    path = module_profile("syms.sparse.ccprof", elf, 1, [(0, 0x1004)])
    status, kb = peak_rss_kb([CCPROF, "report", path])
    check(status == 0 and kb < 100 * 1024, "report: a module with a sparse 1 GiB .strtab: "
          "peak RSS %d MB, under 100 MB (status %d)" % (kb >> 10, status))
    check("fn" in [f["name"] for f in report(path)["functions"]], "... and its function named")
    os.unlink(elf)


ALIGN_PROBE = r"""
#include <stdio.h>
#include <string.h>
#include "common/elfsym.h"
int main(int argc, char **argv)
{
	struct elfsym_table t;
	char buf[16] = "";
	const char *name;
	if (elfsym_load_as(argv[1], argv[2], &t) != 0)
		return 2;
	name = elfsym_find(&t, 0x1004);
	if (name == NULL || strcmp(name, "fn") != 0 ||
	    elfsym_find_unbuffered_as(argv[1], argv[2], 0x1004, buf, sizeof buf) != 0 ||
	    strcmp(buf, "fn") != 0)
		return 3;
	elfsym_free(&t);
	puts("fn");
	return 0;
}
"""


def module_misaligned():
    """A module whose note, symbol table and section headers lie at odd
    offsets is valid ELF: its names are read, through copies, never through
    a pointer misaligned for its type (undefined behaviour, which the
    sanitized tool stopped on).  src/common/elfsym.c alone (with
    buildid.c, which reads its notes), built here with -fsanitize=undefined
    and no recovery, reads it."""
    elf = elf_module("syms.misaligned", [(1, 1, 0x1000, 16)], shift=1)
    path = module_profile("syms.misaligned.ccprof", elf, 1, [(0, 0x1004)])
    check("fn" in [f["name"] for f in report(path)["functions"]],
          "report: the function of a module with misaligned tables is named")
    src = write("align_probe.c", ALIGN_PROBE.encode())
    probe = os.path.join(HOST, "align_probe")
    flags = ["-std=c11", "-D_GNU_SOURCE", "-g", "-fsanitize=undefined", "-fno-sanitize-recover=all"]
    # Whether CC can build with UBSan at all: a trivial file with the same
    # flags.  Only then is a failure below a skip.
    trivial = write("ubsan_probe.c", b"int main(void)\n{\n\treturn 0;\n}\n")
    r = run([CC] + flags + [trivial, "-o", os.path.join(HOST, "ubsan_probe")])
    if r.returncode != 0:
        print("# SKIP %s cannot build with -fsanitize=undefined: %s" % (CC, r.stderr[:200]))
        return
    r = run([CC] + flags + ["-I" + os.path.join(TOP, "src"), src,
                            os.path.join(TOP, "src", "common", "elfsym.c"),
                            os.path.join(TOP, "src", "common", "buildid.c"), "-o", probe])
    if not check(r.returncode == 0, "elfsym under UBSan: the probe builds with "
                 "-fsanitize=undefined (%s)" % r.stderr[:200]):
        return
    r = run([probe, elf, BUILD_ID.hex()], env=dict(os.environ, UBSAN_OPTIONS="print_stacktrace=1"))
    check(r.returncode == 0 and r.stdout == "fn\n" and "runtime error" not in r.stderr,
          "elfsym under UBSan: misaligned note, symbols and section headers read, fn "
          "found (status %d%s)" % (r.returncode, ": " + r.stderr.strip()[:300] if r.stderr else ""))


LOAD_FOR_PROBE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/elfsym.h"

static int fail(const char *what)
{
	printf("FAIL %s\n", what);
	return 1;
}

static const char *name_in(const struct elfsym_table *t, uint64_t off)
{
	const char *n = elfsym_find(t, off);
	return n ? n : "(none)";
}

/* argv[1]: a crafted file whose 0x2000 has aliases (the global g1 first of
 * the globals), 0x3000 a local `lo` of 8 bytes, 0x4000.. 1000 others. */
static int crafted(const char *path)
{
	const uint64_t both[] = { 0x2000, 0x3000 }, inner[] = { 0x2000, 0x3004 };
	struct elfsym_table t;
	int bad = 0;

	if (elfsym_load_for(path, NULL, both, 2, &t) != 0)
		return fail("load_for of two symbol starts");
	printf("for-starts n=%zu %s %s\n", t.n, name_in(&t, 0x2000), name_in(&t, 0x3000));
	elfsym_free(&t);
	if (elfsym_load_for(path, NULL, inner, 2, &t) != 0)
		return fail("load_for of an offset inside a function");
	printf("for-inner n=%zu %s %s\n", t.n, name_in(&t, 0x2000), name_in(&t, 0x3004));
	elfsym_free(&t);
	if (elfsym_load_as(path, NULL, &t) != 0)
		return fail("load_as");
	printf("whole n=%zu %s %s\n", t.n, name_in(&t, 0x2000), name_in(&t, 0x3004));
	elfsym_free(&t);
	return bad;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* argv[2]: a real binary.  Every third function's address of the whole
 * table, loaded for alone, gets the whole table's name. */
static int real(const char *path)
{
	struct elfsym_table whole, part;
	uint64_t *offs;
	size_t i, n = 0, differ = 0;

	if (elfsym_load_as(path, NULL, &whole) != 0 || whole.n < 30)
		return fail("load_as of a real binary");
	offs = malloc(whole.n * sizeof *offs);
	for (i = whole.n; i-- > 0;)
		if (i % 3 == 0)
			offs[n++] = whole.syms[i].addr;
	qsort(offs, n, sizeof *offs, by_u64);
	if (elfsym_load_for(path, NULL, offs, n, &part) != 0)
		return fail("load_for of a real binary");
	for (i = 0; i < n; i++)
		differ += strcmp(name_in(&whole, offs[i]), name_in(&part, offs[i])) != 0;
	printf("real wanted=%zu kept=%zu of %zu differ=%zu\n", n, part.n, whole.n, differ);
	free(offs);
	elfsym_free(&whole);
	elfsym_free(&part);
	return 0;
}

int main(int argc, char **argv)
{
	(void)argc;
	return crafted(argv[1]) | real(argv[2]);
}
"""


def module_names_for():
    """The runtime reads each module's symbols for the functions it writes
    only (elfsym_load_for, Note [Names for the functions written] in
    src/runtime/dump.c): the same names as the whole table's.  Of aliases
    at one address the global, and of globals the first in the file, in
    both (the file's order is the last tie-break, not the sort's
    stability).  An offset inside a function and not at its start takes
    the whole table, which names it.  And on a real binary, a third of its
    functions loaded alone have the names the whole table gives."""
    # 0x2000: lf (local), then g1, g2, ... g40 (globals); g1 must win.
    names = [b"lf", b"lo"] + [b"g%d" % i for i in range(1, 41)] + [b"o%d" % i for i in range(1000)]
    strtab = b"\0" + b"".join(n + b"\0" for n in names)
    at = {n: strtab.index(b"\0" + n + b"\0") + 1 for n in names}
    syms = ([(at[b"lf"], 0, 0x2000, 16)] + [(at[b"g%d" % i], 1, 0x2000, 16) for i in range(1, 41)] +
            [(at[b"lo"], 0, 0x3000, 8)] + [(at[b"o%d" % i], 1, 0x4000 + 16 * i, 16)
                                            for i in range(1000)])
    elf = elf_module("syms.for", syms, strtab=strtab)
    src = write("load_for_probe.c", LOAD_FOR_PROBE.encode())
    probe = os.path.join(HOST, "load_for_probe")
    flags = ["-std=c11", "-D_GNU_SOURCE", "-g", "-O1"]
    trivial = write("asan_probe.c", b"int main(void)\n{\n\treturn 0;\n}\n")
    if run([CC] + flags + ["-fsanitize=address,undefined", trivial, "-o",
                           os.path.join(HOST, "asan_probe")]).returncode == 0:
        flags += ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    r = run([CC] + flags + ["-I" + os.path.join(TOP, "src"), src,
                            os.path.join(TOP, "src", "common", "elfsym.c"),
                            os.path.join(TOP, "src", "common", "buildid.c"), "-o", probe])
    if not check(r.returncode == 0, "elfsym_load_for: the probe builds (%s)" % r.stderr[:300]):
        return
    r = run([probe, elf, CCPROF])
    lines = dict((l.split(" ", 1) + [""])[:2] for l in r.stdout.splitlines())
    check(r.returncode == 0 and not r.stderr, "elfsym_load_for: the probe runs clean "
          "(status %d: %s)" % (r.returncode, (r.stdout + r.stderr)[-300:]))
    check(lines.get("for-starts") == "n=2 g1 lo",
          "loaded for two starts: only those two symbols, g1 the first global of 41 "
          "aliases, lo the local (%s)" % lines.get("for-starts"))
    check(lines.get("whole") == "n=1002 g1 lo",
          "the whole table: 1002 addresses, the same g1, lo around 0x3004 (%s)"
          % lines.get("whole"))
    check(lines.get("for-inner") == "n=1002 g1 lo",
          "loaded for an offset inside lo: the whole table, which names it lo (%s)"
          % lines.get("for-inner"))
    m = re.match(r"wanted=(\d+) kept=(\d+) of (\d+) differ=(\d+)$", lines.get("real", ""))
    check(m is not None and int(m.group(1)) > 100 and m.group(1) == m.group(2) and
          int(m.group(3)) > int(m.group(2)) and m.group(4) == "0",
          "a real binary (ccprof): its every third function loaded alone, named as "
          "in the whole table (%s)" % lines.get("real"))


def wide_text_export():
    """convert --to ghc-prof pads every row to its widest label (indent +
    name): a stack 20000 cost centres deep and a 1 MB name must not make
    the output quadratic (docs/exports.md: names are cut at 1000 bytes,
    indentation stops at 200 levels)."""
    n = 20000
    names = [b"f%d" % i for i in range(n)] + [b"L" * (1 << 20)]
    ccs = section(4, vs(n + 1, *[v for i in range(n + 1) for v in (0, 2 + i, 0, 0, 0, 0)]))
    deep = (0, [(i << 1) | 1 for i in range(n)], 1, 0, 1)  # [f0] [f1] ... [f19999]
    named = (0, [1, (n << 1) | 1], 1, 0, 1)               # [f0] [LLL...]
    path = write("export.deep_and_long", profile(strings=strings_sec(b"", b"./t", *names),
                                                 ccs=ccs, threads=[thread(deep, named)]))
    try:
        r = subprocess.run([CCPROF, "convert", "--to", "ghc-prof", path],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        check(False, "ghc-prof of a stack 20000 deep and a 1 MB name: still running after "
              "%d s" % TIMEOUT)
        return
    lines = r.stdout.split(b"\n")
    # 7 of header, 2 + 2 flat rows + 2, 3 + the tree's n + 2 rows, "" after the last
    check(r.returncode == 0 and r.stderr == b"" and len(lines) == n + 19 and
          max(len(l) for l in lines) < 1400,
          "ghc-prof of a stack 20000 deep and a 1 MB name: status %d, %d lines, none over "
          "1400 bytes (%d MB in all)" % (r.returncode, len(lines), len(r.stdout) >> 20))


def main():
    shutil.rmtree(HOST, ignore_errors=True)
    os.makedirs(HOST)
    t0 = time.time()
    seeds = make_generator()
    valid_baseline(seeds)
    # The hand-made base must be valid too, or every test below is moot.
    base = write("base", profile())
    status, err, _ = run_one(base, ("report",))
    check(status == 0 and err == "", "the hand-encoded profile is valid")
    truncations(os.path.join(seeds, "threads.ccprof"), "threads")
    bit_flips(os.path.join(seeds, "cxx.ccprof"), "cxx")
    huge_counts()
    quadratic_histories()
    extreme_values()
    subtracted_key()
    hook_cost_bounded()
    hook_cost_debt()
    cycles_bounded()
    shared_names()
    reloaded_library()
    diff_separators()
    program_names_in_warnings()
    c1_controls()
    dot_long_program()
    many_threads()
    repeated_histories()
    hash_flood()
    garbage()
    special_files()
    endless_inputs()
    module_paths()
    overlapping_dwarf()
    module_names()
    module_symbols_bounded()
    module_misaligned()
    module_names_for()
    wide_text_export()
    if os.environ.get("HOSTILE_TIMING"):
        print("# hostile corpus: %.1f s" % (time.time() - t0))
    finish()


main()
