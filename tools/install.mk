# make install / uninstall (GNU conventions: PREFIX, DESTDIR). Installs
# tilegen (its template search ends at PREFIX/share/tilegen/templates), the
# runtime library libtgrt.a, its headers, tgrt.pc, the make fragment and the
# CMake helper and the man page; uninstall removes exactly those files. Suite: install.
PREFIX ?= /usr/local
DESTDIR ?=
TG_VERSION = $(shell sed -n 's/^\#define TILEGEN_VERSION "\(.*\)"/\1/p' gen/version.h)
TG_INST_TPLDIR = $(PREFIX)/share/tilegen/templates

# libtgrt.a: the freestanding runtime (core, dtype, math, alu, ops, prog, iss,
# the timing model), the objects bin/tilegen links: portable by default
# (tg_ops.o picks its SIMD body at run time), `make install NATIVE=1` for this
# machine's CPU only. Host helpers
# (runtime/host/tg_npy.c, stdio) are the test harness's and not installed.
TGRT_LIB := $(BUILD)/lib/libtgrt.a
$(TGRT_LIB): $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $(sort $^)

# The installed tilegen: the same objects, gen/pipeline.c built with the install's
# template directory as the last place searched (rebuilt each install: PREFIX
# is a command-line choice).
TG_INST_DIR := $(BUILD)/install
.PHONY: FORCE-install
$(TG_INST_DIR)/pipeline.o: gen/pipeline.c FORCE-install | $(TILEGEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) '-DTILEGEN_TEMPLATE_DIR="$(TG_INST_TPLDIR)"' -c $< -o $@
$(TG_INST_DIR)/tilegen: $(filter-out $(BUILD)/gen/pipeline.o,$(GEN_OBJS)) $(TG_INST_DIR)/pipeline.o \
                        $(TPL_OBJS) $(RT_HOST_OBJS) $(RT_OBJS)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lyaml -lm

# Installed files, relative to PREFIX (uninstall removes exactly these).
TG_INST_HEADERS := $(notdir $(wildcard runtime/*.h)) tg_isa.def
TG_INST_FILES = bin/tilegen lib/libtgrt.a lib/pkgconfig/tgrt.pc \
                $(addprefix include/tilegen/,$(TG_INST_HEADERS)) \
                $(addprefix share/tilegen/templates/,$(notdir $(wildcard templates/*.j2))) \
                share/tilegen/tilegen.mk lib/cmake/tilegen/tilegen.cmake share/man/man1/tilegen.1
# Directories install creates for tilegen alone (removed when empty).
TG_INST_OWNDIRS = share/tilegen/templates share/tilegen include/tilegen lib/cmake/tilegen

.PHONY: install uninstall
install: $(TG_INST_DIR)/tilegen $(TGRT_LIB)
	@d='$(DESTDIR)$(PREFIX)'; set -e; \
	mkdir -p "$$d/bin" "$$d/lib/pkgconfig" "$$d/lib/cmake/tilegen" "$$d/include/tilegen" \
	         "$$d/share/tilegen/templates" "$$d/share/man/man1"; \
	install -m 755 $(TG_INST_DIR)/tilegen "$$d/bin/tilegen"; \
	install -m 644 $(TGRT_LIB) "$$d/lib/libtgrt.a"; \
	install -m 644 $(addprefix runtime/,$(TG_INST_HEADERS)) "$$d/include/tilegen/"; \
	install -m 644 templates/*.j2 "$$d/share/tilegen/templates/"; \
	install -m 644 docs/tilegen.1 "$$d/share/man/man1/tilegen.1"; \
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(TG_VERSION)|g' tools/tgrt.pc.in >"$$d/lib/pkgconfig/tgrt.pc"; \
	sed -e 's|@PREFIX@|$(PREFIX)|g' tools/tilegen.mk.in >"$$d/share/tilegen/tilegen.mk"; \
	sed -e 's|@PREFIX@|$(PREFIX)|g' tools/tilegen.cmake.in >"$$d/lib/cmake/tilegen/tilegen.cmake"; \
	echo "installed tilegen $(TG_VERSION) into $$d"

uninstall:
	@d='$(DESTDIR)$(PREFIX)'; \
	for f in $(TG_INST_FILES); do rm -f "$$d/$$f"; done; \
	for o in $(TG_INST_OWNDIRS); do [ ! -d "$$d/$$o" ] || rmdir "$$d/$$o" 2>/dev/null || \
	  echo "uninstall: $$d/$$o not empty, kept"; done; \
	echo "removed tilegen from $$d"

# `make install` into a temporary prefix, the tree checked file by file, the
# host example (examples/host) built with pkg-config and the installed make
# fragment alone, run and checked; the CMake helper likewise when cmake is
# installed; then `make uninstall` leaves no file behind.
SUITES += install
.PHONY: suite-install
suite-install: $(TILEGEN) $(TGRT_LIB)
	@MAKE="$(MAKE)" BUILD=$(BUILD) SAN="$(SAN)" tests/cli/install.sh
