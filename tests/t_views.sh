#!/bin/sh
# Views after the run (selection, focus, callers, cycles, pruning, hot
# path, threads, diff, merge) through real programs: docs/views.md.
exec python3 "$TOP/tests/views.py"
