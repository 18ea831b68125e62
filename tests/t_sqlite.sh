#!/bin/sh
# A large real program (SQLite's amalgamation, from tests/fetch-sqlite):
# output unchanged, calls and arcs against callgrind with one and two
# threads, gcc -O2's contexts against -O0's, allocations and live heap.
exec python3 "$TOP/tests/sqlite.py"
