#!/bin/sh
# ccprof convert --to html: the page in headless Chromium at several hashes
# (every tab, views, a current function) shows what `ccprof report` shows
# for the same view; hostile names stay text; no console error; ui.js and
# model.js use no API that parses HTML or code.
#
# Its two halves run at once: nearly all of their time is a browser
# starting and drawing a page (237 of them, 94 s of 98 alone), and they
# share no file.
python3 "$TOP/tests/html_ui.py" 1 > "$OUT/html_ui.1.log" 2>&1 &
first=$!
python3 "$TOP/tests/html_ui.py" 2 > "$OUT/html_ui.2.log" 2>&1
second=$?
wait $first
first=$?
cat "$OUT/html_ui.1.log" "$OUT/html_ui.2.log"
# Each half ends with "# completed" (ccp.finish); tests/run sees one.
for part in 1 2; do
	grep -q '^# completed$' "$OUT/html_ui.$part.log" ||
		printf 'not ok - html_ui.py %s ended before its last check\n' $part
done
[ $first -eq 0 ] && [ $second -eq 0 ]
