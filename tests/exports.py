"""`ccprof convert`: every export format read back by its real consumer where
one is installed (callgrind_annotate, dot, go tool pprof, protoc, speedscope
in headless Chromium), by a structural check where not ("# SKIP ..."), with
the consumer's totals compared to `ccprof report --json`, and hostile names
(C++ templates and operators, regions named with spaces, ';', quotes, <&>,
a backslash, non-ASCII, a trailing number) carried through every format.
docs/exports.md gives each format, and its last section ("How `make
check` validates the exports") each format's checks."""
import collections
import gzip
import html
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from ccp import *
from speedscope import *
from pprof_read import *

D = os.path.join(OUT, "exports")
os.makedirs(D, exist_ok=True)

# The names tests/progs/names.cpp gives its cost centres, as ccprof shows them.
NAMES = [
    "Box<int>::get() const",
    "operator+(Vec const&, Vec const&)",
    "operator<(Vec const&, Vec const&)",
    "int total<int, 3>(int const (&) [3])",
    'name with spaces; <&> "quotes" \u00e9',
    "frame 42",
    "back\\slash \U0001f525",
]


def convert(fmt, prof, name, *opts):
    """Run convert -o D/name; returns the path (checked: exit 0, no stderr)."""
    out = os.path.join(D, name)
    r = run([CCPROF, "convert", "--to", fmt, "-o", out] + list(opts) + [prof])
    check(r.returncode == 0 and r.stderr == "",
          "convert --to %s %s: exit 0, nothing on stderr%s"
          % (fmt, " ".join(opts), "" if not r.stderr else " (" + r.stderr.strip() + ")"))
    return out


def scaled(ticks, num, den):
    """ticks × num / den rounded half up, as ccprof rounds (export.h)."""
    return (ticks * num + den // 2) // den if den else 0


def total_in(rep, per_second):
    """ccprof's total time in units of 1/per_second s, from the exact ticks."""
    return scaled(rep["total_ticks"], per_second, rep["ticks_per_sec"])


# ---- a JSON-schema checker (the subset GHC_SCHEMA below and speedscope's
# file-format-schema.json use), so no ajv or python3-jsonschema is needed ----

def schema_errors(value, schema, root, where="$"):
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return schema_errors(value, target, root, where)
    errs = []
    types = {"object": dict, "array": list, "string": str, "boolean": bool}
    t = schema.get("type")
    if t in types and not isinstance(value, types[t]):
        return ["%s: not %s" % (where, t)]
    if t in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return ["%s: not a number" % where]
        if t == "integer" and not isinstance(value, int):
            return ["%s: not an integer" % where]
        if "minimum" in schema and value < schema["minimum"]:
            errs.append("%s: below %s" % (where, schema["minimum"]))
    if "const" in schema and value != schema["const"]:
        errs.append("%s: not %r" % (where, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errs.append("%s: not one of %r" % (where, schema["enum"]))
    if "anyOf" in schema and all(schema_errors(value, s, root, where) for s in schema["anyOf"]):
        errs.append("%s: matches none of anyOf" % where)
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                errs.append("%s: missing %s" % (where, k))
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                errs += schema_errors(v, props[k], root, where + "." + k)
            elif schema.get("additionalProperties") is False:
                errs.append("%s: unexpected %s" % (where, k))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errs += schema_errors(v, schema["items"], root, "%s[%d]" % (where, i))
            if len(errs) > 5:
                break
    return errs


# The JSON schema of GHC's `+RTS -pj` profile (docs/exports.md, "ghc-json"),
# written for ajv; it accepts GHC 9.0.2's real output.
GHC_SCHEMA = json.loads("""
{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
 "required": ["program","arguments","rts_arguments","end_time","initial_capabilities",
              "total_time","total_ticks","tick_interval","total_alloc","cost_centres","profile"],
 "properties": {
  "program": {"type": "string"},
  "arguments": {"type": "array", "items": {"type": "string"}},
  "rts_arguments": {"type": "array", "items": {"type": "string"}},
  "end_time": {"type": "string"},
  "initial_capabilities": {"type": "integer", "minimum": 0},
  "total_time": {"type": "number", "minimum": 0},
  "total_ticks": {"type": "integer", "minimum": 0},
  "tick_interval": {"type": "integer", "minimum": 0},
  "total_alloc": {"type": "integer", "minimum": 0},
  "cost_centres": {"type": "array", "items": {"type": "object",
     "required": ["id","label","module","src_loc","is_caf"], "additionalProperties": false,
     "properties": {"id": {"type": "integer"}, "label": {"type": "string"},
       "module": {"type": "string"}, "src_loc": {"type": "string"}, "is_caf": {"type": "boolean"}}}},
  "profile": {"$ref": "#/definitions/node"}},
 "definitions": {"node": {"type": "object", "additionalProperties": false,
   "required": ["id","entries","alloc","ticks","children"],
   "properties": {"id": {"type": "integer"}, "entries": {"type": "integer", "minimum": 0},
     "alloc": {"type": "integer", "minimum": 0}, "ticks": {"type": "integer", "minimum": 0},
     "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}}}
""")

# speedscope's format (docs/exports.md, "speedscope") for sampled profiles,
# used when speedscope's own schema (in its npm package) is not at hand.
SPEEDSCOPE_SCHEMA = {
    "type": "object", "required": ["$schema", "shared", "profiles"],
    "properties": {
        "$schema": {"const": "https://www.speedscope.app/file-format-schema.json"},
        "name": {"type": "string"}, "exporter": {"type": "string"},
        "activeProfileIndex": {"type": "number"},
        "shared": {"type": "object", "required": ["frames"], "properties": {
            "frames": {"type": "array", "items": {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "file": {"type": "string"},
                               "line": {"type": "number"}, "col": {"type": "number"}}}}}},
        "profiles": {"type": "array", "items": {"type": "object",
            "required": ["type", "name", "unit", "startValue", "endValue", "samples", "weights"],
            "properties": {
                "type": {"const": "sampled"}, "name": {"type": "string"},
                "unit": {"enum": ["none", "nanoseconds", "microseconds", "milliseconds",
                                  "seconds", "bytes"]},
                "startValue": {"type": "number"}, "endValue": {"type": "number"},
                "samples": {"type": "array", "items": {"type": "array",
                                                       "items": {"type": "number"}}},
                "weights": {"type": "array", "items": {"type": "number"}}}}}}}


def names_in(found, what, transform=lambda s: s, expect=NAMES):
    missing = [n for n in expect if transform(n) not in found]
    check(not missing, "%s: every hostile name survives%s" % (
        what, "" if not missing else " (missing %r)" % missing))


def folded_name(name):
    """How a name is written in folded stacks (docs/exports.md)."""
    name = name.replace(";", "\uff1b")
    return re.sub(r" (\d+)$", "\u00a0\\1", name)


# ---- the profiles ----------------------------------------------------------

def profiles():
    # The threads program gives a cpu-clock profile (nanosecond ticks).
    names = record_names("names", os.path.join(D, "names.ccprof"))
    spivey = build("spivey_exports", "tests/progs/spivey.c")
    r, cycles = record(spivey, ["40"], clock="cycles", profile=os.path.join(D, "spivey.ccprof"))
    check(r.returncode == 0, "spivey runs under the cycles clock")
    threads = build("threads_exports", "tests/progs/threads.c")
    r, thr = record(threads, profile=os.path.join(D, "threads.ccprof"))
    check(r.returncode == 0, "threads runs under ccprof record")
    return names, cycles, thr


# ---- command line ------------------------------------------------------------

def cli(prof):
    def status(args, want, what, stdout_empty=True):
        r = run([CCPROF, "convert"] + args)
        lines = r.stderr.splitlines()
        good = r.returncode == want and len(lines) == 1 and lines[0].startswith("ccprof")
        check(good, "%s: exit %d, one line on stderr (got %d: %r)"
              % (what, want, r.returncode, r.stderr.strip()))
        return r
    status([prof], 2, "no --to")
    status(["--to", "nope", prof], 2, "unknown format")
    status(["--to", "folded"], 2, "no profile")
    status(["--to", "folded", prof, prof], 2, "two profiles")
    status(["--to", "dot", "--node-threshold", "x", prof], 2, "bad --node-threshold")
    status(["--to", "dot", "--node-threshold", "101", prof], 2, "--node-threshold over 100")
    status(["--to", "callgrind", "--threads", prof], 2, "--threads with callgrind")
    status(["--to", "dot", "--inverted", prof], 2, "--inverted with dot")
    status(["--to", "svg", "--frobnicate", prof], 2, "unknown option")
    status(["--to", "svg", "--min-percent", "x", prof], 2, "bad view option value")
    missing = os.path.join(D, "missing.ccprof")
    r = status(["--to", "folded", missing], 1, "missing profile")
    check(r.stderr.startswith("ccprof: %s: " % missing), "missing profile: 'ccprof: FILE: REASON'")
    junk = os.path.join(D, "junk.ccprof")
    with open(junk, "w") as f:
        f.write("not a profile\n")
    out = os.path.join(D, "never-written.folded")
    status(["--to", "folded", "-o", out, junk], 1, "corrupt profile")
    check(not os.path.exists(out), "corrupt profile: no output file left behind")
    r = status(["--to", "folded", "-o", os.path.join(D, "no", "such", "dir", "x"), prof], 1,
               "unwritable output")
    status(["--to", "folded", "--focus", "no_such_function", prof], 1, "--focus matching nothing")
    if os.path.exists("/dev/full"):
        r = status(["--to", "svg", "-o", "/dev/full", prof], 1, "output to a full device")
        check("No space left" in r.stderr, "output to a full device: says why")
    r = run([CCPROF, "convert", "--help"])
    check(r.returncode == 0 and "usage: ccprof convert" in r.stdout and "--select" in r.stdout,
          "convert --help: usage, formats and view options")
    r = run([CCPROF, "help", "convert"])
    check(r.returncode == 0 and "pprof" in r.stdout, "ccprof help convert")
    # stdout and -o give the same bytes, text and binary alike
    for fmt in ("folded", "pprof"):
        f = convert(fmt, prof, "same." + fmt)
        r = subprocess.run([CCPROF, "convert", "--to", fmt, prof], capture_output=True)
        check(r.returncode == 0 and r.stdout == open(f, "rb").read(),
              "%s: standard output and -o give the same bytes" % fmt)


# ---- ghc-json -------------------------------------------------------------------

def ghc_json(prof, rep):
    path = convert("ghc-json", prof, "names.prof")
    try:
        j = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        check(False, "ghc-json: valid JSON (%s)" % e)
        return
    errs = schema_errors(j, GHC_SCHEMA, GHC_SCHEMA)
    check(not errs, "ghc-json: GHC's -pj JSON schema%s" % ("" if not errs else " %s" % errs[:3]))
    ids = {c["id"] for c in j["cost_centres"]}
    nodes = []

    def walk(n):
        nodes.append(n)
        for c in n["children"]:
            walk(c)
    walk(j["profile"])
    check(all(n["id"] in ids for n in nodes), "ghc-json: every node's id is a cost centre")
    check(len(ids) == len(j["cost_centres"]), "ghc-json: cost-centre ids are unique")
    check(sum(n["ticks"] for n in nodes) == j["total_ticks"], "ghc-json: total_ticks = sum of ticks")
    check(sum(n["alloc"] for n in nodes) == j["total_alloc"], "ghc-json: total_alloc = sum of alloc")
    check(j["tick_interval"] == 1000 and j["total_ticks"] == total_in(rep, 1000),
          "ghc-json: %d ticks of 1 ms = ccprof's %.6f s" % (j["total_ticks"], rep["total_time_s"]))
    check(sum(n["entries"] for n in nodes) == rep["total_calls"],
          "ghc-json: entries add up to ccprof's %d calls" % rep["total_calls"])
    check(abs(j["total_time"] - rep["total_time_s"]) <= 0.005, "ghc-json: total_time")
    check(j["arguments"] == rep["argv"], "ghc-json: arguments are argv")
    names_in({c["label"] for c in j["cost_centres"]}, "ghc-json")
    rows = speedscope_import(path, "names.prof", "Haskell GHC JSON Profile", "ghc-json")
    if rows is not None:
        module = j["cost_centres"][1]["module"]
        names_in(speedscope_names(rows), "ghc-json in speedscope",
                 lambda n: module + "." + n)
        main = [r for r in rows if r[2] == module + ".main"]
        # speedscope shows ticks as ms: main's inherited ticks, in "ms"
        if check(main, "ghc-json in speedscope: main is listed"):
            got = speedscope_seconds(main[0][0])
            want = functions(rep)["main"]["inherited_s"]
            check(got is not None and abs(got - want) <= 0.0015,
                  "ghc-json in speedscope: main's total %s = ccprof's %.6f s" % (main[0][0], want))


# ---- ghc-prof -------------------------------------------------------------------

# The profile of docs/exports.md's "ghc-prof" example: its numbers as
# contexts, its files as sources, its date (in UTC, as the test converts
# it).
GHC_PROF_DEMO = """program ./demo --size 10
clock cpu 1000000000
time 1795254000000000000 1795255200000000000
alloc 0 0
thread 1 demo
ctx 1 0 5000000 512 1 : [main]
ctx 2 0 10000000 1024 2 : [main] [parse]
ctx 4 0 20000000 2048 4 : [main] [parse] [lex]
ctx 1 0 0 512 1 : [main] [eval]
source main demo.c 10
source parse demo.c 20
source lex demo.c 40
source eval eval.c 5
"""

# The file docs/exports.md shows under "ghc-prof", byte for byte: header,
# flat table and tree laid out by GHC's rules, the tree with GHC's MAIN, the
# empty stack, as its root (ghc-json's root too), which widens SRC for
# "<built-in>" and numbers main 2.
GHC_PROF_GOLDEN = (
    "\tSat Nov 21 10:00 2026 Time and Allocation Profiling Report  (Final)\n"
    "\n"
    "\t   demo --size 10\n"
    "\n"
    "\ttotal time  =        0.04 secs   (35 ticks @ 1000 us, 1 processor)\n"
    "\ttotal alloc =       4,096 bytes  (excludes profiling overheads)\n"
    "\n"
    "COST CENTRE MODULE SRC        %time %alloc  ticks     bytes\n"
    "\n"
    "lex         demo   demo.c:40   57.1   50.0     20      2048\n"
    "parse       demo   demo.c:20   28.6   25.0     10      1024\n"
    "main        demo   demo.c:10   14.3   12.5      5       512\n"
    "eval        eval   eval.c:5     0.0   12.5      0       512\n"
    "\n"
    "\n"
    "                                                 individual      inherited\n"
    "COST CENTRE MODULE SRC        no.     entries  %time %alloc   %time %alloc  ticks     bytes\n"
    "\n"
    "MAIN        MAIN   <built-in>   1           0    0.0    0.0   100.0  100.0      0         0\n"
    " main       demo   demo.c:10    2           1   14.3   12.5   100.0  100.0      5       512\n"
    "  parse     demo   demo.c:20    3           2   28.6   25.0    85.7   75.0     10      1024\n"
    "   lex      demo   demo.c:40    4           4   57.1   50.0    57.1   50.0     20      2048\n"
    "  eval      eval   eval.c:5     5           1    0.0   12.5     0.0   12.5      0       512\n")

# The same run without allocation data: 0 bytes, %alloc 0.0, and eval
# (no ticks, no bytes) no longer over 1 % of either, so not listed.
GHC_PROF_PLAIN_GOLDEN = (
    "\tSat Nov 21 10:00 2026 Time and Allocation Profiling Report  (Final)\n"
    "\n"
    "\t   demo --size 10\n"
    "\n"
    "\ttotal time  =        0.04 secs   (35 ticks @ 1000 us, 1 processor)\n"
    "\ttotal alloc =           0 bytes  (excludes profiling overheads)\n"
    "\n"
    "COST CENTRE MODULE SRC        %time %alloc  ticks     bytes\n"
    "\n"
    "lex         demo   demo.c:40   57.1    0.0     20         0\n"
    "parse       demo   demo.c:20   28.6    0.0     10         0\n"
    "main        demo   demo.c:10   14.3    0.0      5         0\n"
    "\n"
    "\n"
    "                                                 individual      inherited\n"
    "COST CENTRE MODULE SRC        no.     entries  %time %alloc   %time %alloc  ticks     bytes\n"
    "\n"
    "MAIN        MAIN   <built-in>   1           0    0.0    0.0   100.0    0.0      0         0\n"
    " main       demo   demo.c:10    2           1   14.3    0.0   100.0    0.0      5         0\n"
    "  parse     demo   demo.c:20    3           2   28.6    0.0    85.7    0.0     10         0\n"
    "   lex      demo   demo.c:40    4           4   57.1    0.0    57.1    0.0     20         0\n"
    "  eval      eval   eval.c:5     5           1    0.0    0.0     0.0    0.0      0         0\n")

# Hostile names, arguments and paths (mkprof's \xHH): a newline, TAB, CR,
# ESC, DEL, invalid UTF-8, spaces and a 2-byte character; no date; the
# cycles clock (1000 µs ticks); a stack with nothing (left out) and one
# with nothing of its own above one with time (kept).
GHC_PROF_HOSTILE = r"""program ./ev\x0ail a\x09b \x1b[31m\x7f
clock cycles 2000000000
thread 1 t
ctx 0 0 2000000 :
ctx 1 0 2000000 : [main]
ctx 3 0 4000000 : [main] [new\x0aline]
ctx 1 2 6000000 : [main] [tab\x09cr\x0desc\x1b[2Jdel\x7f]
ctx 1 0 2000000 : [main] [bad\xff\xc3utf8]
ctx 1 0 4000000 : [main] [operator<<\x20(std::ostream&,\x20int)\x20é]
ctx 0 0 0 : [main] [new\x0aline] [zero]
ctx 1 0 2000000 : [main] [mid] [leaf]
source main /src/ev\x0a.c 7
"""

GHC_PROF_HOSTILE_GOLDEN = (
    "\t Time and Allocation Profiling Report  (Final)\n"
    "\n"
    "\t   ev?il a?b ?[31m?\n"
    "\n"
    "\ttotal time  =        0.01 secs   (11 ticks @ 1000 us, 1 processor)\n"
    "\ttotal alloc =           0 bytes  (excludes profiling overheads)\n"
    "\n"
    "COST CENTRE                       MODULE SRC           %time %alloc  ticks     bytes\n"
    "\n"
    "tab?cr?esc?[2Jdel?                ev?il  <unknown>      27.3    0.0      3         0\n"
    "new?line                          ev?il  <unknown>      18.2    0.0      2         0\n"
    "operator<< (std::ostream&, int) \u00e9 ev?il  <unknown>      18.2    0.0      2         0\n"
    "main                              ev?    /src/ev?.c:7    9.1    0.0      1         0\n"
    "bad\ufffd\ufffdutf8                         ev?il  <unknown>       9.1    0.0      1         0\n"
    "leaf                              ev?il  <unknown>       9.1    0.0      1         0\n"
    "MAIN                              MAIN   <built-in>      9.1    0.0      1         0\n"
    "\n"
    "\n"
    "                                                                           individual      inherited\n"
    "COST CENTRE                         MODULE SRC          no.     entries  %time %alloc   %time %alloc  ticks     bytes\n"
    "\n"
    "MAIN                                MAIN   <built-in>     1           0    9.1    0.0   100.0    0.0      1         0\n"
    " main                               ev?    /src/ev?.c:7   2           1    9.1    0.0    90.9    0.0      1         0\n"
    "  tab?cr?esc?[2Jdel?                ev?il  <unknown>      3           3   27.3    0.0    27.3    0.0      3         0\n"
    "  new?line                          ev?il  <unknown>      4           3   18.2    0.0    18.2    0.0      2         0\n"
    "  operator<< (std::ostream&, int) \u00e9 ev?il  <unknown>      5           1   18.2    0.0    18.2    0.0      2         0\n"
    "  bad\ufffd\ufffdutf8                         ev?il  <unknown>      6           1    9.1    0.0     9.1    0.0      1         0\n"
    "  mid                               ev?il  <unknown>      7           0    0.0    0.0     9.1    0.0      0         0\n"
    "   leaf                             ev?il  <unknown>      8           1    9.1    0.0     9.1    0.0      1         0\n")


def ghc_prof_convert(prof, name, *opts):
    """convert --to ghc-prof in UTC (the header's date is local time);
    returns the file's bytes."""
    out = os.path.join(D, name)
    r = run([CCPROF, "convert", "--to", "ghc-prof", "-o", out] + list(opts) + [prof],
            env=dict(os.environ, TZ="UTC"))
    check(r.returncode == 0 and r.stderr == "",
          "ghc-prof %s %s: exit 0, nothing on stderr%s" % (
              name, " ".join(opts), "" if not r.stderr else " (" + r.stderr.strip() + ")"))
    return open(out, "rb").read()


def same_bytes(got, want, what):
    """got (bytes) is want (text) byte for byte; else the first line that
    differs, TABs and line ends shown (cat -A's attention)."""
    want = want.encode("utf-8")
    if check(got == want, what):
        return
    g, w = got.split(b"\n"), want.split(b"\n")
    for i in range(max(len(g), len(w))):
        a = g[i] if i < len(g) else None
        b = w[i] if i < len(w) else None
        if a != b:
            print("# line %d: got  %r\n# line %d: want %r" % (i + 1, a, i + 1, b))
            break


def ghc_prof_tables(text):
    """A ghc-prof file's parts: (header lines, flat heading, flat rows, tree
    heading, tree rows), or None if it is not laid out in them.  A row is
    its line; ghc_prof_cells cuts it at its heading's columns."""
    lines = text.split("\n")
    if lines[-1] != "" or len(lines) < 15 or not lines[7].startswith("COST CENTRE "):
        return None
    end = lines.index("", 9)
    flat = lines[9:end]
    if lines[end:end + 2] != ["", ""] or not lines[end + 2].lstrip().startswith("individual"):
        return None
    tree_head = lines[end + 3]
    if lines[end + 4] != "":
        return None
    return lines[:7], lines[7], flat, tree_head, lines[end + 5:-1]


def ghc_prof_cells(heading, row):
    """(label with its indent, module, src, [numbers]) of a row, cut where
    its heading's columns start: names may hold spaces."""
    mod = heading.index("MODULE")
    src = heading.index("SRC", mod)
    if "no." in heading:
        nums = heading.index("no.", src)
        src_end = nums - 1
    else:
        nums = src_end = heading.index("  %time", src)
    return (row[:mod - 1].rstrip(" "), row[mod:src - 1].rstrip(" "),
            row[src:src_end].rstrip(" "), row[nums:].split())


def ghc_prof_aligned(heading, rows):
    """Every row as long as its heading (in characters) and a space before
    each of the heading's text columns: nothing in a name moved one."""
    mod = heading.index("MODULE")
    src = heading.index("SRC", mod)
    return all(len(r) == len(heading) and r[mod - 1] == " " and r[src - 1] == " " and
               r[mod] != " " and r[src] != " " for r in rows)


def ghc_prof_goldens():
    """GHC's layout (docs/exports.md, "ghc-prof"), byte for byte, on profiles
    made by mkprof."""
    demo = make_profile("ghc_prof_demo", GHC_PROF_DEMO)
    same_bytes(ghc_prof_convert(demo, "demo.prof"), GHC_PROF_GOLDEN,
               "ghc-prof: docs/exports.md's example profile, byte for byte (the tree "
               "under MAIN)")
    plain = make_profile("ghc_prof_plain", re.sub(
        r"^(ctx \d+ \d+ \d+) \d+ \d+", r"\1", GHC_PROF_DEMO.replace("alloc 0 0\n", ""),
        flags=re.M))
    same_bytes(ghc_prof_convert(plain, "plain.prof"), GHC_PROF_PLAIN_GOLDEN,
               "ghc-prof without allocation data: total alloc 0, %alloc 0.0, byte for byte")
    hostile = make_profile("ghc_prof_hostile", GHC_PROF_HOSTILE)
    same_bytes(ghc_prof_convert(hostile, "hostile.prof"), GHC_PROF_HOSTILE_GOLDEN,
               "ghc-prof: control characters in names, paths and arguments become '?', "
               "invalid UTF-8 U+FFFD, widths in characters, all-zero stacks left out; "
               "byte for byte")


def ghc_prof_extremes():
    """A 3000-byte name is cut to 1000 and '…'; a stack 260 deep is
    indented 200 at most; the tables still line up."""
    deep = " ".join("[d%d]" % i for i in range(260))
    spec = ("program ./x\nclock cpu 1000000000\nthread 1 t\n"
            "ctx 1 0 1000000 : [main] [%s]\nctx 1 0 1000000 : [main] [%s]\n"
            "ctx 1 0 1000000 : [main] %s\n" % ("L" * 3000, "\u00e9" * 1500, deep))
    text = ghc_prof_convert(make_profile("ghc_prof_extremes", spec), "extremes.prof")
    t = ghc_prof_tables(text.decode("utf-8"))
    if not check(t is not None, "ghc-prof extremes: header, flat table and tree"):
        return
    _, fh, flat, th, tree = t
    labels = [ghc_prof_cells(th, r)[0] for r in tree]
    check("  " + "L" * 1000 + "\u2026" in labels and "  " + "\u00e9" * 500 + "\u2026" in labels,
          "ghc-prof: names over 1000 bytes cut at a character boundary, ending in '\u2026'")
    indents = [len(l) - len(l.lstrip(" ")) for l in labels]
    check(max(indents) == 200 and indents.count(200) == 62 and len(tree) == 264,
          "ghc-prof: 264 rows, the 62 at depth 200 and deeper indented as 200")
    check(ghc_prof_aligned(fh, flat) and ghc_prof_aligned(th, tree),
          "ghc-prof extremes: every row lines up with its heading")
    check(all(ord(c) >= 32 for c in text.decode("utf-8").replace("\n", "").replace("\t", "")),
          "ghc-prof extremes: no control character but the header's TABs and line ends")


def ghc_prof_tick_us(rep):
    """ghc-prof's tick: the sampling interval, 1000 µs for the cycles clock."""
    ns = rep["interval_ns"]
    return ns // 1000 if rep["clock"] != "cycles" and ns >= 1000 and ns % 1000 == 0 else 1000


def ghc_prof_header_ok(head, rep, bytes_total, what):
    """The header's command line and totals: `ccprof report`'s."""
    tps, total = rep["ticks_per_sec"], rep["total_ticks"]
    us = ghc_prof_tick_us(rep)
    cents = (total * 200 + tps) // (2 * tps)  # %.2f of the seconds, half up
    want = ["\t   " + " ".join([os.path.basename(rep["program"])] + rep["argv"][1:]),
            "\ttotal time  = %11s secs   (%d ticks @ %d us, 1 processor)"
            % ("%d.%02d" % divmod(cents, 100), scaled(total, 10 ** 6, tps * us), us),
            "\ttotal alloc = %11s bytes  (excludes profiling overheads)" % "{:,}".format(bytes_total)]
    got = [head[2], head[4], head[5]]
    check(head[0].endswith(" Time and Allocation Profiling Report  (Final)") and got == want and
          head[1] == head[3] == head[6] == "",
          "ghc-prof %s: the header's command line, total time (%d us ticks) and alloc are "
          "report's%s" % (what, us, "" if got == want else " (%r, want %r)" % (got, want)))


def ghc_prof_real(prof, rep, what, counts=None, alloc=None):
    """A recorded program's ghc-prof: its totals are `ccprof report`'s, the
    rows line up, the ticks, bytes and entries add up to the header's
    totals and ccprof's calls, each function's entries to what the
    program counted (counts) and its bytes to what it allocated (alloc:
    its counts and the profile's total), the percentages add up, MAIN
    inherits 100.0, and the flat table lists what GHC's rule lists."""
    text = ghc_prof_convert(prof, what + ".prof").decode("utf-8")
    t = ghc_prof_tables(text)
    if not check(t is not None, "ghc-prof %s: header, flat table and stack tree" % what):
        return None
    head, fh, flat, th, tree = t
    check(ghc_prof_aligned(fh, flat) and ghc_prof_aligned(th, tree),
          "ghc-prof %s: every row lines up with its heading" % what)
    bytes_total = alloc[1][0] if alloc else 0
    ghc_prof_header_ok(head, rep, bytes_total, what)
    rows = [ghc_prof_cells(th, r) for r in tree]
    nums = [[int(n[0]), int(n[1])] + [float(x) for x in n[2:6]] + [int(n[6]), int(n[7])]
            for _, _, _, n in rows]
    ticks = scaled(rep["total_ticks"], 10 ** 6, rep["ticks_per_sec"] * ghc_prof_tick_us(rep))
    check([n[0] for n in nums] == list(range(1, len(rows) + 1)),
          "ghc-prof %s: stacks numbered 1 .. %d" % (what, len(rows)))
    check(sum(n[6] for n in nums) == ticks and sum(n[7] for n in nums) == bytes_total,
          "ghc-prof %s: the tree's ticks and bytes add up to the header's %d and %d"
          % (what, ticks, bytes_total))
    check(sum(n[1] for n in nums) == rep["total_calls"],
          "ghc-prof %s: entries add up to ccprof's %d calls" % (what, rep["total_calls"]))
    check(rows[0][:3] == ("MAIN", "MAIN", "<built-in>") and nums[0][4] == 100.0 and
          (not bytes_total or nums[0][5] == 100.0),
          "ghc-prof %s: MAIN is the root, inherited %%time 100.0 (%s)" % (what, tree[0].split()[-6:-2]))
    pct = sum(n[2] for n in nums)
    check(abs(pct - 100) <= 0.05 * len(nums) + 1e-6,
          "ghc-prof %s: individual %%time adds up to 100 (%.1f over %d rows)" % (what, pct, len(nums)))
    per = collections.defaultdict(lambda: [0, 0, 0])  # entries, ticks, bytes
    for (label, _, _, _), n in zip(rows, nums):
        f = per[label.strip(" ")]
        f[0], f[1], f[2] = f[0] + n[1], f[1] + n[6], f[2] + n[7]
    if counts:
        bad = {f: (per[f][0], n) for f, n in counts.items() if per[f][0] != n}
        check(not bad, "ghc-prof %s: each function's entries are the calls the program "
              "counted%s" % (what, "" if not bad else " %r" % bad))
    if alloc:
        bad = {f: (per[f][2], alloc[0][f][0]) for f in ALLOC_FNS if per[f][2] != alloc[0][f][0]}
        check(not bad, "ghc-prof %s: each function's bytes are what it counted%s"
              % (what, "" if not bad else " %r" % bad))
    ghc_prof_flat_ok(fh, flat, per, rep, ticks, bytes_total, what)
    return rows


def ghc_prof_flat_ok(fh, flat, per, rep, ticks, bytes_total, what):
    cells = [ghc_prof_cells(fh, r) for r in flat]
    listed = [c[0] for c in cells]
    want = {f for f, v in per.items() if v[1] > ticks // 100 or v[2] > bytes_total // 100}
    order = [int(c[3][2]) for c in cells]
    check(set(listed) == want and len(listed) == len(want) and order == sorted(order, reverse=True),
          "ghc-prof %s: the flat table lists the %d functions over 1%% of ticks or bytes, "
          "largest ticks first" % (what, len(want)))
    check(all(int(c[3][2]) == per[c[0]][1] and int(c[3][3]) == per[c[0]][2] for c in cells),
          "ghc-prof %s: flat ticks and bytes are each function's stacks' added up" % what)
    fs = functions(rep)
    total = rep["total_time_s"]
    bad = []
    for label, _, _, n in cells:
        own = rep["root_time_s"] if label == "MAIN" else fs[label]["self_s"]
        if total and abs(float(n[0]) - 100 * own / total) > 0.0501:
            bad.append((label, n[0], 100 * own / total))
    check(not bad, "ghc-prof %s: flat %%time is report's self time share%s"
          % (what, "" if not bad else " %r" % bad[:3]))


def ghc_prof(names, rep, thr, thr_rep):
    ghc_prof_goldens()
    ghc_prof_extremes()
    rows = ghc_prof_real(names, rep, "names")
    if rows:
        names_in({r[0].strip(" ") for r in rows}, "ghc-prof")
    prog = build("calls_ghcprof", "tests/progs/calls.c")
    r, calls = record(prog, clock="cycles", profile=os.path.join(D, "calls.ccprof"))
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^calls (\S+) (\d+)$", r.stdout, re.M)}
    check(r.returncode == 0 and len(counts) == 11, "calls.c runs under the cycles clock, "
          "counting its calls")
    ghc_prof_real(calls, report(calls), "calls", counts=counts)
    ghc_prof_real(thr, thr_rep, "threads", counts={"leaf": 36000, "mid": 8, "worker": 8})
    text = ghc_prof_convert(names, "names-pruned.prof", "--min-percent", "10").decode("utf-8")
    t = ghc_prof_tables(text)
    if check(t is not None, "ghc-prof --min-percent 10: laid out"):
        rows = [ghc_prof_cells(t[3], r) for r in t[4]]
        ticks = scaled(rep["total_ticks"], 10 ** 6, rep["ticks_per_sec"] * ghc_prof_tick_us(rep))
        check(any(r[0].strip() == "(hidden)" and r[1:3] == ("MAIN", "<pruned>") for r in rows) and
              sum(int(r[3][6]) for r in rows) == ticks,
              "ghc-prof --min-percent 10: a '(hidden)' row (MAIN, <pruned>), the ticks still "
              "add up to %d" % ticks)


# ---- callgrind ------------------------------------------------------------------

def annotate_table(text):
    """callgrind_annotate's function table: {file:function: [costs]}."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+)(?: \([ \d.]+%\))?\s+(?:([\d,]+)(?: \([ \d.]+%\))?|)\s+(\S.*?)(?: \[[^\]]*\])?$", line)
        if m and m.group(3) != "PROGRAM TOTALS":
            rows.setdefault(m.group(3), []).append(
                [int(m.group(1).replace(",", "")), int((m.group(2) or "0").replace(",", ""))])
    return rows


def callgrind(prof, rep, what):
    path = convert("callgrind", prof, "callgrind.out." + what)
    tps = rep["ticks_per_sec"]
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    check(lines[0] == "# callgrind format" and lines[1] == "version: 1",
          "callgrind %s: format line and version first" % what)
    hdr_end = next(i for i, l in enumerate(lines) if l.startswith("events: "))
    check(lines[hdr_end + 1].startswith("summary: "), "callgrind %s: events: ends the header" % what)
    check(all(not re.match(r"^\d", l) or l == l.strip() for l in lines),
          "callgrind %s: no cost line with surrounding spaces" % what)
    defined = {}
    dup = False
    for l in lines:
        m = re.match(r"^(c?fn|fl|cfi|ob|cob)=\((\d+)\) (.*)$", l)
        if m:
            space = {"cfn": "fn", "cfi": "fl", "cob": "ob"}.get(m.group(1), m.group(1))
            dup |= (space, m.group(2)) in defined
            defined[(space, m.group(2))] = m.group(3)
    check(not dup, "callgrind %s: every compressed name defined once" % what)
    if what == "names":
        names_in({v for (s, _), v in defined.items() if s == "fn"}, "callgrind")
    if not have("callgrind_annotate"):
        skip("callgrind_annotate not installed (package valgrind): structure checked only")
        return
    # Run where the file is: callgrind_annotate strips the current directory
    # from fl= names but not from cfi= names (export_callgrind.c).
    r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
            cwd=os.path.dirname(prof))
    check(r.returncode == 0 and r.stderr == "",
          "callgrind %s: callgrind_annotate reads it, exit 0, empty stderr%s"
          % (what, "" if not r.stderr else " (%s)" % r.stderr.strip()[:200]))
    tot = re.search(r"^([\d,]+) \(100.0%\)\s+([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", r.stdout, re.M)
    if check(tot is not None, "callgrind %s: callgrind_annotate prints totals" % what):
        t, c = int(tot.group(1).replace(",", "")), int(tot.group(2).replace(",", ""))
        check(t == rep["total_ticks"] and c == rep["total_calls"],
              "callgrind %s: annotate's totals %d ticks, %d calls = ccprof's %d, %d"
              % (what, t, c, rep["total_ticks"], rep["total_calls"]))
    # As the docs say to run it: default options (--auto=yes), in the
    # directory of the program, whose name must not be taken for a source:
    # only the program's source files (from its debug information,
    # model/sources.c) are annotated, each one a real file.
    r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
            cwd=os.path.dirname(rep["program"]))
    annotated = re.findall(r"^-- Auto-annotated source: (.*)$", r.stdout, re.M)
    sources = {f["file"] for f in rep["functions"] if f["file"]}
    check(r.returncode == 0 and r.stderr == "" and set(annotated) == sources and
          all(os.path.isfile(a) for a in annotated),
          "callgrind %s: callgrind_annotate with --auto=yes next to the program annotates "
          "the %d source file(s) of the profile (%s), empty stderr%s"
          % (what, len(sources), ", ".join(sorted(os.path.basename(a) for a in annotated)),
             "" if not r.stderr else " (%s)" % r.stderr.strip()[:200]))
    r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
            cwd=os.path.dirname(prof))
    table = annotate_table(r.stdout)
    fs = functions(rep)
    twice = [k for k, v in table.items() if len(v) > 1]
    check(not twice, "callgrind %s: each function listed once (%s)" % (what, twice[:3]))
    bad = []
    for name, f in fs.items():
        key = [k for k in table if k.split(":", 1)[1] == name]
        if len(key) != 1:
            bad.append((name, "not found"))
            continue
        incl, calls = table[key[0]][0]
        # ticks from seconds: exact for ns ticks, within rounding for cycles
        slack = 0 if tps == 10 ** 9 else -(-tps // 10 ** 9)
        if abs(incl - f["inherited_s"] * tps) > slack + 0.5:
            bad.append((name, incl, f["inherited_s"]))
    check(not bad, "callgrind %s: annotate's inclusive time = ccprof's inherited for every "
          "function (exact arc times)%s" % (what, "" if not bad else " %r" % bad[:3]))
    r = run(["callgrind_annotate", "--tree=calling", "--threshold=100", "--auto=no", path],
            cwd=os.path.dirname(prof))
    arcs_seen, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*[\d,]+(?: \([ \d.]+%\))?\s+(?:[\d,]+(?: \([ \d.]+%\))?|)\s+\*\s+[^:]*:(.*?)(?: \[[^\]]*\])?$", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^\s*[\d,]+(?: \([ \d.]+%\))?\s+(?:[\d,]+(?: \([ \d.]+%\))?|)\s+>\s+[^:]*:(.*?) \(([\d,]+)x\)(?: \[[^\]]*\])?$", line)
        if m and cur is not None:
            arcs_seen[(cur, m.group(1))] = int(m.group(2).replace(",", ""))
    want = {k: a["calls"] for k, a in arcs(rep).items()}
    want.update({("<root>", f["name"]): f["root_calls"] for f in rep["functions"] if f["root_calls"]})
    check(arcs_seen == want, "callgrind %s: annotate's call counts = ccprof's %d arcs%s"
          % (what, len(want), "" if arcs_seen == want else " (got %d)" % len(arcs_seen)))
    if what == "names":
        rows = speedscope_import(path, os.path.basename(path), "Callgrind profile", "callgrind")
        if rows is not None:
            names_in(speedscope_names(rows), "callgrind in speedscope")


# A thread root entered again, under a selection (profiles by tests/mkprof.c,
# so every number is known; times in ms, with bytes chosen apart from them).
# main → b → c → main → c, and a worker thread w → b → c → w:
#
#   context                  T  bytes   b deselected (view.c, Note [The
#   [main]                  10      1   thread root of a reduced stack])
#   [main] [b]              20      2   [main]
#   [main] [b] [c]          30      4   [main] [c]
#   main [b] [c] [main]     40      8   main [c] [main]    not [c] [main]
#   main [b] c [main] [c]   50     16   [main] [c]
#   [w]                      0      0   [w]
#   [w] [b] [c]              3     32   [w] [c]
#   w [b] [c] [w]            6     64   w [c] [w]          not [c] [w]
#
# Reduced to [c] [main], the stack started at c as if c were a thread root:
# a call <root> → c with calls=0 carried 40 ms and 8 bytes, which
# callgrind_annotate adds to <root>'s own cost, so c's inclusive cost there
# lacked them (and dot drew no edge for them).
REENTERED = """program ./reentered
clock cpu 1000
alloc 0 0
thread 42 reentered
ctx 0 0 5 128 1 :
ctx 1 0 10 1 1 : [main]
ctx 1 0 20 2 1 : [main] [b]
ctx 1 0 30 4 1 : [main] [b] [c]
ctx 1 0 40 8 1 : main [b] [c] [main]
ctx 1 0 50 16 1 : main [b] c [main] [c]
thread 43 worker
ctx 1 0 0 0 0 : [w]
ctx 1 0 3 32 1 : [w] [b] [c]
ctx 1 0 6 64 1 : w [b] [c] [w]
"""
ROOTS = ("main", "w")

# Mutual recursion under a selection (docs/exports.md, callgrind): main →
# y → f → y reduces, with z deselected, to ⟨main, f, y⟩, whose arc main → f
# has f's time and no call.
ELIDED = """program ./elided
clock cpu 1000
alloc 0 0
thread 42 elided
ctx 1 0 10 1 1 : [main]
ctx 1 0 20 2 1 : [main] [y]
ctx 1 0 30 4 1 : [main] [y] [f]
ctx 1 0 40 8 1 : [main] y [f] [y]
ctx 1 0 7 16 1 : [main] [z]
"""


def into(lines, name, col, counted=lambda calls: True):
    return sum(c[col] for _, callee, calls, c in lines if callee == name and counted(calls))


def callgrind_views():
    """Under a selection the calls into every function add up to its
    inherited time and bytes, in the file and in callgrind_annotate, also
    when a thread's root was entered again; dot's edges (with a thread
    root's own share) and pprof's stacks give the same.  With mutual
    recursion an arc of the reduced stacks may have time and no call: the
    file has it, callgrind_annotate leaves it out (docs/exports.md)."""
    prof = make_profile("reentered", REENTERED)
    for opts in (["--deselect", "b"], ["--deselect", "main,b"]):
        what = " ".join(opts)
        rep = report(prof, *opts)
        fs = functions(rep)
        ms = {n: round(f["inherited_s"] * 1000) for n, f in fs.items()}
        nbytes = {n: f["inherited_alloc_bytes"] for n, f in fs.items()}
        check(ms == {"main": 150, "c": 129, "w": 9} and nbytes["c"] == 124,
              "%s: ccprof's inherited ms %s (c 30+40+50+3+6, not b's 20)" % (what, ms))
        path = convert("callgrind", prof, "callgrind.out.reentered", *opts)
        lines = callgrind_call_lines(path)
        zero = [l for l in lines if l[2] == 0 and any(l[3])]
        check(not zero, "callgrind %s: no call with calls=0 carries a cost (%s)" % (what, zero))
        got = {n: (into(lines, n, 0), into(lines, n, 2)) for n in fs}
        check(got == {n: (ms[n], nbytes[n]) for n in fs},
              "callgrind %s: the calls into each function add up to its inherited ms and "
              "bytes (%s)" % (what, got))
        check(into(lines, "c", 0) == 129 and not [l for l in lines if l[:2] == ["<root>", "c"]],
              "callgrind %s: c is called by main and w, not by <root>" % what)
        if have("callgrind_annotate"):
            r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no",
                     path], cwd=D)
            incl = annotate_rows(r.stdout, 4)
            got = {n: (incl.get(n, [0] * 4)[0], incl.get(n, [0] * 4)[2]) for n in fs}
            check(r.returncode == 0 and r.stderr == "" and
                  got == {n: (ms[n], nbytes[n]) for n in fs},
                  "callgrind %s: annotate's inclusive ms and bytes = ccprof's inherited (%s)"
                  % (what, got))
        else:
            skip("callgrind_annotate not installed (package valgrind): inclusive not annotated")
        # dot: the edges into a function, and a thread root's own share (the
        # time of contexts that start with it, marked), add up likewise
        text = open(convert("dot", prof, "reentered.dot", "--node-threshold", "0", *opts),
                    encoding="utf-8").read()
        ids = {f["id"]: n for n, f in fs.items()}
        edges = collections.Counter()
        for a, b, t in re.findall(r'^  f(\d+) -> f(\d+) \[label="[\d.]+%\\n([\d.]+) s\\n',
                                  text, re.M):
            edges[ids[int(b)]] += round(float(t) * 1000)
        own = collections.Counter()
        for c in rep["contexts"]:
            if c["history"] and c["history"][0]["marked"]:
                own[c["history"][0]["name"]] += round(c["time_s"] * 1000)
        check(not (set(own) - set(ROOTS)) and
              all(edges[n] + own[n] == ms[n] for n in fs),
              "dot %s: edges into each function (and a thread root's own share %s) add up "
              "to its inherited time (%s)" % (what, dict(own), dict(edges)))
        # pprof: the samples whose stack holds a function add up to its
        # inherited time and bytes
        _, samples, locs, _ = pprof_decode(gzip.decompress(open(
            convert("pprof", prof, "reentered.pb.gz", *opts), "rb").read()))
        got = {n: (sum(s[2][0] for s in samples if n in {locs[l] for l in s[1]}) // 10 ** 6,
                   sum(s[2][3] for s in samples if n in {locs[l] for l in s[1]})) for n in fs}
        check(got == {n: (ms[n], nbytes[n]) for n in fs},
              "pprof %s: the stacks through each function add up to its inherited ms and "
              "bytes (%s)" % (what, got))

    prof = make_profile("elided", ELIDED)
    rep = report(prof, "--deselect", "z")
    fs = functions(rep)
    silent = {k: round((a["self_in_s"] + a["child_in_s"]) * 1000)
              for k, a in arcs(rep).items() if a["calls"] == 0}
    check(silent == {("main", "f"): 40},
          "--deselect z: ccprof's arc main->f has f's 40 ms and no call (%s)" % silent)
    path = convert("callgrind", prof, "callgrind.out.elided", "--deselect", "z")
    lines = callgrind_call_lines(path)
    ms = {n: round(f["inherited_s"] * 1000) for n, f in fs.items()}
    check({n: into(lines, n, 0) for n in fs} == ms,
          "callgrind --deselect z: the calls into each function, calls=0 included, add up to "
          "its inherited time (%s)" % ms)
    if have("callgrind_annotate"):
        r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
                cwd=D)
        incl = annotate_rows(r.stdout, 4)
        got = {n: incl.get(n, [0])[0] for n in fs}
        want = {n: into(lines, n, 0, lambda calls: calls > 0) for n in fs}
        check(got == want and got["f"] == ms["f"] - 40,
              "callgrind --deselect z: annotate's inclusive time leaves out exactly the "
              "calls=0 line (f %d of %d ms)" % (got["f"], ms["f"]))


# ---- folded -----------------------------------------------------------------------

LINE = re.compile(r"^[^;\n]+(;[^;\n]+)* [0-9]+$")


def folded(prof, rep, thr, thr_rep):
    path = convert("folded", prof, "names.folded")
    lines = open(path, encoding="utf-8").read().splitlines()
    check(lines and all(LINE.match(l) for l in lines),
          "folded: every line is 'frame;frame N' (docs/exports.md, folded)")
    total = sum(int(l.rsplit(" ", 1)[1]) for l in lines)
    check(total == total_in(rep, 10 ** 6),
          "folded: counts add up to ccprof's total in µs (%d = %.6f s)" % (total, rep["total_time_s"]))
    frames = {f for l in lines for f in l.rsplit(" ", 1)[0].split(";")}
    names_in(frames, "folded", folded_name)
    check(not any(re.search(r" \d+ \d+$", l) for l in lines),
          "folded: no line ends in two numbers (flamegraph.pl's differential form)")
    rows = speedscope_import(path, "names.folded", "collapsed stack format", "folded")
    if rows is not None:
        names_in(speedscope_names(rows), "folded in speedscope", folded_name)
        top = [r for r in rows if r[2] == "main"]
        if check(top, "folded in speedscope: main is listed"):
            got = int(top[0][0].split()[0].replace(",", ""))
            want = functions(rep)["main"]["inherited_s"] * 1e6
            check(abs(got - want) <= 2, "folded in speedscope: main's total %d µs = ccprof's" % got)

    path = convert("folded", thr, "threads.folded", "--threads")
    lines = open(path, encoding="utf-8").read().splitlines()
    check(all(re.match(r"^[^;]+ \[\d+\];", l) for l in lines),
          "folded --threads: every stack starts with its thread 'name [tid]'")
    check(sum(int(l.rsplit(" ", 1)[1]) for l in lines) == total_in(thr_rep, 10 ** 6),
          "folded --threads: counts add up to the total")


# ---- speedscope -------------------------------------------------------------------

def speedscope(prof, rep, thr, thr_rep):
    path = convert("speedscope", prof, "names.speedscope.json")
    j = json.load(open(path, encoding="utf-8"))
    errs = schema_errors(j, SPEEDSCOPE_SCHEMA, SPEEDSCOPE_SCHEMA)
    check(not errs, "speedscope: speedscope's file-format structure%s" % ("" if not errs else " %s" % errs[:3]))
    app = speedscope_app()
    if app:
        official = json.load(open(os.path.join(os.path.dirname(app), "file-format-schema.json")))
        errs = schema_errors(j, official, official)
        check(not errs, "speedscope: speedscope %s's file-format-schema.json%s"
              % (SPEEDSCOPE_VERSION, "" if not errs else " %s" % errs[:3]))
    p = j["profiles"][0]
    nframes = len(j["shared"]["frames"])
    check(len(j["profiles"]) == 1 and len(p["samples"]) == len(p["weights"]),
          "speedscope: one profile, a weight per sample")
    check(all(0 <= i < nframes for s in p["samples"] for i in s), "speedscope: frame indices in range")
    want = total_in(rep, 10 ** 9)
    check(sum(p["weights"]) == p["endValue"] == want and p["unit"] == "nanoseconds",
          "speedscope: weights add up to endValue = ccprof's total (%d ns)" % want)
    names_in({f["name"] for f in j["shared"]["frames"]}, "speedscope")
    rows = speedscope_import(path, "names.speedscope.json", "speedscope json file", "speedscope")
    if rows is not None:
        names_in(speedscope_names(rows), "speedscope in speedscope")
        main = [r for r in rows if r[2] == "main"]
        if check(main, "speedscope in speedscope: main is listed"):
            got = speedscope_seconds(main[0][0])
            want_s = functions(rep)["main"]["inherited_s"]
            check(got is not None and abs(got - want_s) <= 0.00002 + want_s * 0.001,
                  "speedscope in speedscope: main's total %s = ccprof's %.6f s" % (main[0][0], want_s))

    path = convert("speedscope", thr, "threads.speedscope.json", "--threads")
    j = json.load(open(path, encoding="utf-8"))
    ps = j["profiles"]
    check(len(ps) == thr_rep["threads"] and all(re.match(r".* \[\d+\]$", p["name"]) for p in ps),
          "speedscope --threads: one profile per thread (%d), named 'name [tid]'" % len(ps))
    check(all(sum(p["weights"]) == p["endValue"] for p in ps),
          "speedscope --threads: each profile's weights add up to its endValue")
    check(sum(p["endValue"] for p in ps) == total_in(thr_rep, 10 ** 9),
          "speedscope --threads: the threads add up to the total")
    if app:
        rows = speedscope_import(path, "threads.speedscope.json", "speedscope json file",
                                 "speedscope --threads")


# ---- pprof --------------------------------------------------------------------------

def pprof(prof, rep, thr, thr_rep):
    path = convert("pprof", prof, "names.pb.gz")
    data = open(path, "rb").read()
    try:
        raw = gzip.decompress(data)
    except OSError as e:
        check(False, "pprof: gzip (%s)" % e)
        return
    check(data[:2] == b"\x1f\x8b", "pprof: gzip that Python's gzip module reads")
    strings, samples, locs, types = pprof_decode(raw)
    check(strings and strings[0] == "", "pprof: string_table[0] is empty")
    clock = {"cpu": "cpu", "wall": "wall"}.get(rep["clock"], "time")
    check(types == [[clock, "nanoseconds"], ["calls", "count"]], "pprof: sample types %s" % types)
    check(all(len(s[2]) == 2 and s[1] and all(l in locs for l in s[1]) for s in samples),
          "pprof: every sample has 2 values and known locations")
    ns = sum(s[2][0] for s in samples)
    calls = sum(s[2][1] for s in samples)
    check(ns == total_in(rep, 10 ** 9) and calls == rep["total_calls"],
          "pprof: samples add up to ccprof's %.9f s and %d calls" % (rep["total_time_s"], calls))
    names_in(set(locs.values()), "pprof (decoded)")
    main = functions(rep)["main"]["inherited_s"] * 1e9
    through = sum(s[2][0] for s in samples if any(locs[l] == "main" for l in s[1]))
    check(abs(through - main) <= len(samples) + 1,
          "pprof: stacks through main add up to main's inherited time (%d ns)" % through)

    if have("protoc"):
        r = subprocess.run(["protoc", "-I" + os.path.join(TOP, "tests"),
                            "--decode=perftools.profiles.Profile", "profile.proto"],
                           input=raw, capture_output=True)
        check(r.returncode == 0 and not r.stderr and r.stdout.count(b"sample {") == len(samples),
              "pprof: protoc --decode reads it (%d samples)" % len(samples))
    else:
        skip("protoc not installed (package protobuf-compiler)")

    # The thread-labelled profile, decoded below with or without go.
    tpath = convert("pprof", thr, "threads.pb.gz", "--threads")
    if have("go"):
        env = dict(os.environ, GOCACHE=os.path.join(CACHE, "go-build"),
                   PPROF_TMPDIR=D, HOME=os.environ.get("HOME") or D)
        def gop(*args, p=path):
            return run(["go", "tool", "pprof", "-symbolize=none"] + list(args) + [p], env=env)
        r = gop("-raw")
        check(r.returncode == 0, "pprof: go tool pprof -raw reads it%s" % (
            "" if r.returncode == 0 else " (%s)" % r.stderr.strip()[:200]))
        vals = re.findall(r"^\s+(\d+)\s+(\d+): [\d ]+$", r.stdout, re.M)
        check(sum(int(a) for a, _ in vals) == ns and sum(int(b) for _, b in vals) == calls,
              "pprof: go tool pprof -raw totals = ccprof's (%d ns, %d calls)" % (ns, calls))
        r = gop("-top")
        m = re.search(r"Showing nodes accounting for \S+, [\d.]+% of (\S+) total", r.stdout)
        if check(r.returncode == 0 and m, "pprof: go tool pprof -top"):
            got = speedscope_seconds(m.group(1))
            check(got is not None and abs(got - rep["total_time_s"]) <= 0.006 * rep["total_time_s"],
                  "pprof: -top total %s = ccprof's %.6f s" % (m.group(1), rep["total_time_s"]))
        # pprof's default symbolization simplifies names as C++ ones: the
        # root must not read as "<unknown>" (it did, named "<root>")
        r = run(["go", "tool", "pprof", "-raw", path], env=env)
        names = re.findall(r"^\s+\d+: 0x0 M=\d+ (\S*) ", r.stdout, re.M)
        check(r.returncode == 0 and "[root]" in names and "" not in names,
              "pprof: go tool pprof's default symbolization keeps the root's name [root], "
              "and every other (%s)" % names)
        r = gop("-top", "-sample_index=calls")
        m = re.search(r"Showing nodes accounting for \S+, [\d.]+% of (\d+) total", r.stdout)
        check(m and int(m.group(1)) == rep["total_calls"],
              "pprof: -top -sample_index=calls total = ccprof's %d calls" % rep["total_calls"])
        r = gop("-traces")
        check(r.returncode == 0, "pprof: go tool pprof -traces")
        frames = {l.strip() for l in r.stdout.splitlines() if l.startswith("   ")}
        frames |= {re.sub(r"^\s*\S+\s+", "", l) for l in r.stdout.splitlines()
                   if re.match(r"^\s+[\d.]+\w*s\s+\S", l)}
        names_in(frames, "pprof -traces")
        r = gop("-tags", p=tpath)
        labels = re.findall(r"^\s+\S+ \(\s*[\d.]+%\): (.* \[\d+\])$", r.stdout, re.M)
        ths = report(thr, "--threads")["threads"]
        timed = {"%s [%d]" % (t["name"], t["tid"]) for t in ths if t["total_time_s"] > 0}
        # threads.c: main (named after the program) and 8 workers.
        named = sorted(t["name"] for t in ths)
        check(named == sorted(["threads_exports"] + ["worker-%d" % i for i in range(8)]),
              "pprof --threads: the profile has threads.c's 9 threads (%s)" % named)
        check(r.returncode == 0 and "thread:" in r.stdout and len(labels) == len(set(labels))
              and set(labels) == timed and len(timed) >= 2,
              "pprof --threads: a thread label for each of the %d threads with time, "
              "with its name and tid (%s)" % (len(timed), sorted(set(labels) ^ timed)))
    else:
        skip("go not installed (package golang-go): go tool pprof not run")
    if check(os.path.exists(tpath) and os.path.getsize(tpath) > 0,
             "pprof --threads: the file is written"):
        strings, samples, locs, types = pprof_decode(gzip.decompress(open(tpath, "rb").read()))
        check(types[0] == ["cpu", "nanoseconds"] and
              sum(s[2][0] for s in samples) == total_in(thr_rep, 10 ** 9) and
              sum(s[2][1] for s in samples) == thr_rep["total_calls"],
              "pprof --threads (cpu clock): samples add up to ccprof's total and calls")
    rows = speedscope_import(path, "names.pb.gz", "protobuf encoded pprof file", "pprof")
    if rows is not None:
        names_in(speedscope_names(rows), "pprof in speedscope")


# ---- dot ----------------------------------------------------------------------------

def pprof_saturated():
    """Sample values are int64 in profile.proto and ccprof's counts uint64:
    2^63 and more come out as INT64_MAX (docs/exports.md), not negative."""
    huge = 2 ** 63 + 5
    spec = ("program ./huge\nclock cpu 1000000000\nalloc 0 0\nthread 1 huge\n"
            "ctx %d 0 %d %d %d : [main]\n" % (huge, huge, huge, huge))
    path = convert("pprof", make_profile("pprof_huge", spec), "huge.pb.gz")
    _, samples, locs, _ = pprof_decode(gzip.decompress(open(path, "rb").read()))
    main = [s[2] for s in samples if locs.get(s[1][0]) == "main"]
    # pprof_decode reads varints unsigned: a negative int64 is >= 2^63 here
    check(main == [[2 ** 63 - 1] * 4],
          "pprof: time, calls, blocks and bytes of 2^63+5 are INT64_MAX (%s)" % main)


def pprof_stand_ins():
    """The names the tool gives cost centres in angle brackets,
    "<overflow>" and "<unnamed region>", are "[overflow]" and "[unnamed
    region]" in pprof, as the root is "[root]": go tool pprof simplifies
    names as C++ ones, and showed both as "<unknown>", the overflow
    holding most of a run past --max-contexts."""
    exe = build("exp_standins", "tests/progs/standins.c")
    prof = os.path.join(OUT, "exp_standins.ccprof")
    r = run([CCPROF, "record", "--clock=cycles", "--max-contexts=16", "-o", prof, "--", exe])
    names = {f["name"] for f in report(prof)["functions"]} if r.returncode == 0 else r.stderr
    if not check({"<overflow>", "<unnamed region>"} <= set(names),
                 "stand-ins: the report has <overflow> and <unnamed region> (%s)" % names):
        return
    path = convert("pprof", prof, "standins.pb.gz")
    _, _, locs, _ = pprof_read(path)
    got = set(locs.values())
    check({"[overflow]", "[unnamed region]"} <= got and not any(n.startswith("<") for n in got),
          "pprof: the stand-ins are [overflow] and [unnamed region] (%s)" % sorted(got))
    if have("go"):
        env = dict(os.environ, GOCACHE=os.path.join(CACHE, "go-build"),
                   PPROF_TMPDIR=D, HOME=os.environ.get("HOME") or D)
        r = run(["go", "tool", "pprof", "-raw", path], env=env)
        shown = set(re.findall(r"^\s+\d+: 0x0 M=\d+ (.*?) \S*:\d+", r.stdout, re.M))
        check(r.returncode == 0 and {"[overflow]", "[unnamed region]"} <= shown and "" not in shown,
              "pprof: go tool pprof's default symbolization keeps both names (%s)" % sorted(shown))


def dot(prof, rep):
    path = convert("dot", prof, "names.dot", "--node-threshold", "0")
    text = open(path, encoding="utf-8").read()
    nodes = re.findall(r"^  (f\d+) \[label=\"", text, re.M)
    edges = re.findall(r"^  (f\d+) -> (f\d+) \[", text, re.M)
    check(text.startswith("digraph callgraph {") and text.count("digraph") == 1,
          "dot: exactly one digraph")
    check(len(nodes) == len(rep["functions"]) and len(edges) == len(rep["arcs"]),
          "dot --node-threshold 0: a node per function (%d), an edge per arc (%d)"
          % (len(nodes), len(edges)))
    # The arm as the report's --hot finds it: names.cpp's two halves are
    # near 50 % each, and where neither holds half of main's time (a
    # loaded machine's cycles) the arm is main alone, with no arc to
    # draw (a fresh clone's CI, session 58).
    arm = [f["id"] for f in report(prof, "--hot")["hot"]["arm"]]
    pairs = {(a["caller_id"], a["callee_id"]) for a in rep["arcs"]}
    want = sum(1 for x, y in zip(arm, arm[1:]) if (x, y) in pairs)
    hot_edges = len(re.findall(r"penwidth=4", text))
    check('color="#d00000", penwidth=3' in text and arm and hot_edges == want,
          "dot: the expensive arm is drawn, %d arcs (the report's arm of %d functions has %d)"
          % (hot_edges, len(arm), want))
    # every arc label holds its exact inherited time (self_in + child_in)
    times = sorted(float(t) for t in
                   re.findall(r'^  f\d+ -> f\d+ \[label="[\d.]+%\\n([\d.]+) s\\n', text, re.M))
    want = sorted(a["self_in_s"] + a["child_in_s"] for a in rep["arcs"]
                  if a["caller"] != a["callee"])
    check(len(times) == len(want) and all(abs(a - b) < 2.5e-9 for a, b in zip(times, want)),
          "dot: arc labels carry ccprof's exact arc times (to the ns)")
    few = convert("dot", prof, "names50.dot", "--node-threshold", "50")
    kept = re.findall(r"^  f\d+ \[", open(few, encoding="utf-8").read(), re.M)
    want = [f for f in rep["functions"] if f["inherited_s"] >= rep["total_time_s"] / 2]
    check(len(kept) == len(want), "dot --node-threshold 50: %d functions kept" % len(want))
    if not have("dot"):
        skip("dot not installed (package graphviz): syntax not checked")
        return
    svg = os.path.join(D, "names.dot.svg")
    r = run(["dot", "-Tsvg", "-o", svg, path])
    check(r.returncode == 0 and r.stderr == "", "dot: dot -Tsvg renders it, nothing on stderr%s"
          % ("" if not r.stderr else " (%s)" % r.stderr.strip()[:200]))
    if have("gc"):
        r = run(["gc", "-n", "-e", path])
        m = re.match(r"\s*(\d+)\s+(\d+)", r.stdout)
        check(m and int(m.group(1)) == len(nodes) and int(m.group(2)) == len(edges),
              "dot: gc counts %s nodes and edges" % (m.groups() if m else "no",))
    if os.path.exists(svg):
        texts = {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", open(svg, encoding="utf-8").read())}
        names_in(texts, "dot (as rendered by dot -Tsvg)")


LONG_C = r"""
#include <ccprof.h>
#include <stdlib.h>
#include <string.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i;
}
int main(void)
{
	char *amps = malloc(20001), *utf8 = malloc(20001);
	memset(amps, '&', 20000);
	amps[20000] = 0;
	for (int i = 0; i < 20000; i += 2)
		memcpy(utf8 + i, "\xc3\xa9", 2); /* é */
	utf8[20000] = 0;
	ccprof_cc_t a = ccprof_cc(amps), b = ccprof_cc(utf8);
	ccprof_enter(a);
	ccprof_enter(b);
	spin();
	ccprof_leave(b);
	ccprof_leave(a);
	return 0;
}
"""


def dot_long_names():
    """Graphviz rejects a quoted string over 16381 bytes: 20000-byte names
    (the worst case for escaping, '&' -> '&amp;', and 2-byte characters)
    are cut with '…' at a character boundary, and dot reads the file."""
    src = os.path.join(D, "long_names.c")
    with open(src, "w") as f:
        f.write(LONG_C)
    r, prof = record(build("long_names", src), clock="cycles",
                     profile=os.path.join(D, "long_names.ccprof"))
    check(r.returncode == 0, "long_names runs under ccprof record")
    path = convert("dot", prof, "long_names.dot", "--node-threshold", "0")
    text = open(path, encoding="utf-8").read()  # a cut inside a character would not decode
    check(("&amp;" * 1500 + "\u2026\\n") in text and ("\u00e9" * 750 + "\u2026\\n") in text,
          "dot: a 20000-byte name is cut to 1500 bytes and '\u2026'")
    if not have("dot"):
        skip("dot not installed (package graphviz): long names not rendered")
        return
    r = run(["dot", "-Tsvg", "-o", os.devnull, path])
    check(r.returncode == 0 and r.stderr == "", "dot: renders a graph of 20000-byte names%s"
          % ("" if not r.stderr else " (%s)" % r.stderr.strip()[:200]))


CG_A = r"""
static volatile unsigned long sink;
void g(void);
__attribute__((noinline)) static void h(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += i;
}
int main(void)
{
	for (int i = 0; i < 3; i++) {
		h();
		g();
	}
	return 0;
}
"""
CG_B = r"""
static volatile unsigned long sink2;
__attribute__((noinline)) void g(void)
{
	for (unsigned long i = 0; i < 3000000; i++)
		sink2 += i;
}
"""


def callgrind_in_sources():
    """callgrind_annotate strips the current directory from fl= names but
    not from cfi= names (Note [The root in its callees' file] in
    export_callgrind.c): run from the sources' directory or a parent, a
    call across files names its callee twice.  <root>'s call to main no
    longer crosses files, so main is listed once with its inherited time
    (it was listed twice, /dir/a.c:main and a.c:main).  main → g, a.c to
    b.c, still crosses: the documented workaround, another directory,
    lists every function once with its inherited time."""
    if not with_libdw():
        skip("callgrind from the sources' directory: ccprof built without libdw, no files")
        return
    d = os.path.join(D, "cgsrc")
    os.makedirs(os.path.join(d, "elsewhere"), exist_ok=True)
    for name, text in (("a.c", CG_A), ("b.c", CG_B)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    exe = build("exports_cgsrc", os.path.join(d, "a.c"), os.path.join(d, "b.c"))
    r, prof = record(exe, clock="cycles", profile=os.path.join(d, "prog.ccprof"))
    check(r.returncode == 0, "cgsrc: runs under ccprof record")
    rep = report(prof)
    tps = rep["ticks_per_sec"]
    inh = {f["name"]: f["inherited_s"] * tps for f in rep["functions"]}
    path = convert("callgrind", prof, "cgsrc/callgrind.out.prog")
    if not have("callgrind_annotate"):
        skip("callgrind_annotate not installed (package valgrind)")
        return
    slack = -(-tps // 10 ** 9) + 0.5

    def table(cwd):
        r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
                cwd=cwd)
        return r.returncode == 0 and r.stderr == "", annotate_table(r.stdout)

    for cwd, what in ((d, "the sources' directory"), (D, "a parent of the sources")):
        ok, t = table(cwd)
        mains = {k: v for k, v in t.items() if k.split(":", 1)[1] == "main"}
        check(ok and len(mains) == 1 and all(len(v) == 1 for v in mains.values()) and
              all(abs(v[0][0] - inh["main"]) <= slack for v in mains.values()),
              "callgrind_annotate from %s: main listed once, with its inherited %d ticks (%s)"
              % (what, inh["main"], mains))
        roots = [k for k in t if k.endswith(":<root>")]
        check(roots == [os.path.relpath(os.path.join(d, "a.c"), cwd) + ":<root>"],
              "callgrind_annotate from %s: <root> once, in main's file (%s)" % (what, roots))
        gs = sorted(k for k in t if k.split(":", 1)[1] == "g")
        print("# callgrind_annotate from %s lists g as %s (a call across files: "
              "docs/exports.md)" % (what, gs))
    ok, t = table(os.path.join(d, "elsewhere"))
    bad = [(n, t.get(n)) for n in ("main", "g", "h")
           if [k for k in t if k.split(":", 1)[1] == n] != [os.path.join(d, "a.c" if n != "g" else "b.c") + ":" + n]
           or abs(t[os.path.join(d, "a.c" if n != "g" else "b.c") + ":" + n][0][0] - inh[n]) > slack]
    check(ok and not bad, "callgrind_annotate from another directory: main, g and h once each, "
          "with their inherited time%s" % ("" if not bad else " %r" % bad))


CG_H = ("static int helper(int x)\n{\n\tvolatile int s = x;\n"
        "\tfor (int i = 0; i < 100000; i++)\n\t\ts += i;\n\treturn s;\n}\n")
CG_HA = '#include "h.h"\nint a(int x) { return helper(x) + 1; }\n'
CG_HB = '#include "h.h"\nint b(int x) { return helper(x) + 2; }\n'
CG_HM = """#include <stdio.h>
int a(int);
int b(int);
int main(void)
{
	int s = 0, na = 0, nb = 0;
	for (int i = 0; i < 3; i++, na++)
		s += a(i);
	for (int i = 0; i < 5; i++, nb++)
		s += b(i);
	printf("through a %d\\nthrough b %d\\n", na, nb);
	return s & 1 ? 0 : 0;
}
"""


def callgrind_header_statics():
    """A static function defined in a header is one copy per file that
    includes it: one name, one file (h.h), two functions.  callgrind's
    readers take a name in a file for one function (callgrind_annotate
    added zstd's two MEM_read32 up as one), and pprof's a name, so those
    exports qualify such names as the text report does (Note [Names that
    collide] in names.c): two rows of helper, with a's and b's calls as the
    program counted them; two pprof functions with samples."""
    d = os.path.join(D, "cghdr")
    os.makedirs(d, exist_ok=True)
    for name, text in (("h.h", CG_H), ("a.c", CG_HA), ("b.c", CG_HB), ("m.c", CG_HM)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    exe = build("exports_cghdr", *(os.path.join(d, n) for n in ("a.c", "b.c", "m.c")))
    r, prof = record(exe, clock="cycles", profile=os.path.join(d, "prog.ccprof"))
    own = {l.split()[1]: int(l.split()[2]) for l in r.stdout.splitlines() if l.startswith("through")}
    # pprof adds up functions of one name too (go tool pprof -top)
    raw = gzip.decompress(open(convert("pprof", prof, "cghdr/prog.pb.gz"), "rb").read())
    _, samples, locs, _ = pprof_decode(raw)
    calls = {}
    for s in samples:
        leaf = locs.get(s[1][0]) if s[1] else None
        if leaf and leaf.startswith("helper"):
            calls[leaf] = calls.get(leaf, 0) + 1
    check(len(calls) == 2 and all(re.match(r"^helper \[exports_cghdr\+0x[0-9a-f]+\]$", n)
                                  for n in calls),
          "pprof, a header's static in two files: two functions, each with its offset (%s)"
          % sorted(calls))
    # and folded stacks: flamegraph.pl adds up the lines of one stack
    folded = open(convert("folded", prof, "cghdr/prog.folded")).read()
    leaves = sorted({l.rsplit(" ", 1)[0].split(";")[-1] for l in folded.splitlines()
                     if l.rsplit(" ", 1)[0].split(";")[-1].startswith("helper")})
    check(len(leaves) == 2 and all(re.match(r"^helper \[exports_cghdr\+0x[0-9a-f]+\]$", n)
                                   for n in leaves),
          "folded, a header's static in two files: two frames, each with its offset (%s)" % leaves)
    path = convert("callgrind", prof, "cghdr/callgrind.out.prog")
    names = sorted(re.findall(r"^c?fn=\(\d+\) (helper.*)$", open(path).read(), re.M))
    check(len(names) == 2 and names[0] != names[1] and
          all(re.match(r"^helper \[exports_cghdr\+0x[0-9a-f]+\]$", n) for n in names),
          "callgrind, a header's static in two files: two names, each with its offset (%s)" % names)
    if not have("callgrind_annotate"):
        skip("callgrind_annotate not installed (package valgrind)")
        return
    r = run(["callgrind_annotate", "--show=calls", "--sort=calls", "--threshold=100", "--auto=no",
             path], cwd=os.path.join(d, ".."))
    t = annotate_table(r.stdout)
    helpers = sorted(v[0][0] for k, v in t.items() if k.split(":", 1)[1].startswith("helper"))
    check(r.returncode == 0 and own == {"a": 3, "b": 5} and helpers == [own["a"], own["b"]],
          "callgrind_annotate: helper twice, with the calls through a and through b, %s (%s)"
          % (own, helpers))


# ---- svg -----------------------------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_boxes(path):
    root = ET.parse(path).getroot()
    boxes = []
    for g in root.iter(SVG_NS + "g"):
        title = g.find(SVG_NS + "title").text
        rect = g.find(SVG_NS + "rect")
        boxes.append((title, float(rect.get("y")), float(rect.get("width"))))
    return root, boxes


def svg(prof, rep):
    path = convert("svg", prof, "names.svg")
    try:
        root, boxes = svg_boxes(path)
    except ET.ParseError as e:
        check(False, "svg: well-formed XML (%s)" % e)
        return
    check(root.tag == SVG_NS + "svg" and "href" not in open(path, encoding="utf-8").read(),
          "svg: an SVG document with no external reference")
    all_box = [b for b in boxes if b[0].split("\n")[0] == "all"]
    want = "inherited %s s (100.00%%)" % ("%.9f" % rep["total_time_s"]).rstrip("0").rstrip(".")
    check(all_box and all_box[0][0].split("\n")[1] == want,
          "svg: the root box's tooltip has ccprof's exact total (%s)" % want)
    names_in({b[0].split("\n")[0] for b in boxes}, "svg tooltips")
    bottom = max(b[1] for b in boxes)
    check(all_box and all_box[0][1] == bottom, "svg: flame graph, the root at the bottom")
    inv = convert("svg", prof, "names-icicle.svg", "--inverted")
    _, iboxes = svg_boxes(inv)
    top = min(b[1] for b in iboxes)
    check([b for b in iboxes if b[0].startswith("all\n")][0][1] == top,
          "svg --inverted: icicle graph, the root at the top")


# ---- views -----------------------------------------------------------------------------

def views(prof, rep):
    def stacks(*opts):
        p = convert("folded", prof, "view.folded", *opts)
        return [l.rsplit(" ", 1) for l in open(p, encoding="utf-8").read().splitlines()]
    focus = stacks("--focus", "templates")
    check(focus and all(s.startswith("templates()") for s, _ in focus),
          "--focus templates: every stack starts at templates()")
    sel = stacks("--deselect", "templates,region")
    check(sel and not any("templates()" in s or "region(" in s for s, _ in sel),
          "--deselect: the deselected functions are gone")
    check(sum(int(n) for _, n in sel) == total_in(rep, 10 ** 6),
          "--deselect: their time stays (total unchanged)")
    pruned = stacks("--min-percent", "10")
    check(any(s.endswith(";(hidden)") for s, _ in pruned) and
          sum(int(n) for _, n in pruned) == total_in(rep, 10 ** 6),
          "--min-percent 10: small stacks become '(hidden)', total unchanged")
    p = convert("ghc-json", prof, "view.prof", "--min-percent", "10")
    j = json.load(open(p, encoding="utf-8"))
    check(not schema_errors(j, GHC_SCHEMA, GHC_SCHEMA) and
          any(c["label"] == "(hidden)" for c in j["cost_centres"]),
          "--min-percent with ghc-json: valid, with a '(hidden)' cost centre")
    p = convert("svg", prof, "view.svg", "--focus", "c_regions", "--min-percent", "20")
    _, boxes = svg_boxes(p)
    rows = sorted({b[1] for b in boxes}, reverse=True)  # bottom row first
    second = [b[0].split("\n")[0] for b in boxes if len(rows) > 1 and b[1] == rows[1]]
    check(second == ["c_regions"] and any(b[0].startswith("(hidden)\n") for b in boxes),
          "--focus c_regions --min-percent 20 with svg: rooted at the focus, pruned (%s)" % second)


# ---- allocations (record --alloc) ---------------------------------------------

# tests/progs/allocs.c's functions, each of which counts what it allocates
# itself ("alloc F BYTES BLOCKS" on stderr); small is called from main and
# from outer (48 bytes in 2 blocks there).
ALLOC_FNS = ("small", "arrays", "grow", "aligned", "zero", "nothing", "refused", "outer",
             "worker")


def alloc_section(path):
    """(bytes, blocks) added over the records of a profile's ALLOC section
    (docs/format.md §3.7), read from the file itself: the profile's total
    in its contexts, without the allocations outside any context."""
    data = open(path, "rb").read()
    i = int.from_bytes(data[10:12], "little")

    def varint():
        nonlocal i
        v, i = varint_at(data, i)
        return v
    while i < len(data):
        tag, n = varint(), varint()
        if tag == 0:
            return None
        if tag == 7:
            varint(), varint()  # outside_bytes, outside_blocks: in no context
            total = [0, 0]
            for _ in range(varint()):
                varint(), varint()  # thread, context
                total[0] += varint()
                total[1] += varint()
            return tuple(total)
        i += n
    return None


def alloc_profile():
    """allocs.c's two threads under record --alloc: (profile, the
    program's own counts, the profile's total (bytes, blocks))."""
    prog = build("allocs_exports", "tests/progs/allocs.c")
    prof = os.path.join(D, "allocs.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog, "threads"])
    check(r.returncode == 0, "allocs threads runs under ccprof record --alloc")
    own = {m.group(1): (int(m.group(2)), int(m.group(3)))
           for m in re.finditer(r"^alloc (\S+) (\d+) (\d+)$", r.stderr, re.M)}
    check(set(ALLOC_FNS) <= set(own), "allocs prints its own counts")
    total = alloc_section(prof)
    check(total is not None and total[0] > sum(b for b, _ in own.values()),
          "the profile has an ALLOC section: %s bytes, blocks (main allocates too)" % (total,))
    return prof, own, total or (0, 0)


def schema_checked(path, schema, what):
    """The JSON file at path, checked against schema."""
    j = json.load(open(path, encoding="utf-8"))
    errs = schema_errors(j, schema, schema)
    check(not errs, "%s%s" % (what, "" if not errs else " %s" % errs[:3]))
    return j


def alloc_figures(what, leaves, total, own, blocks=True):
    """leaves: [(function at the top of the stack, bytes, blocks)] as a
    format gives them: they add up to the profile's total, and each
    function's to what it counted itself (blocks only where the format
    has them)."""
    n = 2 if blocks else 1
    got = tuple(sum(l[1 + k] for l in leaves) for k in range(n))
    check(got == total[:n], "%s: allocations add up to the profile's %s (got %s)"
          % (what, total[:n], got))
    per = collections.defaultdict(lambda: (0, 0))
    for leaf, b, k in leaves:
        per[leaf] = (per[leaf][0] + b, per[leaf][1] + k)
    bad = [(f, per[f][:n], own[f][:n]) for f in ALLOC_FNS if per[f][:n] != own[f][:n]]
    check(not bad, "%s: every function's own allocations are its counts%s"
          % (what, "" if not bad else " %r" % bad))


def ghc_json_alloc(prof, own, total):
    path = convert("ghc-json", prof, "allocs.prof")
    j = schema_checked(path, GHC_SCHEMA, "ghc-json with allocations: GHC's -pj JSON schema")
    label = {c["id"]: c["label"] for c in j["cost_centres"]}
    leaves, stacks = [], {}

    def walk(n, path):
        path = path + [label[n["id"]]]
        leaves.append((label[n["id"]], n["alloc"], 0))
        stacks[";".join(path[1:])] = n["alloc"]
        for c in n["children"]:
            walk(c, path)
    walk(j["profile"], [])
    check(j["total_alloc"] == total[0] == sum(b for _, b, _ in leaves),
          "ghc-json: total_alloc = Σ alloc = the profile's %d bytes" % total[0])
    alloc_figures("ghc-json", leaves, total, own, blocks=False)
    check(stacks.get("main;outer;small") == 48 and stacks.get("main;small") == own["small"][0] - 48,
          "ghc-json: small's bytes per stack (48 under outer, the rest under main)")
    speedscope_import(path, "allocs.prof", "Haskell GHC JSON Profile", "ghc-json with allocations")


def annotate_rows(text, ncols):
    """callgrind_annotate's function table with ncols events: {function: [costs]}."""
    num = r"([\d,]+)(?: \([ \d.]+%\))?"
    pat = re.compile(r"^\s*" + r"\s+".join([num] * ncols) + r"\s+[^:\s]*:(\S.*?)(?: \[[^\]]*\])?$")
    rows = {}
    for line in text.splitlines():
        m = pat.match(line)
        if m:
            rows[m.group(ncols + 1)] = [int(g.replace(",", "")) for g in m.groups()[:ncols]]
    return rows


def callgrind_alloc(prof, own, total):
    path = convert("callgrind", prof, "callgrind.out.allocs")
    lines = open(path, encoding="utf-8").read().splitlines()
    events = next(l for l in lines if l.startswith("events: "))
    check(events.split()[2:] == ["calls", "alloc_bytes", "alloc_blocks"],
          "callgrind: events time, calls, alloc_bytes, alloc_blocks (%s)" % events)
    want = "%d %d" % total
    check(lines[-1].endswith(" " + want) and
          next(l for l in lines if l.startswith("summary: ")).endswith(" " + want),
          "callgrind: summary and totals end in the profile's %s bytes and blocks" % want)
    if not have("callgrind_annotate"):
        skip("callgrind_annotate not installed (package valgrind): allocations not annotated")
        return
    r = run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", path],
            cwd=D)
    check(r.returncode == 0 and r.stderr == "",
          "callgrind with allocations: callgrind_annotate reads it, empty stderr%s"
          % ("" if not r.stderr else " (%s)" % r.stderr.strip()[:200]))
    tot = re.search(r"^\s*" + r"\s+".join([r"([\d,]+) \(100.0%\)"] * 4) + r"\s+PROGRAM TOTALS",
                    r.stdout, re.M)
    check(tot and tuple(int(g.replace(",", "")) for g in tot.groups()[2:]) == total,
          "callgrind: annotate's totals are the profile's %s bytes and blocks" % (total,))
    self_ = annotate_rows(r.stdout, 4)
    alloc_figures("callgrind (annotate's self costs)",
                  [(f, v[2], v[3]) for f, v in self_.items()], total, own)
    r = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
            cwd=D)
    incl = annotate_rows(r.stdout, 4)
    # worker is a thread's root, main the other's: main's inclusive
    # allocations are every context's but the workers'.
    rest = (total[0] - own["worker"][0], total[1] - own["worker"][1])
    check(incl.get("outer", [0] * 4)[2:] == [48, 2] and incl.get("main", [0] * 4)[2:] == list(rest),
          "callgrind: annotate's inclusive allocations: outer 48 bytes in 2 blocks (its call of "
          "small), main %s (all but the workers') (got %s, %s)"
          % (rest, incl.get("outer"), incl.get("main")))


def pprof_alloc(prof, own, total):
    path = convert("pprof", prof, "allocs.pb.gz")
    strings, samples, locs, types = pprof_decode(gzip.decompress(open(path, "rb").read()))
    check(types == [["cpu", "nanoseconds"], ["calls", "count"], ["alloc_objects", "count"],
                    ["alloc_space", "bytes"]],
          "pprof: sample types time and calls, then alloc_objects and alloc_space (%s)" % types)
    check(all(len(s[2]) == 4 for s in samples), "pprof: every sample has 4 values")
    alloc_figures("pprof", [(locs[s[1][0]], s[2][3], s[2][2]) for s in samples], total, own)
    if not have("go"):
        skip("go not installed (package golang-go): go tool pprof not run on allocations")
        return
    env = dict(os.environ, GOCACHE=os.path.join(CACHE, "go-build"),
               PPROF_TMPDIR=D, HOME=os.environ.get("HOME") or D)

    def gop(*args):
        return run(["go", "tool", "pprof", "-symbolize=none"] + list(args) + [path], env=env)
    r = gop("-raw")
    check("cpu/nanoseconds[dflt] calls/count alloc_objects/count alloc_space/bytes" in r.stdout,
          "pprof: go tool pprof -raw: time the default, then calls and the allocations")
    vals = [tuple(map(int, v)) for v in
            re.findall(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+): [\d ]+$", r.stdout, re.M)]
    check((sum(v[3] for v in vals), sum(v[2] for v in vals)) == total,
          "pprof: go tool pprof -raw's allocations add up to the profile's %s" % (total,))
    r = gop("-sample_index=alloc_space", "-unit=B", "-top", "-nodefraction=0")
    rows = dict((name, int(flat)) for flat, name in
                re.findall(r"^\s+(\d+)B\s+[\d.]+%\s+[\d.]+%\s+\d+B\s+[\d.]+%\s+(\S+)$", r.stdout,
                           re.M))
    m = re.search(r"Showing nodes accounting for \S+, [\d.]+% of (\d+)B total", r.stdout)
    check(r.returncode == 0 and m and int(m.group(1)) == total[0] and
          all(rows.get(f, 0) == own[f][0] for f in ALLOC_FNS),
          "pprof: go tool pprof -sample_index=alloc_space -top: total %s B and each function's "
          "bytes are the profile's (%s)" % (m.group(1) if m else "?", rows))
    r = gop("-sample_index=alloc_objects", "-top")
    m = re.search(r"Showing nodes accounting for \S+, [\d.]+% of (\d+) total", r.stdout)
    check(m and int(m.group(1)) == total[1],
          "pprof: go tool pprof -sample_index=alloc_objects -top: %d blocks" % total[1])
    r = gop("-top")
    check("Type: cpu" in r.stdout, "pprof: the default sample type is still the time")


def speedscope_bytes(text):
    """'3.94 KB (25%)' -> 4034.56 (speedscope's KB are 1024 bytes)."""
    m = re.match(r"([\d.,]+)\s*(B|KB|MB|GB)\b", text)
    scale = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}
    return float(m.group(1).replace(",", "")) * scale[m.group(2)] if m else None


def speedscope_alloc(prof, own, total):
    path = convert("speedscope", prof, "allocs.speedscope.json")
    j = schema_checked(path, SPEEDSCOPE_SCHEMA,
                       "speedscope with allocations: speedscope's file-format structure")
    ps = j["profiles"]
    check([p["unit"] for p in ps] == ["nanoseconds", "bytes"] and j["activeProfileIndex"] == 0 and
          ps[1]["name"] == "allocs_exports allocation (bytes)",
          "speedscope: the time profile first, then 'allocs_exports allocation (bytes)' (%s)"
          % [p["name"] for p in ps])
    a = ps[1]
    frames = [f["name"] for f in j["shared"]["frames"]]
    check(len(a["samples"]) == len(a["weights"]) and a["endValue"] == total[0],
          "speedscope: a weight per sample, endValue the profile's %d bytes" % total[0])
    alloc_figures("speedscope", [(frames[s[-1]], w, 0) for s, w in zip(a["samples"], a["weights"])],
                  total, own, blocks=False)
    tpath = convert("speedscope", prof, "allocs-threads.speedscope.json", "--threads")
    ps = json.load(open(tpath, encoding="utf-8"))["profiles"]
    units = [p["unit"] for p in ps]
    n = len(ps) // 2
    check(len(ps) == 6 and units == ["nanoseconds"] * n + ["bytes"] * n and
          all(p["name"].endswith(" allocation (bytes)") for p in ps[n:]) and
          sum(p["endValue"] for p in ps[n:]) == total[0] and
          all(sum(p["weights"]) == p["endValue"] for p in ps),
          "speedscope --threads: a time profile per thread (3), then a bytes profile per "
          "thread adding up to the profile's bytes")
    # speedscope opens the profile activeProfileIndex names: the bytes one
    shown = os.path.join(D, "allocs-bytes.speedscope.json")
    j["activeProfileIndex"] = 1
    with open(shown, "w", encoding="utf-8") as f:
        json.dump(j, f)
    rows = speedscope_import(shown, "allocs-bytes.speedscope.json", "speedscope json file",
                             "speedscope's allocation profile")
    if rows is not None:
        got = {r[2]: speedscope_bytes(r[1]) for r in rows}
        bad = [(f, got.get(f), own[f][0]) for f in ("grow", "worker", "small", "arrays")
               if got.get(f) is None or abs(got[f] - own[f][0]) > own[f][0] * 0.005 + 0.5]
        check(not bad, "speedscope shows each function's own bytes%s" % (
            "" if not bad else " %r" % bad))


def folded_alloc(prof, own, total, plain):
    path = convert("folded", prof, "allocs.folded", "--weight", "alloc")
    lines = [l.rsplit(" ", 1) for l in open(path, encoding="utf-8").read().splitlines()]
    check(lines and all(LINE.match(s + " " + n) for s, n in lines),
          "folded --weight alloc: every line is 'frame;frame N'")
    alloc_figures("folded --weight alloc", [(s.split(";")[-1], int(n), 0) for s, n in lines],
                  total, own, blocks=False)
    check(["main;outer;small", "48"] in lines, "folded --weight alloc: 'main;outer;small 48'")
    tpath = convert("folded", prof, "allocs-threads.folded", "--weight", "alloc", "--threads")
    tl = [l.rsplit(" ", 1) for l in open(tpath, encoding="utf-8").read().splitlines()]
    check(all(re.match(r"^[^;]+ \[\d+\];", s) for s, _ in tl) and
          sum(int(n) for _, n in tl) == total[0],
          "folded --weight alloc --threads: a thread frame first, bytes add up to the total")
    sel = [l.rsplit(" ", 1) for l in open(convert(
        "folded", prof, "allocs-desel.folded", "--weight", "alloc", "--deselect", "small"),
        encoding="utf-8").read().splitlines()]
    check(sum(int(n) for _, n in sel) == total[0] and ["main;outer", "48"] in sel and
          not any(s.endswith(";small") for s, _ in sel),
          "folded --weight alloc --deselect small: its bytes go to its callers (outer 48)")
    t1 = convert("folded", prof, "allocs-time.folded")
    t2 = convert("folded", prof, "allocs-time2.folded", "--weight", "time")
    check(open(t1, "rb").read() == open(t2, "rb").read(),
          "folded: --weight time is the default")
    speedscope_import(path, "allocs.folded", "collapsed stack format", "folded --weight alloc")

    def status(args, what, want=2):
        r = run([CCPROF, "convert"] + args)
        lines = r.stderr.splitlines()
        check(r.returncode == want and len(lines) == 1 and lines[0].startswith("ccprof"),
              "%s: exit %d, one line on stderr (got %d: %r)"
              % (what, want, r.returncode, r.stderr.strip()))
        return r
    out = os.path.join(D, "never-written-alloc.folded")
    r = status(["--to", "folded", "--weight", "alloc", "-o", out, plain],
               "--weight alloc of a profile without allocation data")
    check("no allocation data" in r.stderr and not os.path.exists(out),
          "--weight alloc without allocation data: says so, writes no file")
    status(["--to", "folded", "--weight", "bytes", prof], "--weight bytes")
    status(["--to", "pprof", "--weight", "alloc", prof], "--weight with pprof")


def svg_alloc(prof, own, total, plain):
    """svg: the allocations in every tooltip; --weight alloc draws the
    boxes as wide as their inherited bytes."""
    _, boxes = svg_boxes(convert("svg", prof, "allocs.svg"))
    root = [b for b in boxes if b[0].startswith("all\n")]
    check(root and "\nallocated %d bytes (100.00%%) in %d blocks\n" % total in root[0][0],
          "svg with allocations: the root box's tooltip has the profile's bytes and blocks")
    _, boxes = svg_boxes(convert("svg", prof, "allocs-bytes.svg", "--weight", "alloc"))
    width = {b[0].split("\n")[0]: b[2] for b in boxes}
    full = width.get("all", 0)
    bad = [(f, width.get(f), own[f][0]) for f in ("grow", "aligned", "arrays")
           if abs(width.get(f, 0) - full * own[f][0] / total[0]) > 0.01]
    check(full > 0 and not bad, "svg --weight alloc: boxes as wide as their bytes%s"
          % ("" if not bad else " %r" % bad))
    r = run([CCPROF, "convert", "--to", "svg", "--weight", "alloc", plain])
    check(r.returncode == 2 and len(r.stderr.splitlines()) == 1,
          "svg --weight alloc of a profile without allocation data: exit 2, one line")


def without_alloc(plain):
    """A profile that did not count allocations has none in any format:
    the files are as before allocation profiling (the other checks of
    this test compare them with the consumers)."""
    j = json.load(open(convert("ghc-json", plain, "plain.prof"), encoding="utf-8"))
    allocs = []

    def walk(n):
        allocs.append(n["alloc"])
        for c in n["children"]:
            walk(c)
    walk(j["profile"])
    check(j["total_alloc"] == 0 and not any(allocs), "ghc-json without allocation data: all 0")
    text = open(convert("callgrind", plain, "callgrind.out.plain"), encoding="utf-8").read()
    check("alloc" not in text and re.search(r"^events: \w+ calls$", text, re.M),
          "callgrind without allocation data: two events")
    _, _, _, types = pprof_decode(gzip.decompress(open(convert("pprof", plain, "plain.pb.gz"),
                                                       "rb").read()))
    check(len(types) == 2, "pprof without allocation data: two sample types")
    j = json.load(open(convert("speedscope", plain, "plain.speedscope.json"), encoding="utf-8"))
    check(len(j["profiles"]) == 1, "speedscope without allocation data: one profile")
    text = open(convert("svg", plain, "plain.svg"), encoding="utf-8").read()
    check("alloc" not in text, "svg without allocation data: no allocations in the tooltips")


def allocations(plain):
    prof, own, total = alloc_profile()
    ghc_json_alloc(prof, own, total)
    ghc_prof_real(prof, report(prof), "allocs", alloc=(own, total))
    callgrind_alloc(prof, own, total)
    pprof_alloc(prof, own, total)
    speedscope_alloc(prof, own, total)
    folded_alloc(prof, own, total, plain)
    svg_alloc(prof, own, total, plain)
    without_alloc(plain)


names, cycles, thr = profiles()
rep = report(names)
check(all(n in functions(rep) for n in NAMES), "names.cpp: the hostile names are cost centres")
thr_rep = report(thr)
cli(names)
ghc_json(names, rep)
ghc_prof(names, rep, thr, thr_rep)
callgrind(names, rep, "names")
callgrind(cycles, report(cycles), "spivey")
callgrind(thr, thr_rep, "threads")
callgrind_views()
callgrind_in_sources()
callgrind_header_statics()
folded(names, rep, thr, thr_rep)
speedscope(names, rep, thr, thr_rep)
pprof(names, rep, thr, thr_rep)
pprof_saturated()
pprof_stand_ins()
dot(names, rep)
dot_long_names()
svg(names, rep)
views(names, rep)
allocations(thr)
finish()
