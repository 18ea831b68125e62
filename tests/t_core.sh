#!/bin/sh
# The core: contexts, calls, arcs and time of real instrumented programs,
# checked against the worked examples (Spivey's, docs/semantics.md; the
# average-time trap, README.md) and the programs' own counts.
exec python3 "$TOP/tests/core.py"
