# Shared test plumbing. Each module declares its own suites (SUITES += name and
# a suite-name target) in its fragment; a cmocka binary runs through
# tests/cmocka_count.sh so that every suite reports "N passed, M failed".
CMOCKA_LIBS = -lcmocka

# The numpy references of the bundled kernels check themselves: exact dtype
# encoders, deterministic inputs, each reference within its own tolerance.
SUITES += numerics-refs
suite-numerics-refs:
	@$(PYTHON) tests/numerics/refs.py selftest
