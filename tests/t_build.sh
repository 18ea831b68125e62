#!/bin/sh
# The build: warning-free with gcc and clang, the shared runtimes' sonames, links
# and exports, make install and uninstall (DESTDIR, PREFIX=/usr), pkg-config,
# and the tool under AddressSanitizer + UndefinedBehaviorSanitizer.
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1

# The shared runtimes as a distribution installs them (Makefile, SOVERSION):
# soname lib<name>.so.0, the real file lib<name>.so.VERSION, links
# lib<name>.so.0 and lib<name>.so to it.
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
solibs="libccprof libccprof-alloc"
soname() { readelf -d "$1" 2> /dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p'; }
# check_solibs WHERE DIR: the three names of each runtime in DIR.
check_solibs() {
	for l in $solibs; do
		check_eq "$1: $l.so.$version has soname $l.so.0" "$(soname "$2/$l.so.$version")" "$l.so.0"
		check "$1: $l.so.$version is the real file" sh -c "test -f '$2/$l.so.$version' && ! test -L '$2/$l.so.$version'"
		check_eq "$1: $l.so.0 links to $l.so.$version" "$(readlink "$2/$l.so.0")" "$l.so.$version"
		check_eq "$1: $l.so links to $l.so.0" "$(readlink "$2/$l.so")" "$l.so.0"
	done
}
# What each shared runtime exports: the hooks, ccprof.h's entry points and
# the libc calls it takes over (man/ccprof.3, NOTES), no internal
# name.  A new export is deliberate: add it here.
exports_rt="_Exit __cxa_begin_catch __gxx_personality_v0 __cyg_profile_func_enter __cyg_profile_func_exit __fentry__ __return__ __libc_start_main _exit
__longjmp_chk __sysv_signal _longjmp bsd_signal ccprof__cc ccprof__dump ccprof__enter ccprof__leave
daemon dlclose execl execle execlp execv execve execveat execvp execvpe exit fexecve fork forkpty
longjmp popen prctl pthread_setname_np
sigaltstack posix_spawn posix_spawnp setns sigaction siginterrupt siglongjmp signal ssignal syscall system sysv_signal
unshare setuid setgid seteuid setegid setreuid setregid setresuid setresgid setgroups initgroups
swapcontext setcontext vfork"
# What libccprof.a defines for a program linked with it: those less the
# calls only the shared runtime takes over (man/ccprof.3, NOTES: "The
# shared runtime (not libccprof.a) also interposes").
static_only_shared="prctl
pthread_setname_np sigaltstack syscall setuid setgid seteuid setegid setreuid setregid
setresuid setresgid setgroups initgroups __gxx_personality_v0"
exports_static=$(for e in $exports_rt; do case " $(echo $static_only_shared) " in *" $e "*) ;; *) echo $e;; esac; done)
exports_alloc="$exports_rt aligned_alloc calloc free malloc memalign posix_memalign pvalloc realloc
reallocarray valloc"
sorted() { echo $* | tr ' ' '\n' | sort | tr '\n' ' '; }
exports() { nm -D --defined-only "$1" | awk '{ print $3 }' | sort | tr '\n' ' '; }

for cc in gcc clang; do
	if ! command -v $cc > /dev/null; then
		echo "# $cc not installed: skipped"
		continue
	fi
	log="$OUT/build-$cc.log"
	if MAKEFLAGS= make -j2 -B CC=$cc BUILD="$OUT/build-$cc" all tool-lib > "$log" 2>&1; then
		ok "make CC=$cc builds"
	else
		notok "make CC=$cc builds (see $log)"
	fi
	n=$(grep -c 'warning:' "$log")
	check_eq "make CC=$cc: no warnings under -Wall -Wextra" "$n" 0
	check_solibs "make CC=$cc" "$OUT/build-$cc/lib"
	check_eq "make CC=$cc: libccprof.so exports only the runtime's API and interposed calls" \
		"$(exports "$OUT/build-$cc/lib/libccprof.so")" "$(sorted $exports_rt)"
	check_eq "make CC=$cc: libccprof-alloc.so exports those and the allocator's" \
		"$(exports "$OUT/build-$cc/lib/libccprof-alloc.so")" "$(sorted $exports_alloc)"
	check_eq "make CC=$cc: libccprof.a defines those the man page says it takes over" \
		"$(nm -g --defined-only "$OUT/build-$cc/lib/libccprof.a" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')" \
		"$(sorted $exports_static)"
	# make demo, the README's first command, on the build just made.  Any
	# index for work: it is [1] only when main, f and g have no time of
	# their own, and a late sample on a busy machine gives main some.
	if [ $cc = gcc ]; then
		log="$OUT/demo-$cc.log"
		if make CC=$cc BUILD="$OUT/build-$cc" demo > "$log" 2>&1 &&
			grep -Eq '^\[[0-9]+\].* work \[[0-9]+\]$' "$log" && [ -s "$OUT/build-$cc/demo/trap.html" ]; then
			ok "make demo: profiles examples/trap.c, prints the call graph, writes trap.html"
		else
			notok "make demo (see $log)"
		fi
	fi
	# Without libdw (make LIBDW=no), sources.c and dwarfmod.c take their
	# other branch: the tool still builds cleanly and says it reads no lines.
	nodw="$OUT/build-$cc-nolibdw"
	log="$OUT/build-$cc-nolibdw.log"
	if MAKEFLAGS= make -j2 -B CC=$cc LIBDW=no BUILD="$nodw" "$nodw/bin/ccprof" > "$log" 2>&1; then
		ok "make CC=$cc LIBDW=no builds the tool"
	else
		notok "make CC=$cc LIBDW=no builds the tool (see $log)"
	fi
	check_eq "make CC=$cc LIBDW=no: no warnings" "$(grep -c 'warning:' "$log")" 0
	check_eq "make CC=$cc LIBDW=no: --version says no source lines" \
		"$("$nodw/bin/ccprof" --version 2>&1 | sed -n 2p)" "source lines: none (built without libdw)"
	# info's "0 of M" must not blame the binaries (output/info.c).
	$cc -g -O1 -finstrument-functions examples/trap.c -o "$OUT/nolibdw-trap" &&
		LD_PRELOAD="$TOP/$BUILD/lib/libccprof.so" \
			CCPROF_OPTIONS="output=$OUT/nolibdw-$cc.ccprof" "$OUT/nolibdw-trap" 3 > /dev/null
	check_eq "make CC=$cc LIBDW=no: info says why no function has a source line" \
		"$("$nodw/bin/ccprof" info "$OUT/nolibdw-$cc.ccprof" 2>&1 | grep '^source lines')" \
		"source lines       0 of 4 functions (this ccprof reads no debug information: built without libdw)"
done

prefix="$OUT/prefix"
make install PREFIX="$prefix" > "$OUT/install.log" 2>&1
for f in bin/ccprof lib/libccprof.a lib/libccprof.so lib/libccprof-alloc.so include/ccprof.h lib/pkgconfig/ccprof.pc \
	share/man/man1/ccprof.1; do
	check "make install puts $f in PREFIX" test -f "$prefix/$f"
done
check_solibs "make install" "$prefix/lib"
for l in $solibs; do
	check "make install: $l.so.$version is not executable (mode 644, Debian's policy)" \
		test "$(stat -c %a "$prefix/lib/$l.so.$version")" = 644
done
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs ccprof)
check "installed pkg-config file names the installed library" \
	sh -c "echo '$flags' | grep -q -- '-L$prefix/lib'"
# A PREFIX the loader does not search: the .pc keeps its rpath (Makefile, PC_RPATH).
check "...with an rpath to it, PREFIX being no system directory" \
	sh -c "echo '$flags' | grep -q -- '-Wl,-rpath,$prefix/lib'"
cat > "$OUT/installed.c" <<'C'
#include <ccprof.h>
int twice(int x) { return 2 * x; }
int main(void) { return twice(0); }
C
check "a program builds against the installed ccprof with pkg-config" \
	$CC -finstrument-functions "$OUT/installed.c" -o "$OUT/installed" $flags
check_eq "...which needs the runtime by its soname" \
	"$(readelf -d "$OUT/installed" | sed -n 's/.*(NEEDED).*\[\(libccprof.*\)\]$/\1/p')" "libccprof.so.0"
check "...and runs, writing its profile" sh -c "cd '$OUT' && rm -f installed.ccprof && CCPROF_OPTIONS=output=installed.ccprof ./installed && '$prefix/bin/ccprof' info installed.ccprof"
check "installed record finds the installed runtime" \
	sh -c "cd '$OUT' && '$prefix/bin/ccprof' record -o rec.ccprof ./installed && test -s rec.ccprof"
# record preloads the runtime by its soname, the program's DT_NEEDED, so
# the loader takes the preloaded copy for it: one runtime, the installed
# record's or the build's (another file with the same soname).
for rec in "$prefix/bin/ccprof" "$CCPROF"; do
	check_eq "$rec record on a program linked with the runtime: the runtime is loaded once" \
		"$(cd "$OUT" && LD_DEBUG=files "$rec" record -o once.ccprof ./installed 2>&1 |
			grep -c 'calling init: .*libccprof')" 1
done

# A fully static program links the runtime with pkg-config --static,
# which adds what its posix_spawn needs (runtime/exec.c); its exec family
# works too (runtime/execsys.c).
sflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs ccprof)
cat > "$OUT/installed_static.c" <<'C'
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int run(char **argv)
{
	int status;
	pid_t pid;
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return 10;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 11;
	if ((pid = fork()) == 0) {
		execvp(argv[0], argv);
		_exit(12);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 13;
}
int main(void) { char *argv[] = {"true", 0}; return run(argv); }
C
if $CC -static -finstrument-functions "$OUT/installed_static.c" -o "$OUT/installed_static" $sflags \
	> "$OUT/static.log" 2>&1; then
	check "a static program with pkg-config --static: posix_spawnp and execvp work, profile written" \
		sh -c "cd '$OUT' && rm -f static.ccprof && CCPROF_OPTIONS=output=static.ccprof ./installed_static && '$prefix/bin/ccprof' info static.ccprof"
else
	echo "# no static C library here: the static program is not checked"
fi

# The installed man pages render without a warning, and ccprof(1) has a
# section for every command `ccprof --help` lists (convert once had none).
for m in man1/ccprof.1 man3/ccprof.3; do
	if command -v groff > /dev/null; then
		check_eq "groff -ww: no warning in $m" \
			"$(groff -ww -z -man -Tutf8 "$prefix/share/man/$m" 2>&1)" ""
	else
		echo "# groff not installed: $m not checked"
	fi
done
commands=$("$prefix/bin/ccprof" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
# The list parsed from --help, so that a change of its layout cannot
# leave the loop below with nothing to check.
check_eq "ccprof --help lists its commands" "$(echo $commands)" "record report diff merge convert info"
for cmd in $commands; do
	if grep -q "^\.SS \"ccprof $cmd" "$prefix/share/man/man1/ccprof.1"; then
		ok "ccprof.1 describes ccprof $cmd"
	else
		notok "ccprof.1 describes ccprof $cmd"
	fi
done

# make uninstall, with install's PREFIX (and DESTDIR), removes every file
# install put there and nothing else; a second one finds nothing to do.
echo "not ours" > "$prefix/lib/other.so"
echo "not ours" > "$prefix/share/man/man1/other.1"
find "$prefix" ! -type d | sort > "$OUT/installed.list"
check "make install put files in PREFIX" test -s "$OUT/installed.list"
if make uninstall PREFIX="$prefix" > "$OUT/uninstall.log" 2>&1; then
	ok "make uninstall PREFIX=... succeeds"
else
	notok "make uninstall PREFIX=... succeeds (see $OUT/uninstall.log)"
fi
check_eq "make uninstall leaves none of ccprof's files in PREFIX, and the others" \
	"$(find "$prefix" ! -type d | sort | tr '\n' ' ')" \
	"$prefix/lib/other.so $prefix/share/man/man1/other.1 "
check "make uninstall a second time: nothing to remove, no error" \
	make uninstall PREFIX="$prefix"
stage="$OUT/stage"
rm -rf "$stage"
make install DESTDIR="$stage" PREFIX=/opt/ccprof > "$OUT/install-destdir.log" 2>&1
check_eq "make install DESTDIR=... PREFIX=/opt/ccprof: the same files under DESTDIR" \
	"$(cd "$stage/opt/ccprof" && find . ! -type d | sort | tr '\n' ' ')" \
	"$(cd "$prefix" && sed "s|^$prefix|.|" "$OUT/installed.list" | grep -v other | tr '\n' ' ')"
# Split as a distribution does, the runtime package has lib<name>.so.0
# and the real file, the bare lib<name>.so links are for linking (-dev):
# record needs only the former.
rm -f "$stage/opt/ccprof/lib/libccprof.so" "$stage/opt/ccprof/lib/libccprof-alloc.so"
$CC -finstrument-functions -I"$TOP/include" "$OUT/installed.c" -o "$OUT/plain"
for alloc in "" --alloc; do
	check "record${alloc:+ $alloc} without the bare .so links (a runtime package without -dev)" \
		sh -c "cd '$OUT' && rm -f plain.ccprof && '$stage/opt/ccprof/bin/ccprof' record $alloc ./plain && test -s plain.ccprof"
done
make uninstall DESTDIR="$stage" PREFIX=/opt/ccprof > "$OUT/uninstall-destdir.log" 2>&1
check_eq "make uninstall DESTDIR=... PREFIX=/opt/ccprof: nothing left" \
	"$(find "$stage" ! -type d)" ""
# PREFIX=/usr, a distribution's: the loader searches /usr/lib by itself,
# and the .pc has no rpath; PC_RPATH=yes keeps it.
for rpath in "" yes; do
	rm -rf "$stage"
	make install DESTDIR="$stage" PREFIX=/usr ${rpath:+PC_RPATH=$rpath} > "$OUT/install-usr.log" 2>&1
	got=$(PKG_CONFIG_PATH="$stage/usr/lib/pkgconfig" pkg-config --libs ccprof | grep -c -- -rpath)
	check_eq "make install PREFIX=/usr ${rpath:+PC_RPATH=$rpath}: rpath in ccprof.pc's Libs" \
		"$got" "$([ "$rpath" = yes ] && echo 1 || echo 0)"
done
check_solibs "make install DESTDIR=... PREFIX=/usr" "$stage/usr/lib"
make uninstall DESTDIR="$stage" PREFIX=/usr > "$OUT/uninstall-usr.log" 2>&1
check_eq "make uninstall DESTDIR=... PREFIX=/usr: nothing left" "$(find "$stage" ! -type d)" ""

# tests/run itself, on a tree of two made-up suites and no unit test: a
# suite that stops before "# completed" is one failure more, and every
# failure is named again just above the count (CI shows the log's tail).
runner="$OUT/runner"
rm -rf "$runner" && mkdir -p "$runner/tests/unit"
cp tests/run "$runner/tests/run"
printf 'echo "ok - one"\necho "not ok - two"\necho "# completed"\n' > "$runner/tests/t_a.sh"
printf 'echo "ok - three"\n' > "$runner/tests/t_b.sh"
sh "$runner/tests/run" > "$OUT/runner.log" 2>&1
st=$?
check_eq "tests/run on a failing tree: exits 1" "$st" 1
check_eq "tests/run on a failing tree: the failures again, then the count" \
	"$(tail -n 5 "$OUT/runner.log" | grep -v '^# [0-9]* s in all$')" "# the failures:
[t_a] not ok - two
[t_b] not ok - t_b ended before its last check (exit status 0)
2 passed, 2 failed"

# The fuzz harness builds from the sources `make fuzz` names and replays
# its seeds (make fuzz-replay): make fuzz once failed to link, a function
# having moved out of those files, and nothing else noticed.
log="$OUT/fuzz-replay.log"
if make CC="$CC" BUILD="$OUT/fuzz-replay" fuzz-replay > "$log" 2>&1; then
	n=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$log")
	check "make fuzz-replay: the harness builds with $CC and replays its ${n:-0} seeds" \
		test "${n:-0}" -ge 8
else
	notok "make fuzz-replay builds and replays the seeds (see $log)"
fi
# (the compiler's: not make's own, "jobserver unavailable" under make -j)
check_eq "make fuzz-replay: no warnings" "$(grep -v '^make' "$log" | grep -c 'warning:')" 0
finish
