#!/bin/sh
# storage_table.sh - the storage table of docs/storage.md: for every bundled
# kernel (generated/<k>.h), the bytes of the static storage TG_CORE_STATIC
# gives it (sizeof, from a compiled program) next to its plan's peaks.
# Usage: tools/storage_table.sh [CC]; prints a Markdown table.
set -eu
CC=${1:-cc}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo '#include <stdio.h>'
  for h in "$here"/generated/*.h; do echo "#include \"$(basename "$h")\""; done
  echo 'int main(void) {'
  for h in "$here"/generated/*.h; do
    k=$(basename "$h" .h); K=$(echo "$k" | tr a-z A-Z)
    printf '%s\n' "  { TG_CORE_STATIC(c_$k, ${K}_CORE_BYTES); (void)c_$k;" \
      '    printf("| %s | %zu | %zu | %zu | %zu | %zu |\n", "'"$k"'", (size_t)'"${K}"'_SBUF_PEAK_BYTES,' \
      "           (size_t)${K}_PSUM_PEAK_BANKS, ${K}_SBUF_BYTES + ${K}_PSUM_BYTES, ${K}_PE_BYTES, sizeof c_${k}_storage); }"
  done
  echo '  return 0; }'
} >"$work/t.c"
$CC -std=c11 -Wall -Werror -I"$here/runtime" -I"$here/generated" "$work/t.c" -o "$work/t"
echo "| kernel | SBUF peak (bytes/partition) | PSUM peak (banks) | rows x 128 partitions | PE staging | sizeof storage |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
"$work/t"
