#!/bin/sh
# ccprof's counts against real tools: gprof's call graph and callgrind's.
exec python3 "$TOP/tests/peers.py"
