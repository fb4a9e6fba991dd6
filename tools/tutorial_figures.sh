#!/bin/sh
# tools/tutorial_figures.sh - regenerate docs/tutorial.md's timelines
# (docs/img/tutorial/matmul_<variant>.svg) and print each variant's profile
# summary, as the tutorial quotes them. Usage: tools/tutorial_figures.sh [TILEGEN]
set -e
T=${1:-bin/tilegen}
mkdir -p docs/img/tutorial
for v in tiled hoist_load block_free fully_blocked; do
  echo "== examples/matmul_$v.yaml"
  "$T" profile "examples/matmul_$v.yaml" --top 3 --svg "docs/img/tutorial/matmul_$v.svg"
done
