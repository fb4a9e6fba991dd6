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
