#!/bin/sh
# gcc's -pg -mfentry -minstrument-return=call: the runtime's __fentry__
# and __return__ (src/runtime/fentry.c).
exec python3 "$TOP/tests/fentry.py"
