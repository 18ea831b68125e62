#!/bin/sh
# Heap profiling: record --heap, heap=1 (docs/heap.md).
exec python3 "$TOP/tests/heap.py"
