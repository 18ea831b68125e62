#!/bin/sh
# Allocations in every view, on profiles written by tests/mkprof.c:
# docs/views.md, "Allocations".
exec python3 "$TOP/tests/alloc_views.py"
