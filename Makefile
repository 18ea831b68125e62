# ccprof - one plain Makefile.  See README.md.
#
#   make              build bin/ccprof, lib/libccprof.{a,so}, lib/libccprof-alloc.so
#                     (each .so a link to lib<name>.so.VERSION, below)
#   make demo         build, profile examples/trap.c, print its report
#   make check        build and run every test (ends "N passed, N failed")
#   make bench        side-by-side overhead benchmark (never part of check)
#   make asan         the tool (not the runtime: see below) under ASan and UBSan
#   make install PREFIX=/usr/local   (make uninstall, the same PREFIX and
#                                     DESTDIR, removes what it installed)

CC      ?= cc
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
BUILD   ?= build
VERSION := 0.1.0
# The shared runtimes' soname number: the ABI a program linked with
# -lccprof depends on, which is the two hooks and ccprof.h's four weak
# entry points, not the profile format (the runtime that writes it and
# the tool that reads it are installed together, and a linked program
# should load the runtime of the ccprof installed now).  0 while ccprof
# is 0.x; bumped when a program linked against the previous one could no
# longer run with this one.  Each library is the real file
# lib<name>.so.VERSION, with links lib<name>.so.SOVERSION (the soname:
# what a linked program needs and `ccprof record` preloads) and
# lib<name>.so (what -lccprof finds), in the build tree as in PREFIX.
SOVERSION := 0
SOLIBS    := libccprof libccprof-alloc

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
BASE := -std=c11 -D_GNU_SOURCE -DCCPROF_VERSION=\"$(VERSION)\" \
        -DCCPROF_SOVERSION=\"$(SOVERSION)\" $(WARN) \
        -Iinclude -Isrc
# The runtime: never instrumented, hidden by default, PIC for the .so.
RT_FLAGS := $(BASE) $(CFLAGS) -fPIC -fvisibility=hidden \
        -fno-stack-protector -pthread
# Source lines from DWARF (src/model/sources.c) need libdw from elfutils
# (Debian: libdw-dev), found with pkg-config; make LIBDW=no builds without.
LIBDW ?= $(shell pkg-config --exists libdw 2>/dev/null && echo yes)
ifeq ($(LIBDW),yes)
DW_FLAGS := -DCCPROF_HAVE_LIBDW $(shell pkg-config --cflags libdw)
DW_LIBS  := $(shell pkg-config --libs libdw)
endif
TOOL_FLAGS := $(BASE) $(CFLAGS) $(DW_FLAGS) -pthread

FORMAT_SRC  := $(wildcard src/format/*.c)
COMMON_SRC  := $(wildcard src/common/*.c)
RUNTIME_SRC := $(wildcard src/runtime/*.c)
TOOL_SRC    := $(wildcard src/model/*.c src/output/*.c src/cli/*.c)

RT_OBJ   := $(patsubst src/%.c,$(BUILD)/rt/%.o,$(RUNTIME_SRC) $(FORMAT_SRC) $(COMMON_SRC))
TOOL_OBJ := $(patsubst src/%.c,$(BUILD)/tool/%.o,$(TOOL_SRC) $(FORMAT_SRC) $(COMMON_SRC))
# The HTML report's scripts and style sheet, compiled into the tool by a
# build tool of our own (tools/embed.c; src/output/html_assets.h).
HTML_ASSETS := src/output/html/model.js src/output/html/ui.js src/output/html/style.css
HTML_GEN    := $(BUILD)/gen/html_assets.c
TOOL_OBJ    += $(BUILD)/tool/gen/html_assets.o
# Objects the unit tests link against: everything but the CLI's main().
LIBTOOL_OBJ := $(filter-out $(BUILD)/tool/cli/main.o,$(TOOL_OBJ))

HEADERS := $(wildcard include/*.h src/*/*.h)

all: $(BUILD)/bin/ccprof $(SOLIBS:%=$(BUILD)/lib/%.so) $(BUILD)/lib/libccprof.a \
     $(BUILD)/lib/pkgconfig/ccprof.pc
	@ln -sfn $(BUILD)/bin bin 2>/dev/null || true
	@ln -sfn $(BUILD)/lib lib 2>/dev/null || true

$(BUILD)/rt/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(RT_FLAGS) $(RT_EXTRA) -c $< -o $@

# fentry.c's C runs before the vector state is saved (the save area's
# size, measured at the first slow path): Note [Fentry registers] in
# src/runtime/fentry.c.
$(BUILD)/rt/runtime/fentry.o: RT_EXTRA = -mgeneral-regs-only

# Their code runs with only xmm0-7 saved, in the -mfentry hooks' light
# path: legacy SSE alone, which leaves the upper halves of the vector
# registers as they were (Note [Fentry light path] in src/runtime/fentry.c),
# whatever CFLAGS asks for.
RT_SSE_ONLY := $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-mno-avx)
$(BUILD)/rt/runtime/hooks.o $(BUILD)/rt/runtime/machine.o: RT_EXTRA = $(RT_SSE_ONLY)

# The calibration fixture is instrumented on purpose (src/runtime/calib.c).
$(BUILD)/rt/runtime/calib.o: RT_EXTRA = -finstrument-functions

$(BUILD)/tool/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_FLAGS) -c $< -o $@

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 $(WARN) -o $@ tools/embed.c

$(HTML_GEN): $(BUILD)/embed $(HTML_ASSETS) Makefile
	@mkdir -p $(dir $@)
	$(BUILD)/embed $@ $(HTML_ASSETS)

$(BUILD)/tool/gen/html_assets.o: $(HTML_GEN) src/output/html_assets.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOL_FLAGS) -c $(HTML_GEN) -o $@

# -z now: every symbol the runtime takes from libc is bound as it loads,
# not at its first call.  A first call from a signal handler (a stack
# overflow's SIGSEGV on a program's 4 KB alternate stack) went through the
# lazy binder, which saves every register on the stack and looks the
# symbol up there: it overflowed, and the profile was lost.  About 3 us
# more at each exec.
RT_LDFLAGS := -shared -pthread -Wl,-z,now

$(BUILD)/lib/libccprof.so.$(VERSION): $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RT_LDFLAGS) -Wl,-soname,libccprof.so.$(SOVERSION) -o $@ $(RT_OBJ)

# The runtime that also profiles allocation: the same, plus malloc and
# friends passed on to the next allocator (src/runtime/shim/alloc_shim.c).
ALLOC_SHIM_OBJ := $(BUILD)/rt/runtime/shim/alloc_shim.o

$(BUILD)/lib/libccprof-alloc.so.$(VERSION): $(RT_OBJ) $(ALLOC_SHIM_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(RT_LDFLAGS) -Wl,-soname,libccprof-alloc.so.$(SOVERSION) -o $@ \
	    $(RT_OBJ) $(ALLOC_SHIM_OBJ) -ldl

# so_links DIR NAME: DIR/NAME.so.SOVERSION -> NAME.so.VERSION and
# DIR/NAME.so -> NAME.so.SOVERSION, relative, as make install makes them.
so_links = ln -sfn $(2).so.$(VERSION) $(1)/$(2).so.$(SOVERSION) && \
	ln -sfn $(2).so.$(SOVERSION) $(1)/$(2).so

$(BUILD)/lib/%.so: $(BUILD)/lib/%.so.$(VERSION)
	$(call so_links,$(BUILD)/lib,$*)

# Not in the static library: their prctl, syscall and set*id would take
# the place of libc's, with none left to call in a static executable
# (src/runtime/seccomp.c, credentials.c); cleanup.c's personality routine
# would take the place of libstdc++.a's (Note [Cleanups on the way]).  longjmp.c's, ucontext.c's,
# rawexit.c's, fork, exitgate.c's and popen have a way there (Note [Jumps
# in a static program], Note [Switches in a static program], Note [Ending
# by _exit], Note [fork in a static program], Note [The gate in
# libccprof.a], Note [Shell children in libccprof.a]).
RT_SHARED_ONLY := seccomp threadname altstack instrumented credentials cleanup
RT_STATIC_OBJ := $(filter-out $(RT_SHARED_ONLY:%=$(BUILD)/rt/runtime/%.o),$(RT_OBJ))

# One relocatable object, its hidden symbols made local: a program linking
# the archive sees only the runtime's API and the calls it takes over, never
# an internal name (rt_*, ccp_*, elfsym_*...) to collide with its own.
# The hidden names left undefined, weak references to what is never in
# the archive (alloc.c's to the shim, sampler.c's to instrumented.c), are
# renamed to ones no C program can define: a program's own
# rt_alloc_shim_linked made the runtime count allocations.
# The jumps, the switches and __cxa_begin_catch are weak there: a
# program's own definition, or a sanitizer's that clang links into the
# program (whose interceptors must see every jump), takes their place,
# as does libstdc++.a's __cxa_begin_catch, defined beside __cxa_end_catch
# (Note [Jumps in a static program] in src/runtime/longjmp.c, Note
# [Caught exceptions] in catch.c).  libc.a's come later: weak too, or
# (_exit) alone in an object never pulled in once ours is defined, or
# (exit, __libc_start_main) strong, in objects every static link pulls
# in, which take the place of ours there (Note [The gate in libccprof.a]
# in src/runtime/exitgate.c).  vfork is weak for the sanitizers' own
# (Note [A vfork child's calls] in src/runtime/vfork.c).
# forkpty, daemon and system are weak too, and do libc's work themselves
# under -static, where libc.a's cannot be linked beside them (Note
# [daemon in a static program] in src/runtime/forkchild.c, Note [system
# in a static program] in ownsystem.c).
OBJCOPY ?= objcopy
RT_STATIC_ONE := $(BUILD)/rt/libccprof-static.o
STATIC_WEAK := longjmp _longjmp siglongjmp __longjmp_chk swapcontext setcontext __cxa_begin_catch \
               _exit _Exit fork exit __libc_start_main popen daemon system forkpty vfork

$(RT_STATIC_ONE): $(RT_STATIC_OBJ) Makefile
	$(LD) -r -o $@.tmp $(RT_STATIC_OBJ)
	$(OBJCOPY) --localize-hidden --redefine-sym rt_alloc_shim_linked=ccprof.alloc_shim_linked \
	    --redefine-sym rt_loaded_code_calls_runtime=ccprof.loaded_code_calls_runtime \
	    $(STATIC_WEAK:%=--weaken-symbol=%) \
	    $@.tmp $@ && rm -f $@.tmp

$(BUILD)/lib/libccprof.a: $(RT_STATIC_ONE)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(RT_STATIC_ONE)

$(BUILD)/lib/libccprof-tool.a: $(LIBTOOL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIBTOOL_OBJ)

$(BUILD)/bin/ccprof: $(TOOL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -pthread -o $@ $(TOOL_OBJ) $(DW_LIBS) -lm -ldl

# ccprof.pc: pc_file PREFIX INCLUDEDIR RPATH-FLAG (empty for none).
pc_file = sed -e 's|@PREFIX@|$(1)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@INCLUDEDIR@|$(2)|' -e 's|@RPATH@|$(3)|' ccprof.pc.in
comma := ,
RPATH_FLAG := -Wl$(comma)-rpath$(comma)$${libdir}

$(BUILD)/lib/pkgconfig/ccprof.pc: ccprof.pc.in Makefile
	@mkdir -p $(dir $@)
	$(call pc_file,$(abspath $(BUILD)),$(abspath include),$(RPATH_FLAG)) > $@

tool-lib: $(BUILD)/lib/libccprof-tool.a

demo: all
	@sh examples/demo.sh

check: all tool-lib
	@CC="$(CC)" BUILD="$(BUILD)" sh tests/run

# The tool again, under AddressSanitizer and UndefinedBehaviorSanitizer
# (tests/t_sanitize.sh runs it, recording with the normal runtime).  Not
# the runtime: it is preloaded into programs built without ASan, and an
# ASan-built libccprof.so aborts there ("ASan runtime does not come first
# in initial library list") unless libasan.so is preloaded before it,
# which record does not do (its runtime comes first).  Even then ASan's
# malloc takes the calls libccprof-alloc.so's shim must see, so that one
# counts no allocation at all.  A runtime built with CFLAGS having
# -fsanitize=undefined alone loads as it is (libubsan asks no place in
# the list and takes no malloc); record takes it with CCPROF_LIBRARY.
asan:
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	    $(BUILD)/asan/bin/ccprof $(BUILD)/asan/lib/libccprof-tool.a

bench: all
	@sh bench/run

# libFuzzer on the reader, the model and every report writer, under ASan
# and UBSan (docs/fuzzing.md).  Built from the sources with clang, not from
# the gcc-built library.  The corpus grows in $(BUILD)/fuzz/corpus; crashes
# land in $(BUILD)/fuzz/artifacts/.  make fuzz FUZZ_SECONDS=600
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SRC     := $(FORMAT_SRC) $(COMMON_SRC) $(wildcard src/model/*.c src/output/*.c) \
                src/cli/report_heap.c $(HTML_GEN)

fuzz: $(HTML_GEN)
	@mkdir -p $(FUZZ_DIR)/seeds $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	$(FUZZ_CC) $(BASE) -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all tests/fuzz/fuzz_reader.c $(FUZZ_SRC) \
	    -o $(FUZZ_DIR)/fuzz_reader -lm -pthread
	$(FUZZ_CC) $(BASE) -g -O1 tests/fuzz/gen_seeds.c $(FORMAT_SRC) -o $(FUZZ_DIR)/gen_seeds
	$(FUZZ_DIR)/gen_seeds $(FUZZ_DIR)/seeds
	$(FUZZ_DIR)/fuzz_reader -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=5 \
	    -dict=tests/fuzz/ccprof.dict -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_FLAGS) \
	    $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds

# The harness without libFuzzer, built with $(CC) from the same sources,
# replaying the seeds: tests/t_build.sh runs it, so that make check sees a
# harness that no longer builds (a function moved out of FUZZ_SRC's files).
fuzz-replay: $(HTML_GEN)
	@mkdir -p $(FUZZ_DIR)/seeds
	$(CC) $(BASE) -g -O1 tests/fuzz/fuzz_reader.c tests/fuzz/replay.c $(FUZZ_SRC) \
	    -o $(FUZZ_DIR)/replay -lm -pthread
	$(CC) $(BASE) -g -O1 tests/fuzz/gen_seeds.c $(FORMAT_SRC) -o $(FUZZ_DIR)/gen_seeds
	$(FUZZ_DIR)/gen_seeds $(FUZZ_DIR)/seeds
	$(FUZZ_DIR)/replay $(FUZZ_DIR)/seeds/*

MAN1 := $(notdir $(wildcard man/*.1))
MAN3 := $(notdir $(wildcard man/*.3))

# The installed ccprof.pc links with -Wl,-rpath,LIBDIR only where the
# dynamic loader would not find the library by itself: a distribution's
# PREFIX=/usr puts it in a directory the loader always searches (/lib,
# /usr/lib, their lib64 and multiarch forms), where a .pc has no rpath;
# any other PREFIX keeps it, so that a program linked there starts
# (/usr/local/lib too: the loader finds that one only through
# ld.so.cache, after an ldconfig that make install does not run).
# PC_RPATH=yes or PC_RPATH=no decides instead.  The shared libraries are
# not executable (mode 644), as Debian's policy has them.
MULTIARCH = $(shell $(CC) -print-multiarch 2>/dev/null)
SYSTEM_LIBDIRS = /lib /usr/lib /lib64 /usr/lib64 \
	$(if $(MULTIARCH),/lib/$(MULTIARCH) /usr/lib/$(MULTIARCH))
PC_RPATH ?= $(if $(filter $(abspath $(PREFIX)/lib),$(SYSTEM_LIBDIRS)),no,yes)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(BUILD)/bin/ccprof $(DESTDIR)$(PREFIX)/bin/ccprof
	install -m 644 $(BUILD)/lib/libccprof.a $(DESTDIR)$(PREFIX)/lib/libccprof.a
	install -m 644 $(SOLIBS:%=$(BUILD)/lib/%.so.$(VERSION)) $(DESTDIR)$(PREFIX)/lib/
	$(foreach l,$(SOLIBS),$(call so_links,$(DESTDIR)$(PREFIX)/lib,$(l)) &&) true
	install -m 644 include/ccprof.h $(DESTDIR)$(PREFIX)/include/ccprof.h
	$(call pc_file,$(PREFIX),$(PREFIX)/include,$(if $(filter yes,$(PC_RPATH)),$(RPATH_FLAG))) \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ccprof.pc
	install -m 644 $(MAN1:%=man/%) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN3:%=man/%) $(DESTDIR)$(PREFIX)/share/man/man3/

# Exactly the files install puts there, with the same PREFIX and DESTDIR;
# the directories stay, as they may hold others' files.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ccprof $(DESTDIR)$(PREFIX)/lib/libccprof.a \
	    $(foreach l,$(SOLIBS),$(foreach f,$(l).so $(l).so.$(SOVERSION) $(l).so.$(VERSION),\
	        $(DESTDIR)$(PREFIX)/lib/$(f))) \
	    $(DESTDIR)$(PREFIX)/include/ccprof.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/ccprof.pc \
	    $(MAN1:%=$(DESTDIR)$(PREFIX)/share/man/man1/%) \
	    $(MAN3:%=$(DESTDIR)$(PREFIX)/share/man/man3/%)

clean:
	rm -rf $(BUILD) bin lib tests/out

.PHONY: all demo check asan bench install uninstall clean tool-lib fuzz fuzz-replay
