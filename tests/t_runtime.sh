#!/bin/sh
# The runtime as a user meets it: record, linking, names, regions, options.
exec python3 "$TOP/tests/runtime.py"
