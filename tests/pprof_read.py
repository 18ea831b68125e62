"""pprof's profile.proto as ccprof writes it (docs/exports.md, "pprof"),
for the suites that check `convert --to pprof` (tests/exports.py,
tests/alloc_views.py, tests/heap_views.py): a decoder of the parts they
read, and pprof_totals_check, which holds every sample type's total to
the figures `ccprof report --json` gives, decoded here and, when Go is
installed, as `go tool pprof -top` adds them up."""
import gzip
import os
import re
import shutil

from ccp import *


def varint_at(buf, i):
    """The LEB128 varint at buf[i] (protobuf's, and ccprof's own): (value, next i)."""
    v = s = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << s
        s += 7
        if b < 0x80:
            return v, i


def pb_fields(buf):
    """Decode one protobuf message: [(field, wire type, value)]."""
    out, i = [], 0
    def varint():
        nonlocal i
        v, i = varint_at(buf, i)
        return v
    while i < len(buf):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            out.append((field, 0, varint()))
        elif wire == 2:
            n = varint()
            out.append((field, 2, buf[i:i + n]))
            i += n
        else:
            raise ValueError("wire type %d" % wire)
    return out


def _varints(buf):
    vals, v, s = [], 0, 0
    for b in buf:
        v |= (b & 0x7f) << s
        s += 7
        if b < 0x80:
            vals.append(v)
            v = s = 0
    return vals


def pprof_decode(raw):
    """The parts of a Profile the tests need: (string table, samples, {location
    id: function name}, sample types [type, unit]); a sample is {1: location
    ids, 2: values, 3: labels [(key, string)]}."""
    top = pb_fields(raw)
    strings = [v.decode("utf-8") for f, _, v in top if f == 6]
    samples = []
    for f, _, v in top:
        if f == 2:
            s = {1: [], 2: [], 3: []}
            for sf, sw, sv in pb_fields(v):
                if sf == 3:
                    d = {ff: vv for ff, _, vv in pb_fields(sv)}
                    s[3].append((strings[d.get(1, 0)], strings[d.get(2, 0)]))
                elif sf in s:
                    s[sf] += _varints(sv) if sw == 2 else [sv]
            samples.append(s)
    funcs = {}
    for f, _, v in top:
        if f == 5:
            d = {ff: vv for ff, _, vv in pb_fields(v)}
            funcs[d[1]] = strings[d.get(2, 0)]
    locs = {}
    for f, _, v in top:
        if f == 4:
            d = pb_fields(v)
            lid = next(vv for ff, _, vv in d if ff == 1)
            line = next(vv for ff, _, vv in d if ff == 4)
            locs[lid] = funcs[next(vv for ff, _, vv in pb_fields(line) if ff == 1)]
    types = [[strings[vv] for _, _, vv in pb_fields(v)] for f, _, v in top if f == 1]
    return strings, samples, locs, types


def pprof_read(path):
    """pprof_decode of the gzip-compressed file at path."""
    return pprof_decode(gzip.decompress(open(path, "rb").read()))


def pprof_totals(path):
    """{sample type: its values added over every sample} of the file at
    path, and {sample type: its unit}."""
    _, samples, _, types = pprof_read(path)
    return ({t: sum(s[2][i] for s in samples) for i, (t, _) in enumerate(types)},
            dict(types))


def go_pprof_total(path, index, unit):
    """The total `go tool pprof -sample_index=index -top` gives, in bytes
    or ns for those units, or None when it fails."""
    env = dict(os.environ, GOCACHE=os.path.join(OUT, "go-build"), PPROF_TMPDIR=OUT,
               HOME=os.environ.get("HOME") or OUT)
    short = {"bytes": "B", "nanoseconds": "ns"}.get(unit, "")
    r = run(["go", "tool", "pprof", "-symbolize=none", "-sample_index=" + index] +
            (["-unit=" + short] if short else []) + ["-top", path], env=env)
    m = re.search(r"Showing nodes accounting for \S+, [\d.]+%% of (\d+)%s total" % short,
                  r.stdout)
    return int(m.group(1)) if r.returncode == 0 and m else None


def pprof_totals_check(what, path, want):
    """Each sample type of want ({type: total}) adds up to its total over
    the samples of the file at path, and, when Go is installed, in `go
    tool pprof -sample_index=TYPE -top`."""
    got, units = pprof_totals(path)
    check(all(got.get(t) == v for t, v in want.items()),
          "%s: the samples add up to report's totals %s (got %s)" % (what, want, got))
    if shutil.which("go") is None:
        print("# SKIP go not installed (package golang-go): %s not read by go tool pprof" % what)
        return
    got = {t: go_pprof_total(path, t, units.get(t)) for t in want}
    check(got == want, "%s: go tool pprof -sample_index=TYPE -top totals are report's (%s)"
          % (what, got))


def pprof_report_check(prof, opts, outside, heap=False):
    """convert --to pprof with opts (view options, --threads): every sample
    type adds up to `report --json`'s total (the time and calls but under
    a focus, whose report keeps the run's; the allocations; with heap,
    `report --heap --json`'s live heap at the end), and the allocations in
    no context are one sample at "[outside]" with no thread label and the
    values outside ([time, calls, blocks, bytes, and with heap, live
    blocks, live bytes]), or none when outside is None."""
    what = "pprof %s%s" % (os.path.basename(prof), "".join(" " + o for o in opts))
    path = os.path.join(OUT, "%s%s.pb.gz" % (os.path.basename(prof),
                                             "".join(o.strip("-") for o in opts)))
    r = run([CCPROF, "convert", "--to", "pprof", "-o", path] + list(opts) + [prof])
    if not check(r.returncode == 0 and r.stderr == "", "%s: exit 0, quiet" % what):
        return
    rep = report(prof, *(["--heap"] if heap else []) + [o for o in opts if o != "--threads"])
    want = {"alloc_objects": rep["alloc"]["blocks"], "alloc_space": rep["alloc"]["bytes"]}
    if heap:
        want.update(inuse_objects=rep["heap"]["live_blocks"], inuse_space=rep["heap"]["live_bytes"])
    if "--focus" not in opts:
        want["cpu"] = rep["total_ticks"] * 10 ** 9 // rep["ticks_per_sec"]
        want["calls"] = rep["total_calls"]
    pprof_totals_check(what, path, want)
    _, samples, locs, _ = pprof_read(path)
    got = [(s[2], s[3]) for s in samples if "[outside]" in [locs[l] for l in s[1]]]
    check(got == ([] if outside is None else [(outside, [])]),
          "%s: %s (%s)" % (what, "no [outside] sample" if outside is None else
                           "one sample [outside] %s, no thread label" % outside, got))
