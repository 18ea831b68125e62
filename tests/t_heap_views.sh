#!/bin/sh
# The live heap in the views and exports (report --heap, JSON, info, hp,
# pprof, merge, diff), on profiles written by tests/mkprof.c and one real
# run: docs/views.md, "Heap".
exec python3 "$TOP/tests/heap_views.py"
