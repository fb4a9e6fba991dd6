#!/bin/sh
# Differential tests of ctemplate against python3-jinja2 (see run.py).
# Usage: TILEGEN=bin/tilegen PYTHON=/usr/bin/python3 tests/tpl/run.sh
exec "${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/run.py" "${TILEGEN:-bin/tilegen}"
