#!/bin/sh
# The core: contexts, calls, arcs and time of real instrumented programs,
# checked against DESIGN.md's worked examples and the programs' own counts.
exec python3 "$TOP/tests/core.py"
