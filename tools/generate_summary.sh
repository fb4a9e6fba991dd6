#!/bin/sh
# The closing table of `make generate`: for each generated kernel, its tensors,
# its planned SBUF/PSUM peak (from generated/<k>.h) and whether the generated C,
# built and run on seeded inputs, matches the numpy reference (tests/numerics).
# Env: TILEGEN, PYTHON, CC, BUILD as for tests/numerics/check.sh.
here=$(dirname "$0")/..
kernels=$(for f in "$here"/generated/*.h; do basename "$f" .h; done)
log=${BUILD:-build}/generate-check.log
mkdir -p "$(dirname "$log")"
GEN_DIR="$here/generated" "$here/tests/numerics/check.sh" $kernels >"$log" 2>&1
printf '%-16s %-62s %12s %5s  %s\n' kernel tensors "SBUF B/part" PSUM "numpy reference"
for k in $kernels; do
  h="$here/generated/$k.h"
  up=$(echo "$k" | tr a-z A-Z)
  sb=$(sed -n "s/^#define ${up}_SBUF_PEAK_BYTES //p" "$h")
  ps=$(sed -n "s/^#define ${up}_PSUM_PEAK_BANKS //p" "$h")
  tens=$(sed -n 's/^ \*   \([A-Za-z_0-9]*\): [a-z0-9]* \(\[[0-9, ]*\]\).*/\1\2/p' "$h" | tr -d ' ' | tr '\n' ' ')
  if grep -q "^\[       OK \] $k\$" "$log"; then
    if grep -E "^  $k: " "$log" | grep -vq 'exact'; then how="matches (within tolerance)"
    else how="matches (bit-exact)"; fi
  else
    how="MISMATCH (see $log)"
  fi
  printf '%-16s %-62s %12s %5s  %s\n' "$k" "$tens" "$sb" "$ps" "$how"
done
tail -n 1 "$log" | grep -q ' 0 failed$'
