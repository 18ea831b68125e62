#!/bin/sh
# convert --to heap-svg: the live heap over time drawn by ccprof, on the
# profiles of tests/heap_views.py and one real run: docs/exports.md,
# "heap-svg".
exec python3 "$TOP/tests/heap_svg.py"
