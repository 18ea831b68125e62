#!/bin/sh
# The HTML report's model (src/output/html/model.js) against `ccprof
# report --json`, view by view, on many profiles: needs node.
exec python3 "$TOP/tests/html_model.py"
