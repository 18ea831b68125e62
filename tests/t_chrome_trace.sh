#!/bin/sh
# convert --to chrome: the Trace Event Format, a synthetic flame chart of
# the stack tree, checked against `ccprof report --json` (nesting, every
# stack's time, the total, threads, heap counters against hp, hostile
# names) and loaded into speedscope in headless Chromium when installed:
# docs/exports.md, "chrome".
exec python3 "$TOP/tests/chrome_trace.py"
