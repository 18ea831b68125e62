# tests/lib.sh - shared helpers for tests/t_*.sh (POSIX sh).
# Every assertion prints "ok - ..." or "not ok - ...".
: "${TOP:?run through tests/run}" "${OUT:?}" "${BUILD:=build}" "${CC:=cc}"
CCPROF="$TOP/$BUILD/bin/ccprof"
LIBDIR="$TOP/$BUILD/lib"
PROGS="$TOP/tests/progs"

# One line per check: a newline in the text would start a line that
# tests/run could count as a check of its own.
oneline() {
	case "$*" in
	*"
"*) printf '%s' "$*" | awk '{ printf "%s%s", (NR > 1 ? "\\n" : ""), $0 }' ;;
	*) printf '%s' "$*" ;;
	esac
}
ok() { printf 'ok - %s\n' "$(oneline "$@")"; }
notok() { printf 'not ok - %s\n' "$(oneline "$@")"; }
# The suite's last line: tests/run counts a suite that never printed it
# as failed, since whatever ended it early skipped the checks after.
finish() { echo "# completed"; }
check() { # check "what" command...  (passes when the command succeeds)
	what=$1; shift
	if "$@" > /dev/null 2>&1; then ok "$what"; else notok "$what"; fi
}
check_eq() { # check_eq "what" got expected
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (got '$2', expected '$3')"; fi
}
# build_prog NAME SRC [extra flags]: an instrumented test program in $OUT.
build_prog() {
	name=$1; src=$2; shift 2
	$CC -g -O1 -finstrument-functions -I"$TOP/include" "$src" -o "$OUT/$name" "$@" -pthread
}
# json EXPR FILE: evaluate a Python expression over the parsed JSON as `j`.
json() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}
