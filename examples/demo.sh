#!/bin/sh
# make demo: profile the bundled average-time-trap example and show the
# report.  The example is built with -finstrument-functions only: ccprof
# record preloads the runtime.
set -e
: "${BUILD:=build}" "${CC:=cc}"
mkdir -p "$BUILD/demo"
$CC -O1 -g -finstrument-functions examples/trap.c -o "$BUILD/demo/trap"
"$BUILD/bin/ccprof" record -o "$BUILD/demo/trap.ccprof" -- "$BUILD/demo/trap" 100
"$BUILD/bin/ccprof" report --graph "$BUILD/demo/trap.ccprof"
"$BUILD/bin/ccprof" convert --to html -o "$BUILD/demo/trap.html" "$BUILD/demo/trap.ccprof"
echo "ccprof: every view of this profile, interactive: open $BUILD/demo/trap.html in a browser"
