"""ccprof convert --to html: the page's shell and data.

What the page computes is checked elsewhere (tests/html_model.py against
`report --json`, tests/html_ui.py in a browser).  Here: the page is one
self-contained file whose only scripts are ccprof's own, its data is the
whole profile exactly (every context and cost centre, as `report --json`
has them) with the view options given, nothing a profile holds can end
an element or add one, and the command's options and errors."""
import base64
import hashlib
import html.parser
import json
import os
import random
import re
import subprocess

from ccp import CCPROF, HOOKS, OUT, TOP, build, check, finish, make_profile, record, report, run

D = os.path.join(OUT, "html")
os.makedirs(D, exist_ok=True)
ASSETS = os.path.join(TOP, "src", "output", "html")

# Names that would end the data's <script> element, open a comment, add an
# element or an event handler, or end a JavaScript line (U+2028, U+2029).
HOSTILE = [
    "</script><script>alert(1)</script>",
    "<!--",
    "<img src=x onerror=alert(2)>",
    "a\xe2\x80\xa8b\xe2\x80\xa9c",
    "\" onmouseover=\"alert(3)",
    "&amp; &lt;",
    "</style><b>bold</b>",
    "bad\xff\xc3utf8",
]


class Page(html.parser.HTMLParser):
    """The parts of the page the checks look at."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []       # (tag, attrs) in order
        self.scripts = []    # (attrs, text)
        self.styles = []
        self.title = ""
        self._in = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style", "title"):
            self._in, self._text = (tag, dict(attrs)), []

    def handle_endtag(self, tag):
        if self._in and self._in[0] == tag:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._in[1], text))
            elif tag == "style":
                self.styles.append(text)
            else:
                self.title = text
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._text.append(data)


def parse(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    return text, p


def csp_hash(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def data_of(page):
    found = [t for a, t in page.scripts if a.get("id") == "ccprof-data"]
    return json.loads(found[0]) if len(found) == 1 else None


def convert_html(prof, name, *opts):
    out = os.path.join(D, name + ".html")
    r = run([CCPROF, "convert", "--to", "html", "-o", out] + list(opts) + [prof])
    return r, out


def hist_of(entries, names):
    """A DATA history as report --json's: [(name, id, marked)]."""
    return [(names[e if e >= 0 else -1 - e], e if e >= 0 else -1 - e, e >= 0) for e in entries]


def contexts_agree(data, rep, what):
    """Every context of DATA is one of report --json's, with the same E,
    R and time, and none is missing."""
    names = [f["name"] for f in data["functions"]]
    tps = data["ticks_per_sec"]
    mine = sorted((tuple(hist_of(c[0], names)), c[1], c[2], round(c[3] / tps, 9))
                  for c in data["contexts"])
    theirs = sorted((tuple((e["name"], e["id"], e["marked"]) for e in c["history"]),
                     c["entries"], c["recursive"], round(c["time_s"], 9))
                    for c in rep["contexts"])
    check(mine == theirs, "%s: DATA's contexts are report --json's (%d, %d)"
          % (what, len(mine), len(theirs)))
    if "alloc" in rep:
        mine = sorted((tuple(hist_of(c[0], names)), c[4], c[5]) for c in data["contexts"])
        theirs = sorted((tuple((e["name"], e["id"], e["marked"]) for e in c["history"]),
                         c["alloc_bytes"], c["alloc_blocks"]) for c in rep["contexts"])
        check(mine == theirs, "%s: DATA's allocations per context are report --json's" % what)


def threads_agree(data, prof, what):
    """DATA.per_thread: each thread's tid and name as report --json
    --threads has them, and its contexts, added up over the threads by
    history, are DATA's contexts (null: the only thread's are those)."""
    threads = report(prof, "--threads")["threads"]
    per = data.get("per_thread") or []
    check([(t["tid"], t["name"]) for t in per] == [(t["tid"], t["name"]) for t in threads],
          "%s: DATA.per_thread has report --threads's threads (%d)" % (what, len(per)))
    if len(per) == 1 and per[0]["contexts"] is None:
        return
    sums = [[0] * 5 for _ in data["contexts"]]
    for t in per:
        for row in t["contexts"] or []:
            for i in range(5):
                sums[row[0]][i] += row[1 + i]
    check(all(t["contexts"] is not None for t in per) and
          sums == [c[1:] for c in data["contexts"]] and
          sum(len(t["contexts"]) for t in per) > len(data["contexts"]),
          "%s: each thread's contexts, added up by history, are DATA's contexts" % what)


def functions_agree(data, rep, what):
    fns = data["functions"]
    ok = all(f["id"] < len(fns) and fns[f["id"]]["name"] == f["name"] and
             fns[f["id"]]["module"] == f["module"] and fns[f["id"]]["build_id"] == f["build_id"] and
             fns[f["id"]]["offset"] == f["offset"] and
             fns[f["id"]]["file"] == f["file"] and fns[f["id"]]["line"] == f["line"]
             for f in rep["functions"])
    check(ok and len(rep["functions"]) <= len(fns),
          "%s: every function of report --json is DATA's of the same id, name, module, "
          "build-id, offset and source line" % what)


def shell_is_sealed(text, page, what):
    """The page loads nothing, runs only its own three scripts, and has
    no event handler attribute."""
    check(text.startswith("<!DOCTYPE html>\n"), "%s: an HTML5 document" % what)
    csp = [a.get("content", "") for t, a in page.tags
           if t == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"]
    check(len(csp) == 1 and "default-src 'none'" in csp[0] and "unsafe" not in csp[0],
          "%s: a Content-Security-Policy that allows no network access" % what)
    code = [t for a, t in page.scripts if a.get("type") is None]
    want = "script-src %s; style-src %s;" % (" ".join(csp_hash(t) for t in code),
                                              " ".join(csp_hash(t) for t in page.styles))
    check(len(csp) == 1 and want in csp[0],
          "%s: the policy runs only the page's own scripts and style, named by their SHA-256"
          % what)
    external = [(t, a) for t, a in page.tags if "src" in a or "href" in a]
    check(external == [], "%s: no element loads anything (%r)" % (what, external[:3]))
    handlers = [(t, k) for t, a in page.tags for k in a if k.lower().startswith("on")]
    check(handlers == [], "%s: no event-handler attribute (%r)" % (what, handlers[:3]))
    kinds = [a.get("type") for a, _ in page.scripts]
    check(len(page.scripts) == 3 and kinds == ["application/json", None, None],
          "%s: three scripts, the data first, then model.js and ui.js (%r)" % (what, kinds))
    check(len(page.styles) == 1, "%s: one style sheet" % what)
    tags = {t for t, _ in page.tags}
    check(tags <= {"html", "head", "meta", "title", "style", "body", "noscript", "div",
                   "script"},
          "%s: no element beyond the shell's (%s)" % (what, sorted(tags)))


def assets_embedded(page, what):
    """The scripts and the style sheet are src/output/html's files, byte
    for byte (the build compiled them in)."""
    want = []
    for name in ("model.js", "ui.js"):
        path = os.path.join(ASSETS, name)
        want.append(open(path, encoding="utf-8").read() if os.path.exists(path) else None)
    got = [t.strip("\n") for a, t in page.scripts[1:]]
    check(len(got) == 2 and all(w is not None and g == w.strip("\n") for g, w in zip(got, want)),
          "%s: the page's scripts are src/output/html/model.js and ui.js" % what)
    css = os.path.join(ASSETS, "style.css")
    check(os.path.exists(css) and len(page.styles) == 1 and
          page.styles[0].strip("\n") == open(css, encoding="utf-8").read().strip("\n"),
          "%s: its style sheet is src/output/html/style.css" % what)


def recorded():
    """A real run: spivey.c (Spivey's example, docs/semantics.md), its page
    against report --json."""
    prog = build("html_spivey", "tests/progs/spivey.c")
    r, prof = record(prog, ["4"])
    check(r.returncode == 0, "spivey: recorded")
    r, out = convert_html(prof, "spivey")
    check(r.returncode == 0 and r.stderr == "", "spivey: convert --to html, exit 0, quiet")
    text, page = parse(out)
    shell_is_sealed(text, page, "spivey")
    assets_embedded(page, "spivey")
    check(page.title == "ccprof: html_spivey", "spivey: the title names the program")
    data = data_of(page)
    if not check(data is not None, "spivey: one data element, valid JSON"):
        return prof
    rep = report(prof)
    check(data["format"] == "ccprof-html" and data["version"] == 1,
          "spivey: DATA says its format and version")
    for key in ("program", "argv", "pid", "clock", "ticks_per_sec", "interval_ns", "samples"):
        check(data[key] == rep[key], "spivey: DATA's %s is report --json's" % key)
    check(data["profile"] == prof, "spivey: DATA names the profile as convert was given it")
    with open(prof, "rb") as f:
        r = subprocess.run([CCPROF, "convert", "--to", "html", "-"], stdin=f, capture_output=True)
    piped = Page()
    piped.feed(r.stdout.decode())
    check(r.returncode == 0 and data_of(piped)["profile"] == "",
          "spivey: read from standard input, DATA names no profile file")
    check(data["threads"] == rep["threads"] and data["alloc"] is False,
          "spivey: threads, and no allocation data")
    check("overflow" not in data and "overflow" not in rep,
          "spivey: within max_contexts, no overflow in DATA (nor in report --json)")
    check(len(data["contexts"]) == rep["ncontexts"] == 9,
          "spivey: the 8 contexts of Spivey's example and the root (%d)" % len(data["contexts"]))
    contexts_agree(data, rep, "spivey")
    threads_agree(data, prof, "spivey")
    functions_agree(data, rep, "spivey")
    check(data["view"] == {"select": [], "deselect": [], "module": [], "only_exported": False,
                           "focus": [], "short_names": False}, "spivey: no view option, an empty view")
    # Through standard output too, byte for byte the same, twice.
    a = run([CCPROF, "convert", "--to", "html", prof])
    b = run([CCPROF, "convert", "--to", "html", prof])
    check(a.returncode == 0 and a.stdout == b.stdout == text,
          "spivey: standard output is the -o file's bytes, the same every time")
    return prof


def overflow_data():
    """A run past max_contexts (tests/progs/overflow.c, its thread named
    with markup): DATA's overflow, what the header says (ui.js), is
    report --json's, the name a JSON string that ends no element."""
    name = "<i>x</i>&amp;"
    prog = build("html_overflow", "tests/progs/overflow.c")
    prof = os.path.join(D, "overflow.ccprof")
    r = run([CCPROF, "record", "--clock=cycles", "--max-contexts=16", "-o", prof, "--", prog, name])
    if not check(r.returncode == 0, "overflow: recorded"):
        return
    r, out = convert_html(prof, "overflow")
    text, page = parse(out)
    shell_is_sealed(text, page, "overflow")
    data, rep = data_of(page), report(prof)
    over = (data or {}).get("overflow")
    check(over is not None and over == rep.get("overflow") and
          [t["name"] for t in over["threads"]] == [name] and name not in text,
          "overflow: DATA's overflow is report --json's, the thread's name escaped (%r)" % over)


def view_options(prof):
    """The options given are the page's starting view, as given; the
    command checks them as report does."""
    opts = ["--deselect", "Q,R", "--select", "P*", "--select", "main,S", "--focus", "P",
            "--module", "html_spivey", "--only-exported", "--short-names"]
    r, out = convert_html(prof, "spivey_view", *opts)
    check(r.returncode == 0, "view options: convert --to html accepts them (%s)" % r.stderr.strip())
    data = data_of(parse(out)[1])
    check(data is not None and data["view"] == {
        "select": ["P*", "main,S"], "deselect": ["Q,R"], "module": ["html_spivey"],
        "only_exported": True, "focus": ["P"], "short_names": True}, "view options: DATA's view holds them as given")
    check(data is not None and len(data["contexts"]) == 9,
          "view options: DATA still holds the whole profile (the page applies the view)")
    r, _ = convert_html(prof, "spivey_nofocus", "--focus", "nosuch")
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "nosuch" in r.stderr,
          "a --focus that matches nothing: exit 1, one line, as report (%r)" % r.stderr)
    r, _ = convert_html(prof, "spivey_warn", "--deselect", "nosuch")
    check(r.returncode == 0 and r.stderr.count("\n") == 1 and "nosuch" in r.stderr,
          "a --deselect that matches nothing: one warning line, as report (%r)" % r.stderr)
    for opt in (["--min-percent", "1"], ["--min-calls", "3"], ["--min-time", "0.1"],
                ["--threads"], ["--inverted"], ["--weight", "alloc"]):
        r, _ = convert_html(prof, "spivey_bad", *opt)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and opt[0] in r.stderr,
              "%s does not apply to --to html: a usage error, one line" % opt[0])
    r = run([CCPROF, "convert", "--to", "nosuch", prof])
    check(r.returncode == 2 and "html" in r.stderr, "an unknown format lists html")
    r = run([CCPROF, "convert", "--help"])
    check(r.returncode == 0 and re.search(r"^  html ", r.stdout, re.M),
          "convert --help lists html")


def exported_flags(prof, name):
    """DATA's exported flags are what --only-exported keeps: report's
    deselected functions under it are those DATA calls not exported
    (thread roots stay selected)."""
    data = data_of(parse(convert_html(prof, name + "_exp")[1])[1])
    rep = report(prof, "--only-exported")
    roots = {c[0][0] for c in data["contexts"] if c[0]}
    mine = sorted(f["name"] for i, f in enumerate(data["functions"])
                  if not f["exported"] and not f["region"] and i not in roots)
    theirs = sorted(rep.get("view", {}).get("deselected", []))
    check(mine == theirs, "%s: DATA's exported flags give report's --only-exported (%s)"
          % (name, theirs))


def static_program():
    """Functions of a static program are not exported."""
    src = os.path.join(D, "statics.c")
    with open(src, "w") as f:
        f.write("static int __attribute__((noinline)) hidden(int x) { return x * 3; }\n"
                "int __attribute__((noinline)) shown(int x) { return hidden(x) + 1; }\n"
                "int main(int c, char **v) { (void)v; return shown(c) == 4 ? 0 : 1; }\n")
    prog = build("html_statics", os.path.relpath(src, TOP))
    r, prof = record(prog)
    data = data_of(parse(convert_html(prof, "statics")[1])[1])
    flags = {f["name"]: f["exported"] for f in data["functions"]}
    check(flags == {"main": True, "shown": True, "hidden": False},
          "exported: a static function is not, global ones are (%r)" % flags)
    exported_flags(prof, "statics")


def allocations():
    prog = build("html_allocs", "tests/progs/allocs.c")
    r = run([CCPROF, "record", "--alloc", "-o", os.path.join(D, "allocs.ccprof"), "--", prog,
             "threads"])
    prof = os.path.join(D, "allocs.ccprof")
    check(r.returncode == 0 and os.path.exists(prof), "allocs: recorded with --alloc")
    data = data_of(parse(convert_html(prof, "allocs")[1])[1])
    rep = report(prof)
    check(data["alloc"] is True, "allocs: DATA says the run counted allocations")
    contexts_agree(data, rep, "allocs")
    threads_agree(data, prof, "allocs")
    total = sum(c[4] for c in data["contexts"])
    check(total == sum(c["alloc_bytes"] for c in rep["contexts"]) and total > 0,
          "allocs: DATA's bytes add up to report's (%d)" % total)


def hostile_names():
    """Names that would end the element, open a comment, add an element
    or end a JavaScript line stay data: the page has its shell's elements
    only, the raw text has no </script but the three closing ones, and
    the data gives every name back as it was written."""
    spec = ["program ./ev</script>il <!-- \\xe2\\x80\\xa8",
            "clock cpu 1000000000", "thread 1 t</title>", "ctx 0 0 1000 :",
            "ctx 1 0 5000 : [main]"]
    for i, name in enumerate(HOSTILE):
        enc = "".join("\\x%02x" % b if b > 126 or b < 33 or b == 0x5c else chr(b)
                      for b in name.encode("latin-1"))
        spec.append("ctx %d 0 %d : [main] [%s]" % (i + 1, 1000 * (i + 1), enc))
    spec.append("source main /src/</script>.c 3")
    prof = make_profile("html_hostile", "\n".join(spec) + "\n")
    r, out = convert_html(prof, "hostile")
    check(r.returncode == 0, "hostile: converted (%s)" % r.stderr.strip())
    text, page = parse(out)
    shell_is_sealed(text, page, "hostile")
    check(text.lower().count("</script") == 3 and text.count("<!--") == 0 and
          "\u2028" not in text and "\u2029" not in text,
          "hostile: no </script but the three closers, no <!--, no raw U+2028/U+2029")
    check("</title>" in text and text.index("</title>") > text.index("<title>") and
          page.title.startswith("ccprof: ") and "<" not in page.title.replace("&lt;", ""),
          "hostile: the title is text (%r)" % page.title)
    data = data_of(page)
    if not check(data is not None, "hostile: the data is valid JSON"):
        return
    names = {f["name"] for f in data["functions"]}
    want = {n.encode("latin-1").decode("utf-8", "replace") for n in HOSTILE}
    check(want <= names, "hostile: every name comes back as written (%r)" % sorted(want - names))
    check(data["program"] == "./ev</script>il" and data["argv"][1:] == ["<!--", "\u2028"] and
          data["functions"][0]["file"] == "/src/</script>.c",
          "hostile: the program, its arguments and a source file come back as written")
    contexts_agree(data, report(prof), "hostile")
    odd = os.path.join(D, "it's <script>&<b>.ccprof")
    with open(prof, "rb") as f, open(odd, "wb") as g:
        g.write(f.read())
    r, out = convert_html(odd, "hostile_name")
    text, page = parse(out)
    data = data_of(page)
    check(r.returncode == 0 and data is not None and data["profile"] == odd and
          text.lower().count("</script") == 3,
          "hostile: a profile file named with markup is data too")


def damaged_files(prof):
    """Truncated and bit-flipped profiles: one error line and exit 1, or a
    page; never a crash."""
    with open(prof, "rb") as f:
        good = f.read()
    rng = random.Random(7)
    cases = [good[:n] for n in range(0, len(good), max(1, len(good) // 40))]
    for _ in range(60):
        b = bytearray(good)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        cases.append(bytes(b))
    bad = []
    for i, data in enumerate(cases):
        path = os.path.join(D, "damaged.ccprof")
        with open(path, "wb") as f:
            f.write(data)
        r = run([CCPROF, "convert", "--to", "html", path], timeout=60)
        if r.returncode == 0:
            page = Page()
            page.feed(r.stdout)
            if len(page.scripts) != 3 or data_of(page) is None:
                bad.append((i, "page broken"))
        elif r.returncode != 1 or r.stderr.count("\n") != 1:
            bad.append((i, r.returncode, r.stderr[:80]))
    check(bad == [], "%d damaged profiles: each one error line and exit 1, or a whole page (%r)"
          % (len(cases), bad[:3]))


def embed_refuses():
    """The build tool refuses an asset that would end its element."""
    embed = os.path.join(TOP, os.environ.get("BUILD", "build"), "embed")
    for i, bad in enumerate(("x = '</SCRIPT>';", "/* <!-- */", "a { } </style>")):
        src = os.path.join(D, "bad%d.js" % i)
        with open(src, "w") as f:
            f.write(bad + "\n")
        out = os.path.join(D, "bad%d.c" % i)
        r = run([embed, out, src])
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and not os.path.exists(out),
              "embed refuses %r: exit 1, one line, no output" % bad)
    good = os.path.join(D, "good.js")
    with open(good, "w") as f:
        f.write("var s = '<' + '/script>';\n")
    r = run([embed, os.path.join(D, "good.c"), good])
    check(r.returncode == 0 and "sizeof asset2 - 1" in open(os.path.join(D, "good.c")).read(),
          "embed takes a script that only builds the closing tag at run time")


def heap_data(prof):
    """DATA.heap: null without heap data; for a heap profile (two threads,
    samples) the peak, the live heap by merged context and each sample's
    records, which add up to report --json --heap's."""
    data = data_of(parse(convert_html(prof, "spivey")[1])[1])
    check(data["heap"] is None, "spivey: no heap data, DATA.heap is null")
    prog = build("html_heapuse", "tests/progs/heapuse.c")
    heap = os.path.join(D, "heapuse.ccprof")
    r = run([CCPROF, "record", "--heap", "-o", heap, "--", prog, "threads"])
    if not check(r.returncode == 0, "heapuse threads: recorded with --heap"):
        return
    data = data_of(parse(convert_html(heap, "heapuse")[1])[1])
    c = json.loads(run([CCPROF, "report", "--json", "--heap", heap]).stdout)["heap"]
    h = data["heap"] or {}
    live = h.get("live", [])
    check(h.get("peak_bytes") == c["peak_bytes"] and h.get("interval_ns") == c["interval_ns"] and
          h.get("outside_live_bytes") == c["outside_live_bytes"] and
          sum(x[1] for x in live) + h["outside_live_bytes"] == c["live_bytes"] and
          sum(x[2] for x in live) + h["outside_live_blocks"] == c["live_blocks"] and
          all(0 <= x[0] < len(data["contexts"]) for x in live) and len(data["per_thread"]) > 1,
          "heapuse: DATA.heap's peak and live heap by context add up to report --heap's (%d "
          "contexts)" % len(live))
    samples = [s["outside_bytes"] + sum(x[1] for x in s["records"]) for s in h.get("samples", [])]
    check(samples == [s["bytes"] for s in c["samples"]] and samples,
          "heapuse: each sample's records add up to report --json --heap's (%d samples)"
          % len(samples))
    threads = json.loads(run([CCPROF, "report", "--json", "--heap", "--threads", heap]).stdout)
    per = h.get("thread_live") or []
    check(len(per) == len(data["per_thread"]) and
          [sum(x[1] for x in t) for t in per] == [t["total_live_bytes"] for t in threads["threads"]]
          and all(0 <= x[0] < len(data["per_thread"][i]["contexts"])
                  for i, t in enumerate(per) for x in t),
          "heapuse: DATA.heap.thread_live adds up to each thread's live heap of report --heap "
          "--threads, by the thread's own contexts")


def hook_cost_data():
    """DATA.hook_cost: the estimate per hooked call report --hook-cost
    gives, what clock=cycles subtracted, and the symbol of each function
    whose name is not its symbol (a demangled C++ name)."""
    prof = make_profile("html_hooks", HOOKS)
    data = data_of(parse(convert_html(prof, "hooks")[1])[1])
    c = json.loads(run([CCPROF, "report", "--json", "--hook-cost", prof]).stdout)
    h = data.get("hook_cost") or {}
    names = {f["name"]: i for i, f in enumerate(data["functions"])}
    check(h.get("overhead_milliticks", 0) / 1000 * 1e9 / data["ticks_per_sec"] ==
          c["hook_cost"]["ns_per_call"] and h.get("subtracted") == 5000000 and
          h.get("symbols") == [[names.get("S::add()"), "_ZN1S3addEv"]],
          "hooks: DATA.hook_cost has the estimate, the ticks subtracted and the one symbol "
          "that is not its name (%r)" % h)


def main():
    prof = recorded()
    view_options(prof)
    exported_flags(prof, "spivey")
    static_program()
    allocations()
    heap_data(prof)
    hook_cost_data()
    overflow_data()
    hostile_names()
    damaged_files(prof)
    embed_refuses()
    finish()


main()
