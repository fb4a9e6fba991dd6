#!/bin/sh
# The closing table of `make generate`: for each generated kernel, its tensors,
# its planned SBUF/PSUM peak (from generated/<k>.h) and whether the generated C,
# built and run on seeded inputs, matches the numpy reference (tests/numerics).
# Env: TILEGEN, PYTHON, CC, BUILD as for tests/numerics/check.sh.
here=$(dirname "$0")/..
kernels=$(for f in "$here"/generated/*.h; do basename "$f" .h; done)
log=${BUILD:-build}/generate-check.log
mkdir -p "$(dirname "$log")"
# One check.sh per core, each on every n-th kernel in its own scratch tree
# (it builds the runtime objects there); their logs joined into $log.
n=$(nproc 2>/dev/null || echo 1)
i=0
while [ $i -lt "$n" ]; do
  part=$(echo $kernels | tr ' ' '\n' | awk -v n="$n" -v i=$i '(NR - 1) % n == i')
  # the strict -std=c99 gcc/clang builds are make test's (gen-numerics); here
  # each kernel is built once, by the harness at -O0 (its bits do not depend
  # on the flags: numerics-flags; a run's time is mostly in the runtime's
  # objects, the Makefile's -O2 ones, so -O0 is the quickest in all), and run
  [ -n "$part" ] && STRICT_CCS= HARNESS_OPT=-O0 BUILD=${BUILD:-build}/generate-$i GEN_DIR="$here/generated" \
    "$here/tests/numerics/check.sh" $part >"$log.$i" 2>&1 &
  i=$((i + 1))
done
wait
cat "$log".* >"$log"
failed=$(cat "$log".* | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
rm -f "$log".*
printf '%-16s %-62s %12s %5s  %s\n' kernel tensors "SBUF B/part" PSUM "numpy reference"
for k in $kernels; do
  h="$here/generated/$k.h"
  up=$(echo "$k" | tr a-z A-Z)
  sb=$(sed -n "s/^#define ${up}_SBUF_PEAK_BYTES //p" "$h")
  ps=$(sed -n "s/^#define ${up}_PSUM_PEAK_BANKS //p" "$h")
  tens=$(sed -n 's/^ \*   \([A-Za-z_0-9]*\): [a-z0-9_]* \(\[[0-9, ]*\]\).*/\1\2/p' "$h" | tr -d ' ' | tr '\n' ' ')
  if grep -q "^\[       OK \] $k\$" "$log"; then
    if grep -E "^  $k: " "$log" | grep -vq 'exact'; then how="matches (within tolerance)"
    else how="matches (bit-exact)"; fi
  else
    how="MISMATCH (see $log)"
  fi
  printf '%-16s %-62s %12s %5s  %s\n' "$k" "$tens" "$sb" "$ps" "$how"
done
[ "$failed" = 0 ] && [ "$(grep -c '^\[       OK \]' "$log")" = "$(echo $kernels | wc -w)" ]
