#!/bin/sh
# The tool under AddressSanitizer and UndefinedBehaviorSanitizer: every
# report over every profile the earlier tests wrote, plus bad input.
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1
# The profiles the other suites wrote: tests/run gives each its own
# directory under $TESTS_OUT.
SUITES=${TESTS_OUT:-$OUT}
san="$OUT/asan"
if ! MAKEFLAGS= make -s -j2 BUILD="$san" CC="$CC" asan > "$OUT/asan-build.log" 2>&1; then
	notok "the tool builds with -fsanitize=address,undefined (see $OUT/asan-build.log)"
	exit 1
fi
ok "the tool builds with -fsanitize=address,undefined"
tool="$san/asan/bin/ccprof"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
# finding WHAT: true when the last run left a sanitizer's report in
# $OUT/san.err, which is then shown under "not ok - sanitizers: WHAT".
finding() {
	grep -q -E 'Sanitizer|runtime error' "$OUT/san.err" || return 1
	notok "sanitizers: $1"
	sed 's/^/# /' "$OUT/san.err" | head -20
}
# san ARGS...: the sanitized tool run on ARGS (60 s at most), then what
# went wrong, if anything, shown under "not ok": a sanitizer's report, a
# time limit (124), a signal, or another exit status than the tool built
# without sanitizers gives on the same ARGS (its output to $OUT/san.normal;
# a file ARGS name is written again, the same).
san() {
	timeout 60 $tool "$@" > /dev/null 2> "$OUT/san.err"
	st=$?
	finding "ccprof $*" && return 0
	if [ $st -eq 124 ] || [ $st -ge 128 ]; then
		[ $st -eq 124 ] && notok "sanitizers: ccprof $*: still running after 60 s" ||
			notok "sanitizers: ccprof $*: killed by signal $((st - 128))"
		sed 's/^/# /' "$OUT/san.err" | head -5
		return 0
	fi
	timeout 60 "$CCPROF" "$@" > "$OUT/san.normal" 2>&1
	want=$?
	[ $st -eq "$want" ] && return 1
	notok "sanitizers: ccprof $*: status $st, the normal build's $want"
	sed 's/^/# /' "$OUT/san.err" | head -5
	return 0
}
n=0
bad=0
files=0
# The suite's own profiles (the hostile corpus is t_hostile's business):
# 80 of them, every k-th in name order, so that every suite has some.
all=$(find "$SUITES" -name '*.ccprof' -type f -not -path '*/hostile/*' | sort)
step=$((($(printf '%s\n' "$all" | wc -l) + 79) / 80))
for f in $(printf '%s\n' "$all" | awk -v k="$step" '(NR - 1) % k == 0'); do
	files=$((files + 1))
	for args in "report" "report --graph --hook-cost" "report --contexts" "report --json --hook-cost" "info" "info --json" \
		"convert --to html -o /dev/null" "convert --to chrome --threads -o /dev/null"; do
		n=$((n + 1))
		san $args "$f" && bad=$((bad + 1))
	done
done
check_eq "sanitizers: $n runs of report/info over real profiles, no finding" "$bad" 0
# The earlier suites leave hundreds; a handful means they did not run.
[ $files -ge 40 ] && ok "sanitizers: $files of the suite's profiles read" ||
	notok "sanitizers: only $files of the suite's profiles found in $SUITES (40 at least)"
printf 'not a profile\n' > "$OUT/text.ccprof.bad"
head -c 40 "$(find "$SUITES" -name '*.ccprof' -type f | head -1)" > "$OUT/trunc.ccprof.bad"
for f in "$OUT/text.ccprof.bad" "$OUT/trunc.ccprof.bad" "$OUT/missing.ccprof"; do
	$tool report "$f" > /dev/null 2> "$OUT/san.err"
	st=$?
	lines=$(wc -l < "$OUT/san.err")
	if [ $st -eq 1 ] && [ "$lines" -eq 1 ] && ! grep -q Sanitizer "$OUT/san.err"; then
		ok "sanitizers: bad input $(basename "$f"): one line, exit 1"
	else
		notok "sanitizers: bad input $(basename "$f"): exit $st, $lines lines"
	fi
done
# Source lines (model/sources.c) as record, merge and convert use them:
# record rewrites the profiles of a run that forks and execs itself.
san_dir="$OUT/san_sources"
rm -rf "$san_dir" && mkdir -p "$san_dir"
build_prog san_forker "$PROGS/forker.c"
build_prog san_reexec "$PROGS/reexec.c"
bad=0
for step in "record -o $san_dir/f.ccprof -- $OUT/san_forker" \
	"record -o $san_dir/r.%p.ccprof -- $OUT/san_reexec" \
	"merge -o $san_dir/m.ccprof $san_dir/f.ccprof $san_dir/f.ccprof" \
	"convert --to callgrind $san_dir/m.ccprof" "convert --to pprof -o /dev/null $san_dir/m.ccprof" \
	"convert --to ghc-json $san_dir/m.ccprof" "convert --to ghc-prof $san_dir/m.ccprof" \
	"convert --to chrome --threads $san_dir/m.ccprof" \
	"convert --to html --deselect main --only-exported $san_dir/m.ccprof"; do
	CCPROF_LIBRARY="$LIBDIR/libccprof.so" timeout 60 $tool $step > /dev/null 2> "$OUT/san.err"
	st=$?
	if finding "ccprof $step"; then
		bad=$((bad + 1))
	elif [ $st -ne 0 ]; then # each step must succeed: the next reads what it wrote
		[ $st -eq 124 ] && notok "sanitizers: ccprof $step: still running after 60 s" ||
			notok "sanitizers: ccprof $step: status $st"
		sed 's/^/# /' "$OUT/san.err" | head -5
		bad=$((bad + 1))
	fi
done
check_eq "sanitizers: record (a fork, an exec), merge, convert with source lines, no finding" \
	"$bad" 0
# The heap views (report --heap, its JSON, hp, heap-svg, chrome's counters, pprof's
# inuse, diff, merge)
# over the suite's heap profiles (tests/heap.py, tests/heap_views.py).
n=0
bad=0
prev=""
for f in $(find "$SUITES" -name '*.ccprof' -type f -not -path '*/hostile/*' | sort); do
	"$CCPROF" info --json "$f" 2> /dev/null | grep -q '"peak_bytes"' || continue
	[ $n -lt 120 ] || break
	for args in "report --heap --threads" "report --json" "convert --to hp" "convert --to heap-svg" \
		"convert --to chrome" \
		"convert --to pprof -o /dev/null" ${prev:+"diff $prev"} ${prev:+"merge -o $OUT/san_heap_m.ccprof $prev"}; do
		n=$((n + 1))
		san $args "$f" && bad=$((bad + 1))
	done
	prev="$f"
done
check_eq "sanitizers: $n runs of the heap views over heap profiles, no finding" "$bad" 0
[ $n -gt 0 ] || notok "sanitizers: no heap profile found to run the heap views over"
# ghc-prof's measuring, cutting and escaping over the profiles
# tests/exports.py made for it (control characters, invalid UTF-8, a
# 3000-byte name, a stack 260 deep): it runs before this one, and makes 4.
n=0
bad=0
for f in $(find "$SUITES" -name 'ghc_prof_*.ccprof' -type f | sort); do
	[ -f "$f" ] || continue
	n=$((n + 1))
	san convert --to ghc-prof "$f" && bad=$((bad + 1))
done
check_eq "sanitizers: convert --to ghc-prof over $n profiles of tests/exports.py, no finding" \
	"$bad" 0
[ $n -ge 4 ] || notok "sanitizers: $n of tests/exports.py's 4 ghc_prof_*.ccprof found"
finish
