# Shared test plumbing. Each module declares its own suites (SUITES += name and
# a suite-name target) in its fragment; a cmocka binary runs through
# tests/cmocka_count.sh so that every suite reports "N passed, M failed".
CMOCKA_LIBS = -lcmocka

# The numpy references of the bundled kernels check themselves: exact dtype
# encoders, deterministic inputs, each reference within its own tolerance.
SUITES += numerics-refs
suite-numerics-refs:
	@$(PYTHON) tests/numerics/refs.py selftest

# The timing model's calibration and validation cases (tests/cost/README.md):
# the NKI matmul tutorial's four kernels (examples/) and the DMA transfers of
# the NKI guides (tests/cost/specs/) check and generate at their published
# size, run on the ISS at reduced sizes against numpy, and published.tsv names
# specs that exist and check.
SUITES += cost-specs
suite-cost-specs: $(TILEGEN)
	@TILEGEN=$(TILEGEN) $(PYTHON) tests/cost/run.py $(BUILD)/cost-specs

# Bit identity whatever the caller's flags: every bundled kernel (generated/)
# and the runtime built under a matrix of compilers and flags (gcc and clang,
# -O0..-O3, -std=gnu11, -march=native, -ffp-contract=fast), outputs compared
# bit for bit with the reference build (tests/numerics/flags_check.sh).
FLAGS_KERNELS = $(patsubst specs/%.yaml,%,$(wildcard specs/*.yaml))

# docs/storage.md's table is what tools/storage_table.sh gives for generated/.
SUITES += storage-doc
.PHONY: suite-storage-doc
suite-storage-doc:
	@mkdir -p $(BUILD); tools/storage_table.sh $(CC) >$(BUILD)/storage-table.md && \
	if grep -F -x -f $(BUILD)/storage-table.md docs/storage.md | cmp -s - $(BUILD)/storage-table.md; then \
	  echo "[       OK ] docs/storage.md lists every bundled kernel's storage"; echo "1 passed, 0 failed"; \
	else echo "[  FAILED  ] docs/storage.md differs from tools/storage_table.sh:"; \
	  diff $(BUILD)/storage-table.md docs/storage.md | head; echo "0 passed, 1 failed"; fi

# Bit identity across architectures: every bundled kernel and the runtime
# built for aarch64 (static, NEON) and run under qemu-aarch64, outputs compared
# bit for bit with the x86-64 build (tests/numerics/cross_check.sh).
SUITES += cross-aarch64
.PHONY: suite-cross-aarch64
suite-cross-aarch64:
	@PYTHON=$(PYTHON) BUILD=$(BUILD) tests/numerics/cross_check.sh $(FLAGS_KERNELS)
SUITES += numerics-flags
.PHONY: suite-numerics-flags
suite-numerics-flags:
	@PYTHON=$(PYTHON) BUILD=$(BUILD) tests/numerics/flags_check.sh $(FLAGS_KERNELS)
