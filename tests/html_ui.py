"""ccprof convert --to html: the page in a browser.

Each page is rendered by headless Chromium (--dump-dom) at several hashes
(every tab, views with a deselection, a selection and a focus, a current
function, the bytes weight) and what it shows is compared with `ccprof
report` for the same view options: the flat table, the stack tree, the
callers tree, the call-graph block and the cycles, row by row and number
by number as the text report prints them (its seconds and percentages
are the page's formats), names and calls also against `report --json`.
Clicks, typing and back are run by a script of steps added to a copy of
a page.  Hostile function names show as text and add no element; the
console has no uncaught error (and a page that throws is seen to); a
profile of 27,000 contexts draws every tab in time; ui.js and model.js
use none of the APIs that parse HTML or code.  Without
chromium-headless-shell the browser checks are skipped ("# SKIP"); the
static checks still run."""
import base64
import collections
import hashlib
import html.parser
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

from ccp import (CC, CCPROF, HEAP_TWO, HOOKS, OUT, TOP, build, check, finish, make_profile, record,
                 report, run)
from heap_views import hp_parse, svg_bands

D = os.path.join(OUT, "html_ui")
os.makedirs(D, exist_ok=True)
ASSETS = os.path.join(TOP, "src", "output", "html")
BROWSER = "chromium-headless-shell"
TOGGLES = "\u25b8\u25be"
FRAME_H = 18  # a flame graph row, as ui.js draws it
# Which half of the pages this process draws (t_html_ui.sh runs both at
# once: nearly all of the suite's time is a browser starting): "1", "2",
# or "" for all.  The pages of a half share files only within it.
PART = sys.argv[1] if len(sys.argv) > 1 else ""

# The page's scripts must never turn a string into HTML or code.
FORBIDDEN = [
    ("innerHTML", r"\binnerHTML\b"), ("outerHTML", r"\bouterHTML\b"),
    ("insertAdjacentHTML", r"\binsertAdjacentHTML\b"), ("document.write", r"\bdocument\s*\.\s*write"),
    ("eval", r"\beval\s*\("), ("Function(", r"\bFunction\s*\("), ("javascript:", r"javascript:"),
    ("setTimeout(string)", r"\bset(?:Timeout|Interval)\s*\(\s*['\"`]"),
    ("createContextualFragment", r"createContextualFragment"), ("srcdoc", r"\bsrcdoc\b"),
]


def skip(what):
    print("# SKIP " + what)


# ---- the DOM, as Chromium dumps it ----------------------------------------

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        if self.tag == "button" and "fn" in self.classes():
            return full_name(self)
        return "".join(k if isinstance(k, str) else k.text() for k in self.kids)

    def walk(self):
        yield self
        for k in self.kids:
            if isinstance(k, Node):
                yield from k.walk()

    def find_all(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and
                (cls is None or cls in n.classes())]

    def find(self, tag=None, cls=None):
        found = self.find_all(tag, cls)
        return found[0] if found else None


NAME_MAX, CUT = 60, "\u22ef"  # ui.js's shortName


def short_name(name, most=NAME_MAX):
    """A name as ui.js's shortName shows it: cut in the middle."""
    if len(name) <= most:
        return name
    head = most // 2
    return name[:head] + CUT + name[len(name) - (most - 1 - head):]


def full_name(button):
    """A name link's function name: its text, or when the text is its
    title's name cut as shortName cuts it, the whole name (so that the
    page's names compare with report's; the title adds "  file:line")."""
    shown = "".join(k if isinstance(k, str) else k.text() for k in button.kids)
    title = button.attrs.get("title") or ""
    for name in (title, title.rsplit("  ", 1)[0]):
        if CUT in shown and short_name(name) == shown:
            return name
    return shown


VOID = {"meta", "br", "input", "img", "link", "hr", "col", "area", "base", "wbr", "source"}


class Dom(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.kids.append(data)


def cells(tr):
    return [re.sub(r"[ \t\n\r\f]+", " ", td.text()).strip(" ").lstrip(TOGGLES).strip(" ")
            for td in tr.kids if isinstance(td, Node) and td.tag == "td"]


def table_rows(dom, cls):
    t = dom.root.find("table", cls)
    if t is None:
        return None
    body = t.find("tbody")
    return [tr for tr in body.kids if isinstance(tr, Node) and tr.tag == "tr"]


# ---- rendering -------------------------------------------------------------

def have_browser():
    return shutil.which(BROWSER) is not None


def render(page, hash_, what, width=1200):
    """(Dom, console errors) of page at #hash_ in a window width px wide,
    or (None, [reason])."""
    with tempfile.TemporaryDirectory(dir=D) as tmp:
        try:
            r = subprocess.run(
                [BROWSER, "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                 "--virtual-time-budget=10000", "--window-size=%d,900" % width,
                 "--user-data-dir=" + os.path.join(tmp, "profile"), "--dump-dom",
                 "file://%s#%s" % (page, hash_)],
                capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            return None, ["timed out"]
    errors = [line for line in r.stderr.splitlines()
              if "CONSOLE" in line or "Uncaught" in line or "SyntaxError" in line]
    return Dom(r.stdout), errors


class Keyboard:
    """A page in headless Chromium driven by real key presses, through the
    DevTools protocol on a pipe (--remote-debugging-pipe: the browser
    reads fd 3, writes fd 4, each message JSON ended by a NUL): what
    synthetic events cannot do, the browser's own Tab and Shift+Tab
    moving the focus.  Every read waits at most 30 s."""

    KEYS = {"Tab": ("Tab", 9, None), "Enter": ("Enter", 13, "\r"), "ArrowDown": ("ArrowDown", 40, None),
            "ArrowUp": ("ArrowUp", 38, None)}

    def __init__(self, page, hash_, width=1200):
        self.tmp = tempfile.mkdtemp(dir=D)
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()

        def fds():  # in the child: its ends as fds 3 and 4, inherited
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
        self.proc = subprocess.Popen(
            [BROWSER, "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--window-size=%d,900" % width, "--user-data-dir=" + os.path.join(self.tmp, "profile"),
             "about:blank"], preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.w, self.r = to_w, from_r
        self.n, self.buf = 0, b""
        targets = self.call("Target.getTargets")["targetInfos"]
        target = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.navigate", True, url="file://%s#%s" % (page, hash_))
        for _ in range(100):
            if self.js("document.documentElement.dataset.ready") == "1":
                break
            time.sleep(0.1)

    def call(self, method, in_page=False, **params):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params}
        if in_page:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                if not select.select([self.r], [], [], 30)[0]:
                    raise RuntimeError("no answer to " + method)
                more = os.read(self.r, 65536)
                if not more:
                    raise RuntimeError("the browser ended")
                self.buf += more
            line, _, self.buf = self.buf.partition(b"\0")
            answer = json.loads(line)
            if answer.get("id") == self.n:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer["result"]

    def js(self, expr):
        r = self.call("Runtime.evaluate", True, expression=expr, returnByValue=True)
        return r["result"].get("value")

    def press(self, key, shift=False):
        code, vk, text = self.KEYS[key]
        down = dict(type="rawKeyDown" if text is None else "keyDown", key=key, code=code,
                    windowsVirtualKeyCode=vk, modifiers=8 if shift else 0)
        if text is not None:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", True, **down)
        self.call("Input.dispatchKeyEvent", True, type="keyUp", key=key, code=code,
                  windowsVirtualKeyCode=vk, modifiers=8 if shift else 0)
        time.sleep(0.1)  # a hashchange is drawn

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.tmp, ignore_errors=True)


def page_ok(dom, errors, what):
    """The page drew (ui.js ran to its end) and logged no error."""
    ready = dom is not None and dom.root.find("html") is not None and \
        dom.root.find("html").attrs.get("data-ready") == "1"
    check(ready and not errors, "%s: the page draws, no error in the console%s" % (
        what, "" if not errors else " (%s)" % errors[0][:200]))
    return ready


def convert(prof, name, *opts):
    out = os.path.join(D, name + ".html")
    r = run([CCPROF, "convert", "--to", "html", "-o", out] + list(opts) + [prof])
    check(r.returncode == 0, "%s: convert --to html %s%s" % (
        name, " ".join(opts), "" if r.returncode == 0 else " (%s)" % r.stderr.strip()))
    return out


def text_report(prof, *opts):
    r = run([CCPROF, "report", "--top", "0"] + list(opts) + [prof])
    if r.returncode != 0:
        raise SystemExit("report failed: " + r.stderr)
    return r.stdout


def view_hash(view, **more):
    """The page's hash for view options {select, deselect, focus, module}."""
    parts = ["%s=%s" % (k, view.get(k, "")) for k in ("select", "deselect", "focus", "module")]
    parts.append("exported=%s" % ("1" if view.get("exported") else "0"))
    parts += ["%s=%s" % kv for kv in more.items()]
    return "&".join(parts)


def cli_opts(view):
    opts = []
    for k in ("select", "deselect", "focus", "module"):
        if view.get(k):
            opts += ["--" + k, view[k]]
    if view.get("exported"):
        opts.append("--only-exported")
    if view.get("short"):  # not in the hash: the page's names are the convert's
        opts.append("--short-names")
    return opts


# ---- the text report's sections -------------------------------------------

def section_lines(text, heading_re, stop_blank=True):
    """The lines after the first line matching heading_re, to a blank one."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(heading_re, line):
            out = []
            for l in lines[i + 1:]:
                if stop_blank and not l.strip():
                    break
                out.append(l)
            return out
    return []


def text_flat(text):
    """[(name, {column: value})] of the flat table, by its headings."""
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if re.match(r"COST CENTRE +%time", l)), None)
    if at is None:
        return []
    heads = lines[at].split()[2:]
    nums = [h for h in heads if h != "SRC"]
    rows = []
    for l in lines[at + 1:]:
        if not l.strip():
            break
        t = l.split()
        src = ""
        if "SRC" in heads and not re.match(r"^[\d.]+$", t[-1]):
            src = t.pop()
        vals = dict(zip(nums, t[-len(nums):]))
        vals["SRC"] = src
        rows.append((" ".join(t[:-len(nums)]), vals))
    return rows


def text_tree(text, heading):
    """[(depth, name, numbers...)] of an indented tree section."""
    rows = []
    for l in section_lines(text, heading):
        depth = len(l) - len(l.lstrip(" "))
        t = l.split()
        k = next(i for i in range(len(t)) if re.match(r"^[\d.]+$", t[i]) and
                 all(re.match(r"^[\d.]+$", x) for x in t[i:]))
        rows.append((depth, " ".join(t[:k])) + tuple(t[k:]))
    return rows


def text_around(text):
    """The --around block: [(kind, idx, %time, numbers..., calls, name)]."""
    rows = []
    for l in section_lines(text, r"index +%time +self"):
        if l.startswith("---"):
            break
        t = l.split()
        k = 1 if t[0].startswith("[") else 0
        while k + 1 < len(t) and re.match(r"^[\d.]+([/+]\d+)?$", t[k + 1]):
            k += 1
        name = re.sub(r" \[\d+\]$", "", " ".join(t[k + 1:]))
        if t[0].startswith("["):
            rows.append(("self", t[0], t[1]) + tuple(t[2:k + 1]) + (name,))
        else:
            rows.append(("arc", "", "") + tuple(t[:k + 1]) + (name,))
    return rows


def text_cycles(text):
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if re.match(r" *secs +%time .*cycle$", l)), None)
    if at is None:
        return []
    n = len(lines[at].split())
    rows = []
    for l in lines[at + 1:]:
        if not l.strip():
            break
        rows.append(tuple(l.split(None, n - 1)))
    return rows


def text_threads(text):
    """[(heading, flat rows)] of each thread of report --threads."""
    out = []
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith("Threads: ")), len(lines))
    for l in lines[at + 1:]:
        if re.match(r"thread \d+  ", l):
            out.append([l, []])
        elif out:
            out[-1][1].append(l)
    return [(" ".join(h.split()), text_flat("\n".join(body))) for h, body in out]


# ---- what the page shows ---------------------------------------------------

FLAT_COLUMNS = {"calls": 1, "self(s)": 2, "%time": 3, "inherited(s)": 4, "bytes": 6, "%alloc": 7}


def dom_flat(dom):
    """[(name, {column of the text report: value})] of the functions table."""
    return [flat_row(cells(tr)) for tr in table_rows(dom, "fns") or []]


def flat_as_text(mine, theirs):
    """The page's rows cut to the columns the text report has."""
    keys = set(theirs[0][1]) if theirs else set()
    return [(n, {k: v for k, v in vals.items() if k in keys}) for n, vals in mine]


def dom_tree(dom, cls="tree"):
    out = []
    for tr in table_rows(dom, cls) or []:
        out.append((int(tr.attrs.get("data-depth", "-1")),) + tuple(cells(tr)))
    return out


def dom_graph(dom):
    out = []
    for tr in table_rows(dom, "graph") or []:
        c = cells(tr)
        if "self" in tr.classes():
            out.append(("self",) + tuple(c))
        else:
            out.append(("arc", "", "") + tuple(c[2:]))
    return out


def headed_tables(dom, head_cls, table_cls, row):
    """[(heading, [row(cells) of each row])] of each h3.head_cls and the
    tables of table_cls after it."""
    out = []
    for n in dom.root.walk():
        if n.tag == "h3" and head_cls in n.classes():
            out.append((" ".join(n.text().split()), []))
        elif n.tag == "table" and table_cls in n.classes() and out:
            body = n.find("tbody")
            out[-1][1].extend(row(cells(tr)) for tr in (body.kids if body else [])
                              if isinstance(tr, Node) and tr.tag == "tr")
    return out


def flat_row(c):
    vals = {k: c[i] for k, i in FLAT_COLUMNS.items() if i < len(c) - 1}
    vals["SRC"] = c[-1]
    return c[0], vals


def dom_threads(dom):
    """[(heading, flat rows)] of the Threads tab."""
    return headed_tables(dom, "threadhead", "threadfns", flat_row)


def threads_tab(prof, page, what, view):
    """The Threads tab: each thread's heading and cost centres as report
    --threads prints them, under the view."""
    dom, errors = render(page, view_hash(view, tab="threads"), what)
    if not page_ok(dom, errors, what + ", threads"):
        return
    theirs = text_threads(text_report(prof, "--threads", *cli_opts(view)))
    drawn = dom_threads(dom)
    # A thread the page has and the report not is a row of its own.
    mine = [(h, flat_as_text(rows, t[1])) for (h, rows), t in zip(drawn, theirs)]
    mine += [(h, rows) for h, rows in drawn[len(theirs):]]
    same(mine, theirs, "%s: each thread's heading and cost centres as report --threads "
         "prints them (%d threads)" % (what, len(theirs)))


def text_heap(text):
    """report --heap's header facts and its three tables, as rows of words
    (a stack's names joined by their arrows)."""
    lines = text.splitlines()
    facts, key = {}, None
    for l in lines:
        m = re.match(r"    (peak|live at end|samples|of live) +(.*)$", l)
        if m:
            key = m.group(1)
            facts[key] = " ".join(m.group(2).split())
        elif key and l.startswith(" " * 17) and l.strip():  # a fact's next line
            facts[key] += " " + " ".join(l.split())
        else:
            key = None
    if "of live" in facts:
        facts["of live"] = facts["of live"].split(";")[0]

    def rows(heading_re, nums, name_last):
        """Each line: nums numbers and a name after them, or before them."""
        out = []
        for l in section_lines(text, heading_re):
            if name_last:
                out.append(tuple(l.split(None, nums)))
            else:
                t = l.split()
                out.append((" ".join(t[:-nums]),) + tuple(t[-nums:]))
        return out
    return (facts, rows(r"COST CENTRE +%live", 6, False),
            rows(r" *bytes +%live +blocks +stack", 3, True), rows(r" *bytes +%live +stack", 2, True))


def dom_heap(dom):
    facts = {}
    for p in dom.root.find_all("p", "heapfact"):
        k, _, v = p.text().partition("  ")
        facts[k] = " ".join(v.split())
    if "of live" in facts:
        facts["of live"] = facts["of live"].split(";")[0]
    tab = lambda cls: [tuple(c) for c in map(cells, table_rows(dom, cls) or [])]
    return facts, tab("heapfns"), tab("heapstacks"), tab("heapsample")


def text_heap_threads(text):
    """[(heading, rows)] of each thread of report --heap --threads: its
    live heap and its functions' (name and six numbers)."""
    out, lines = [], text.splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith("Threads: ")), len(lines))
    table = False
    for l in lines[at + 1:]:
        if l.startswith("Largest sample by stack"):
            break
        if re.match(r"thread \d+  ", l):
            out.append((" ".join(l.split()), []))
            table = False
        elif re.match(r"COST CENTRE +%live", l):
            table = True
        elif not l.strip():
            table = False
        elif table and out:
            t = l.split()
            out[-1][1].append((" ".join(t[:-6]),) + tuple(t[-6:]))
    return out


def dom_heap_threads(dom):
    return headed_tables(dom, "heapthread", "heapthreadfns", tuple)


def dom_chart(dom):
    """The Heap tab's chart: its bands bottom first, [name, points, fill,
    tooltip];
    the legend's rows top first, [name, bytes]; its caption; the peak's
    label; or None without a chart."""
    chart = dom.root.find("svg", "heapchart")
    if chart is None:
        return None
    bands = []
    for g in chart.find_all("g", "hband"):
        poly = g.find("polygon")
        title = g.find("title").text()
        bands.append([title.split("\n")[0], len(poly.attrs["points"].split()) // 2,
                      poly.attrs.get("fill"), title])
    # a band's name: its cell's title (the text may be cut, as shortName cuts)
    legend = [[tr.find("td", "name").attrs.get("title", c[2]), int(c[1])]
              for tr, c in ((tr, cells(tr)) for tr in table_rows(dom, "heapbands") or [])]
    caption = dom.root.find("p", "heapat")
    peak = chart.find("g", "hpeak")
    return (bands, legend, caption.text() if caption else "", peak.text() if peak else "")


def chart_checks(dom, prof, what, view):
    """The live heap over time in the Heap tab: heap-svg's bands (names,
    points, colours) stacked in its order, the legend top first with each
    band's bytes at the largest sample as heap-svg's legend, the peak."""
    mine = dom_chart(dom)
    r = subprocess.run([CCPROF, "convert", "--to", "heap-svg"] + cli_opts(view) + [prof],
                       capture_output=True, text=True)
    bands, keys = svg_bands(r.stdout)
    if not check(mine is not None and bands, "%s: a chart of the live heap over time "
                 "in the Heap tab, as heap-svg draws one" % what):
        return
    same(mine[0], bands, "%s: the chart's bands as heap-svg's, bottom first: name, "
         "points, colour, tooltip (%d bands of %d points)" % (what, len(bands), bands[0][1]))
    same(mine[1], [[b[0], keys[b[0]]] for b in reversed(bands)],
         "%s: the legend, top band first, each with its bytes at the largest sample as "
         "heap-svg's legend" % what)
    peak = report(prof)["heap"]["peak_bytes"]
    check(mine[2].startswith("At the largest sample, ") and
          ": %d bytes (" % sum(b for _, b in mine[1]) in mine[2] and
          "(%d bytes, exact)" % peak in mine[3],
          "%s: the caption says the legend is at the largest sample, its total; the peak "
          "line is labelled with the exact peak (%r, %r)" % (what, mine[2], mine[3]))


def heap_tab(prof, page, what, view):
    """The Heap tab: the header's peak, live heap and samples, the live
    heap at the end by function and by stack, each thread's, and the
    largest sample by stack, as report --heap --threads prints them under
    the view."""
    dom, errors = render(page, view_hash(view, tab="heap"), what)
    if not page_ok(dom, errors, what + ", heap"):
        return
    chart_checks(dom, prof, what, view)
    text = text_report(prof, "--heap", "--threads", *cli_opts(view))
    mine, theirs = dom_heap(dom), text_heap(text)
    check(mine[0] == theirs[0], "%s: the heap header as report --heap's (%r, %r)"
          % (what, mine[0], theirs[0]))
    theirs_t = text_heap_threads(text)
    same(dom_heap_threads(dom), theirs_t, "%s: each thread's live heap and its functions as "
         "report --heap --threads prints them (%d threads)" % (what, len(theirs_t)))
    for i, part in ((1, "by function"), (2, "by stack"), (3, "the largest sample by stack")):
        if mine[i] or theirs[i]:
            COMPARED["the live heap " + part] += 1
            same(mine[i], theirs[i], "%s: the live heap %s as report --heap prints it" % (what, part))


def tab_and_report(prof, page, what, view, tab, opt, parts, head):
    """(dom, the page's tab's parts, report opt's) under the view, parts
    a (of the dom, of the text) pair, each's first item checked the same
    (head names it); None when the page does not draw."""
    dom, errors = render(page, view_hash(view, tab=tab), what)
    if not page_ok(dom, errors, "%s, %s" % (what, tab)):
        return None
    mine, theirs = parts[0](dom), parts[1](text_report(prof, opt, *cli_opts(view)))
    check(mine[0] == theirs[0] and mine[0], "%s: %s as report %s's (%r, %r)"
          % (what, head, opt, mine[0], theirs[0]))
    return dom, mine, theirs


def text_hot(text):
    """report --hot's most expensive context (its words) and the
    expensive arm as tree rows, or "none" when no stack holds half."""
    m = re.search(r"^(most expensive context +.*)$", text, re.M)
    arm = section_lines(text, r"expensive arm +%time")
    rows = "none" if arm[:1] == ["(none: no stack holds half of the time)"] else \
        text_tree(text, r"expensive arm +%time")
    return (" ".join(m.group(1).split()) if m else None), rows


def dom_hot(dom):
    p = dom.root.find("p", "hotctx")
    none = any(n.text() == "(none: no stack holds half of the time)"
               for n in dom.root.find_all("p", "note"))
    return (" ".join(p.text().split()) if p else None), "none" if none else dom_tree(dom, "hotarm")


def hot_tab(prof, page, what, view):
    """The Hot path tab: the most expensive context and the expensive arm
    as report --hot prints them under the view."""
    got = tab_and_report(prof, page, what, view, "hot", "--hot", (dom_hot, text_hot),
                         "the most expensive context")
    if not got:
        return
    _, mine, theirs = got
    if theirs[1] == "none" or mine[1] == "none":
        check(mine[1] == theirs[1], "%s: no expensive arm in both (%r, %r)" % (what, mine[1], theirs[1]))
    else:
        same(mine[1], theirs[1], "%s: the expensive arm as report --hot prints it" % what)


HOOK_ROW = re.compile(r"^ *(\d+)  +([\d.]+) +([\d.]+) +([\d.]+) ns(?: +([\d.]+) ns)? ([* ]) (.*)$")


def text_hooks(text):
    """report --hook-cost: its estimate line, its rows (calls, hooks,
    %run, self per call, its bound under a sampling clock, mark, name)
    and the lines after the table."""
    lines = section_lines(text, r"Hook cost: ", stop_blank=False)
    fact = next((l for l in lines if l.startswith(("The runtime's estimate", "(unknown"))), None)
    at = next((i for i, l in enumerate(lines) if re.match(r" *calls +hooks\(s\)", l)), None)
    if at is None:
        return fact, [], []
    rows = []
    for l in lines[at + 1:]:
        if not l.strip():
            break
        m = HOOK_ROW.match(l)
        rows.append(m.groups()[:4] + ((m.group(5),) if m.group(5) else ()) +
                    (m.group(6).strip(), m.group(7)) if m else (l,))
    after = lines[at + 1 + len(rows) + 1:]
    return fact, rows, after[:after.index("")] if "" in after else after


def dom_hooks(dom):
    p = dom.root.find("p", "hookfact")
    pre = dom.root.find("pre", "hookflags")
    return (p.text() if p else None, [tuple(c) for c in map(cells, table_rows(dom, "hookcost") or [])],
            pre.text().split("\n") if pre else [])


def hooks_tab(prof, page, what, view):
    """The Hook cost tab: the estimate, each function's calls, hooks'
    time, %run, self per call and mark, and the gcc options (lines of
    text), as report --hook-cost prints them under the view."""
    got = tab_and_report(prof, page, what, view, "hooks", "--hook-cost", (dom_hooks, text_hooks),
                         "the hooks' estimate")
    if not got:
        return
    dom, mine, theirs = got
    if theirs[1] or mine[1]:
        COMPARED["each function's hook cost"] += 1
        same(mine[1], theirs[1], "%s: each function's hook cost as report --hook-cost prints it"
             % what)
        same(mine[2], theirs[2], "%s: the exclude options and notes as report --hook-cost "
             "prints them" % what)
    pre = dom.root.find("pre", "hookflags")
    check(pre is None or all(isinstance(k, str) for k in pre.kids),
          "%s: the gcc options are text only" % what)


def dom_cycles(dom):
    return [tuple(c) for c in map(cells, table_rows(dom, "cycles") or [])]


def diff_rows(mine, theirs):
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            return " (row %d: page %r, report %r)" % (i, a, b)
    if len(mine) != len(theirs):
        return " (%d rows, report %d)" % (len(mine), len(theirs))
    return ""


# Sections compared only where the page or the report has rows (a view
# may leave none): how often each was, so that a parser that finds no
# rows on either side cannot drop every comparison.
COMPARED = collections.Counter()


def compared_somewhere(part):
    """Each such section compared at least once, with rows, in this half."""
    want = {"1": ["the live heap by function", "the live heap by stack",
                  "the live heap the largest sample by stack", "each function's hook cost"],
            "2": ["the cycles"]}
    for k in want.get(part, []):
        check(COMPARED[k] > 0, "%s: compared with the report's, with rows, %d times" % (k, COMPARED[k]))


def same(mine, theirs, what):
    d = diff_rows(mine, theirs)
    return check(not d and mine, what + d)


# ---- the checks ------------------------------------------------------------

def static_checks():
    """No API that parses HTML or code, in the page's scripts (and the
    check itself finds one when there is one)."""
    def found(text):
        return [name for name, rx in FORBIDDEN if re.search(rx, text)]
    for f in ("ui.js", "model.js"):
        path = os.path.join(ASSETS, f)
        if not os.path.exists(path):
            check(False, "%s exists" % f)
            continue
        with open(path, encoding="utf-8") as fh:
            bad = found(fh.read())
        check(not bad, "%s: none of innerHTML, outerHTML, insertAdjacentHTML, document.write, "
              "eval, Function(, javascript:, setTimeout(string)%s" % (f, " (has %s)" % bad if bad else ""))
    check(found("a.innerHTML = x; eval(s); new Function('x'); location = 'javascript:1'") ==
          ["innerHTML", "eval", "Function(", "javascript:"], "the static check finds what it forbids")
    with open(os.path.join(ASSETS, "ui.js"), encoding="utf-8") as fh:
        ui = fh.read()
    # setAttribute's names are constants; a profile string never goes in one
    names = set(re.findall(r"setAttribute\(\s*([^,]+),", ui))
    check(names and all(re.match(r"^'[a-zA-Z-]+'$", n) for n in names),
          "ui.js: every setAttribute names a constant attribute (%s)" % sorted(names))


def header_facts(dom):
    """The header's facts, {term: text}."""
    return {fact.find("dt").text(): fact.find("dd").text()
            for fact in dom.root.find_all("div", "fact")}


def alloc_header(facts, text, what):
    """The header's total allocated (with what was allocated before a
    thread's first call, in no context) and its outside line as report's
    header (text) says them, a continued line joined."""
    lines = {k: re.search(r"^    %s +(.*)\n((?: {17}\S.*\n)*)" % k, text, re.M)
             for k in ("total alloc", "outside")}
    lines = {k: " ".join([m.group(1)] + m.group(2).split()) if m else None
             for k, m in lines.items()}
    mine = {k: facts.get(k) for k in lines}
    check(mine == lines, "%s: the header's total alloc and outside as report's%s" % (
        what, "" if mine == lines else " (%r, %r)" % (mine, lines)))


def own_time_header(facts, text, what):
    """The header's own time (the runtime's, in no total) as report's
    header says it, or neither has one."""
    own = re.search(r"^    own time     (.*)$", text, re.M)
    check(facts.get("own time") == (own.group(1) if own else None),
          "%s: the header's own time as report's (%r, %r)" % (what, facts.get("own time"),
                                                               own and own.group(1)))


def overflow_line(text):
    """Report's header line overflow (Note [Saying the overflow] in
    src/model/overflow.c), its lines joined, or None."""
    m = re.search(r"^    overflow     (\S.*)\n((?: {17}\S.*\n)*)", text, re.M)
    return " ".join([m.group(1)] + m.group(2).split()) if m else None


def overflow_header(facts, text, what):
    """The header's overflow fact as report's header says it, or neither
    has one."""
    line = overflow_line(text)
    check(facts.get("overflow") == line, "%s: the header's overflow as report's (%r, %r)"
          % (what, facts.get("overflow"), line))


def compare_view(prof, page, name, view, fn_name):
    """The page at a view (all tabs) against `ccprof report` of that view."""
    opts = cli_opts(view)
    what = "%s %s" % (name, " ".join(opts) or "(whole profile)")
    rep = report(prof, *opts)
    ids = {f["name"]: f["id"] for f in rep["functions"]}
    fid = ids.get(fn_name)
    text = text_report(prof, "--around", fn_name, "--callers", fn_name, "--cycles", *opts)

    dom, errors = render(page, view_hash(view, tab="functions"), what)
    if not page_ok(dom, errors, what + ", functions"):
        return
    flat = dom_flat(dom)
    check([r[0] for r in flat] == [f["name"] for f in rep["functions"]] and
          [int(r[1]["calls"]) for r in flat] == [f["calls"] for f in rep["functions"]],
          "%s: the functions are report --json's, in its order, with its calls" % what)
    theirs = text_flat(text)
    same(flat_as_text(flat, theirs), theirs, "%s: every row of the flat table as report "
         "prints it (%%time, %%alloc, self, bytes, calls, inherited, file:line)" % what)
    facts = header_facts(dom)
    head = {k: re.search(r"^    %s +(.*)$" % k, text, re.M) for k in ("total time", "total calls",
                                                                       "of profile", "merged")}
    head = {k: m.group(1) if m else None for k, m in head.items()}
    share = facts.get("of profile", "").split(";")[0]
    check(facts.get("merged") == head["merged"],
          "%s: the header's merged line as report's (%r)" % (what, head["merged"]))
    check(facts.get("total calls") == head["total calls"] and
          facts.get("total time", "").split(" (")[0] == head["total time"].split("  ")[0] and
          share == (head["of profile"] or "").split(";")[0],
          "%s: the header's total time, calls and the view's share as report's (%r, %r)"
          % (what, facts, head))
    alloc_header(facts, text, what)
    own_time_header(facts, text, what)
    overflow_header(facts, text, what)
    # and the clock as report says it: the sampler's wake-ups, not samples
    check(facts.get("total time", "").split(" (", 1)[-1] ==
          (head["total time"] or "").split("  (", 1)[-1],
          "%s: the header's clock as report's (%r)" % (what, facts.get("total time")))
    cmd = dom.root.find("code", "cmd")
    want = "ccprof report " + " ".join(o if o.startswith("--") else "'%s'" % o
                                       for o in opts) + (" " if opts else "") + shell_word(prof)
    check(cmd is not None and cmd.text() == want, "%s: the command line is shown (%r)" % (
        what, cmd.text() if cmd else None))

    dom, errors = render(page, view_hash(view, tab="tree", depth="1000"), what)
    if page_ok(dom, errors, what + ", stack tree"):
        same(dom_tree(dom), text_tree(text, r"COST CENTRE +entries"),
             "%s: the stack tree, every node opened, as report prints it" % what)
    threads_tab(prof, page, what, view)
    hot_tab(prof, page, what, view)

    if fid is None:
        return
    dom, errors = render(page, view_hash(view, tab="graph", fn=fid), what)
    if page_ok(dom, errors, what + ", call graph of " + fn_name):
        same(dom_graph(dom), text_around(text),
             "%s: the call-graph block of %s as report --around prints it" % (what, fn_name))
        cur = dom.root.find("div", "current")
        acts = [b.text() for b in cur.find_all("button", "act")] if cur else []
        check(cur is not None and cur.find("strong", "curname").text() == fn_name and
              {"focus", "deselect", "select only"} <= set(acts),
              "%s: %s is the current function, with focus, deselect and select only" % (what, fn_name))
    dom, errors = render(page, view_hash(view, tab="callers", fn=fid, depth="1000"), what)
    if page_ok(dom, errors, what + ", callers of " + fn_name):
        same(dom_tree(dom), text_tree(text, r"CALLED FROM"),
             "%s: the callers tree of %s as report --callers prints it" % (what, fn_name))
    dom, errors = render(page, view_hash(view, tab="cycles"), what)
    if page_ok(dom, errors, what + ", cycles"):
        theirs = text_cycles(text)
        mine = dom_cycles(dom)
        if theirs or mine:
            COMPARED["the cycles"] += 1
            same(mine, theirs, "%s: the cycles as report --cycles prints them" % what)


def frame_rows(dom):
    """(title, x, y, width) of every frame of the flame graph, and its height."""
    s = dom.root.find("svg", "flame")
    rows = [(g.find("title").text(), g.find("rect").attrs.get("x"), int(g.find("rect").attrs["y"]),
             g.find("rect").attrs.get("width")) for g in dom.root.find_all("g", "frame")]
    return rows, int(s.attrs["height"]) if s is not None else 0


def flame(prof, page, name):
    """The flame graph: a frame per node wide enough, its tooltip the
    name and time; zoomed, the zoomed node spans the width; as a flame
    (orient=flame), the same frames with the rows upside down, the root
    at the bottom and every frame above its parent."""
    rep = report(prof)
    dom, errors = render(page, "tab=flame", name)
    if not page_ok(dom, errors, name + ", flame graph"):
        return
    frames = dom.root.find_all("g", "frame")
    titles = [g.find("title").text() for g in frames if g.find("title")]
    tree = rep["tree"]
    total = re.search(r"total time +([\d.]+) secs", text_report(prof)).group(1)
    check(titles and titles[0].startswith("<root>\n%s s (100.0%%)" % total),
          "%s: the root frame's tooltip: name, time, share (%r)" % (name, titles[:1]))
    names = set()

    def walk(n):
        for c in n["children"]:
            if c["inherited_s"] >= tree["inherited_s"] / 1000:
                names.add(c["name"])
            walk(c)
    walk(tree)
    shown = {t.split("\n")[0] for t in titles}
    check(names <= shown, "%s: every node wider than a pixel has its frame (%r missing)"
          % (name, sorted(names - shown)))
    dom, errors = render(page, "tab=flame&zoom=0", name)
    if page_ok(dom, errors, name + ", flame graph zoomed"):
        rects = [g.find("rect") for g in dom.root.find_all("g", "frame")]
        widths = {r.attrs.get("width") for r in rects[:2]}
        check(len(rects) >= 2 and len(widths) == 1,
              "%s: zoomed on the root's first child, it spans the root's width" % name)
    for zoom in ("", "&zoom=0"):
        ice, _ = render(page, "tab=flame" + zoom, name)
        dom, errors = render(page, "tab=flame&orient=flame" + zoom, name)
        if not page_ok(dom, errors, name + ", flame graph as a flame" + zoom) or ice is None:
            continue
        down, h = frame_rows(ice)
        up, h2 = frame_rows(dom)
        flipped = [(t, x, h - FRAME_H - y, w) for t, x, y, w in down]
        check(h == h2 and up == flipped and len(up) > 1 and up[0][2] == h - FRAME_H and
              all(y < h - FRAME_H for _, _, y, _ in up[1:]) and
              "root at the bottom" in " ".join(p.text() for p in dom.root.find_all("p", "note")),
              "%s: orient=flame%s: the icicle's frames, rows upside down, the root at the "
              "bottom (%d frames)" % (name, zoom, len(up)))


def flame_keys(page, name, rep):
    """The flame graph by keyboard: one stop in the tab order (a roving
    tabindex), the graph a labelled group; arrows move between frames
    (Up to the parent, Down to the first child, Left and Right to a
    sibling), Enter and Space zoom as a click does, the focus kept,
    Escape zooms out; the frame with the focus is outlined and its name
    and cost shown as under the pointer.  In the flame orientation Up
    and Down follow the picture.  Needs a tree root > main > a > (b, c)
    (mj's)."""
    kids = [c["name"] for c in rep["tree"]["children"][0]["children"][0]["children"]]
    at = ("log.push([%r, [location.hash.replace(/.*zoom=([0-9.]*).*|.*/, '$1'), "
          "document.activeElement.querySelector('title').textContent.split('\\n')[0], "
          "qa('svg.flame g.frame[tabindex=\"0\"]').length, qa('svg.flame g.frame').filter("
          "function (g) { return g.tabIndex === 0 && g === document.activeElement; }).length, "
          "q('.flameinfo .iname') ? q('.flameinfo .iname').textContent : q('.flameinfo').textContent, "
          "getComputedStyle(document.activeElement.querySelector('rect')).strokeWidth]])")
    key = "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: %r, bubbles: true}))"
    steps = ["log.push(['svg', [q('svg.flame').getAttribute('role'), "
             "q('svg.flame').getAttribute('aria-label') || '', qa('svg.flame g.frame').length, "
             "qa('svg.flame g.frame[tabindex=\"0\"]').length, qa('svg.flame g.frame[tabindex]').length, "
             "getComputedStyle(qa('svg.flame g.frame rect')[1]).strokeWidth]])",
             "q('svg.flame g.frame[tabindex=\"0\"]').focus()", at % "start"]
    # the keys and the frame each leaves the focus on, and the zoom
    keys = [("ArrowDown", "main", ""), ("ArrowDown", "a", ""), ("ArrowDown", kids[0], ""),
            ("ArrowRight", kids[1], ""), ("ArrowRight", kids[1], ""), ("ArrowLeft", kids[0], ""),
            ("ArrowUp", "a", ""), ("Enter", "a", "0.0"), ("ArrowDown", kids[0], "0.0"),
            (" ", kids[0], "0.0.0"), ("Escape", kids[0], ""), ("ArrowUp", "a", ""),
            ("ArrowUp", "main", ""), ("ArrowUp", "<root>", ""), ("ArrowUp", "<root>", "")]
    for i, (k, _, _) in enumerate(keys):
        steps += [key % k, at % ("k%d" % i)]
    # as a flame, the root at the bottom: Up goes to a child
    steps += ["location.hash = 'tab=flame&orient=flame'", "q('svg.flame g.frame').focus()",
              key % "ArrowUp", at % "flameUp", key % "ArrowDown", at % "flameDown"]
    log = interact(page, "tab=flame", steps, name + ", flame graph by keys")
    if not log:
        return
    svg_ = log.get("svg") or ["", "", 0, 0, 0, ""]
    check(svg_[0] == "group" and "arrow keys" in svg_[1] and svg_[2] > 4 and svg_[3] == 1 and
          svg_[4] == svg_[2], "%s: the flame graph is a labelled group, its frames focusable, one of "
          "them in the tab order (%r)" % (name, svg_))
    unfocused = svg_[5]
    seen = [log.get("start")] + [log.get("k%d" % i) for i in range(len(keys))]
    want = [["", "<root>"]] + [[z, f] for _, f, z in keys]
    good = [st is not None and st[:2] == w and st[2] == 1 and st[3] == 1 and
            st[4] == short_name(w[1]) and st[5] == "3px" for st, w in zip(seen, want)]
    check(all(good), "%s: the flame graph by keys: arrows move (Up parent, Down first child, "
          "Left/Right siblings), Enter and Space zoom, Escape zooms out, the focus kept, the one "
          "tab stop with it, outlined (stroke %s, not %s: 3px), its name shown as under the "
          "pointer (%r)" % (name, (seen[1] or [0] * 6)[5], unfocused,
             [(k[0], st[:2] if st else None) for k, st, ok in zip([("start",)] + keys, seen, good)
              if not ok]))
    up, down = log.get("flameUp") or [], log.get("flameDown") or []
    check(up[1:2] == ["main"] and down[1:2] == ["<root>"],
          "%s: as a flame (root at the bottom), Up goes to the child above, Down to the parent "
          "below (%r, %r)" % (name, up[:2], down[:2]))


def flame_current_key(page, name, rep):
    """Shift+Enter on a flame frame makes its function the current one,
    as a double-click does (not a zoom), the focus kept on the frame;
    from there Shift+Tab reaches the current function's buttons.  Real
    key presses, the browser's own focus moves.  Needs a tree root >
    main > a > (b, c) (mj's)."""
    kids = [c["name"] for c in rep["tree"]["children"][0]["children"][0]["children"]]
    default = rep["functions"][0]["name"]  # the current function before any choice
    path = ["main", "a"] + kids[:1]
    downs = next(i for i, n in enumerate(path) if n != default) + 1
    want = path[downs - 1]
    ids = {f["name"]: f["id"] for f in rep["functions"]}  # report's ids are the page's
    seen = {}
    try:
        kb = Keyboard(page, "tab=flame", width=1200)
    except (OSError, RuntimeError) as e:
        check(False, "%s: a page driven by real keys (%s)" % (name, e))
        return
    try:
        at = ("(function () { var a = document.activeElement, t = a && a.querySelector && "
              "a.querySelector('title'); return [t ? t.textContent.split('\\n')[0] : '', "
              "a && a.getAttribute('class') || '', location.hash, "
              "(document.querySelector('.current .curname') || {}).textContent || '']; })()")
        kb.js("document.querySelector('svg.flame g.frame[tabindex=\"0\"]').focus()")
        for _ in range(downs):
            kb.press("ArrowDown")
        seen["before"] = kb.js(at)
        kb.press("Enter", shift=True)
        seen["after"] = kb.js(at)
        order = []
        for _ in range(12):
            kb.press("Tab", shift=True)
            order.append(kb.js("(function () { var a = document.activeElement; return a.closest("
                               "'.current') ? 'current ' + a.textContent : a.tagName; })()"))
        seen["order"] = order
    except RuntimeError as e:
        seen["error"] = str(e)
    finally:
        kb.close()
    before, after = seen.get("before") or [""] * 4, seen.get("after") or [""] * 4
    check(before[0] == want and "fn=" not in before[2],
          "%s: real keys: ArrowDown %d times reaches %s (%r)" % (name, downs, want, seen))
    hash_ = dict(kv.split("=", 1) for kv in after[2].lstrip("#").split("&") if "=" in kv)
    check(after[0] == want and "cur" in after[1].split() and after[3] == want and
          hash_.get("fn") == str(ids.get(want)) and "zoom" not in hash_,
          "%s: Shift+Enter on the frame of %s makes it the current function (the bar says so, "
          "the frame is marked), no zoom, the focus kept on the frame (%r)" % (name, want, after))
    cur = [x[len("current "):] for x in seen.get("order", []) if x.startswith("current ")]
    check(cur[:5] == ["callers", "call graph", "select only", "deselect", "focus"],
          "%s: from the frame, Shift+Tab reaches the current function's buttons (%r)"
          % (name, seen.get("order")))


def table_tools(page, name, rep):
    """The functions table filtered by name and sorted by a column (ties
    in report's order), from the hash."""
    names = [f["name"] for f in rep["functions"]]
    dom, errors = render(page, "tab=functions&q=A", name)
    if page_ok(dom, errors, name + ", functions filtered"):
        check([r[0] for r in dom_flat(dom)] == [n for n in names if "a" in n.lower()],
              "%s: the filter keeps the names holding it, any case, in order" % name)
    for key, field, down in (("calls", "calls", False), ("inh", "inherited_s", True),
                             ("name", "name", False)):
        dom, errors = render(page, "tab=functions&sort=%s&dir=%s" % (key, "desc" if down else "asc"),
                             name)
        if page_ok(dom, errors, "%s, functions sorted by %s" % (name, key)):
            value = [f[field] for f in rep["functions"]]
            # sorted() is stable: ties keep report's order, as in the page
            order = sorted(range(len(names)), key=lambda i: -value[i] if down else value[i])
            check([r[0] for r in dom_flat(dom)] == [names[i] for i in order],
                  "%s: sorted by %s, %s" % (name, key, "descending" if down else "ascending"))


# Steps run in the page one after another (50 ms apart, so that each
# hashchange is drawn before the next), each a JavaScript statement that
# may push what it sees onto `log`; the log is left in <pre id="testlog">.
STEPS_JS = """
(function () {
  var log = [], steps = [%s], i = 0;
  function q(s) { return document.querySelector(s); }
  function qa(s) { return Array.prototype.slice.call(document.querySelectorAll(s)); }
  function names() { return qa('table.fns tbody tr td.name').map(function (t) { return t.textContent; }); }
  function next() {
    if (i >= steps.length) {
      var pre = document.createElement('pre');
      pre.id = 'testlog';
      pre.textContent = JSON.stringify(log);
      document.body.appendChild(pre);
      return;
    }
    try { steps[i++](log, q, qa, names); } catch (e) { log.push(['error', String(e)]); }
    setTimeout(next, 50);
  }
  window.addEventListener('load', function () { setTimeout(next, 50); });
})();
"""


def csp_hash(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def allow_script(text, js):
    """The page's text with js's hash added to its policy's script-src, so
    that a script the test adds runs (the policy runs no other)."""
    return text.replace("script-src ", "script-src %s " % csp_hash(js), 1)


def injection_blocked(page):
    """Markup that got into a page anyway runs nothing: the policy allows
    only the page's own scripts, by hash.  The page still draws."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    at = text.rindex("</body>")
    bad = os.path.join(D, "injected%s.html" % PART)
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text[:at] + "<script>document.documentElement.setAttribute('data-pwned', '1')"
                "</script><img src=x onerror=\"document.documentElement.setAttribute("
                "'data-pwned', '2')\"><div style=\"display:none\" id=styled>s</div>" + text[at:])
    dom, errors = render(bad, "", "injected")
    html_el = dom.root.find("html") if dom else None
    check(html_el is not None and html_el.attrs.get("data-ready") == "1" and
          "data-pwned" not in html_el.attrs,
          "markup added to a page runs nothing (inline script, onerror), the page still draws")
    check(any("Content Security Policy" in e for e in errors),
          "the browser says the policy refused it (%d console lines)" % len(errors))


def interact(page, hash_, steps, what, width=1200):
    """The log of steps (JavaScript statements) run in the page opened at
    #hash_ (in a window width px wide), or None; the page is a copy with
    the steps' script added."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    js = STEPS_JS % ",\n".join("function (log, q, qa, names) { %s; }" % s for s in steps)
    at = text.rindex("</body>")
    copy = os.path.join(D, "interact%s.html" % PART)
    with open(copy, "w", encoding="utf-8") as f:
        f.write(allow_script(text[:at], js) + "<script>" + js + "</script>" + text[at:])
    dom, errors = render(copy, hash_, what, width)
    if not page_ok(dom, errors, what):
        return None
    pre = [n for n in dom.root.find_all("pre") if n.attrs.get("id") == "testlog"]
    if not check(len(pre) == 1, "%s: the steps ran" % what):
        return None
    log = json.loads(pre[0].text())
    errs = [e for e in log if e[0] == "error"]
    check(not errs, "%s: no step failed%s" % (what, " (%r)" % errs[0] if errs else ""))
    return {e[0]: e[1] for e in log}


def clicks(prof, page, name, rep):
    """Clicks, typing and back, in the page: a tree toggle builds the
    children, a click on a name keeps the tree as opened and makes that
    function current; a column heading sorts; the view bar's Apply
    applies; back returns; the current function's deselect button
    deselects it; a flame frame zooms."""
    top = rep["tree"]["children"][0]
    nkids = len(top["children"])
    kid = top["children"][0]["name"] if nkids else None
    steps = [
        "log.push(['rows0', qa('table.tree tbody tr').length])",
        "q('table.tree tbody tr[data-depth=\"1\"] button.tog').click()",
        "log.push(['rows1', qa('table.tree tbody tr').length])",
        "q('table.tree tbody tr[data-depth=\"2\"] button.fn').click()",
        "log.push(['afterName', [qa('table.tree tbody tr').length, location.hash, "
        "q('table.tree tbody tr.cur td.name').textContent, q('.curname').textContent]])",
        "location.hash = 'tab=functions'",
        "qa('th button.sort').filter(function (b) { return b.textContent === 'calls'; })[0].click()",
        "log.push(['sorted', location.hash])",
        "q('input[name=deselect]').value = 'b'; q('form.viewbar button.primary').click()",
        "log.push(['applied', [location.hash, names()]])",
        "history.back()",
        "log.push(['back', [location.hash, names()]])",
        "log.push(['current', q('.curname').textContent])",
        "qa('.current button.act').filter(function (b) { return b.textContent === 'deselect'; })[0].click()",
        "log.push(['deselected', [q('.curname') ? q('.curname').textContent : '', "
        "q('input[name=deselect]').value]])",
        "location.hash = 'tab=flame'",
        "qa('svg.flame g.frame')[1].dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 1}))",
        "log.push(['zoomed', [location.hash, qa('svg.flame g.frame rect')[1].getAttribute('width'), "
        "qa('svg.flame g.frame rect')[0].getAttribute('width')]])",
        "q('button[data-orient=flame]').click()",
        "log.push(['flamed', [location.hash, q('svg.flame g.frame rect').getAttribute('y'), "
        "q('svg.flame').getAttribute('height')]])",
    ]
    log = interact(page, "tab=tree&depth=1", steps, name + ", clicks")
    if not log:
        return
    check(log.get("rows0") == 1 + len(rep["tree"]["children"]) and
          log.get("rows1") == log.get("rows0") + nkids,
          "%s: opening %s builds its %d children (%r, %r)" % (
              name, top["name"], nkids, log.get("rows0"), log.get("rows1")))
    after = log.get("afterName") or [0, "", "", ""]
    check(after[0] == log.get("rows1") and "fn=" in after[1] and after[2].endswith(kid) and
          after[3] == kid, "%s: a click on %s in the tree makes it current, the tree stays as "
          "opened (%r)" % (name, kid, after))
    check("sort=calls" in (log.get("sorted") or "") and "dir=desc" in log.get("sorted", ""),
          "%s: a click on the calls heading sorts by calls, most first (%r)" % (name, log.get("sorted")))
    nob = [f["name"] for f in report(prof, "--deselect", "b")["functions"]]
    applied = log.get("applied") or ["", []]
    check("deselect=b" in applied[0] and applied[1] == nob,
          "%s: Deselect b, Apply: the view of report --deselect b (%r)" % (name, applied))
    back = log.get("back") or ["deselect=b", []]
    check("deselect=b" not in back[0] and len(back[1]) == len(rep["functions"]),
          "%s: back: the view before (%r)" % (name, back))
    des = log.get("deselected") or ["", ""]
    cur = log.get("current")
    check(cur and des[1] == cur and des[0] != cur,
          "%s: the current function's deselect button deselects %s (%r)" % (name, cur, des))
    zoom = log.get("zoomed") or ["", "", ""]
    check("zoom=0" in zoom[0] and zoom[1] == zoom[2],
          "%s: a click on a frame zooms on it: it spans the width (%r)" % (name, zoom))
    flamed = log.get("flamed") or ["", "0", "0"]
    check("orient=flame" in flamed[0] and "zoom=0" in flamed[0] and
          int(flamed[1]) + FRAME_H == int(flamed[2]),
          "%s: the flame button turns the graph over, zoom kept: the root's row is the "
          "bottom one (%r)" % (name, flamed))


def tab_keys(page, name):
    """The tabs as WAI-ARIA's tabs pattern has them: a tablist of tabs,
    each controlling the tabpanel, only the selected one in the tab
    order; Right and Left (round the ends), Home and End move the focus
    to another tab and select it."""
    state = ("log.push([%r, [location.hash.match(/tab=\\w+/)[0], document.activeElement.id, "
             "qa('[role=tablist] [role=tab]').filter(function (b) { return b.tabIndex === 0; })"
             ".map(function (b) { return b.id; }), qa('[role=tab][aria-selected=true]')"
             ".map(function (b) { return b.id; }), q('[role=tabpanel]').getAttribute("
             "'aria-labelledby')]])")
    key = "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: %r, bubbles: true}))"
    steps = ["log.push(['tabs', [qa('[role=tablist] > [role=tab]').map(function (b) { return [b.id, "
             "b.getAttribute('aria-controls')]; }), q('[role=tabpanel]').id]])",
             "q('[role=tab][aria-selected=true]').focus()", state % "start"]
    # the keys, and the tab each leaves selected (-1: the last)
    keys = [("ArrowRight", 1), ("ArrowRight", 2), ("End", -1), ("ArrowRight", 0),
            ("ArrowLeft", -1), ("Home", 0), ("ArrowLeft", -1)]
    for i, (k, _) in enumerate(keys):
        steps += [key % k, state % ("k%d" % i)]
    log = interact(page, "tab=functions", steps, name + ", tabs by keys")
    if not log:
        return
    tabs = log.get("tabs") or [[], ""]
    ids = [t[0] for t in tabs[0]]
    check(len(ids) >= 9 and ids[0] == "tab-functions" and tabs[1] and
          all(t[1] == tabs[1] for t in tabs[0]),
          "%s: the tabs are a tablist of tabs, each controlling the tabpanel (%r)" % (name, tabs))
    if not ids:
        return
    seen = [log.get("start")] + [log.get("k%d" % i) for i in range(len(keys))]
    want = [ids[at] for at in [0] + [at for _, at in keys]]
    check(all(st == ["tab=" + t[4:], t, [t], [t], t] for st, t in zip(seen, want)),
          "%s: Right, Left (round the ends), Home and End move the focus to a tab and select "
          "it; only the selected tab is in the tab order; the panel is labelled by it (%r)"
          % (name, [(st[1] if st else None) for st in seen]))


def lazy_tree(page, name, nchildren):
    dom, errors = render(page, "tab=tree&depth=1", name)
    if page_ok(dom, errors, name + ", stack tree at depth 1"):
        rows = dom_tree(dom)
        check(len(rows) == 1 + nchildren and all(r[0] <= 1 for r in rows),
              "%s: at depth 1 only the root and its %d children are built (%d rows)"
              % (name, nchildren, len(rows)))


def messages(prof, page, name):
    """A pattern that matches nothing: the CLI's warning, in the bar; a
    focus that matches nothing: the CLI's error."""
    r = run([CCPROF, "report", "--deselect", "nosuchfn", prof])
    dom, errors = render(page, view_hash({"deselect": "nosuchfn"}), name)
    if page_ok(dom, errors, name + ", a deselection matching nothing"):
        warns = [n.text() for n in dom.root.find_all("div", "warning")]
        check(len(warns) == 1 and warns[0] in r.stderr,
              "%s: the warning shown is the CLI's (%r)" % (name, warns))
    r = run([CCPROF, "report", "--focus", "nosuchfn", prof])
    dom, errors = render(page, view_hash({"focus": "nosuchfn"}), name)
    if page_ok(dom, errors, name + ", a focus matching nothing"):
        errs = [n.text() for n in dom.root.find_all("div", "error")]
        line = r.stderr.strip().split(": ", 2)[-1]
        check(r.returncode != 0 and len(errs) == 1 and errs[0].startswith(line) and
              "without the focus" in errs[0] and table_rows(dom, "fns"),
              "%s: the focus error shown is the CLI's, the view without it drawn (%r, %r)"
              % (name, errs, line))
    dom, errors = render(page, view_hash({"deselect": ","}), name)
    if page_ok(dom, errors, name + ", a deselection with no pattern"):
        errs = [n.text() for n in dom.root.find_all("div", "error")]
        check(len(errs) == 1 and errs[0].startswith("--deselect needs a pattern") and
              "the whole profile" in errs[0] and table_rows(dom, "fns"),
              "%s: a deselection with no pattern is the CLI's error, the whole profile drawn (%r)"
              % (name, errs))


def broken_page_is_seen(page):
    """The console check can fail: a page whose data is not JSON.  Data
    of another version is refused in words."""
    bad = os.path.join(D, "broken%s.html" % PART)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace('"format":"ccprof-html"', '"format":ccprof-html', 1))
    dom, errors = render(bad, "", "broken")
    check(errors and any("Uncaught" in e for e in errors),
          "a page that throws is seen: its uncaught error is in the console (%d lines)" % len(errors))
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace('"format":"ccprof-html","version":1', '"format":"ccprof-html","version":2', 1))
    dom, errors = render(bad, "", "version 2")
    app = dom.root.find("div") if dom else None
    check(app is not None and "not version 1" in app.text() and not errors and
          not dom.root.find_all("table"), "data of another version: the page says so and draws nothing")


def recorded(name, args):
    """tests/progs/NAME.c recorded (clock=cycles: every context gets its
    time) and converted: (profile, page, report --json) or None."""
    prog = build("html_ui_" + name, "tests/progs/%s.c" % name)
    r, prof = record(prog, args, clock="cycles", profile=os.path.join(D, name + ".ccprof"))
    if not check(r.returncode == 0, "%s: recorded" % name):
        return None
    return prof, convert(prof, name), report(prof)


def mj():
    got = recorded("mj", ["100"])
    if not got:
        return
    prof, page, rep = got
    for view, fn in (({}, "c"), ({"deselect": "b"}, "c"), ({"focus": "b"}, "c"),
                     ({"select": "a,c"}, "a")):
        compare_view(prof, page, "mj", view, fn)
    # merged with itself: the header says how many profiles, as report's
    twice = os.path.join(D, "mj_twice.ccprof")
    if check(run([CCPROF, "merge", "-o", twice, prof, prof]).returncode == 0, "mj: merged with itself"):
        compare_view(twice, convert(twice, "mj_twice"), "mj merged twice", {}, "c")
    table_tools(page, "mj", rep)
    clicks(prof, page, "mj", rep)
    flame(prof, page, "mj")
    flame_keys(page, "mj", rep)
    flame_current_key(page, "mj", rep)
    lazy_tree(page, "mj", len(rep["tree"]["children"]))
    tab_keys(page, "mj")
    messages(prof, page, "mj")
    broken_page_is_seen(page)
    injection_blocked(page)
    # a view given to convert is the one the page opens with
    page2 = convert(prof, "mj_deselected", "--deselect", "b")
    dom, errors = render(page2, "", "mj --deselect b")
    if page_ok(dom, errors, "mj converted with --deselect b"):
        rep2 = report(prof, "--deselect", "b")
        cmd = dom.root.find("code", "cmd")
        check([r[0] for r in dom_flat(dom)] == [f["name"] for f in rep2["functions"]] and
              cmd is not None and cmd.text() == "ccprof report --deselect 'b' " + shell_word(prof),
              "mj converted with --deselect b: the page opens with that view")


def shell_word(s):
    """The profile's name as the page's command line writes it: quoted
    only when the shell needs it."""
    return s if re.fullmatch(r"[A-Za-z0-9_./+,:@%=-]+", s) else "'" + s.replace("'", "'\\''") + "'"


def spivey():
    got = recorded("spivey", ["40"])
    for view, fn in (({}, "P"), ({}, "R"), ({"deselect": "R"}, "P"),
                     ({"focus": "Q", "deselect": "R"}, "Q")):
        if got:
            compare_view(got[0], got[1], "spivey", view, fn)


def allocs():
    """A run that counted its allocations (record --alloc): the %alloc and
    bytes columns beside the times, in every tab, as report prints them;
    and a C++ run's header, whose total alloc holds libstdc++'s emergency
    pool, allocated before main's first call, as report's."""
    prog = build("html_ui_allocs", "tests/progs/allocs.c")
    prof = os.path.join(D, "allocs.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog])
    if not check(r.returncode == 0 and os.path.exists(prof), "allocs: recorded with --alloc"):
        return
    page = convert(prof, "allocs")
    for view, fn in (({}, "grow"), ({"deselect": "grow"}, "main"), ({"focus": "outer"}, "outer")):
        compare_view(prof, page, "allocs", view, fn)
    # C++: libstdc++'s emergency pool is allocated before main's first
    # call, in no context; the header's total alloc counts it as report's.
    prog = build("html_ui_allocs_cxx", "tests/progs/allocs_cxx.cpp", "-lstdc++")
    prof = os.path.join(D, "allocs_cxx.ccprof")
    r = run([CCPROF, "record", "--alloc", "-o", prof, "--", prog])
    if not check(r.returncode == 0 and os.path.exists(prof), "allocs_cxx: recorded with --alloc"):
        return
    page = convert(prof, "allocs_cxx")
    for view, fn in (({}, "make_array()"), ({"deselect": "make_array"}, "main"),
                     ({"focus": "reserve"}, "reserve(std::vector<long, std::allocator<long> >&)")):
        compare_view(prof, page, "allocs_cxx", view, fn)
    # Made with --short-names: the page shows the short names, and says
    # so in its command line.
    page = convert(prof, "allocs_cxx_short", "--short-names")
    for view, fn in (({"short": True}, "make_array"),
                     ({"short": True, "focus": "reserve"}, "reserve")):
        compare_view(prof, page, "allocs_cxx", view, fn)


def threads():
    """Several threads: the Threads tab of a run of 9 threads, and of a
    made profile of two threads that share contexts, with allocations,
    under views that deselect and focus."""
    got = recorded("threads", [])
    if got:
        for view in ({}, {"deselect": "mid"}, {"focus": "mid"}):
            threads_tab(got[0], got[1], "threads" + (" %r" % view if view else ""), view)
    spec = ["program ./two", "clock cpu 1000000000", "alloc 0 0", "thread 7 first",
            "ctx 0 0 1000000 0 0 :", "ctx 1 0 20000000 100 1 : [main]",
            "ctx 3 0 10000000 300 3 : [main] [a]", "ctx 2 1 50000000 5000 7 : [main] [a] [b]",
            "thread 8 second", "ctx 1 0 4000000 64 1 : [w]", "ctx 2 0 9000000 0 0 : [w] [a]",
            "ctx 5 0 3000000 32 2 : [w] [a] [b]", "ctx 1 0 7000000 16 1 : [w] [b]"]
    prof = make_profile("html_ui_two", "\n".join(spec) + "\n")
    page = convert(prof, "two")
    for view in ({}, {"deselect": "a"}, {"focus": "a"}, {"select": "b"}):
        threads_tab(prof, page, "two threads" + (" %r" % view if view else ""), view)


def heap():
    """A heap profile (record --heap): a Heap tab, as report --heap, under
    views; a profile without heap data has no Heap tab."""
    prog = build("html_ui_heapuse", "tests/progs/heapuse.c")
    for mode in ("steps", "threads"):
        prof = os.path.join(D, "heap_%s.ccprof" % mode)
        r = run([CCPROF, "record", "--heap", "-o", prof, "--", prog, mode])
        if not check(r.returncode == 0, "heapuse %s: recorded with --heap" % mode):
            continue
        page = convert(prof, "heap_" + mode)
        for view in ({}, {"deselect": "take"}, {"focus": "take"}, {"focus": "hold,leak"}):
            heap_tab(prof, page, "heap %s%s" % (mode, " %r" % view if view else ""), view)
    # Two threads whose contexts share histories, live bytes outside any
    # context, samples naming the second thread's contexts.
    prof = make_profile("html_ui_heap_two", HEAP_TWO)
    page = convert(prof, "heap_two")
    for view in ({}, {"deselect": "b"}, {"focus": "b"}, {"focus": "a", "deselect": "b"}):
        heap_tab(prof, page, "heap_two%s" % (" %r" % view if view else ""), view)
    # Intervals that %g shortens (1.23457 ms) or writes with an exponent.
    for ns in (1234567, 10):
        odd = make_profile("html_ui_heap_%d" % ns, HEAP_TWO.replace("heap 1000000 ", "heap %d " % ns))
        heap_tab(odd, convert(odd, "heap_%d" % ns), "heap_two, sampled every %d ns" % ns, {})
    heap_chart_hover(prof, page)
    narrow(page, "heap_two")
    heap_chart_edges()
    dom, errors = render(os.path.join(D, "two.html"), "tab=heap", "no heap")  # threads()'s
    if page_ok(dom, errors, "a profile without heap data, #tab=heap"):
        tabs = [b.text() for b in dom.root.find_all("button", "tab")]
        check("Heap" not in tabs and "Threads" in tabs and dom.root.find("table", "fns"),
              "a profile without heap data: no Heap tab; #tab=heap shows the functions (%r)" % tabs)


def narrow(page, name):
    """In a window 480 px wide the page never scrolls sideways, on any
    tab: a table wider than that scrolls in its own box."""
    steps = []
    for tab in ("functions", "graph", "tree", "hot", "callers", "flame", "cycles", "threads",
                "hooks", "heap"):
        steps += ["location.hash = 'tab=%s&depth=1000'" % tab,
                  "var d = document.documentElement; log.push(['%s', [q('main').dataset.tab, "
                  "d.scrollWidth, d.clientWidth]])" % tab]
    log = interact(page, "tab=functions", steps, name + ", 480 px wide", width=480)
    if not log:
        return
    seen = log
    wide = {k: v[1:] for k, v in seen.items() if v[0] == k and v[1] > v[2]}
    drawn = sorted(k for k, v in seen.items() if v[0] == k)
    check(len(drawn) >= 9 and not wide and all(v[2] <= 480 for v in seen.values()),
          "%s: 480 px wide, no tab scrolls the page sideways (%d tabs drawn; too wide: %r)"
          % (name, len(drawn), wide))


def heap_chart_hover(prof, page):
    """The pointer over a sample's point: the legend gives each band's
    bytes in that sample, hp's, and the caption says which; off the
    chart, the largest sample's again."""
    legend = "qa('table.heapbands tbody tr').map(function (r) { return [r.cells[2].textContent, " \
        "+r.cells[1].textContent]; })"
    steps = ["var s = q('svg.heapchart'), b = s.getBoundingClientRect(), w = +s.getAttribute('width');"
             "var x = +q('svg.heapchart g.hband polygon').getAttribute('points').split(' ')[2]"
             ".split(',')[0];"
             "s.dispatchEvent(new MouseEvent('mousemove', {clientX: b.left + x * b.width / w, "
             "clientY: b.top + 40, bubbles: true}))",
             "log.push(['hover', [q('p.heapat').textContent, %s]])" % legend,
             "q('svg.heapchart').dispatchEvent(new MouseEvent('mouseleave'))",
             "log.push(['left', [q('p.heapat').textContent, %s]])" % legend]
    log = interact(page, "tab=heap", steps, "heap_two, the pointer on the chart") or {}
    hp = hp_parse(run([CCPROF, "convert", "--to", "hp", prof]).stdout)
    hover, left = log.get("hover") or ["", []], log.get("left") or ["", []]
    want = [[n, hp[1][2][1].get(n, 0)] for n, _ in hover[1]]
    check(hover[0] == "At sample 2 of 3, 0.000002 s: %d bytes" % sum(hp[1][2][1].values()) and
          hover[1] == want and len(want) > 2,
          "heap_two: the pointer on the second sample's point (not the largest): the legend has each band's bytes "
          "in that sample, hp's (%r, %r)" % (hover, want))
    check(left[0].startswith("At the largest sample") and left[1] != hover[1],
          "heap_two: the pointer off the chart: the largest sample again (%r)" % left)


def heap_chart_edges():
    """A heap profile without samples: the Heap tab says so, draws no
    chart.  Hostile names in the chart's bands and legend: text, no
    element."""
    none = make_profile("html_ui_heap_nosamples",
                        re.sub(r"^(sample|rec) .*\n", "", HEAP_TWO, flags=re.M))
    dom, errors = render(convert(none, "heap_nosamples"), "tab=heap", "heap without samples")
    if page_ok(dom, errors, "heap without samples"):
        said = dom.root.find("p", "heapnone")
        check(dom_chart(dom) is None and said is not None and "No heap samples" in said.text(),
              "heap without samples: the Heap tab says so and draws no chart (%r)"
              % (said.text() if said else None))
    bad = "<img/src=x/onerror=alert(7)>"
    hostile = make_profile("html_ui_heap_hostile", HEAP_TWO.replace("[b]", "[%s]" % bad).replace(
        "[a]", "[</script><b>x</b>&amp;\x22']"))
    dom, errors = render(convert(hostile, "heap_hostile"), "tab=heap", "heap, hostile names")
    if not page_ok(dom, errors, "heap, hostile names"):
        return
    chart = dom_chart(dom)
    names = [b[0] for b in chart[0]] if chart else []
    tags = {n.tag for n in dom.root.find_all() if n.tag in ("img", "b", "iframe", "object")}
    check(any(n.endswith(")</script><b>x</b>&amp;\"'/%s/w" % bad) for n in names) and
          any(n.endswith(")%s/w" % bad) for n in names) and
          sorted(b[0] for b in chart[1]) == sorted(names) and not tags and
          len(dom.root.find_all("script")) == 3,
          "heap, hostile names: as text in the chart's bands and legend, no element of "
          "theirs (%r, tags %r)" % (names, sorted(tags)))
    chart_checks(dom, hostile, "heap, hostile names", {})


def hot():
    """The Hot path tab where no stack holds half of the time (three
    roots of a third each; the context's history has unmarked entries and
    an elided path), and where the arm stops below the root's child."""
    spec = ["program ./hot", "clock cpu 1000000000", "thread 1 t",
            "ctx 1 0 30000000 : [a]", "ctx 1 0 30000000 : [b]",
            "ctx 1 0 20000000 : [c] x y [d]", "ctx 2 0 20000000 : [c] [e]"]
    prof = make_profile("html_ui_hot", "\n".join(spec) + "\n")
    page = convert(prof, "hot")
    for view in ({}, {"deselect": "a,b"}, {"focus": "c"}, {"focus": "d"}, {"deselect": "d"}):
        hot_tab(prof, page, "hot" + (" %r" % view if view else ""), view)


def overflow():
    """A run past max_contexts (tests/progs/overflow.c, its thread named
    "<i>x</i>&amp;"): the header says so as report's does, under every
    view (the limit is the run's), its thread's name as text, no element
    of it."""
    name = "<i>x</i>&amp;"
    prog = build("html_ui_overflow", "tests/progs/overflow.c")
    prof = os.path.join(D, "overflow.ccprof")
    r = run([CCPROF, "record", "--clock=cycles", "--max-contexts=16", "-o", prof, "--", prog, name])
    if not check(r.returncode == 0, "overflow: recorded"):
        return
    page = convert(prof, "overflow")
    for view in ({}, {"focus": "f9"}, {"deselect": "leaf"}):
        what = "overflow" + (" %r" % view if view else "")
        dom, errors = render(page, view_hash(view, tab="functions"), what)
        if not page_ok(dom, errors, what):
            continue
        got, line = header_facts(dom).get("overflow"), overflow_line(text_report(prof, *cli_opts(view)))
        check(got is not None and got == line, "%s: the header says the overflow as report's "
              "(%r, %r)" % (what, got, line))
        check(name in (got or "") and "<overflow>" in (got or "") and not dom.root.find_all("i"),
              "%s: the thread's name and <overflow> are text" % what)


NEAR_TIES = """program ./ties
clock cycles 1000000000
hooks 20000 5000000
thread 1 main
ctx 1 0 1000000 : [main]
ctx 4 0 1 : [main] [exact_tie]
ctx 400 0 85927540 : [main] [near_tie]
"""


def hooks():
    """The Hook cost tab of tests/progs/hookcost.c built with gcc (its
    helpers' hooks outweigh their work: marks, exclude lists), measured by
    cycles and by samples, under views; a made profile with names, files
    (one quoted), clones and clashes; one without an estimate."""
    for clock in ("cycles", None):
        name = "hookcost_" + (clock or "cpu")
        prog = os.path.join(D, name)
        r = run(["gcc", "-g", "-O1", "-finstrument-functions", "-I" + os.path.join(TOP, "tests/progs"),
                 os.path.join(TOP, "tests/progs/hookcost.c"), "-o", prog])
        if not check(r.returncode == 0, "%s: builds with gcc" % name):
            continue
        r, prof = record(prog, clock=clock, profile=os.path.join(D, name + ".ccprof"))
        if not check(r.returncode == 0, "%s: recorded" % name):
            continue
        page = convert(prof, name)
        for view in ({}, {"deselect": "scale"}, {"focus": "rescale"}, {"select": "add_one"}):
            hooks_tab(prof, page, name + (" %r" % view if view else ""), view)
    # Self times per call on and near a tie of %.1f: 1 ns over 4 calls is
    # 0.25 exactly, which printf rounds to even (0.2); 85,927,540 ns over
    # 400 is the double 214818.85000000000582, which printf rounds up
    # (.9), and the page rounded to even (.8) when it took x * 10 for a
    # tie (a recorded hookcost_cpu came out so, in a clang make check).
    prof = make_profile("html_ui_hooks_ties", NEAR_TIES)
    hooks_tab(prof, convert(prof, "hooks_ties"), "hooks on and near a tie", {})
    prof = make_profile("html_ui_hooks", HOOKS)
    page = convert(prof, "hooks")
    for view in ({}, {"deselect": "prefetch_all"}, {"focus": "prefetch_all"},
                 {"deselect": "get_x*,tiny1"}):
        hooks_tab(prof, page, "hooks" + (" %r" % view if view else ""), view)
    prof = os.path.join(OUT, "html_ui_exact.ccprof")
    if os.path.exists(prof):  # exact()'s: no estimate
        hooks_tab(prof, os.path.join(D, "exact.html"), "exact", {})


def statics():
    """--only-exported (a static function's costs go to its caller) and
    --module (one that matches nothing leaves the thread roots)."""
    src = os.path.join(D, "statics.c")
    with open(src, "w") as f:
        f.write("static volatile unsigned long sink;\n"
                "static void __attribute__((noinline)) hidden(int n)\n"
                "{ for (int i = 0; i < n; i++) sink += i; }\n"
                "void __attribute__((noinline)) shown(int n) { hidden(n); hidden(n / 2); }\n"
                "int main(void) { for (int k = 0; k < 50; k++) shown(20000); return 0; }\n")
    prog = build("html_ui_statics", os.path.relpath(src, TOP))
    r, prof = record(prog, clock="cycles", profile=os.path.join(D, "statics.ccprof"))
    if not check(r.returncode == 0, "statics: recorded"):
        return
    page = convert(prof, "statics")
    for view, fn in (({"exported": True}, "shown"), ({"module": "nomodule.so"}, "main"),
                     ({"exported": True, "focus": "shown"}, "shown")):
        compare_view(prof, page, "statics", view, fn)


def exact():
    """A made profile with round times (cpu clock, nanosecond ticks) and
    allocations: every column, the bytes weight."""
    spec = ["program ./exact", "clock cpu 1000000000", "alloc 0 0", "thread 1",
            "ctx 0 0 1000000 0 0 :",
            "ctx 1 0 20000000 100 1 : [main]",
            "ctx 3 0 10000000 300 3 : [main] [a]",
            "ctx 2 1 50000000 5000 7 : [main] [a] [b]",
            "ctx 4 0 7000000 0 0 : [main] [b]",
            "ctx 2 0 3000000 64 2 : [main] a [b] [a]"]
    prof = make_profile("html_ui_exact", "\n".join(spec) + "\n")
    page = convert(prof, "exact")
    rep = report(prof)
    for view in ({}, {"deselect": "a"}, {"focus": "a"}):
        compare_view(prof, page, "exact", view, "b")
    dom, errors = render(page, "tab=functions", "exact")
    if page_ok(dom, errors, "exact, allocation columns"):
        got = {}
        for tr in table_rows(dom, "fns"):
            c = cells(tr)
            got[c[0]] = (int(c[6]), int(c[8]), int(c[9]))
        want = {f["name"]: (f["self_alloc_bytes"], f["inherited_alloc_bytes"], f["self_alloc_blocks"])
                for f in rep["functions"]}
        check(got == want, "exact: self bytes, inherited bytes and blocks are report --json's "
              "(%r, %r)" % (got, want))
    dom, errors = render(page, "tab=tree&w=bytes&depth=1000", "exact")
    if page_ok(dom, errors, "exact, the bytes weight"):
        rows = dom_tree(dom)
        root = rows[0] if rows else None
        check(root is not None and root[-1] == str(rep["tree"]["inherited_alloc_bytes"]) and
              rows[1][-1] == str(max(c["inherited_alloc_bytes"] for c in rep["tree"]["children"])),
              "exact: weighed by bytes, the tree shows inherited bytes, most first (%r)" % (rows[:2],))


HOSTILE = [
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "\" onmouseover=\"alert(3)",
    "'; alert(4); '",
    "a\u2028b\u2029c",
    "&amp; &lt;",
    "<!--",
    "javascript:alert(5)",
    "</style><b>bold</b>",
]


def button_notes():
    """A function's buttons use its name as a pattern, as a command would:
    when the name names others too (operator*), or the function stays
    selected (a thread root), the bar says so.  A profile named like an
    option is written ./-name in the command line."""
    prof = make_profile("html_ui_ops", "program ./ops\nclock cpu 1000000\nthread 1 t\n"
                        "ctx 1 0 1000 : [main]\nctx 1 0 2000 : [main] [S::operator*]\n"
                        "ctx 1 0 3000 : [main] [S::operator*=]\n")
    odd = os.path.join(D, "-ops.ccprof")
    shutil.copyfile(prof, odd)
    page = os.path.join(D, "ops.html")
    r = run([CCPROF, "convert", "--to", "html", "-o", page, "--", "-ops.ccprof"], cwd=D)
    if not check(r.returncode == 0, "a profile named -ops.ccprof converts (%s)" % r.stderr.strip()):
        return
    deselect = ("qa('.current button.act').filter(function (b) { return b.textContent === "
                "'deselect'; })[0].click()")
    steps = [
        "log.push(['cmd', q('code.cmd').textContent])",
        deselect,
        "log.push(['star', [qa('.messages .warning').map(function (w) { return w.textContent; }), "
        "location.hash]])",
        "location.hash = 'tab=functions&fn=0'",
        deselect,
        "log.push(['root', qa('.messages .warning').map(function (w) { return w.textContent; })])",
    ]
    log = interact(page, "tab=functions&fn=1", steps, "button notes")
    if not log:
        return
    check(log.get("cmd") == "ccprof report ./-ops.ccprof",
          "a profile named like an option: the command line says ./-ops.ccprof (%r)" % log.get("cmd"))
    star = log.get("star") or [[], ""]
    check(any("also matches S::operator*= (1 other function)" in w for w in star[0]) and
          "deselect=S%3A%3Aoperator*" in star[1],
          "deselect on S::operator*: applied as the pattern, and the bar says it also matches "
          "S::operator*= (%r)" % star)
    check(any(w == "main stays selected: thread roots and focused functions always are"
              for w in log.get("root") or []),
          "deselect on a thread root: the bar says it stays selected (%r)" % log.get("root"))


def hostile():
    """Names that are HTML, script or quotes show as text in every tab
    and in the tooltips; no element of theirs appears."""
    spec = ["program ./<img/src=x/onerror=alert(9)>", "clock cpu 1000000000",
            "thread 1 <b>t</b><img/src=x/onerror=alert(8)>",
            "ctx 0 0 1000 :", "ctx 1 0 5000 : [main]"]
    for i, name in enumerate(HOSTILE):
        enc = "".join("\\x%02x" % b if b > 126 or b < 33 or b == 0x5c else chr(b)
                      for b in name.encode("utf-8"))
        spec.append("ctx %d 0 %d : [main] [%s]" % (i + 1, 1000000 * (i + 1), enc))
        if i:
            prev = "".join("\\x%02x" % b if b > 126 or b < 33 or b == 0x5c else chr(b)
                           for b in HOSTILE[i - 1].encode("utf-8"))
            spec.append("ctx 1 0 %d : [main] %s [%s] [%s]" % (300000 * i, "", prev, enc))
    prof = make_profile("html_ui_hostile", "\n".join(spec) + "\n")
    page = convert(prof, "hostile")
    rep = report(prof)
    ids = {f["name"]: f["id"] for f in rep["functions"]}
    for tab in ("functions", "graph", "tree", "callers", "flame", "cycles", "threads"):
        for fn in ("", str(ids.get(HOSTILE[0], "")), str(ids.get(HOSTILE[4], ""))):
            if tab not in ("graph", "callers") and fn:
                continue
            h = "tab=%s&depth=1000%s" % (tab, "&fn=" + fn if fn else "")
            dom, errors = render(page, h, "hostile")
            what = "hostile, #" + h
            if not page_ok(dom, errors, what):
                continue
            tags = {n.tag for n in dom.root.find_all() if n.tag in ("img", "b", "iframe", "object")}
            scripts = len(dom.root.find_all("script"))
            handlers = [k for n in dom.root.find_all() for k in n.attrs if k.startswith("on")]
            check(not tags and scripts == 3 and not handlers,
                  "%s: no element or handler from a name (tags %r, %d scripts, handlers %r)"
                  % (what, sorted(tags), scripts, handlers))
            text = "".join(n.text() for n in dom.root.find_all("main"))
            titles = " ".join(n.attrs.get("title", "") for n in dom.root.find_all()) + \
                " ".join(t.text() for t in dom.root.find_all("title"))
            if tab == "functions":
                shown = [r[0] for r in dom_flat(dom)]
                check(shown == [f["name"] for f in rep["functions"]],
                      "%s: every name as text, in report --json's order" % what)
            elif tab in ("graph", "callers") and fn:
                want = rep["functions"][[f["id"] for f in rep["functions"]].index(int(fn))]["name"]
                check(want in text and want in titles,
                      "%s: the current function's name as text and as its tooltip" % what)
            elif tab == "flame":
                missing = [n for n in HOSTILE if n in ids and n not in titles]
                check(not missing, "%s: every name in a frame's tooltip (missing %r)" % (what, missing))
            elif tab in ("tree", "threads"):
                missing = [n for n in HOSTILE if n in ids and n not in text]
                if tab == "threads" and "thread 1  <b>t</b><img/src=x/onerror=alert(8)>" not in text:
                    missing.append("the thread's name")
                check(not missing, "%s: every name as text (missing %r)" % (what, missing))
    dom, errors = render(page, "tab=functions", "hostile")
    if page_ok(dom, errors, "hostile, header"):
        h1 = dom.root.find("h1")
        check(h1 is not None and "./<img/src=x/onerror=alert(9)>" in h1.text(),
              "hostile: the program's name is text in the header")
    # the focus button on a hostile name: the pattern survives the hash
    for victim in ("&amp; &lt;", "'; alert(4); '", "</script><script>alert(1)</script>"):
        if victim not in ids:
            continue
        steps = ["qa('.current button.act').filter(function (b) { return b.textContent === 'focus'; })"
                 "[0].click()",
                 "log.push(['focused', [q('input[name=focus]').value, names()]])"]
        log = interact(page, "tab=functions&fn=%d" % ids[victim], steps, "hostile, focus button")
        got = (log or {}).get("focused") or ["", []]
        want = [f["name"] for f in report(prof, "--focus", victim)["functions"]]
        check(got[0] == victim and got[1] == want,
              "hostile: the focus button on %r gives report --focus's view (%r)" % (victim, got))
    # a hostile view option: in the inputs and the command line as text
    dom, errors = render(page, view_hash({"deselect": "<b>x</b>'\"", "select": "*"}), "hostile")
    if page_ok(dom, errors, "hostile, a hostile pattern in the hash"):
        cmd = dom.root.find("code", "cmd")
        check(cmd is not None and "--deselect '<b>x</b>'\\''\"'" in cmd.text() and
              not dom.root.find_all("b"),
              "hostile: a pattern with <b> and quotes is shell-quoted text (%r)"
              % (cmd.text() if cmd else None))


# A cycle of 12 names (as SQLite's) and C++ names of some 3,500
# characters that differ only at their end, and 40 long names to deselect.
CYCLE12 = ["sqlite3_exec", "sqlite3_prepare_v2", "sqlite3LockAndPrepare", "sqlite3Prepare",
           "sqlite3RunParser", "sqlite3Parser", "yy_reduce", "sqlite3FinishCoding",
           "sqlite3VdbeExec", "sqlite3_step", "sqlite3Step", "sqlite3VdbeExecInner"]
MAPT = "std::map<std::string, std::vector<std::map<std::string, int>>>"
LONG_CXX = [("std::_Rb_tree<" + MAPT + ", ") * 45 + "std::less<std::string>>::" + tail
            for tail in ("_M_begin()", "_M_end()", "_M_root()")]


def long_names():
    """Long names never push the page apart: the Cycles tab shows a whole
    cycle, wrapped; the Stack tree's names are cut (in the middle, their
    end kept) so that its numbers stay on the screen; the header lists
    the first 8 deselected names and "and N more" as report's does;
    every cut name is whole in its title.  Measured in the browser."""
    esc = lambda n: n.replace(" ", "\\x20")
    spec = ["program ./longnames", "clock cpu 1000000000", "thread 1", "ctx 0 0 1000 :",
            "ctx 1 0 1000000 : [main]",
            "ctx 1 0 5000000 : [main] %s [%s]" % (" ".join(CYCLE12), CYCLE12[0])]
    for i, name in enumerate(LONG_CXX):
        spec += ["ctx 1 0 %d : [main] [%s]" % (3000000 + i, esc(name)),
                 "ctx 1 0 %d : [main] [%s] [leaf%d]" % (1000000 + i, esc(name), i)]
    spec += ["ctx 1 0 %d : [main] [deselme_%02d_%s]" % (100000 + i, i, esc(MAPT * 3))
             for i in range(40)]
    prof = make_profile("html_ui_longnames", "\n".join(spec) + "\n")
    page = convert(prof, "longnames")
    # each step logs [what, value]: boxes in px, texts and titles
    steps = [
        "var c = q('table.cycles td.cyc'), r = c.getBoundingClientRect();"
        "log.push(['cycle', [c.scrollWidth, c.clientWidth, qa('table.cycles td.cyc button.fn')"
        ".filter(function (b) { var x = b.getBoundingClientRect(); return b.offsetWidth > 0 && "
        "x.left >= r.left && x.right <= r.right + 0.5; }).map(function (b) { return b.textContent; })]])",
        "location.hash = 'tab=tree&depth=2'",
        "log.push(['tree', [q('table.tree').getBoundingClientRect().width, window.innerWidth, "
        "qa('table.tree button.fn').filter(function (b) { return b.title.length > 1000; })"
        ".map(function (b) { return [b.textContent, b.title.split('  ')[0], b.scrollWidth <= "
        "b.clientWidth]; })]])",
        "location.hash = 'tab=functions&deselect=deselme*'",
        "log.push(['head', [q('header.head').textContent.length, q('header.head')"
        ".getBoundingClientRect().height, qa('header.head .lname').map(function (n) { return "
        "[n.textContent, n.title]; }), q('header.head').textContent]])",
        "log.push(['fns', qa('table.fns button.fn').filter(function (b) { return b.title.length > "
        "1000; }).map(function (b) { return [b.textContent, b.scrollWidth <= b.clientWidth]; })])",
    ]
    log = interact(page, "tab=cycles", steps, "long names")
    narrow(page, "long names")
    if not log:
        return
    cyc = log.get("cycle") or [1, 0, []]
    want = CYCLE12 + CYCLE12[:1]
    check(cyc[0] <= cyc[1] and cyc[2] == want,
          "long names: the Cycles tab shows the whole cycle of 12, wrapped in its cell, as report "
          "--cycles does (scrollWidth %d, clientWidth %d; names seen whole %d of %d)"
          % (cyc[0], cyc[1], len(cyc[2]), len(want)))
    tree = log.get("tree") or [1e9, 0, []]
    shown = {t: (full, fits) for t, full, fits in tree[2]}
    ends = ["\u22ef" in t and t.endswith(n.rsplit("::", 1)[1]) and full == n and fits
            for n in LONG_CXX for t, (full, fits) in shown.items() if full == n]
    check(tree[0] <= tree[1] and len(shown) == 3 and all(ends),
          "long names: the Stack tree stays within the window (%d px of %d), each 3,500-character "
          "name cut in the middle, its end kept, whole in its title (%r)"
          % (tree[0], tree[1], [t[-20:] for t in shown]))
    fns = log.get("fns") or []
    check(sorted(t.rsplit("::", 1)[-1] for t, _ in fns) == ["_M_begin()", "_M_end()", "_M_root()"]
          and all(fits for _, fits in fns),
          "long names: in the Functions table the three names that differ only at their end "
          "show their ends, none clipped (%r)" % [(t[-12:], fits) for t, fits in fns])
    head = log.get("head") or [1e9, 1e9, [], ""]
    more = re.search(r"deselected: .* and (\d+) more",
                     text_report(prof, "--deselect", "deselme*"))
    names = ["deselme_%02d_%s" % (i, MAPT * 3) for i in range(8)]
    check(head[0] < 2000 and head[1] < 300 and [n[1] for n in head[2]] == names and
          all(len(n[0]) <= 60 for n in head[2]) and more and
          (" and %s more" % more.group(1)) in head[3],
          "long names: 40 deselected, the header lists the first 8 (each cut, whole in its "
          "title) and \"and %s more\" as report's header (%d characters, %d px high)"
          % (more.group(1) if more else "?", head[0], head[1]))


def long_names_heap():
    """The Heap tab's legend and the flame graph's line under the pointer
    cut a long name as the tables do, in the middle, its end kept (C++
    names that differ only there stay apart), whole in a title, nothing
    clipped at the end."""
    esc = lambda n: n.replace(" ", "\\x20")
    spec = HEAP_TWO.replace("[a]", "[%s]" % esc(LONG_CXX[0])).replace("[b]", "[%s]" % esc(LONG_CXX[1]))
    prof = make_profile("html_ui_longheap", spec)
    page = convert(prof, "longheap")
    steps = [
        "log.push(['legend', qa('table.heapbands tbody tr').map(function (r) { var c = r.cells[2]; "
        "return [c.textContent, c.title, c.scrollWidth <= c.clientWidth]; })])",
        "location.hash = 'tab=flame'",
        "var i = q('.flameinfo'); log.push(['info', qa('svg.flame g.frame').filter(function (g) { "
        "return g.querySelector('title').textContent.length > 1000; }).map(function (g) { "
        "g.dispatchEvent(new MouseEvent('mouseenter')); var n = i.querySelector('.iname'); "
        "return [i.textContent, n ? n.textContent : '', n ? n.title : '', "
        "i.scrollWidth <= i.clientWidth, g.querySelector('title').textContent]; })])",
    ]
    log = interact(page, "tab=heap", steps, "long names, heap and flame")
    heap_stacks_cut(page)
    if not log:
        return
    legend = log.get("legend") or []
    longs = [r for r in legend if len(r[1]) > 1000]
    check(len(longs) >= 3 and len({r[0] for r in longs}) == len(longs) and
          all(r[0] == band_shown(r[1]) and r[2] for r in longs) and
          all(r[0] == r[1] for r in legend if len(r[1]) <= NAME_MAX),
          "long names: the Heap tab's legend cuts each long name of a band in the middle, its end "
          "kept, the band whole in its title, not clipped (%r)"
          % [(r[0][-24:], len(r[1]), r[2]) for r in legend])
    info = log.get("info") or []
    ok = []
    for text, shown, full, fits, title in info:
        name, cost = title.split("\n")
        ok.append(full == name and shown == short_name(name) and text == shown + "  " + cost and fits)
    check(len(info) >= 2 and all(ok),
          "long names: the flame graph's line under the pointer cuts a long name in the middle, "
          "its end kept, whole in its title, then the cost, not clipped (%r)"
          % [(t[0][-50:], t[3]) for t in info])


def band_shown(band):
    """A heap band's legend as ui.js shows it: heap-svg's name "(k)f/g/h"
    with each function's name cut as shortName cuts it (the test's names
    hold no slash)."""
    m = re.match(r"(\(\d+\))(.*)$", band, re.S)
    if not m or m.group(2) == "<root>":
        return band
    return m.group(1) + "/".join(short_name(n) for n in m.group(2).split("/"))


def heap_stacks_cut(page):
    """The Heap tab's stacks, in the live heap by stack, the largest
    sample by stack and the chart's legend, with long names that share
    their start (HEAP_TWO's a and b, two of LONG_CXX): each stack whole,
    wrapped, nothing clipped at its end, each name in it cut in the
    middle as the tables cut names and whole in its title, so that two
    stacks that differ only at their end look different; 480 px wide,
    the page still does not scroll sideways."""
    cells_js = ("qa('table.%s tbody tr').map(function (r) { var c = r.cells[r.cells.length - 1]; "
                "return [c.textContent, c.scrollWidth <= c.clientWidth, "
                "Array.prototype.map.call(c.querySelectorAll('button.fn'), function (b) { "
                "return [b.textContent, b.title, b.scrollWidth <= b.clientWidth]; })]; })")
    steps = ["log.push(['%s', %s])" % (t, cells_js % t) for t in ("heapstacks", "heapsample")]
    log = interact(page, "tab=heap", steps, "long names, the Heap tab's stacks")
    narrow(page, "long names, heap")
    if not log:
        return
    for cls, what in (("heapstacks", "live at end by stack"), ("heapsample", "largest sample by stack")):
        rows = log.get(cls) or []
        names = [n for _, _, ns in rows for n in ns]
        check(len(rows) >= 2 and len({t for t, _, _ in rows}) == len(rows) and
              all(fits for _, fits, _ in rows) and any(len(title) > 1000 for _, title, _ in names) and
              all(shown == short_name(title) and fits for shown, title, fits in names) and
              all(t == " \u2192 ".join(n[0] for n in ns) for t, _, ns in rows),
              "long names: the Heap tab's %s: each stack whole, nothing clipped, each name cut in "
              "the middle, whole in its title, no two stacks alike (%r)"
              % (what, [(t[-40:], fits) for t, fits, _ in rows]))


def large():
    """A profile of some 27,000 contexts: every tab draws within the
    budget, the whole tree is opened only as far as 5,000 rows."""
    src = os.path.join(D, "large.c")
    n = 80
    lines = ["#include <stdlib.h>", "static volatile unsigned long sink;"]
    lines += ["__attribute__((noinline)) void f%d(int d);" % i for i in range(n)]
    for i in range(n):
        calls = " ".join("f%d(d - 1);" % ((i * 7 + k * 13 + 1) % n) for k in range(3))
        lines.append("__attribute__((noinline)) void f%d(int d) { for (int j = 0; j < 200; j++) "
                     "sink += j; if (d > 0) { %s } }" % (i, calls))
    lines.append("int main(int c, char **v) { f0(c > 1 ? atoi(v[1]) : 9); return 0; }")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    exe = os.path.join(D, "large")
    r = run([CC, "-O1", "-g", "-finstrument-functions", src, "-o", exe])
    if not check(r.returncode == 0, "large: built"):
        return
    r, prof = record(exe, ["9"], clock="cycles", profile=os.path.join(D, "large.ccprof"))
    if not check(r.returncode == 0, "large: recorded"):
        return
    rep = report(prof)
    check(len(rep["contexts"]) > 20000, "large: more than 20,000 contexts (%d)" % len(rep["contexts"]))
    page = convert(prof, "large")
    for h in ("tab=functions", "tab=tree&depth=1000", "tab=flame", "tab=graph&fn=3",
              "tab=callers&fn=3&depth=1000", "tab=cycles", "tab=threads", "tab=hot", "tab=hooks",
              "tab=functions&deselect=f1,f2&focus=f3"):
        t0 = time.monotonic()
        dom, errors = render(page, h, "large")
        took = time.monotonic() - t0
        if not page_ok(dom, errors, "large, #" + h):
            continue
        # A bound on a quadratic page, not a timing: it takes 2-5 s, and a
        # loaded machine is given twelve times that.
        check(took < 60, "large, #%s: drawn in %.1f s" % (h, took))
        if h.startswith("tab=tree"):
            rows = dom_tree(dom)
            notes = [p.text() for p in dom.root.find_all("p", "note")]
            check(len(rows) <= 5000 and any("5000 rows" in t for t in notes),
                  "large: the whole tree asked for, %d rows are built and the page says so"
                  % len(rows))


def main():
    if PART != "2":
        static_checks()
    if not have_browser():
        skip("%s not installed: the page is not rendered" % BROWSER)
        finish()
    if PART != "2":
        exact()
        allocs()
        threads()
        heap()  # threads()'s page
        hot()
        overflow()
        hooks()  # exact()'s profile
        statics()
    if PART != "1":
        mj()
        spivey()
        hostile()
        long_names()
        long_names_heap()
        button_notes()
        large()
    for part in ("1", "2"):
        if PART != ("2" if part == "1" else "1"):
            compared_somewhere(part)
    finish()


main()
