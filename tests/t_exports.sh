#!/bin/sh
# ccprof convert: every export format checked by its real consumer where
# installed (callgrind_annotate, dot, go tool pprof, protoc, speedscope in
# headless Chromium), totals against `ccprof report --json`, hostile names
# through every format.
exec python3 "$TOP/tests/exports.py"
