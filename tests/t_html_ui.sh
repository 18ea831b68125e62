#!/bin/sh
# ccprof convert --to html: the page in headless Chromium at several hashes
# (every tab, views, a current function) shows what `ccprof report` shows
# for the same view; hostile names stay text; no console error; ui.js and
# model.js use no API that parses HTML or code.
exec python3 "$TOP/tests/html_ui.py"
