#!/bin/sh
# build-objdump.sh VARIANT: build GNU objdump from Debian's binutils-source
# tarball into bench/.work/objdump-VARIANT/binutils/objdump, with
#   bare    CFLAGS=-O2
#   instr   CFLAGS=-O2 -finstrument-functions
#   pg      CFLAGS=-O2 -pg
# The build is cached: a finished one is left alone (delete the directory to
# rebuild).  Takes several minutes per variant on two cores.
set -eu
variant=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$here/.work
src=$work/src
out=$work/objdump-$variant
jobs=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 2)}

case $variant in
bare)  cflags="-O2" ldflags="" ;;
instr) cflags="-O2 -finstrument-functions" ldflags="" ;;
pg)    cflags="-O2 -pg" ldflags="-pg" ;;
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
echo "bench: building objdump ($variant: $cflags) in $out" >&2
"$src/configure" CFLAGS="$cflags" CXXFLAGS="$cflags" LDFLAGS="$ldflags" \
	--disable-nls --disable-werror --disable-shared \
	--disable-gdb --disable-gdbserver --disable-sim --disable-gprof \
	--disable-gprofng --disable-ld --disable-gold --disable-libctf \
	--without-debuginfod --without-zstd >configure.log 2>&1
make -j"$jobs" all-libiberty all-zlib all-bfd all-opcodes all-libsframe \
	configure-binutils >make.log 2>&1
make -j"$jobs" -C binutils objdump >>make.log 2>&1
touch .done
echo "bench: objdump ($variant) built" >&2
