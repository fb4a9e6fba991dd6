#!/bin/sh
# simd_clean.sh OBJ... — in each object, a function of an AVX2 or AVX-512 body
# (a name with _avx2 or _avx512) that calls or tail-jumps to another function
# of the object outside those bodies must clear the vector registers' upper
# halves first (TG_SIMD_CLEAN, runtime/tg_simd.h): gcc 12 leaves its own
# vzeroupper out before a call to a static function, and legacy SSE code run
# with dirty upper halves is slow on AMD's cores (docs/numerics.md "Lanes").
# Walking back from the call: a vzeroupper before any 256- or 512-bit register
# is clean. Prints one line per object and "N passed, M failed".
p=0; f=0
for o in "$@"; do
  if out=$(objdump -d --no-show-raw-insn "$o" | awk '
    /^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); n = 0; next }
    { line[++n] = $0 }
    /\t(call|jmp) +[0-9a-f]+ <[^>+]+>$/ && fn ~ /_avx(2|512)/ {
      t = $NF; gsub(/[<>]/, "", t)
      if (t ~ /_avx(2|512)/ || t == fn) next
      for (i = n - 1; i >= 1; i--) {
        if (line[i] ~ /vzeroupper/) break
        if (line[i] ~ /%[yz]mm/) { printf "%s calls %s with the upper halves dirty\n", fn, t; bad++; break }
      }
    }
    END { exit bad > 0 }'); then
    echo "ok: $o"; p=$((p + 1))
  else
    echo "FAIL: $o: $out"; f=$((f + 1))
  fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
