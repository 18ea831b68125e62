#!/bin/sh
# The command line: help and version, usage errors (exit 2, one line),
# bad input files (exit 1, one line "ccprof: FILE: REASON"), the report and
# info outputs on a generated profile, a closed pipe, and record's
# environment, messages and exit status.
. "$TOP/tests/lib.sh"

D="$OUT/cli"
rm -rf "$D" && mkdir -p "$D"

# run EXPECTED_STATUS WHAT command...: stdout in $D/out, stderr in $D/err.
run() {
	want=$1; what=$2; shift 2
	"$@" > "$D/out" 2> "$D/err"
	st=$?
	check_eq "$what: exit status" "$st" "$want"
}
# The last run printed exactly one line on stderr, starting "ccprof".
one_error_line() {
	n=$(wc -l < "$D/err" | tr -d ' ')
	check_eq "$1: one line on stderr" "$n" 1
	case $(head -n 1 "$D/err") in
	ccprof*) ok "$1: stderr starts with ccprof" ;;
	*) notok "$1: stderr starts with ccprof (got '$(head -n 1 "$D/err")')" ;;
	esac
}
no_stderr() {
	if [ -s "$D/err" ]; then notok "$1: nothing on stderr (got '$(head -n 1 "$D/err")')"
	else ok "$1: nothing on stderr"; fi
}
out_has() { # out_has WHAT STRING: stdout of the last run contains STRING
	if grep -F -q -- "$2" "$D/out"; then ok "$1"; else notok "$1 (no '$2')"; fi
}
out_lacks() { # out_lacks WHAT STRING: stdout of the last run does not contain STRING
	if grep -F -q -- "$2" "$D/out"; then notok "$1 (has '$2')"; else ok "$1"; fi
}
err_has() {
	if grep -F -q -- "$2" "$D/err"; then ok "$1"; else notok "$1 (no '$2' in '$(cat "$D/err")')"; fi
}

# ---- help, version, usage errors -------------------------------------------

run 0 "--help" "$CCPROF" --help
out_has "--help lists report" "report"
out_has "--help lists record" "record"
no_stderr "--help"
# --help's convert entry names every format, as `help convert` describes
# them and as the unknown format's message (the format table) lists them:
# html, hp and heap-svg were once missing from it.
help_formats=$(sed -n '/^  convert /,/^  [a-z]/p' "$D/out" | sed '$d' |
	sed 's/^  convert //' | tr '\n' ' ' | sed 's/^[^:]*://; s/[ ,]\{1,\}/ /g; s/^ //; s/ $//')
"$CCPROF" help convert > "$D/convert.help"
described=$(sed -n '/^Formats:/,/^Options:/p' "$D/convert.help" |
	sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
"$CCPROF" convert --to nosuch f 2> "$D/convert.err"
table=$(sed -n 's/.*(formats: \([^)]*\)).*/\1/p' "$D/convert.err" | sed 's/,//g')
check_eq "--help: convert's formats are help convert's" "$help_formats" "$described"
check_eq "--help: convert's formats are the format table's" "$help_formats" "$table"
check_eq "--help: convert lists 12 formats" "$(echo "$help_formats" | wc -w | tr -d ' ')" 12
run 0 "--version" "$CCPROF" --version
# The first line alone is what scripts take (bench/bench.py's first_line);
# the second says whether source lines are read (tests/sources.py).
case $(head -n 1 "$D/out") in
"ccprof "[0-9]*.[0-9]*.[0-9]*) ok "--version: first line 'ccprof VERSION'" ;;
*) notok "--version: first line 'ccprof VERSION' (got '$(head -n 1 "$D/out")')" ;;
esac
case $(sed -n 2p "$D/out") in
"source lines: libdw "[0-9]*.[0-9]* | "source lines: none (built without libdw)") \
	ok "--version: second line says what reads source lines" ;;
*) notok "--version: second line says what reads source lines (got '$(sed -n 2p "$D/out")')" ;;
esac
check_eq "--version: two lines" "$(wc -l < "$D/out" | tr -d ' ')" 2
for v in --version -V; do
	run 2 "$v extra" "$CCPROF" $v extra
	one_error_line "$v extra"
	check "$v extra: nothing on standard output" test ! -s "$D/out"
done
for cmd in report info record; do
	run 0 "$cmd --help" "$CCPROF" $cmd --help
	out_has "$cmd --help shows usage" "usage: ccprof $cmd"
	run 0 "help $cmd" "$CCPROF" help $cmd
	out_has "help $cmd shows usage" "usage: ccprof $cmd"
	# --help COMMAND and -h COMMAND are help COMMAND (they printed the
	# main help and ignored the command).
	for h in --help -h; do
		run 0 "$h $cmd" "$CCPROF" $h $cmd
		out_has "$h $cmd shows the command's usage" "usage: ccprof $cmd"
		out_lacks "$h $cmd: not the main help" "Commands:"
		no_stderr "$h $cmd"
	done
done
# Anything more is a usage error, as --version extra is.
for h in help --help -h; do
	run 2 "$h report extra" "$CCPROF" $h report extra
	one_error_line "$h report extra"
	err_has "$h report extra: names the extra argument" "'extra' is extra"
	check "$h report extra: nothing on standard output" test ! -s "$D/out"
	run 2 "$h frobnicate" "$CCPROF" $h frobnicate
	one_error_line "$h frobnicate"
	err_has "$h frobnicate: unknown command" "unknown command 'frobnicate'"
done
run 0 "-h alone" "$CCPROF" -h
out_has "-h alone shows the main usage" "usage: ccprof [--help]"
run 0 "--help help" "$CCPROF" --help help
out_has "--help help shows the main usage" "usage: ccprof [--help]"
run 2 "no command" "$CCPROF"
one_error_line "no command"
run 2 "unknown command" "$CCPROF" frobnicate
one_error_line "unknown command"
run 2 "unknown global option" "$CCPROF" --frobnicate
one_error_line "unknown global option"
run 2 "help for an unknown command" "$CCPROF" help frobnicate
one_error_line "help for an unknown command"
# Common guesses from other tools get a hint in the same line.
for g in "export f.ccprof" "help export"; do
	run 2 "$g" "$CCPROF" $g
	one_error_line "$g"
	err_has "$g: names convert" "unknown command 'export'; to write another format, see 'ccprof convert'"
done
run 2 "view" "$CCPROF" view f.ccprof
one_error_line "view"
err_has "view: names report and convert --to html" \
	"unknown command 'view'; to view a profile, see 'ccprof report', or 'ccprof convert --to html' for a page"
run 2 "frobnicate" "$CCPROF" frobnicate
err_has "frobnicate: no hint" "unknown command 'frobnicate' (usage:"
for cmd in report info record; do
	run 2 "$cmd --bogus" "$CCPROF" $cmd --bogus x
	one_error_line "$cmd --bogus"
done
run 2 "report without a file" "$CCPROF" report
one_error_line "report without a file"
run 2 "report --top without a value" "$CCPROF" report --top
one_error_line "report --top without a value"
run 2 "report --top x" "$CCPROF" report --top x f
one_error_line "report --top x"
run 2 "report --graph=1" "$CCPROF" report --graph=1 f
one_error_line "report --graph=1"
run 2 "two files" "$CCPROF" report a b
one_error_line "two files"
# A bad short option in a cluster is named, not the option before it
# (once "unknown option '--graph'", and "'--top' takes no value").
run 2 "report --graph -xg" "$CCPROF" report --graph -xg f
err_has "report --graph -xg: names -x" "unknown option '-x'"
run 2 "report --top=3 -xg" "$CCPROF" report --top=3 -xg f
err_has "report --top=3 -xg: names -x" "unknown option '-x'"
run 2 "info --json -xj" "$CCPROF" info --json -xj f
err_has "info --json -xj: names -x" "unknown option '-x'"
run 2 "report --t (--top or --threads)" "$CCPROF" report --t 3 f
one_error_line "report --t"
err_has "report --t: ambiguous, not unknown" "option '--t' is ambiguous"
# --to is convert's: not read as an abbreviation of --top (once "--top
# needs a count ... not 'svg'").
run 2 "report --to svg" "$CCPROF" report --to svg f
one_error_line "report --to svg"
err_has "report --to svg: points to convert" "other formats are convert's: ccprof convert --to svg FILE"
run 2 "report --to=svg" "$CCPROF" report --to=svg f
err_has "report --to=svg: points to convert" "ccprof convert --to svg FILE"
# A count is digits: no blanks, no sign behind them.
for v in " 5" " -0" "+5" "5 "; do
	run 2 "report --top '$v'" "$CCPROF" report --top "$v" f
	one_error_line "report --top '$v'"
done
run 0 "help help" "$CCPROF" help help
out_has "help help shows the main usage" "usage: ccprof [--help]"
run 0 "help --help" "$CCPROF" help --help
out_has "help --help shows the main usage" "usage: ccprof [--help]"
run 2 "merge -o ''" "$CCPROF" merge -o '' f
one_error_line "merge -o ''"
err_has "merge -o '': says why" "ccprof merge: -o needs a file name"
run 2 "record --clock=sundial" "$CCPROF" record --clock=sundial true
one_error_line "record --clock=sundial"
run 2 "record --interval=0" "$CCPROF" record --interval=0 true
one_error_line "record --interval=0"
run 2 "record without a program" "$CCPROF" record
one_error_line "record without a program"
# An interval the runtime cannot hold in nanoseconds is refused here, not
# warned about by the runtime while the program runs on at 1 ms.
run 2 "record --interval=1e300" "$CCPROF" record --interval=1e300 true
one_error_line "record --interval=1e300"
# The runtime's limit is an hour (src/runtime/options.c): past it, it
# warned and sampled every 1 ms, while record had accepted up to a year.
run 2 "record --interval=3600001" "$CCPROF" record --interval=3600001 true
one_error_line "record --interval=3600001"
err_has "record --interval=3600001: says why" "--interval needs milliseconds"
run 0 "record --interval=3600000 (an hour)" "$CCPROF" record --interval=3600000 true
err_has "record --interval=3600000: runs the program" "no profile written"
# The intervals are decimal milliseconds as --node-threshold's numbers are
# (cli_parse_decimal): strtod took blanks, signs, hexadecimal, exponents.
for opt in --interval --heap-interval; do
	for v in 0x10 1e1 " 1" "1 " .5 +1 -1 inf nan "" 1ms 1,5; do
		run 2 "record $opt='$v'" "$CCPROF" record "$opt=$v" true
		one_error_line "record $opt='$v'"
		err_has "record $opt='$v': says why" "$opt needs milliseconds, a decimal number"
	done
done
# What record hands the runtime is plain decimal milliseconds, never an
# exponent (it wrote heap_interval=1e1ms), and less than 0.01 is 0.01, as
# the runtime would take it.
for v in "2 2" "10 10" "0.5 0.5" "5. 5" "2.50 2.5" "0.001 0.01" "3600000 3600000" \
	"0.0123456789 0.012346" "007 7"; do
	set -- $v
	(unset CCPROF_OPTIONS; cd "$D" && "$CCPROF" record -o "$D/iv.ccprof" --interval="$1" \
		--heap-interval="$1" -- sh -c 'printf "%s\n" "$CCPROF_OPTIONS"') > "$D/out" 2> "$D/err"
	check_eq "record --interval=$1 --heap-interval=$1: CCPROF_OPTIONS" \
		"$(sed 's/:run_start=[0-9]*:/:run_start=N:/' "$D/out")" \
		"output=$D/iv.ccprof:run_start=N:interval=$2ms:heap=1:heap_interval=$2ms"
	check "record --interval=$1: the runtime takes it without a warning" \
		sh -c "! grep -q CCPROF_OPTIONS '$D/err'"
done

# A positive number too small for a double is positive all the same (Note
# [Decimals beyond a double], cli.c): raised to 0.01 as 0.001 is, by record
# and by the runtime; it was refused as "not above 0".
tiny="0.$(printf '%0400d' 0)1"
(unset CCPROF_OPTIONS; cd "$D" && "$CCPROF" record -o "$D/iv.ccprof" --interval="$tiny" \
	--heap-interval="$tiny" -- sh -c 'printf "%s\n" "$CCPROF_OPTIONS"') > "$D/out" 2> "$D/err"
check_eq "record --interval=0.(400 zeros)1 --heap-interval=0.(400 zeros)1: CCPROF_OPTIONS" \
	"$(sed 's/:run_start=[0-9]*:/:run_start=N:/' "$D/out")" \
	"output=$D/iv.ccprof:run_start=N:interval=0.01ms:heap=1:heap_interval=0.01ms"
for k in interval heap_interval; do
	CCPROF_OPTIONS="$k=${tiny}ms" LD_PRELOAD="$LIBDIR/libccprof.so" sh -c true > "$D/out" 2> "$D/err"
	check_eq "CCPROF_OPTIONS $k=0.(400 zeros)1ms: the runtime takes it without a warning" \
		"$(cat "$D/err")" ""
done
run 2 "record --interval=1(400 zeros)" "$CCPROF" record --interval="1$(printf '%0400d' 0)" true
err_has "record --interval=1(400 zeros): above the most" "and at most 3600000 (an hour)"

# ---- a generated profile ---------------------------------------------------

# gen FILE NCTX: Spivey's example (docs/semantics.md) plus NCTX extra contexts
# [main] [w<i>], written by the format library.
cat > "$D/gen.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "format/format.h"

static const char *spivey[][7] = {
	{"[main]"}, {"[main]", "[P]"}, {"[main]", "[P]", "[Q]"},
	{"[main]", "[P]", "[Q]", "[R]"}, {"[main]", "P", "[Q]", "[R]", "[P]"},
	{"[main]", "P", "Q", "[R]", "[P]", "[Q]"}, {"[main]", "P", "R", "[P]", "[Q]", "[R]"},
	{"[main]", "P", "[Q]", "[R]", "[P]", "[S]"},
};
static const char *names[] = {"main", "P", "Q", "R", "S"};

static uint32_t entry(const char *tok)
{
	int marked = tok[0] == '[';
	char c = tok[marked];
	for (uint32_t i = 0; i < 5; i++)
		if (names[i][0] == c)
			return CCP_ENTRY(i, marked);
	abort();
}

int main(int argc, char **argv)
{
	uint32_t extra = (uint32_t)atoi(argv[2]), nccs = 5 + extra;
	static const char *av[] = {"./gen", "two words"};
	struct ccp_profile p = {.program = "/bin/gen", .argc = 2, .argv = av, .pid = 42,
		.start_ns = 1700000000000000000ull, .end_ns = 1700000001500000000ull,
		.clock = CCP_CLOCK_CPU, .interval_ns = 1000000, .ticks_per_sec = 1000000000,
		.overhead_milliticks = 12345, .options = "", .hostname = "host"};
	if (argc > 3) { /* a cycles profile: 1 tick = 1 ns, this estimate per call */
		p.clock = CCP_CLOCK_CYCLES;
		p.interval_ns = 0;
		p.overhead_milliticks = strtoull(argv[3], NULL, 10);
	}
	struct ccp_cc *ccs = calloc(nccs, sizeof *ccs);
	char (*buf)[16] = calloc(nccs, 16);
	for (uint32_t i = 0; i < nccs; i++) {
		if (i < 5)
			snprintf(buf[i], 16, "%s", names[i]);
		else
			snprintf(buf[i], 16, "w%u", (unsigned)(i - 5));
		ccs[i] = (struct ccp_cc){.name = buf[i], .module = -1, .offset = 16 * i,
					 .file = "", .line = 0};
	}
	struct ccp_context *ctx = calloc(9 + extra, sizeof *ctx);
	uint32_t *hist = calloc(9 * 6 + 2 * extra, sizeof *hist), *h = hist;
	ctx[0].time = 5000000;
	for (int k = 0; k < 8; k++) {
		struct ccp_context *c = &ctx[k + 1];
		c->hist = h;
		for (int i = 0; i < 7 && spivey[k][i]; i++)
			h[c->len++] = entry(spivey[k][i]);
		h += c->len;
		c->entries = k == 4 ? 2 : 1;
		c->recursive = k == 1 ? 2 : k == 7 ? 3 : 0;
		c->time = (uint64_t)(k + 1) * 10000000;
	}
	for (uint32_t i = 0; i < extra; i++) {
		struct ccp_context *c = &ctx[9 + i];
		c->hist = h;
		c->len = 2;
		h[0] = CCP_ENTRY(0, 1);
		h[1] = CCP_ENTRY(5 + i, 1);
		h += 2;
		c->entries = 1;
		c->time = 1000;
	}
	struct ccp_thread th = {.tid = 42, .name = "", .ncontexts = 9 + extra, .contexts = ctx};
	p.nccs = nccs;
	p.ccs = ccs;
	p.nthreads = 1;
	p.threads = &th;
	p.stats = (struct ccp_stats){.calls = 14 + extra, .contexts = 9 + extra,
				     .transitions = 10 + extra, .samples = 365};
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0 || ccp_format_write_fd(&p, fd) != 0 || close(fd) != 0;
}
EOF
if $CC -std=c11 -D_GNU_SOURCE -I"$TOP/include" -I"$TOP/src" "$D/gen.c" \
	"$TOP/$BUILD/lib/libccprof-tool.a" -lm -pthread -o "$D/gen" > "$D/gen.log" 2>&1; then
	ok "profile generator builds"
else
	notok "profile generator builds (see $D/gen.log)"
fi
check "generate a small profile" "$D/gen" "$D/s.ccprof" 0
check "generate a large profile" "$D/gen" "$D/l.ccprof" 20000

run 0 "report" "$CCPROF" report "$D/s.ccprof"
no_stderr "report"
out_has "report: total time" "total time   0.365 secs  (cpu clock; the sampler woke 365 times, interval 1 ms)"
out_has "report: command line" "./gen 'two words'"
out_has "report: flat row" "R             30.1    0.110      2"
out_has "report: tree row" "     S            4    21.9  0.080    21.9  0.080"
out_has "report: says compressed stacks" "compressed stack"
out_lacks "report: cpu clock: no compensation line" "subtracted"
# --callers or --around that matches nothing: exit 1; "in this view" only
# when a selection or focus left functions out (it was said always).
run 1 "report --callers nosuch" "$CCPROF" report --callers nosuch "$D/s.ccprof"
one_error_line "report --callers nosuch"
err_has "report --callers nosuch: says so" "--callers 'nosuch' matches no function"
if grep -q "in this view" "$D/err"; then notok "report --callers nosuch: no view, so not 'in this view'"
else ok "report --callers nosuch: no view, so not 'in this view'"; fi
run 1 "report --deselect Q --around Q" "$CCPROF" report --deselect Q --around Q "$D/s.ccprof"
err_has "report --deselect Q --around Q: says 'in this view'" "--around 'Q' matches no function in this view"
# clock=cycles: the estimate subtracted (14 calls), and a warning where it
# exceeds the time left (0.365 s).
check "generate a cycles profile" "$D/gen" "$D/cyc.ccprof" 0 1000000000
run 0 "report: cycles" "$CCPROF" report "$D/cyc.ccprof"
out_has "report: cycles: compensation shown" "subtracted   0.014000 secs, the profiler's estimated own cost (per call x calls)"
out_lacks "report: cycles: no warning when it is small" "uncertain"
check "generate a cycles profile with a large estimate" "$D/gen" "$D/cyc2.ccprof" 0 100000000000
run 0 "report: cycles, large compensation" "$CCPROF" report "$D/cyc2.ccprof"
out_has "report: cycles: compensation larger than the time: warned" "subtracted   1.400000 secs, the profiler's estimated own cost (per call x calls): more than the time charged"
out_has "report: cycles: the warning says what clock=cpu does instead" "its times include the hooks' cost)"
# What the runtime subtracted does not depend on the view.
run 0 "report --deselect P: cycles" "$CCPROF" report --deselect P "$D/cyc.ccprof"
out_has "report --deselect P: cycles: the same compensation" "subtracted   0.014000 secs"
# "-" is standard input, a pipe too.
"$CCPROF" report "$D/s.ccprof" > "$D/file.out"
"$CCPROF" report - < "$D/s.ccprof" > "$D/stdin.out" 2> "$D/err"
check_eq "report -: the same report as of the file" "$(cmp -s "$D/file.out" "$D/stdin.out"; echo $?)" 0
no_stderr "report -"
run 0 "info - from a pipe" sh -c 'cat "$1" | "$2" info -' sh "$D/s.ccprof" "$CCPROF"
out_has "info -: the file size read from the pipe" "file size          $(wc -c < "$D/s.ccprof" | tr -d ' ')"
run 1 "report - with nothing on standard input" "$CCPROF" report - < /dev/null
one_error_line "report - with nothing on standard input"
err_has "report -: named '-' in the error" "ccprof: -: "
run 0 "report --graph --contexts" "$CCPROF" report --graph --contexts "$D/s.ccprof"
out_has "graph: P's line" "[2]      95.9     0.070     0.280        3+2  P [2]"
out_has "graph: spontaneous" "<spontaneous>"
out_has "contexts: elided path" "[main] P … R [P] [Q] [R]"
run 0 "report --top 1" "$CCPROF" report --top 1 "$D/s.ccprof"
out_has "--top 1" "(1 of 5)"
# An empty pattern list is a usage error, not an empty selection or focus
# (--focus '' once printed a report of nothing, total 0, exit 0).
for o in --select= --deselect=, --exclude= --module= --focus= --focus=,, --callers= --around=,; do
	run 2 "report $o" "$CCPROF" report $o "$D/s.ccprof"
	one_error_line "report $o"
done
err_has "report --around=,: says why" "ccprof report: --around needs a pattern, not ','"
run 2 "convert --focus ''" "$CCPROF" convert --to folded --focus '' "$D/s.ccprof"
err_has "convert --focus '': says why" "ccprof convert: --focus needs a pattern, not ''"
# -o the input itself: the profile was replaced by its export.
cp "$D/s.ccprof" "$D/conv.ccprof"
run 2 "convert -o INPUT INPUT" "$CCPROF" convert --to folded -o "$D/conv.ccprof" "$D/conv.ccprof"
one_error_line "convert -o INPUT INPUT"
check "convert -o INPUT INPUT: the profile is left as it was" cmp -s "$D/s.ccprof" "$D/conv.ccprof"
# "-o -" is standard output (convert, merge), not a file named "-";
# record refuses it: its standard output is the program's.
"$CCPROF" convert --to folded "$D/s.ccprof" > "$D/folded.want"
# The references the outputs below are compared with: empty ones would
# make every comparison of an empty output pass.
check "convert --to folded: the reference export has stacks" grep -q ' [0-9]*$' "$D/folded.want"
(cd "$D" && run 0 "convert -o -" "$CCPROF" convert --to folded -o - "$D/s.ccprof")
check "convert -o -: the export on standard output" cmp -s "$D/out" "$D/folded.want"
check "convert -o -: no file named -" test ! -e "$D/-"
(cd "$D" && "$CCPROF" merge -o - "$D/s.ccprof" "$D/s.ccprof" > "$D/merged.ccprof" 2> "$D/err")
check_eq "merge -o -: exit status" "$?" 0
"$CCPROF" merge -o "$D/merged.want" "$D/s.ccprof" "$D/s.ccprof"
check "merge -o: the reference profile reads" "$CCPROF" info "$D/merged.want"
check "merge -o -: the profile on standard output" cmp -s "$D/merged.ccprof" "$D/merged.want"
check "merge -o -: no file named -" test ! -e "$D/-"
# Standard input is read once: a second '-' read as an empty file ("-:
# empty file", exit 1); now a usage error.
for cmd in "diff - -" "merge -o $D/m2.ccprof - $D/s.ccprof -"; do
	cat "$D/s.ccprof" | "$CCPROF" $cmd > "$D/out" 2> "$D/err"
	check_eq "$cmd: exit status" "$?" 2
	one_error_line "$cmd"
	err_has "$cmd: says why" "'-' (standard input) can be given once"
done
check "merge with '-' twice: no output written" test ! -e "$D/m2.ccprof"
run 0 "diff - FILE: '-' once is fine" sh -c '"$0" diff - "$1" < "$1"' "$CCPROF" "$D/s.ccprof"
# An empty file name is a usage error, said so: it read as "ccprof: : No
# such file or directory", the name missing from its own message.
for cmd in report info convert diff merge; do
	case $cmd in
	convert) set -- convert --to folded '' ;;
	diff) set -- diff "$D/s.ccprof" '' ;;
	merge) set -- merge -o "$D/m3.ccprof" "$D/s.ccprof" '' ;;
	*) set -- $cmd '' ;;
	esac
	run 2 "$cmd with an empty file name" "$CCPROF" "$@"
	one_error_line "$cmd with an empty file name"
	err_has "$cmd with an empty file name: says why" "ccprof $cmd: an empty file name"
done
check "merge with an empty file name: no output written" test ! -e "$D/m3.ccprof"
# A failed write of -o (a file size limit here; a full disk alike) leaves
# the previous file as it was, and no temporary file: convert once wrote
# straight into OUT, leaving half a page in place of the old one.  SIGXFSZ
# at its default, as a shell gives it: the tool died by it with no word,
# leaving the temporary file, until it ignored it (helper-167).
echo previous > "$D/prev.html"
(ulimit -f 8; exec "$CCPROF" convert --to html -o "$D/prev.html" "$D/l.ccprof") \
	> "$D/out" 2> "$D/err"
check_eq "convert -o over ulimit -f: exit status" "$?" 1
one_error_line "convert -o over ulimit -f"
err_has "convert -o over ulimit -f: says why" "ccprof: $D/prev.html: $(python3 -c 'import os; print(os.strerror(27))')"
check_eq "convert -o over ulimit -f: the old file as it was" "$(cat "$D/prev.html")" previous
check_eq "convert -o over ulimit -f: no temporary file left" "$(ls "$D" | grep -c 'prev\.html\.tmp')" 0
echo previous > "$D/prev.ccprof"
(ulimit -f 1; exec "$CCPROF" merge -o "$D/prev.ccprof" "$D/l.ccprof" "$D/l.ccprof") \
	> "$D/out" 2> "$D/err"
check_eq "merge -o over ulimit -f: exit status" "$?" 1
one_error_line "merge -o over ulimit -f"
check_eq "merge -o over ulimit -f: the old file as it was" "$(cat "$D/prev.ccprof")" previous
check_eq "merge -o over ulimit -f: no temporary file left" "$(ls "$D" | grep -c 'prev\.ccprof\.tmp')" 0
# Standard output over the limit: one line, status 1, not death by SIGXFSZ.
for cmd in "report --json" "report --contexts" "convert --to speedscope -o -"; do
	(ulimit -f 1; exec "$CCPROF" $cmd "$D/l.ccprof" > "$D/big.out") 2> "$D/err"
	check_eq "$cmd > FILE over ulimit -f: exit status" "$?" 1
	one_error_line "$cmd > FILE over ulimit -f"
	err_has "$cmd > FILE over ulimit -f: says why" "$(python3 -c 'import os; print(os.strerror(27))')"
done
rm -f "$D/big.out"
# A target in /proc (/dev/stdout, /dev/fd/1) stands for an open file: it is
# written as is, not renamed over (merge failed, and as root replaced the
# system's /dev/stdout link with the profile).
"$CCPROF" convert --to folded -o /dev/stdout "$D/s.ccprof" > "$D/folded.stdout" 2> "$D/err"
check_eq "convert -o /dev/stdout: exit status" "$?" 0
check "convert -o /dev/stdout: the export in the redirected file" cmp -s "$D/folded.stdout" "$D/folded.want"
"$CCPROF" merge -o /dev/fd/1 "$D/s.ccprof" "$D/s.ccprof" > "$D/merged.fd1" 2> "$D/err"
check_eq "merge -o /dev/fd/1: exit status" "$?" 0
check "merge -o /dev/fd/1: the profile in the redirected file" cmp -s "$D/merged.fd1" "$D/merged.want"
# Any valid file name works: the temporary name PATH.tmp.XXXXXX of a name
# of 245 bytes or more was too long ("File name too long").
for n in 244 245 250 255; do
	long=$(printf "%0${n}d" 0)
	run 0 "merge -o NAME of $n bytes" "$CCPROF" merge -o "$D/$long" "$D/s.ccprof" "$D/s.ccprof"
	check "merge -o NAME of $n bytes: written" cmp -s "$D/$long" "$D/merged.want"
	run 0 "convert -o NAME of $n bytes" "$CCPROF" convert --to folded -o "$D/$long" "$D/s.ccprof"
	check "convert -o NAME of $n bytes: written" cmp -s "$D/$long" "$D/folded.want"
	rm -f "$D/$long"
done
# -o through a symbolic link writes where it points, as `> LINK` does: the
# file was renamed over the link, which became a regular file (Note
# [Output through a symbolic link], cli.c).  A link in another directory,
# relative, then a chain; a dangling one has its target created.
mkdir -p "$D/lnk/real" "$D/lnk/here"
echo previous > "$D/lnk/real/t.ccprof"
chmod 640 "$D/lnk/real/t.ccprof"
ln -s ../real/t.ccprof "$D/lnk/here/link.ccprof"
ln -s "$D/lnk/here/link.ccprof" "$D/lnk/chain.txt"
ln -s ../real/new.ccprof "$D/lnk/here/dangling.ccprof"
run 0 "merge -o LINK" "$CCPROF" merge -o "$D/lnk/here/link.ccprof" "$D/s.ccprof" "$D/s.ccprof"
check "merge -o LINK: still a link" test -L "$D/lnk/here/link.ccprof"
check "merge -o LINK: the target has the profile" cmp -s "$D/lnk/real/t.ccprof" "$D/merged.want"
check_eq "merge -o LINK: the target keeps its mode" "$(stat -c %a "$D/lnk/real/t.ccprof")" 640
run 0 "convert -o LINK-TO-LINK" "$CCPROF" convert --to folded -o "$D/lnk/chain.txt" "$D/s.ccprof"
check "convert -o LINK-TO-LINK: both still links" \
	sh -c "test -L '$D/lnk/chain.txt' && test -L '$D/lnk/here/link.ccprof'"
check "convert -o LINK-TO-LINK: the final target has the export" \
	cmp -s "$D/lnk/real/t.ccprof" "$D/folded.want"
run 0 "merge -o DANGLING-LINK" "$CCPROF" merge -o "$D/lnk/here/dangling.ccprof" "$D/s.ccprof" "$D/s.ccprof"
check "merge -o DANGLING-LINK: still a link" test -L "$D/lnk/here/dangling.ccprof"
check "merge -o DANGLING-LINK: its target created with the profile" \
	cmp -s "$D/lnk/real/new.ccprof" "$D/merged.want"
check_eq "-o LINK: no temporary file left" "$(ls "$D/lnk/real" "$D/lnk/here" | grep -c "\.tmp\.")" 0
# A loop fails as `>` does, and stays a loop.
ln -s loop.b "$D/lnk/loop.a" && ln -s loop.a "$D/lnk/loop.b"
run 1 "merge -o LINK-LOOP" "$CCPROF" merge -o "$D/lnk/loop.a" "$D/s.ccprof" "$D/s.ccprof"
err_has "merge -o LINK-LOOP: says why" "$(python3 -c 'import os; print(os.strerror(40))')"
check "merge -o LINK-LOOP: the links stay" sh -c "test -L '$D/lnk/loop.a' && test -L '$D/lnk/loop.b'"
# A failed write through a link leaves the target as it was.
echo previous > "$D/lnk/real/t.ccprof"
(ulimit -f 1; exec "$CCPROF" merge -o "$D/lnk/here/link.ccprof" "$D/l.ccprof" "$D/l.ccprof") \
	> "$D/out" 2> "$D/err"
check_eq "merge -o LINK over ulimit -f: exit status" "$?" 1
check_eq "merge -o LINK over ulimit -f: the target as it was" "$(cat "$D/lnk/real/t.ccprof")" previous
check "merge -o LINK over ulimit -f: still a link" test -L "$D/lnk/here/link.ccprof"
(cd "$D" && run 2 "record -o -" "$CCPROF" record -o - true)
one_error_line "record -o -"
check "record -o -: no file named -" test ! -e "$D/-"
# -o the program itself, by any name, or the runtime: refused before the
# run, as convert refuses its input (the program was replaced by its
# profile, helper-167).
cp /bin/true "$D/victim" && ln -sf victim "$D/victim.link"
for o in "$D/victim" "$D/victim.link"; do
	run 2 "record -o ${o#$D/} ./victim" "$CCPROF" record -o "$o" "$D/victim"
	one_error_line "record -o ${o#$D/} ./victim"
	err_has "record -o ${o#$D/} ./victim: says why" "would overwrite the program it records"
done
run 2 "record -o PROGRAM PROGRAM-ON-PATH" env PATH="$D:$PATH" "$CCPROF" record -o "$D/victim" victim
err_has "record -o PROGRAM PROGRAM-ON-PATH: says why" "would overwrite the program it records"
check "record -o PROGRAM: the program as it was" cmp -s "$D/victim" /bin/true
cp "$LIBDIR/libccprof.so" "$D/runtime.so"
run 2 "record -o RUNTIME" env CCPROF_LIBRARY="$D/runtime.so" "$CCPROF" record -o "$D/runtime.so" true
one_error_line "record -o RUNTIME"
err_has "record -o RUNTIME: says why" "would overwrite the runtime library"
check "record -o RUNTIME: the library as it was" cmp -s "$D/runtime.so" "$LIBDIR/libccprof.so"
# --node-threshold, --min-percent and --min-time: decimal digits, as
# --top's counts; strtod also took blanks, hex, exponents, inf and nan.
for v in " 5" "0x10" "1e1" "inf" "nan" "-1" "+5" ".5" "5 " "101"; do
	run 2 "convert --node-threshold '$v'" "$CCPROF" convert --to dot --node-threshold "$v" "$D/s.ccprof"
	one_error_line "convert --node-threshold '$v'"
done
for v in " 5" "0x10" "1e1" "inf"; do
	run 2 "report --min-percent '$v'" "$CCPROF" report --min-percent "$v" "$D/s.ccprof"
	one_error_line "report --min-percent '$v'"
	run 2 "report --min-time '$v'" "$CCPROF" report --min-time "$v" "$D/s.ccprof"
	one_error_line "report --min-time '$v'"
done
# Numbers beyond a double (Note [Decimals beyond a double], cli.c): a tiny
# one is the tiny number it is, not "not a percentage"; a huge one is above
# a percentage's 100, and the most of any time.
huge="1$(printf '%0400d' 0)"
for o in --min-percent --min-time; do
	run 0 "report $o 0.(400 zeros)1" "$CCPROF" report $o "$tiny" "$D/s.ccprof"
	no_stderr "report $o 0.(400 zeros)1"
done
run 0 "convert --node-threshold 0.(400 zeros)1" "$CCPROF" convert --to dot --node-threshold "$tiny" "$D/s.ccprof"
run 0 "report --min-time 1(400 zeros)" "$CCPROF" report --json --min-time "$huge" "$D/s.ccprof"
check_eq "report --min-time 1(400 zeros): taken as the largest double" \
	"$(json 'len(j["functions"]) > 0 and j["view"]["prune"]["min_time_s"] > 1e300' "$D/out")" True
run 2 "report --min-percent 1(400 zeros)" "$CCPROF" report --min-percent "$huge" "$D/s.ccprof"
err_has "report --min-percent 1(400 zeros): says the range" "--min-percent needs a percentage from 0 to 100"
# A long bad value is cut, quoted whole and followed by the usage (a
# 256-byte message once ended in the middle of the value).
long_bad="x$(printf '%0300d' 7)"
run 2 "report --min-percent X(300)" "$CCPROF" report --min-percent "$long_bad" "$D/s.ccprof"
one_error_line "report --min-percent X(300)"
err_has "report --min-percent X(300): the value cut, then the usage" "0000...' (usage: ccprof report"
run 2 "convert --node-threshold X(300)" "$CCPROF" convert --to dot --node-threshold "$long_bad" "$D/s.ccprof"
err_has "convert --node-threshold X(300): the value cut, then the usage" "0000...' (usage: ccprof convert"
# Counts say their limits; --min-calls takes 64 bits, as the calls it is
# compared with (it stopped at 2^32 - 1, "needs a count").
run 0 "report --min-calls 99999999999" "$CCPROF" report --min-calls 99999999999 "$D/s.ccprof"
run 0 "report --min-calls 2^64 - 1" "$CCPROF" report --min-calls 18446744073709551615 "$D/s.ccprof"
run 2 "report --min-calls 2^64" "$CCPROF" report --min-calls 18446744073709551616 "$D/s.ccprof"
err_has "report --min-calls 2^64: says the limit" "--min-calls needs a count, digits only and below 2^64"
for cmd in "report --top 4294967296 F" "diff --top 4294967296 F F"; do
	run 2 "$cmd" "$CCPROF" ${cmd%%F*} "$D/s.ccprof" $(case $cmd in diff*) echo "$D/s.ccprof";; esac)
	err_has "$cmd: says the limit" "--top needs a count, digits only and at most 4294967295"
done
run 0 "report --top 4294967295" "$CCPROF" report --top 4294967295 "$D/s.ccprof"
run 2 "convert --name-length 4294967296" "$CCPROF" convert --to dot --name-length 4294967296 "$D/s.ccprof"
err_has "convert --name-length 4294967296: says the limit" "of at least 4 and at most 4294967295"
for v in "0" "2" "0.5" "5." "100"; do
	run 0 "convert --node-threshold '$v'" "$CCPROF" convert --to dot --node-threshold "$v" "$D/s.ccprof"
done
# Output far larger than stdio's buffer into a full device: the write
# that fails comes mid-report, and stdio drops the rest, so the final
# flush succeeds; the reason was lost ("error writing standard output").
for cmd in "report --contexts" "report --json" "convert --to folded"; do
	run 1 "$cmd > /dev/full" sh -c "exec \"\$0\" $cmd \"\$1\" > /dev/full" "$CCPROF" "$D/l.ccprof"
	check_eq "$cmd > /dev/full: one line, with the reason" "$(cat "$D/err")" \
		"ccprof: error writing standard output: $(python3 -c 'import os; print(os.strerror(28))')"
done
# The same through -o, small and large: a stream that fails at its close
# or mid-write says why (it said "Input/output error").
for p in s l; do
	for f in html svg pprof; do
		run 1 "convert --to $f -o /dev/full $p.ccprof" "$CCPROF" convert --to $f -o /dev/full "$D/$p.ccprof"
		check_eq "convert --to $f -o /dev/full $p.ccprof: one line, with the reason" "$(cat "$D/err")" \
			"ccprof: /dev/full: $(python3 -c 'import os; print(os.strerror(28))')"
	done
done
run 2 "diff --select ''" "$CCPROF" diff --select '' "$D/s.ccprof" "$D/s.ccprof"
one_error_line "diff --select ''"
# diff shows no tree: the pruning options are refused, not ignored.
for o in --min-percent --min-calls --min-time; do
	run 2 "diff $o 1" "$CCPROF" diff $o 1 "$D/s.ccprof" "$D/s.ccprof"
	one_error_line "diff $o 1"
	err_has "diff $o 1: says why" "do not apply to diff"
done
"$CCPROF" help diff > "$D/out"
if grep -q -- "--min-percent X" "$D/out"; then notok "help diff: no pruning option offered"
else ok "help diff: no pruning option offered"; fi
# Each pattern of a list must match, in a list as alone: --callers P,nosuch
# once showed P's tree and said nothing of nosuch.
run 1 "report --callers 'P,nosuch'" "$CCPROF" report --callers 'P,nosuch' "$D/s.ccprof"
one_error_line "report --callers 'P,nosuch'"
err_has "report --callers 'P,nosuch': names the pattern" "--callers 'nosuch' matches no function"
run 1 "report --around 'nosuch,P'" "$CCPROF" report --around 'nosuch,P' "$D/s.ccprof"
err_has "report --around 'nosuch,P': names the pattern" "--around 'nosuch' matches no function"
# diff: a side where one pattern of the list matches is not empty (w0 is
# in l.ccprof only, P in both).
run 0 "diff --focus 'w0,P'" "$CCPROF" diff --focus 'w0,P' "$D/l.ccprof" "$D/s.ccprof"
no_stderr "diff --focus 'w0,P': no side said to be empty"
out_has "diff --focus 'w0,P': P on both sides" "P"
run 0 "report --select 'P,,Q'" "$CCPROF" report --select 'P,,Q' "$D/s.ccprof"
no_stderr "report --select 'P,,Q': empty items between patterns are fine"

run 0 "report --json" "$CCPROF" report --json "$D/s.ccprof"
no_stderr "report --json"
check "report --json is valid JSON" python3 -m json.tool "$D/out"
cp "$D/out" "$D/s.json"
check_eq "json: program" "$(json 'j["program"]' "$D/s.json")" "/bin/gen"
check_eq "json: argv" "$(json 'j["argv"]' "$D/s.json")" "['./gen', 'two words']"
check_eq "json: clock" "$(json 'j["clock"]' "$D/s.json")" "cpu"
check_eq "json: total_time_s" "$(json 'j["total_time_s"]' "$D/s.json")" "0.365"
check_eq "json: total_calls" "$(json 'j["total_calls"]' "$D/s.json")" "14"
check_eq "json: ticks_per_sec" "$(json 'j["ticks_per_sec"]' "$D/s.json")" "1000000000"
check_eq "json: inherited of Q" \
	"$(json '[f["inherited_s"] for f in j["functions"] if f["name"]=="Q"][0]' "$D/s.json")" "0.33"
check_eq "json: arc R->P" \
	"$(json '[(a["calls"],a["self_in_s"],a["child_in_s"],a["self_out_s"],a["child_out_s"]) for a in j["arcs"] if (a["caller"],a["callee"])==("R","P")][0]' "$D/s.json")" \
	"(2, 0.05, 0.21, 0.05, 0.14)"
check_eq "json: 9 contexts" "$(json 'len(j["contexts"])' "$D/s.json")" "9"
check_eq "json: first context" \
	"$(json '" ".join(("[%s]" if e["marked"] else "%s") % e["name"] for e in j["contexts"][0]["history"])' "$D/s.json")" \
	"[main] P [Q] [R] [P] [S]"
check_eq "json: tree root inherits the total" "$(json 'j["tree"]["inherited_s"]' "$D/s.json")" "0.365"
check_eq "json: 7 compressed stacks entered" \
	"$(json 'sum(1 for n in (lambda w: w(w, j["tree"]))(lambda w, n: [n] + [x for c in n["children"] for x in w(w, c)]) if n["entries"] and n["id"] is not None)' "$D/s.json")" "7"

run 0 "info" "$CCPROF" info "$D/s.ccprof"
no_stderr "info"
out_has "info: calls" "calls              14"
out_has "info: overhead" "overhead estimate  12.3 ns per call"
out_has "info: duration" "duration           1.500 s"
out_has "info: arguments quoted as report quotes them" "arguments          ./gen 'two words'"
run 0 "info --json" "$CCPROF" info --json "$D/s.ccprof"
check "info --json is valid JSON" python3 -m json.tool "$D/out"
cp "$D/out" "$D/i.json"
check_eq "info json: distinct contexts" "$(json 'j["distinct_contexts"]' "$D/i.json")" "9"
check_eq "info json: functions" "$(json 'j["functions"]' "$D/i.json")" "5"
check_eq "info json: file size" "$(json 'j["file_size"]' "$D/i.json")" "$(wc -c < "$D/s.ccprof" | tr -d ' ')"

# A closed pipe ends the tool quietly, even when SIGPIPE was ignored.
( trap '' PIPE; "$CCPROF" report --contexts "$D/l.ccprof" 2> "$D/pipe.err" | head -n 1 > /dev/null )
if [ -s "$D/pipe.err" ]; then notok "closed pipe: no message (got '$(head -n 1 "$D/pipe.err")')"
else ok "closed pipe: no message"; fi
run 0 "large report --json" "$CCPROF" report --json "$D/l.ccprof"
check "large report is valid JSON" python3 -m json.tool "$D/out"

# ---- bad input files: one line, exit 1 --------------------------------------

bad() { # bad WHAT FILE [REASON]
	run 1 "$1" "$CCPROF" report "$2"
	one_error_line "$1"
	case $(head -n 1 "$D/err") in
	"ccprof: $2: "*) ok "$1: message names the file" ;;
	*) notok "$1: message names the file (got '$(head -n 1 "$D/err")')" ;;
	esac
	[ -n "${3:-}" ] && err_has "$1: reason" "$3"
	run 1 "info: $1" "$CCPROF" info "$2"
	one_error_line "info: $1"
}
size=$(wc -c < "$D/s.ccprof" | tr -d ' ')
: > "$D/empty.ccprof"
printf 'hello, I am a text file\n' > "$D/text.ccprof"
head -c $((size / 2)) "$D/s.ccprof" > "$D/trunc.ccprof"
head -c 12 "$D/s.ccprof" > "$D/header.ccprof"
# Byte 8 is the low byte of the format version (docs/format.md).
{ head -c 8 "$D/s.ccprof"; printf '\143'; tail -c +10 "$D/s.ccprof"; } > "$D/version.ccprof"
# A byte in the middle flipped: the checksum catches it.
{ head -c 40 "$D/s.ccprof"; printf '\377'; tail -c +42 "$D/s.ccprof"; } > "$D/corrupt.ccprof"

bad "missing file" "$D/missing.ccprof" "No such file"
bad "empty file" "$D/empty.ccprof" "empty"
bad "text file" "$D/text.ccprof" "not a ccprof profile"
bad "truncated file" "$D/trunc.ccprof" "truncated"
bad "truncated header" "$D/header.ccprof"
bad "wrong version" "$D/version.ccprof" "version 99"
bad "corrupt file" "$D/corrupt.ccprof"
bad "a directory" "$D"

# File names and option values are escaped in every line on stderr (Note
# [One line on stderr], cli.c): a newline made two lines, and an escape
# sequence reached the terminal.
nl=$(printf 'a\nb')
esc=$(printf '\033]0;pwned\007.ccprof')
raw_ctl() { # raw_ctl WHAT: the last stderr has no control character but its last newline
	if [ "$(LC_ALL=C tr -d '\000-\011\013-\037\177' < "$D/err" | wc -c)" = "$(wc -c < "$D/err")" ]; then
		ok "$1: no control character on stderr"
	else notok "$1: no control character on stderr"; fi
}
run 1 "info NAME-WITH-NEWLINE" "$CCPROF" info "$nl"
one_error_line "info NAME-WITH-NEWLINE"
check_eq "info NAME-WITH-NEWLINE: message" "$(cat "$D/err")" "ccprof: a?b: No such file or directory"
run 2 "report --top VALUE-WITH-NEWLINE" "$CCPROF" report --top "$(printf '1\nx')" f
one_error_line "report --top VALUE-WITH-NEWLINE"
err_has "report --top VALUE-WITH-NEWLINE: the value escaped" "--top needs a count, digits only and at most 4294967295, not '1?x'"
run 1 "report NAME-WITH-ESCAPES" "$CCPROF" report "$esc"
one_error_line "report NAME-WITH-ESCAPES"
raw_ctl "report NAME-WITH-ESCAPES"
check_eq "report NAME-WITH-ESCAPES: message" "$(cat "$D/err")" "ccprof: ?]0;pwned?.ccprof: No such file or directory"
# C1 controls (U+0080..U+009F, valid UTF-8) are escaped as C0 ones: some
# terminals take U+009B as CSI, as they take ESC [.
c1=$(printf 'a\302\2332Jb\302\205c\302\240d.ccprof')
run 1 "report NAME-WITH-C1" "$CCPROF" report "$c1"
one_error_line "report NAME-WITH-C1"
check_eq "report NAME-WITH-C1: message" "$(cat "$D/err")" \
	"ccprof: a?2Jb?c$(printf '\302\240')d.ccprof: No such file or directory"
run 2 "report --top VALUE-WITH-C1" "$CCPROF" report --top "$(printf '1\302\233')" f
err_has "report --top VALUE-WITH-C1: the value escaped" "--top needs a count"
err_has "report --top VALUE-WITH-C1: as '?'" "not '1?'"
run 2 "unknown command with a newline" "$CCPROF" "$nl"
one_error_line "unknown command with a newline"
run 1 "merge of NAME-WITH-ESCAPES" "$CCPROF" merge -o "$D/m.ccprof" "$D/s.ccprof" "$esc"
one_error_line "merge of NAME-WITH-ESCAPES"
raw_ctl "merge of NAME-WITH-ESCAPES"
run 1 "convert -o NAME-WITH-NEWLINE in a missing directory" "$CCPROF" convert --to folded -o "$D/none/$nl" "$D/s.ccprof"
one_error_line "convert -o NAME-WITH-NEWLINE in a missing directory"
(cd "$D" && run 127 "record PROGRAM-WITH-NEWLINE" "$CCPROF" record -o r.ccprof "$nl")
one_error_line "record PROGRAM-WITH-NEWLINE"

# ---- record ----------------------------------------------------------------

run 127 "record: program not found" "$CCPROF" record -- "$D/no-such-program"
one_error_line "record: program not found"
(cd "$D" && run 127 "record: an empty program name" "$CCPROF" record -o r.ccprof -- '')
one_error_line "record: an empty program name"
err_has "record: an empty program name: quoted" "ccprof: '': No such file or directory"
run 126 "record: not executable" "$CCPROF" record -- "$D/text.ccprof"
one_error_line "record: not executable"

mkdir -p "$D/rec"
# Our settings are appended to the user's, LD_PRELOAD gets the runtime first;
# run_start= is the run's start, in ns since the epoch (Note [One OUT per
# run] in src/runtime/dump.c).
before=$(date +%s%N)
(cd "$D/rec" && CCPROF_OPTIONS=verbose=0 LD_PRELOAD="$LIBDIR/libccprof.so" \
	"$CCPROF" record --clock=wall --interval=2 -- sh -c \
	'printf "%s\n%s\n" "$CCPROF_OPTIONS" "$LD_PRELOAD"; exit 3') > "$D/out" 2> "$D/err"
check_eq "record: exit status passed through" "$?" 3
after=$(date +%s%N)
check_eq "record: CCPROF_OPTIONS" "$(sed -n '1s/:run_start=[0-9]*:/:run_start=N:/p' "$D/out")" \
	"verbose=0:output=$D/rec/sh.ccprof:run_start=N:clock=wall:interval=2ms"
start=$(sed -n '1s/.*:run_start=\([0-9]*\):.*/\1/p' "$D/out")
check "record: run_start= is the run's start ($before <= ${start:-none} <= $after)" \
	sh -c "[ '${start:-0}' -ge $before ] && [ '${start:-0}' -le $after ]"
check_eq "record: LD_PRELOAD" "$(sed -n 2p "$D/out")" \
	"$(cd "$LIBDIR" && pwd -P)/libccprof.so.0:$LIBDIR/libccprof.so"
check_eq "record: uninstrumented program" "$(cat "$D/err")" \
	"ccprof: no profile written (is sh built with -finstrument-functions? or did it end by the exit_group system call?)"
run 138 "record: uninstrumented program killed" "$CCPROF" record -o "$D/rec/sh.ccprof" -- sh -c 'kill -USR1 $$'
check_eq "record: uninstrumented program killed" "$(head -n 1 "$D/err")" \
	"ccprof: no profile written (is sh built with -finstrument-functions?)"
# An instrumented program that ends by _exit writes its profile first
# (rawexit.c); one that ends by the exit_group system call writes none,
# and that is the likely cause, not the build (it once asked about
# -finstrument-functions).
if build_prog exits "$PROGS/exits.c" 2> "$D/build.log"; then
	(cd "$D/rec" && rm -f exits.ccprof && "$CCPROF" record -- "$OUT/exits" _exit) > "$D/out" 2> "$D/err"
	check_eq "record of a program that calls _exit: exit status" "$?" 6
	check_eq "record of a program that calls _exit: profile written" "$(cat "$D/err")" \
		"ccprof: profile written to $D/rec/exits.ccprof"
	(cd "$D/rec" && rm -f exits.ccprof && "$CCPROF" record -- "$OUT/exits" exit_group) > "$D/out" 2> "$D/err"
	check_eq "record of a program that calls exit_group: exit status" "$?" 6
	check_eq "record of a program that calls exit_group: says why no profile" "$(cat "$D/err")" \
		"ccprof: no profile written: $OUT/exits calls the hooks of -finstrument-functions; unless the runtime said why above, it probably ended past exit and _exit: by the exit_group system call, or by a call of _exit inside libc (docs/options.md, \"How the run ends\"; ccprof_dump() before it writes one)"
else
	notok "exits builds (see $D/build.log)"
fi

# A signal passed on before the program has a handler for it (a library's
# constructor runs before the runtime's) ends it with no profile, and
# record says so: it once blamed "a handler of the program's own" (Note
# [Passed on before a handler] in src/cli/cmd_record.c).
if $CC -g -O1 -shared -fPIC -DSLOWSTART_LIB "$PROGS/slowstart.c" -o "$D/libslowstart.so" \
	2> "$D/slow.log" && build_prog slowstart "$PROGS/slowstart.c" -L"$D" -lslowstart \
	-Wl,-rpath,"$D" 2>> "$D/slow.log"; then
	rm -f "$D/slow.mark"
	SLOWSTART_MARK="$D/slow.mark" "$CCPROF" record -o "$D/rec/slow.ccprof" -- "$OUT/slowstart" \
		> "$D/out" 2> "$D/err" &
	rec=$!
	i=0
	while [ ! -e "$D/slow.mark" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -TERM $rec
	wait $rec
	check_eq "record, SIGTERM before the runtime's handler: status" "$?" 143
	check_eq "record, SIGTERM before the runtime's handler: says so" "$(cat "$D/err")" \
		"ccprof: no profile written: $OUT/slowstart died by SIGTERM, which ccprof passed on before the program had a handler for it (the runtime had not started yet)"
else
	notok "slowstart builds (see $D/slow.log)"
fi

# A static executable: LD_PRELOAD cannot reach it, and record says so.
if ${CC:-cc} -O1 -finstrument-functions -static "$PROGS/fib.c" -o "$D/fib-static" 2> "$D/static.log"; then
	(cd "$D/rec" && "$CCPROF" record -o "$D/rec/static.ccprof" -- "$D/fib-static" 10) > "$D/out" 2> "$D/err"
	check_eq "record a static executable: exit status" "$?" 0
	check_eq "record a static executable: says why no profile" "$(cat "$D/err")" \
		"ccprof: no profile written: $D/fib-static is statically linked, so the runtime cannot be preloaded (link libccprof.a into it)"
else
	echo "# no static libc here: record of a static executable not checked"
fi

"$CCPROF" record -- sh -c 'kill -TERM $$' > /dev/null 2>&1
check_eq "record: dies by the program's signal" "$?" 143
# A SIGINT sent to record with kill (not the terminal's, which the
# program gets itself: robust.py record_terminal_interrupt) is passed on;
# the shell dies by it, and record by the same signal.  The shell starts
# with SIGINT's default action (env --default-signal), which a suite
# started in the background would not give it: there it ignored the
# signal and exited 5.
if env --default-signal=INT true 2> /dev/null; then # coreutils 8.31 or later
	"$CCPROF" record -- env --default-signal=INT sh -c 'kill -INT $PPID; sleep 5; exit 5' > /dev/null 2>&1
else
	"$CCPROF" record -- sh -c 'kill -INT $PPID; sleep 5; exit 5' > /dev/null 2>&1
fi
check_eq "record: passes on a SIGINT sent to it, and ends by it as the program did" "$?" 130
# record passes signals on (robust.py), one it was started ignoring too,
# as under nohup; the program starts with it ignored, as bare, and this
# one keeps it so.
(trap '' HUP; exec "$CCPROF" record -- sh -c 'kill -HUP $PPID; exit 5') > /dev/null 2>&1
check_eq "record: a SIGHUP ignored at start stays ignored" "$?" 5
(trap '' INT; exec "$CCPROF" record -- sh -c 'kill -INT $PPID; exit 5') > /dev/null 2>&1
check_eq "record: a SIGINT ignored at start stays ignored" "$?" 5

if build_prog fib "$PROGS/fib.c" 2> "$D/build.log"; then
	(cd "$D/rec" && "$CCPROF" record -- "$OUT/fib" 15) > "$D/out" 2> "$D/err"
	check_eq "record fib: exit status" "$?" 0
	check_eq "record fib: message" "$(cat "$D/err")" \
		"ccprof: profile written to $D/rec/fib.ccprof"
	out_has "record fib: program output passes through" "calls fib 1973"
	run 0 "report of a recorded profile" "$CCPROF" report "$D/rec/fib.ccprof"
	out_has "recorded report shows fib" " fib "
	# A focus list whose patterns match on different sides (P in A only, fib
	# in B only) once failed as "matches no function in either profile".
	run 0 "diff --focus 'P,fib'" "$CCPROF" diff --focus 'P,fib' "$D/s.ccprof" "$D/rec/fib.ccprof"
	check_eq "diff --focus 'P,fib': only the programs' warning" "$(cat "$D/err")" \
		"ccprof diff: warning: $D/s.ccprof and $D/rec/fib.ccprof are profiles of different programs (gen, fib)"
	run 0 "record -o relative" sh -c "cd '$D/rec' && '$CCPROF' record -o sub.ccprof '$OUT/fib' 5"
	err_has "record -o: absolute path in the message" "profile written to $D/rec/sub.ccprof"
	# A profile that cannot be written: said before the run, exit 1, the
	# program not run (it once ran, and -o DIR was "profile written to DIR").
	mkdir -p "$D/rec/dir.ccprof"
	run 1 "record -o DIR" "$CCPROF" record -o "$D/rec/dir.ccprof" "$OUT/fib" 5
	check_eq "record -o DIR: message" "$(cat "$D/err")" "ccprof: $D/rec/dir.ccprof: Is a directory"
	check_eq "record -o DIR: the program did not run" "$(cat "$D/out")" ""
	run 1 "record -o in a missing directory" "$CCPROF" record -o "$D/rec/none/x.ccprof" "$OUT/fib" 5
	check_eq "record -o in a missing directory: message" "$(cat "$D/err")" \
		"ccprof: cannot write $D/rec/none/x.ccprof: No such file or directory"
	# A name the runtime cannot create (its temporary file, NAME.tmpPID.N,
	# is longer still): said before the run too, not by the runtime after it.
	long=$(printf '%0300d' 0)
	run 1 "record -o NAME-TOO-LONG" "$CCPROF" record -o "$D/rec/$long" "$OUT/fib" 5
	one_error_line "record -o NAME-TOO-LONG"
	err_has "record -o NAME-TOO-LONG: says why" "File name too long"
	check_eq "record -o NAME-TOO-LONG: the program did not run" "$(cat "$D/out")" ""
	# CCPROF_OPTIONS too long for the runtime with record's settings: it
	# would ignore them all and write fib.ccprof here, unnoticed.
	rm -f "$D/rec/fib.ccprof"
	opts=$(printf 'verbose=0:%.0s' $(seq 420))
	run 1 "record with a long CCPROF_OPTIONS" sh -c "cd '$D/rec' && CCPROF_OPTIONS='$opts' '$CCPROF' record -o x.ccprof '$OUT/fib' 5"
	one_error_line "record with a long CCPROF_OPTIONS"
	check_eq "record with a long CCPROF_OPTIONS: the program did not run" "$(cat "$D/out")" ""
	check_eq "record with a long CCPROF_OPTIONS: no profile at the default" \
		"$(ls "$D/rec/fib.ccprof" 2> /dev/null)" ""
	# From a directory 3000 bytes deep: record's absolute output= makes
	# CCPROF_OPTIONS longer than the runtime once kept for the profile,
	# and it said so on the program's stderr ("too long; kept its first
	# 1023 bytes").  Now it is kept whole.
	deep="$D/rec"
	for i in $(seq 15); do deep="$deep/$(printf 'd%.0s' $(seq 199))"; done
	mkdir -p "$deep"
	(cd "$deep" && unset CCPROF_OPTIONS && "$CCPROF" record "$OUT/fib" 5) > "$D/out" 2> "$D/err"
	check_eq "record from a deep directory: exit status" "$?" 0
	check_eq "record from a deep directory: only where the profile went" "$(cat "$D/err")" \
		"ccprof: profile written to $deep/fib.ccprof"
	run 0 "info of a profile recorded in a deep directory" "$CCPROF" info --json "$deep/fib.ccprof"
	check_eq "record from a deep directory: the options whole in the profile" \
		"$(json 'j["options"]' "$D/out" | sed 's/:run_start=[0-9]*$/:run_start=N/')" \
		"output=$deep/fib.ccprof:run_start=N"
	# Into a device: no guess that the program was not instrumented.
	run 0 "record -o /dev/null" "$CCPROF" record -o /dev/null "$OUT/fib" 5
	check_eq "record -o /dev/null: message" "$(cat "$D/err")" \
		"ccprof: /dev/null is not a regular file: record cannot tell whether the profile was written"
	# The runtime turned off by the user: that is why, not the build.
	run 0 "record with enabled=0" env CCPROF_OPTIONS=enabled=0 "$CCPROF" record -o "$D/rec/off.ccprof" "$OUT/fib" 5
	check_eq "record with enabled=0: message" "$(cat "$D/err")" \
		"ccprof: no profile written (CCPROF_OPTIONS has enabled=0)"
else
	notok "fib builds (see $D/build.log)"
fi
finish
