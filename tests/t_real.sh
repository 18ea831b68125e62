#!/bin/sh
# Real third-party code (libiberty's C++ demangler from binutils-source):
# every call and arc against callgrind, calls against gprof, cycles and
# callers made of real arcs, source lines, output unchanged.
exec python3 "$TOP/tests/real.py"
