#!/bin/sh
# ccprof convert --to html: the page is sealed (its own scripts only, no
# network), its data is the whole profile exactly, hostile names stay
# data, damaged profiles fail in one line.
exec python3 "$TOP/tests/html_page.py"
