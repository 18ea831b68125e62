#!/bin/sh
# build-objdump.sh VARIANT [OBJECT [PAD]]: build GNU objdump from Debian's
# binutils-source tarball into bench/.work/objdump-VARIANT/binutils/objdump.
#
# Full builds (configure + make, several minutes each on two cores):
#   bare          gcc   -O2
#   instr         gcc   -O2 -finstrument-functions
#   pg            gcc   -O2 -pg
#   clang-bare    clang -O2
#   clang-ai      clang -O2 -finstrument-functions-after-inlining
#   clang-pg      clang -O2 -pg
#   fentry-empty  gcc   -O2 -pg -mfentry -minstrument-return=call (x86-64),
#                 linked with bench/fentry_empty.S's empty hooks, not -pg
# These are cached: a finished one is left alone (delete the directory to
# rebuild).
#
# Relinks (a second; no recompilation):
#   ccprof-static  instr with OBJECT (default build/lib/libccprof.a) linked in
#   dummy-static   instr with OBJECT (default bench/.work/bin/dummy_hooks.o)
#   fentry-cpu     fentry-empty's objects with OBJECT (default libccprof.a)
#                  in place of the empty hooks
# They run the final link of objdump again, in objdump-BASE/binutils, with
# OBJECT appended, writing to objdump-VARIANT/binutils/objdump.  They are
# redone whenever OBJECT, PAD or the base objdump is newer than the result.
# PAD, an object linked before all others, moves the program's code (one
# of bench.py's layouts); a relink's VARIANT may then carry a suffix,
# ccprof-static@512, naming its own output.
set -eu
variant=$1
kind=${variant%%@*}
pad=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$here/.work
src=$work/src
out=$work/objdump-$variant
jobs=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 2)}
gcc=${BENCH_CC:-gcc} gxx=${BENCH_CXX:-g++}
clang=${BENCH_CLANG:-clang} clangxx=${BENCH_CLANGXX:-clang++}

relink() { # relink BASE OBJECT: objdump-BASE's link again, plus OBJECT
	base=$1 obj=$2
	in=$work/objdump-$base/binutils
	if [ ! -f "$work/objdump-$base/.done" ]; then
		echo "build-objdump.sh: $variant needs the $base build first" >&2
		exit 1
	fi
	if [ ! -f "$obj" ]; then
		echo "build-objdump.sh: $obj is missing" >&2
		exit 1
	fi
	if [ -x "$out/binutils/objdump" ] && [ "$out/binutils/objdump" -nt "$obj" ] &&
		[ "$out/binutils/objdump" -nt "$in/objdump" ] &&
		{ [ -z "$pad" ] || [ "$out/binutils/objdump" -nt "$pad" ]; }; then
		exit 0
	fi
	# What automake links objdump from (objects, libtool libraries, LIBS),
	# read from the Makefile rather than guessed.
	parts=$(printf 'bench-print-link:\n\t@echo $(objdump_OBJECTS) $(objdump_LDADD) $(LIBS)\n' |
		make -s --no-print-directory -C "$in" -f Makefile -f - bench-print-link)
	mkdir -p "$out/binutils"
	# shellcheck disable=SC2086 # $parts is a word list
	(cd "$in" && ./libtool --quiet --tag=CC --mode=link "$gcc" -O2 \
		-o "$out/binutils/objdump.tmp" ${pad:+"$pad"} $parts "$obj" -pthread) >"$out/link.log" 2>&1 || {
		cat "$out/link.log" >&2
		exit 1
	}
	mv "$out/binutils/objdump.tmp" "$out/binutils/objdump"
	touch "$out/.done"
}

case $variant in
*@*) case $kind in ccprof-static | dummy-static) ;; *)
	echo "build-objdump.sh: only a relink has layouts, not '$variant'" >&2; exit 2 ;; esac ;;
esac
case $kind in
bare)       cc=$gcc   cxx=$gxx     cflags="-O2" ldflags="" ;;
instr)      cc=$gcc   cxx=$gxx     cflags="-O2 -finstrument-functions" ldflags="" ;;
pg)         cc=$gcc   cxx=$gxx     cflags="-O2 -pg" ldflags="-pg" ;;
clang-bare) cc=$clang cxx=$clangxx cflags="-O2" ldflags="" ;;
clang-ai)   cc=$clang cxx=$clangxx cflags="-O2 -finstrument-functions-after-inlining" ldflags="" ;;
clang-pg)   cc=$clang cxx=$clangxx cflags="-O2 -pg" ldflags="-pg" ;;
fentry-empty) cc=$out/gcc-fentry cxx=$gxx cflags="-O2" ldflags="" ;;
ccprof-static) relink instr "${2:-$(dirname "$here")/build/lib/libccprof.a}"; exit 0 ;;
dummy-static)  relink instr "${2:-$work/bin/dummy_hooks.o}"; exit 0 ;;
fentry-cpu)    relink fentry-empty "${2:-$(dirname "$here")/build/lib/libccprof.a}"; exit 0 ;;
*) echo "build-objdump.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac

[ -x "$out/binutils/objdump" ] && [ -f "$out/.done" ] && exit 0

mkdir -p "$work"
if [ ! -f "$src/.unpacked" ]; then
	tarball=$(ls /usr/src/binutils/binutils-*.tar.* 2>/dev/null | head -n 1)
	if [ -z "$tarball" ]; then
		echo "build-objdump.sh: no tarball in /usr/src/binutils (apt-get install binutils-source)" >&2
		exit 1
	fi
	rm -rf "$src" "$work/unpack"
	mkdir -p "$work/unpack"
	tar -xf "$tarball" -C "$work/unpack"
	mv "$work/unpack"/binutils-* "$src"
	rmdir "$work/unpack"
	touch "$src/.unpacked"
fi

rm -rf "$out"
mkdir -p "$out"
cd "$out"
if [ "$variant" = fentry-empty ]; then
	# The hooks' flags on compiles only: a link with -pg would start
	# gprof's collector.  Links (configure's tests too) get the empty hooks.
	"$gcc" -c "$here/fentry_empty.S" -o "$out/fentry_empty.o"
	cat >"$cc" <<-EOF
	#!/bin/sh
	for a; do
		case \$a in -c|-S) exec $gcc -pg -mfentry -minstrument-return=call "\$@" ;;
		-E|-M|-MM) exec $gcc "\$@" ;; esac
	done
	exec $gcc "\$@" $out/fentry_empty.o
	EOF
	chmod +x "$cc"
fi
echo "bench: building objdump ($variant: $cc $cflags) in $out" >&2
"$src/configure" CC="$cc" CXX="$cxx" CFLAGS="$cflags" CXXFLAGS="$cflags" LDFLAGS="$ldflags" \
	--disable-nls --disable-werror --disable-shared \
	--disable-gdb --disable-gdbserver --disable-sim --disable-gprof \
	--disable-gprofng --disable-ld --disable-gold --disable-libctf \
	--without-debuginfod --without-zstd >configure.log 2>&1
make -j"$jobs" all-libiberty all-zlib all-bfd all-opcodes all-libsframe \
	configure-binutils >make.log 2>&1
make -j"$jobs" -C binutils objdump >>make.log 2>&1
touch .done
echo "bench: objdump ($variant) built" >&2
