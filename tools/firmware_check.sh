#!/bin/sh
# make firmware-check: the runtime (core, ops, ISS) and every generated kernel compiled as
# firmware would, with the host compilers and, when installed, arm-none-eabi-gcc
# (Cortex-M4F, hard float): -std=c99 -ffreestanding -nostdlib -Werror. Then
# `nm -u` on each object: beyond memcpy/memset and the runtime's own tg_*
# symbols, only compiler-support routines (libgcc's __aeabi_* / __*df*) may
# remain — no malloc, stdio, exit or libm. Ends with "N passed, M failed".
# (examples/firmware links and runs a kernel on a Cortex-M4F under QEMU:
# suite firmware-qemu.)
here=$(dirname "$0")/..
RT="tg_core tg_dtype tg_math tg_alu tg_ops tg_prog tg_iss tg_iss_row"
FLAGS="-std=c99 -ffreestanding -nostdlib -Wall -Wextra -Wpedantic -Werror -Wshadow -Wundef -ffp-contract=off -O2"
work=${BUILD:-build}/firmware
mkdir -p "$work"
pass=0; fail=0
ccs="gcc clang"
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  ccs="$ccs arm-none-eabi-gcc"
else
  echo "arm-none-eabi-gcc not installed: cross build skipped (apt-get install gcc-arm-none-eabi)"
fi
for cc in $ccs; do
  command -v "$cc" >/dev/null 2>&1 || continue
  extra=
  [ "$cc" = arm-none-eabi-gcc ] && extra="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
  srcs=
  for s in $RT; do srcs="$srcs $here/runtime/$s.c"; done
  for g in "$here"/generated/*.c; do srcs="$srcs $g"; done
  for src in $srcs; do
    obj=$work/$cc-$(basename "$src" .c).o
    if ! $cc $FLAGS $extra -I"$here/runtime" -I"$here/generated" -c "$src" -o "$obj" 2>"$obj.log"; then
      fail=$((fail+1)); echo "FAIL $cc $src does not build freestanding"; head -5 "$obj.log"; continue
    fi
    bad=$(nm -u "$obj" | awk '{print $NF}' | grep -v -x -e memcpy -e memset | grep -v '^tg_' |
          grep -v -E '^__(aeabi_|[a-z]+[sdt]f[0-9]?$|[a-z]+[sd]i[0-9]?$)')
    if [ -n "$bad" ]; then
      fail=$((fail+1)); echo "FAIL $cc $(basename "$src"): needs $(echo $bad)"
    else
      pass=$((pass+1))
      helpers=$(nm -u "$obj" | awk '{print $NF}' | grep -E '^__' | tr '\n' ' ')
      [ -n "$helpers" ] && echo "ok $cc $(basename "$src") (compiler support: $helpers)"
    fi
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
