"""speedscope's importers in headless Chromium (docs/exports.md, "How `make
check` validates the exports"), for the suites that check an export by loading
it into speedscope (tests/exports.py, tests/chrome_trace.py):
speedscope_import picks the importer, and the sandwich view's table gives the
totals.  Skips ("# SKIP ...") when Chromium or npm is missing."""
import base64
import html
import json
import os
import re
import shutil
import subprocess
import tempfile

from ccp import *

CACHE = os.environ.get("CCPROF_TEST_CACHE") or os.path.join(
    os.environ.get("HOME") or OUT, ".cache", "ccprof-tests")
SPEEDSCOPE_VERSION = "1.25.0"


def skip(what):
    print("# SKIP " + what)


def have(tool):
    return shutil.which(tool) is not None


# ---- speedscope's importers in headless Chromium ---------------------------

_speedscope = []


def speedscope_app():
    """index.html of speedscope's npm package, installed into the cache
    directory on first use; None when it cannot be had."""
    if _speedscope:
        return _speedscope[0]
    path = None
    where = os.path.join(CACHE, "speedscope-" + SPEEDSCOPE_VERSION)
    index = os.path.join(where, "node_modules", "speedscope", "dist", "release", "index.html")
    if not have("chromium-headless-shell"):
        skip("chromium-headless-shell not installed: speedscope's importers not run")
    elif os.path.exists(index):
        path = index
    elif not have("npm"):
        skip("npm not installed: speedscope's importers not run")
    else:
        os.makedirs(where, exist_ok=True)
        try:
            # bounded, so an unreachable registry costs two minutes at most
            r = subprocess.run(["npm", "install", "--prefix", where, "--no-audit", "--no-fund",
                                "--loglevel=error", "--fetch-retries=1", "--fetch-timeout=30000",
                                "speedscope@" + SPEEDSCOPE_VERSION],
                               capture_output=True, text=True, timeout=120)
            ok_ = r.returncode == 0 and os.path.exists(index)
        except subprocess.TimeoutExpired:
            ok_ = False
        if ok_:
            path = index
        else:
            skip("npm install speedscope@%s failed: speedscope's importers not run"
                 % SPEEDSCOPE_VERSION)
    _speedscope.append(path)
    return path


def speedscope_import(path, name, importer, what):
    """Load path into speedscope as file `name`; check the importer it picks
    and return the sandwich table as (total, self, symbol) rows, or None."""
    app = speedscope_app()
    if not app:
        return None
    # Under load Chromium can dump the page before the table is drawn:
    # up to four tries before judging.
    for attempt in range(4):
        r = _chromium_dump(app, path, name)
        if r is None:
            check(False, "%s: speedscope imports it (timed out: format not recognised)" % what)
            return None
        rows = _sandwich_rows(r.stdout)
        if rows:
            break
    failed = re.search(r"Failed to load format.*", r.stderr)
    if not check(failed is None and "Importing as " + importer in r.stderr,
                 "%s: speedscope imports it as '%s'%s" % (
                     what, importer, " (" + failed.group(0) + ")" if failed else "")):
        return None
    check(rows, "%s: speedscope shows its table" % what)
    return rows


def _chromium_dump(app, path, name):
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        js = os.path.join(tmp, "p.js")
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        with open(js, "w") as f:
            f.write('speedscope.loadFileFromBase64(%s,"%s")\n' % (json.dumps(name), data))
        try:
            return subprocess.run(
                ["chromium-headless-shell", "--no-sandbox", "--disable-gpu",
                 "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
                 "--user-data-dir=" + os.path.join(tmp, "profile"), "--dump-dom",
                 "file://%s#view=sandwich&localProfilePath=%s" % (app, js)],
                capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None


def _sandwich_rows(dom):
    flat = re.sub(r"\s+", " ", re.sub(r"<[^>]*>", "|", dom))
    flat = re.sub(r"[| ]*\|[| ]*", "|", flat)
    at = flat.find("Symbol Name")
    if at < 0:
        return []
    table = flat[at:].split("|")[1:]
    rows = []
    for i in range(0, len(table) - 2, 3):
        rows.append((html.unescape(table[i]), html.unescape(table[i + 1]),
                     html.unescape(table[i + 2])))
    return rows


def speedscope_seconds(text):
    """'43.18ms (98%)' -> 0.04318 (None for unitless numbers)."""
    m = re.match(r"([\d.,]+)\s*(ns|µs|us|ms|s|min)\b", text)
    if not m:
        return None
    scale = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
    return float(m.group(1).replace(",", "")) * scale[m.group(2)]


def speedscope_names(rows):
    return {r[2] for r in rows}
