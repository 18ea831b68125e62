#!/bin/sh
# Source lines: each function's file and line from the modules' debug
# information (libdw), checked against the source text; stale, missing,
# stripped and split-debug binaries.
exec python3 "$TOP/tests/sources.py"
