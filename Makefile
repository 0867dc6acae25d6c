# SPDX-License-Identifier: GPL-2.0
#
# make deps            install the Debian packages building and testing need (root)
# make                 build ./cpuprof (says which packages are missing; installs nothing)
# make check           install missing packages, build, then the layer and build checks, unit
#                      tests, end-to-end tests (root), man page checks
# make lint            static analysis (cppcheck) of src/ and cmd/; warnings fail it
# make SANITIZE=1 check  the same under ASan+UBSan (objects in build/san)
# make DEBUG=1         -O0 -g3 (objects in build/dbg, or build/san-dbg with SANITIZE=1)
# make demo            profile the bundled demo program and show its top functions
# make install         PREFIX=/usr/local DESTDIR= : binary and man page
# V=1                  show the commands

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifneq ($(ARCH),x86)
$(error cpuprof supports x86_64 only for now (uname -m: $(shell uname -m)))
endif

# make's built-in default for CC is cc; gcc unless the user chose one
ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
CXX := g++
endif
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip

# one build directory per configuration, so that objects of different flags never mix
ifeq ($(SANITIZE),1)
O := build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
O := build/rel
SANFLAGS :=
endif
ifneq ($(DEBUG),)
O := $(if $(filter build/san,$(O)),build/san-dbg,build/dbg)
endif
GEN := build/gen

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WERROR ?= 1
WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wold-style-definition -Wimplicit-fallthrough -Wnull-dereference -Wlogical-op
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
OPT := $(if $(DEBUG),-O0 -g3,-O2 -g)
CFLAGS_ALL := -std=gnu11 -D_GNU_SOURCE $(OPT) $(WARNINGS) $(SANFLAGS) -Isrc -Ibpf -I$(GEN) -MMD -MP
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)
LIBS := -lbpf -ldw -lelf -ljansson -lz
# symbolization: libiberty's demangler, liblzma for MiniDebugInfo, the debuginfod client
LIBS += -liberty -llzma -ldebuginfod

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -I$(GEN) -Ibpf

# User-space modules, one folder per stage (scripts/check-layers.sh says which stage may
# include which); cmd/cpuprof.c holds main().
SRCS := $(wildcard src/*/*.c)
OBJS := $(patsubst src/%.c,$(O)/src/%.o,$(SRCS))
MAIN_OBJ := $(O)/cmd/cpuprof.o
CMD_OBJS := $(O)/cmd/symbolize.o $(O)/cmd/unwind_table.o $(O)/cmd/check.o
BIN := $(O)/cpuprof

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps deps-check demo check unit e2e man-check install uninstall clean format \
	format-check print-toolchain lint layer-check build-check

all: deps-check cpuprof

# Installing packages is asked for (make deps, make check, make demo), never a side effect of
# building: plain make only says what is missing.
deps:
	$(Q)scripts/install-deps.sh

deps-check:
	$(Q)scripts/install-deps.sh --check

cpuprof: $(BIN)
ifneq ($(SANITIZE),1)
	$(Q)ln -sf $(BIN) cpuprof
endif

# ---- BPF ---------------------------------------------------------------------------------
$(GEN)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/gen-vmlinux.sh $@

# The dependency file names the object itself (not the .tmp clang writes), so that editing
# bpf/shared.h or any header a BPF program includes rebuilds the object and the skeleton.
$(GEN)/%.bpf.o: bpf/%.bpf.c $(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MT $@ -MF $(GEN)/$*.bpf.d -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp
	$(Q)$(LLVM_STRIP) -g $@
	$(Q)rm -f $@.tmp

$(GEN)/%.skel.h: $(GEN)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name cpuprof_$* > $@

# bpf_loader.c and bpf_probe.c include the skeleton
$(O)/src/session/bpf_loader.o $(O)/src/session/bpf_probe.o: $(GEN)/profile.skel.h
# the CPython walker's harness, loaded by its unit test
$(O)/tests/unit/test_py_walk.o: $(GEN)/pywalk.skel.h

# ---- user space --------------------------------------------------------------------------
$(O)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BIN): $(OBJS) $(MAIN_OBJ) $(CMD_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

# ---- fixtures (frame pointers, so the stacks are known) ------------------------------------
# -O0: gcc drops the frame of leaf functions at -O1 and above even with -fno-omit-frame-pointer
FIXTURE_CFLAGS := -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
	-fno-optimize-sibling-calls
FIXTURES := $(addprefix $(O)/fixtures/,fix_tree fix_syscall fix_fork fix_dlopen fix_jit demo)
FIXTURE_EXTRA := $(O)/fixtures/libcpfix.so $(O)/fixtures/fix_nopie $(O)/fixtures/fix_shared \
	$(O)/fixtures/fix_inline

$(O)/fixtures/%: tests/fixtures/%.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(FIXTURE_CFLAGS) -o $@ $< -lpthread -ldl

$(O)/fixtures/libcpfix.so: tests/fixtures/libcpfix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -o $@ $<

# the same program as fix_tree.c, linked at a fixed address (ET_EXEC)
$(O)/fixtures/fix_nopie: tests/fixtures/fix_tree.c
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) $(FIXTURE_CFLAGS) -no-pie -fno-pie -o $@ $<

$(O)/fixtures/fix_shared: tests/fixtures/fix_shared_main.c $(O)/fixtures/libcpfix.so
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) $(FIXTURE_CFLAGS) -o $@ $< -L$(O)/fixtures -lcpfix -Wl,-rpath,'$$ORIGIN'

# optimised, so that the compiler inlines; frame pointers set up on entry (no sibling calls,
# no shrink-wrapping), so that frame-pointer stacks are whole
$(O)/fixtures/fix_inline: tests/fixtures/fix_inline.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -fno-shrink-wrap -o $@ $<

# Fake CPython objects (tests/fixtures/fake_python.c): the names py_detect looks for, with known
# values. In a directory of their own: the names are the library names a version is read from.
FAKEPY := $(O)/fixtures/fakepy
FAKEPY_FIXTURES := $(FAKEPY)/libpython3.12.so.1.0 $(FAKEPY)/libpython3.9.so.1.0 \
	$(FAKEPY)/libpython2.7.so.1.0 $(FAKEPY)/python3.13 $(FAKEPY)/libpython3.13t.so.1.0
FAKEPY_CC = $(Q)mkdir -p $(@D) && $(CC) -O0 -g -o $@ $< -fPIC
$(FAKEPY)/libpython3.12.so.1.0: tests/fixtures/fake_python.c
	$(call msg,FIXTURE,$@)
	$(FAKEPY_CC) -shared -DFAKE_PY_VERSION=0x030c01f0
$(FAKEPY)/libpython3.9.so.1.0: tests/fixtures/fake_python.c
	$(call msg,FIXTURE,$@)
	$(FAKEPY_CC) -shared
$(FAKEPY)/libpython2.7.so.1.0: tests/fixtures/fake_python.c
	$(call msg,FIXTURE,$@)
	$(FAKEPY_CC) -shared -DFAKE_PY27
$(FAKEPY)/libpython3.13t.so.1.0: tests/fixtures/fake_python.c
	$(call msg,FIXTURE,$@)
	$(FAKEPY_CC) -shared -DFAKE_PY_VERSION=0x030d00f0
# static-interpreter-like: an executable exporting its names, then stripped (only .dynsym left)
$(FAKEPY)/python3.13: tests/fixtures/fake_python.c
	$(call msg,FIXTURE,$@)
	$(FAKEPY_CC) -DFAKE_MAIN -DFAKE_DEBUG_OFFSETS=0x030d01f0 -DFAKE_PY_VERSION=0x030d01f0 \
		-rdynamic && strip $@

fixtures: $(FIXTURES) $(FIXTURE_EXTRA) $(FAKEPY_FIXTURES)

# --unwind dwarf: the known call tree and a 200-deep recursion without frame pointers; no
# sibling calls, so that every function of the tree keeps its frame on the stack
NOFP_FIXTURES := $(O)/fixtures/fix_tree_nofp $(O)/fixtures/fix_deep_nofp
$(O)/fixtures/fix_tree_nofp: tests/fixtures/fix_tree.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -o $@ $<

$(O)/fixtures/fix_deep_nofp: tests/fixtures/fix_deep.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -o $@ $<

# fix_tree_lfp: frame pointers everywhere but in leaf functions (gcc's -momit-leaf-frame-pointer),
# so that frame pointers lose the leaf's caller; fix_dlopen_nofp dlopen()s libcpfix_nofp.so,
# both without frame pointers; fix_signal: a long signal handler, without frame pointers
NOFP_FIXTURES += $(O)/fixtures/fix_tree_lfp $(O)/fixtures/fix_dlopen_nofp \
	$(O)/fixtures/libcpfix_nofp.so $(O)/fixtures/fix_signal
$(O)/fixtures/fix_tree_lfp: tests/fixtures/fix_tree.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -momit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o $@ $<

$(O)/fixtures/fix_dlopen_nofp: tests/fixtures/fix_dlopen.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls \
		-DCP_FIX_LIB='"libcpfix_nofp.so"' -o $@ $< -ldl

$(O)/fixtures/libcpfix_nofp.so: tests/fixtures/libcpfix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -fPIC -shared -o $@ $<

# fix_vdso: most samples in the vDSO (clock_gettime), without frame pointers
NOFP_FIXTURES += $(O)/fixtures/fix_vdso
$(O)/fixtures/fix_vdso: tests/fixtures/fix_vdso.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -o $@ $<

$(O)/fixtures/fix_signal: tests/fixtures/fix_signal.c tests/fixtures/fixture.h
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -o $@ $<

fixtures: $(NOFP_FIXTURES)

# ---- unwind tables: fixtures of test_unwind_table ------------------------------------------
# unw_nofp: -O2 -fomit-frame-pointer (CFA on rsp, a >32 KiB frame); unw_fp: the same with frame
# pointers (CFA on rbp); unw_ibt: IBT PLT (the second PLT expression); unw_dbgframe: CFI only in
# .debug_frame (.eh_frame and its header removed; never run).
UNW_FIXTURES := $(addprefix $(O)/fixtures/,unw_nofp unw_fp unw_ibt unw_dbgframe)

$(O)/fixtures/unw_nofp: tests/fixtures/unw_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -o $@ $<

$(O)/fixtures/unw_fp: tests/fixtures/unw_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $<

$(O)/fixtures/unw_ibt: tests/fixtures/unw_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -fcf-protection=full -Wl,-z,ibtplt -o $@ $<

$(O)/fixtures/unw_dbgframe: tests/fixtures/unw_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-o $@.tmp $<
	$(Q)objcopy -R .eh_frame -R .eh_frame_hdr $@.tmp $@
	$(Q)rm -f $@.tmp

fixtures: $(UNW_FIXTURES)

# ---- symbolization: DWARF fixtures (test_dwarf_index) and the benchmark --------------------
# inl_fix: -O2 -g with known inlining; .debug/.stripped: a separate debug file found through
# .gnu_debuglink (checked by build-id); .nolink: stripped, found only by build-id (the test
# builds the .build-id tree in a temporary root); .nobid*: no build-id, debuglink checked by
# CRC; .mini: stripped with MiniDebugInfo; .zlib/.zstd: compressed debug sections.
DWARF_FIX := $(O)/fixtures/inl_fix
DWARF_FIXTURES := $(DWARF_FIX) $(DWARF_FIX).debug $(DWARF_FIX).stripped $(DWARF_FIX).nolink \
	$(DWARF_FIX).nobid $(DWARF_FIX).nobid.stripped $(DWARF_FIX).mini $(DWARF_FIX).zlib \
	$(DWARF_FIX).zstd $(O)/fixtures/inl_fix_cxx

$(DWARF_FIX): tests/fixtures/inl_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -o $@ $<

$(DWARF_FIX).nobid: tests/fixtures/inl_fix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -Wl,--build-id=none -o $@ $<

$(O)/fixtures/inl_fix_cxx: tests/fixtures/inl_fix_cxx.cpp
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -g -o $@ $<

$(O)/fixtures/%.debug: $(O)/fixtures/%
	$(Q)objcopy --only-keep-debug $< $@

# debuglink names the debug file by its base name: it is looked for next to the object
$(O)/fixtures/%.stripped: $(O)/fixtures/% $(O)/fixtures/%.debug
	$(call msg,FIXTURE,$@)
	$(Q)cd $(@D) && objcopy --strip-all --add-gnu-debuglink=$*.debug $* $*.stripped

$(DWARF_FIX).nolink: $(DWARF_FIX)
	$(Q)objcopy --strip-all $< $@

# MiniDebugInfo as Fedora makes it: the symbol table alone, xz-compressed into .gnu_debugdata
$(DWARF_FIX).mini: $(DWARF_FIX)
	$(call msg,FIXTURE,$@)
	$(Q)objcopy --only-keep-debug --strip-debug -R .comment $< $@.syms
	$(Q)rm -f $@.syms.xz && xz -q $@.syms
	$(Q)objcopy --strip-all --add-section .gnu_debugdata=$@.syms.xz $< $@
	$(Q)rm -f $@.syms.xz

$(DWARF_FIX).zlib: $(DWARF_FIX)
	$(Q)objcopy --compress-debug-sections=zlib $< $@

$(DWARF_FIX).zstd: $(DWARF_FIX)
	$(Q)objcopy --compress-debug-sections=zstd $< $@

fixtures: $(DWARF_FIXTURES)

# Cold runs of cpuprof symbolize, addr2line and llvm-symbolizer on generated C and C++
# programs and on libc with its libc6-dbg debug file; corpora go to build/bench.
bench-symbolize: $(BIN)
	$(Q)scripts/install-bench-deps.sh
	$(Q)bench/symbolize.sh $(BIN) build/bench
.PHONY: bench-symbolize

# line_table against libdw's dwarf_getsrclines on every object of the machine with .debug_line
bench-line-check: $(O)/tests/test_line_table
	$(Q)bench/line_check.sh $(O)/tests/test_line_table /
.PHONY: bench-line-check

# BPF time per sample with --unwind fp and dwarf (kernel.bpf_stats_enabled), slowdown of a
# fixed-work program under cpuprof and perf record, unwind table build time (root).
bench-unwind: $(BIN)
	$(Q)scripts/install-bench-deps.sh
	$(Q)bench/unwind.sh $(BIN) build/bench

# 10 minutes of system-wide recording at 999 Hz while the machine rebuilds this tree, runs
# an exec storm and dlopen loops: RSS every 10 s, exit status, drops in the summary (root)
bench-soak: $(BIN) fixtures
	$(Q)bench/soak.sh $(BIN) $(O)/fixtures $(SOAK_SECONDS)
SOAK_SECONDS ?= 600
.PHONY: bench-soak

# one after the other also under -j: they time things
bench: $(BIN)
	$(Q)$(MAKE) --no-print-directory bench-symbolize
	$(Q)$(MAKE) --no-print-directory bench-unwind
.PHONY: bench-unwind bench

# ---- fuzzing ---------------------------------------------------------------------------------
# tests/fuzz/fuzz_*.c are libFuzzer harnesses of the parsers of files cpuprof did not write.
# make fuzz FUZZ_SECONDS=N builds them with clang (-fsanitize=fuzzer,address,undefined) into
# build/fuzz and runs each for N seconds on seeds from real files (scripts/fuzz.sh); a crash
# is saved under build/fuzz/crashes/ and belongs in tests/fuzz/regress/TARGET/ once fixed.
# make check runs every harness of its own build (gcc, and ASan+UBSan with SANITIZE=1) once
# on each file of tests/fuzz/regress/ and of the seeds, through tests/fuzz/standalone.c.
FUZZ_SECONDS ?= 60
FUZZ_O := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	-Isrc -Ibpf -I$(GEN) -MMD -MP
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(FUZZ_O)/fuzz_,$(FUZZ_NAMES))
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_O)/src/%.o,$(SRCS))

$(FUZZ_O)/%.o: %.c $(GEN)/profile.skel.h
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_O)/fuzz_%: $(FUZZ_O)/tests/fuzz/fuzz_%.o $(FUZZ_OBJS) scripts/link-objs.sh
	$(call msg,LINK,$@)
	$(Q)objs=$$(scripts/link-objs.sh $(FUZZ_O) $<) && \
		$(CLANG) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $$objs $(LIBS)

fuzz: $(FUZZ_BINS) fixtures
	$(Q)scripts/fuzz.sh $(FUZZ_O) $(FUZZ_SECONDS) $(O)/fixtures $(FUZZ_NAMES)

# the same harnesses as plain programs of this build, run over the regression corpus
REGRESS_BINS := $(addprefix $(O)/fuzz/regress_,$(FUZZ_NAMES))

$(O)/fuzz/regress_%: $(O)/tests/fuzz/fuzz_%.o $(O)/tests/fuzz/standalone.o $(OBJS) \
		scripts/link-objs.sh
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)objs=$$(scripts/link-objs.sh $(O) $<) && \
		$(CC) $(LDFLAGS_ALL) -o $@ $< $(O)/tests/fuzz/standalone.o $$objs $(LIBS)

fuzz-regress: $(REGRESS_BINS) fixtures
	$(Q)for t in $(FUZZ_NAMES); do \
		echo "  FUZZREG  $$t"; \
		$(O)/fuzz/regress_$$t tests/fuzz/regress/$$t $$(scripts/fuzz.sh --seeds $$t \
			$(O)/fixtures) >/dev/null || exit 1; \
	done
.PHONY: fuzz fuzz-regress

# ---- unit tests (cmocka); each links its module and that module's dependencies --------------
# The link list is derived, not kept by hand: scripts/link-objs.sh follows the compiler's
# dependency files from the test's object (a header src/STAGE/x.h brings src/STAGE/x.o, and
# what x.c includes in turn), so a test links exactly the modules its includes reach.
UNIT_TESTS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_*.c))

$(O)/tests/test_%: $(O)/tests/unit/test_%.o $(OBJS) scripts/link-objs.sh
	$(call msg,LINK,$@)
	$(Q)objs=$$(scripts/link-objs.sh $(O) $<) && \
		$(CC) $(LDFLAGS_ALL) -o $@ $< $$objs $(LIBS) -lcmocka

unit: $(UNIT_TESTS) fixtures
	$(Q)for t in $(UNIT_TESTS); do \
		echo "  UNIT     $$t"; \
		CPUPROF_FIXTURES=$(O)/fixtures CPUPROF_TESTDATA=tests/data $$t || exit 1; \
	done

e2e: cpuprof-built fixtures
	$(Q)CPUPROF=$(BIN) CPUPROF_FIXTURES=$(O)/fixtures tests/e2e/run.sh

cpuprof-built: $(BIN)
.PHONY: cpuprof-built fixtures

man-check: $(BIN)
	$(Q)CPUPROF=$(BIN) scripts/check-man-sync.sh

# Includes flow down the stages only (src/*/ folders); see scripts/check-layers.sh.
layer-check:
	$(call msg,LAYERS,check)
	$(Q)scripts/check-layers.sh

# The build does not drift: a change to any header of the BPF side rebuilds the BPF object
# and the skeleton (a dry run that pretends each header is new).
build-check: $(BIN)
	$(call msg,BUILD,check)
	$(Q)scripts/check-build.sh "$(MAKE)" $(BIN) $(GEN)

check: deps $(BIN) format-check layer-check build-check unit fuzz-regress json-check e2e \
	man-check
	@echo "make check: all tests passed"

# ---- demo --------------------------------------------------------------------------------
demo: all $(O)/fixtures/demo
	$(Q)scripts/demo.sh $(BIN) $(O)/fixtures/demo

# ---- install -----------------------------------------------------------------------------
install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/cpuprof
	install -m 0644 man/cpuprof.1 $(DESTDIR)$(MANDIR)/man1/cpuprof.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cpuprof $(DESTDIR)$(MANDIR)/man1/cpuprof.1

# ---- hygiene -----------------------------------------------------------------------------
FORMAT_FILES := $(wildcard src/*/*.[ch] cmd/*.[ch] bpf/*.[ch] tests/unit/*.[ch] tests/fixtures/*.[ch] \
	tests/fuzz/*.[ch])
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	$(call msg,FORMAT,check)
	$(Q)clang-format --dry-run -Werror $(FORMAT_FILES)

# cppcheck (Debian's) on the user-space code, with scripts/lint/ (suppressions, libbpf macros);
# any warning fails it. BPF code is checked by clang -Wall -Werror and the verifier.
LINT_FLAGS := --enable=warning,portability --error-exitcode=1 --inline-suppr --quiet \
	--suppressions-list=scripts/lint/suppressions.txt --std=c11 -D_GNU_SOURCE -D__x86_64__ \
	-Isrc -Ibpf -I$(GEN) --library=posix --library=scripts/lint/libbpf.cfg
lint: $(GEN)/profile.skel.h
	$(call msg,LINT,src cmd)
	$(Q)cppcheck $(LINT_FLAGS) -j2 src cmd

print-toolchain:
	@$(CLANG) --version | head -1; $(BPFTOOL) version | head -2; \
	echo "libbpf $$(pkg-config --modversion libbpf)"; echo "libdw $$(pkg-config --modversion libdw)"

clean:
	rm -rf build cpuprof

-include $(shell find $(O) $(GEN) $(FUZZ_O) -name '*.d' 2>/dev/null)

# ---- JSON output: validation against speedscope's schema and ours (node packages in build/node)
# node-deps: pinned speedscope + ajv via npm (quiet when present); json-check: the JSON unit
# test's documents through scripts/validate-json.js. tests/e2e/t_json.sh needs node-deps too.
.PHONY: node-deps json-check
node-deps:
	$(Q)scripts/install-node-deps.sh

json-check: node-deps $(O)/tests/test_json_out
	$(Q)tests/json/run.sh $(O)/tests/test_json_out
