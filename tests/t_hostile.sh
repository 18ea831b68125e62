#!/bin/sh
# Hostile files: truncated, bit-flipped, huge counts with a valid CRC,
# garbage, special files.  `ccprof report`, `info` and `report --json` fail
# with one "ccprof: " line, status 1, within 10 s, never by a signal.
exec python3 "$TOP/tests/hostile.py"
