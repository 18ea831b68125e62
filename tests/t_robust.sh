#!/bin/sh
# Real programs: threads, fork, exec, longjmp, exceptions, signals, deep
# recursion, context explosion, dlopen, setuid, symlinks.
exec python3 "$TOP/tests/robust.py"
