#!/bin/sh
# Allocation profiling: record --alloc, libccprof-alloc.so (docs/alloc.md).
exec python3 "$TOP/tests/alloc.py"
