#!/bin/sh
# make bench-tpl: ctemplate vs python3-jinja2 on the same loop-heavy template.
exec "${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/bench.py" "${TILEGEN:-bin/tilegen}" "${BUILD:-build}/bench-tpl" "${TPL_BENCH:?}"
