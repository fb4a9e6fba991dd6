# Shared test plumbing. Each module declares its own suites (SUITES += name and
# a suite-name target) in its fragment; a cmocka binary runs through
# tests/cmocka_count.sh so that every suite reports "N passed, M failed".
CMOCKA_LIBS = -lcmocka
