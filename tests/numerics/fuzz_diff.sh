#!/bin/sh
# fuzz_diff.sh - differential fuzzer: for each seed, fuzz_diff.py writes a
# random valid spec and random inputs (NaN, infinities, -0 included), `tilegen
# gen` + `tilegen asm` build it, the harness iss_agree.c runs the C simulation
# and the ISS and compares every output bit for bit. A failure keeps spec and
# inputs in $BUILD/fuzz-diff/fail-SEED/. Ends with "N passed, M failed".
# Seeds: SEEDS="1 2 3", else FUZZ_DIFF_N seeds from FUZZ_DIFF_START (default
# 20 from 1). A spec `tilegen check` rejects is retried with the next attempt
# (seed*100+k, up to 5); the rejection count is reported. JOBS parallel runs.
# A failure is tagged [nan-bits] when every differing element is a NaN on both
# sides, else [values]; FUZZ_DIFF_NANBITS=ignore counts [nan-bits] seeds apart
# (kept in fail-SEED, not failed), for long runs hunting other bugs.
# A spec may come with `-D NAME=VALUE` overrides (DIR/defines) for check and
# the later phases. SPEC.md §2.1: a spec `tilegen check` accepts is one that
# `gen`, `asm`, `run` and `profile` accept, so a refusal by any of them fails
# the seed, and so does a `tilegen run` whose outputs (on the same inputs)
# differ from the ISS's in the harness. Also reports which ops, dtypes and
# features (DIR/features: ragged partitions and free dims, short DMAs,
# triangular loops, broadcast rows, float-valued expressions) the passing
# specs covered. Specs are generated FUZZ_DIFF_BATCH (25) at a time per
# worker, one Python start each.
# Env: TILEGEN, PYTHON, CC, BUILD, JOBS (default 2), RTOBJS (runtime objects
# to link; default: compile runtime/ into $BUILD/fuzz-diff/rt), FUZZ_DIFF_OPT
# (the harness's optimization flag, default -O2; results must not depend on
# it, numerics-flags), FUZZ_DIFF_NATIVE (added to every odd seed's kernel
# build, as users build it; default -march=native where $CC takes it: gcc's
# SSE4.1 folds once changed a bit), FUZZ_DIFF_UNTIL (a time in seconds since
# the epoch: no new batch starts after it; the summary counts the seeds run).
# Seeds 2 mod 4 run the baseline SIMD bodies (TG_SIMD_CAP=1, iss_agree.c), seeds
# 4 mod 8 at most the AVX2 ones (TG_SIMD_CAP=2), the others the CPU's widest.
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
work=$BUILD/fuzz-diff
mkdir -p "$work/rt" || exit 2
HOSTFLAGS="-std=c11 ${FUZZ_DIFF_OPT:--O2} -ffp-contract=off -Wall -Wextra -Werror -I$root/runtime -I$root/runtime/host"
if [ -z "${FUZZ_DIFF_NATIVE+set}" ]; then
  FUZZ_DIFF_NATIVE=; echo 'int main(void) { return 0; }' >"$work/native.c"
  $CC -march=native -c "$work/native.c" -o "$work/native.o" 2>/dev/null && FUZZ_DIFF_NATIVE=-march=native
fi

# one seed: prints "PASS seed", "FAIL seed why"; counts rejections as
# "REJECTED seed attempt message". A spec pre-generated in $work/pre/SEED is
# used for the first attempt.
one() {
  seed=$1; d=$work/s$seed; rm -rf "$d" "$work/fail-$seed"; mkdir -p "$d"
  k=0; s=$seed
  while :; do
    rm -rf "$d/in"
    if [ $k = 0 ] && [ -f "$work/pre/$seed/fz.yaml" ]; then mv "$work/pre/$seed" "$d/in"; : >"$d/log"
    else
      mkdir -p "$d/in"
      "$PYTHON" "$here/fuzz_diff.py" gen "$s" "$d/in" >"$d/log" 2>&1 || { echo "FAIL $seed fuzz_diff.py failed"; return; }
    fi
    defs=$(cat "$d/in/defines")
    # shellcheck disable=SC2086 # defs is a list of arguments
    if "$TILEGEN" check $defs "$d/in/fz.yaml" >>"$d/log" 2>&1; then break; fi
    echo "REJECTED $seed $s $(grep -m1 -o 'error\[E[0-9]*\].*' "$d/log")"
    k=$((k+1)); [ $k -ge 5 ] && { echo "FAIL $seed every attempt rejected"; return; }
    s=$((seed*100+k))
  done
  why=; mkdir -p "$d/gen" "$d/r"
  kflags=; [ $((seed % 2)) = 1 ] && kflags=$FUZZ_DIFF_NATIVE
  cap=; [ $((seed % 4)) = 2 ] && cap=1 # the baseline bodies (iss_agree.c)
  [ $((seed % 8)) = 4 ] && cap=2 # at most the AVX2 bodies
  ins=; for f in "$d/in"/x*.npy; do [ -f "$f" ] && ins="$ins --in $(basename "$f" .npy)=$f"; done
  outs=$(sed -n '/^outputs:/,/^[a-z]/s/^  \(y[0-9]*\):.*/\1/p' "$d/in/fz.yaml")
  outargs=; for y in $outs; do outargs="$outargs --out $y=$d/r/$y.npy"; done
  # shellcheck disable=SC2086
  if ! "$TILEGEN" gen $defs -o "$d/gen" "$d/in/fz.yaml" >>"$d/log" 2>&1; then
    why="tilegen gen refused a checked spec: $(grep -m1 -o 'error\[E[0-9]*\].*' "$d/log")"
  elif ! "$TILEGEN" asm "$d/gen/fz.s" -o "$d/fz.bin" >>"$d/log" 2>&1; then
    why="tilegen asm refused gen's listing: $(grep -m1 -o 'error\[[EA][0-9]*\].*' "$d/log")"
  elif ! "$TILEGEN" run $defs $ins $outargs "$d/in/fz.yaml" >"$d/run.log" 2>&1; then
    why="tilegen run refused a checked spec: $(grep -m1 'error' "$d/run.log")"
  elif ! "$TILEGEN" profile $defs "$d/in/fz.yaml" >"$d/profile.log" 2>&1; then
    why="tilegen profile refused a checked spec: $(grep -m1 'error' "$d/profile.log")"
  elif ! { $CC $HOSTFLAGS $kflags -I"$d/gen" -c "$d/gen/fz.c" -o "$d/fz.o" &&
            $CC $HOSTFLAGS "$work/iss_agree.o" "$d/fz.o" $rtobjs -o "$d/agree"; } >>"$d/log" 2>&1; then
    why="harness build failed"
  elif ! TG_SIMD_CAP=$cap "$d/agree" "$d/in" 1 "$d/fz.bin" >"$d/agree.log" 2>&1; then why="C simulation and ISS disagree: $(grep -m1 'differ\|returned' "$d/agree.log")"
  else
    for y in $outs; do
      cmp -s "$d/in/$y.npy" "$d/r/$y.npy" || { why="tilegen run's $y differs from the ISS's in the harness"; break; }
    done
  fi
  cat "$d/run.log" "$d/profile.log" >>"$d/log" 2>/dev/null
  if [ -n "$why" ] && [ -x "$d/agree" ]; then
    # the C simulation's own outputs (run_kernel.c), to say what differs
    mkdir -p "$d/c"; cp "$d/in/"*.npy "$d/c/"
    if $CC $HOSTFLAGS $kflags -I"$d/gen" '-DKERNEL_H="fz.h"' -DKERNEL_DESC=fz_kernel "$here/run_kernel.c" "$d/gen/fz.c" \
         $rtobjs -o "$d/run" >>"$d/log" 2>&1 && "$d/run" "$d/c" >>"$d/log" 2>&1; then
      "$PYTHON" "$here/fuzz_diff.py" classify "$d/in" "$d/c" >"$d/classify.log" 2>&1
      why="$why [$(sed -n 's/^kind: //p' "$d/classify.log")]"
    fi
  fi
  if [ -n "$why" ]; then
    [ -n "$kflags" ] && why="$why (kernel built with $kflags)"
    [ -n "$cap" ] && why="$why (TG_SIMD_CAP=$cap: bodies up to level $cap, tg_matmul_isa)"
    f=$work/fail-$seed; rm -rf "$f"; mkdir -p "$f"
    cp "$d/classify.log" "$f/" 2>/dev/null
    cp "$d/in/"* "$f/"; cp "$d/log" "$d/agree.log" "$f/" 2>/dev/null
    [ "$s" != "$seed" ] && echo "$s" >"$f/attempt-seed"
    case "$FUZZ_DIFF_NANBITS:$why" in
      ignore:*"[nan-bits]") echo "NANONLY $seed" ;;
      *) echo "FAIL $seed $why" ;;
    esac
  else
    echo "PASS $seed"
    # what the C back end transformed (the comments it leaves, docs/ir.md)
    for t in forwarded sunk folded; do echo "COVER $t $(grep -c "$t" "$d/gen/fz.c")"; done
    echo "COVER sunkread $(grep -c "its other readers read it there" "$d/gen/fz.c")"
    echo "COVER rowlocal $(grep -c "row-local (docs/ir.md)" "$d/gen/fz.c")"
    echo "COVER staged $(grep -c "tg_stage2_" "$d/gen/fz.c")"
    echo "COVER dead $(grep -c "dropped: nothing reads tile" "$d/gen/fz.c")"
    echo "COVER discard $(grep -c "(void)tg_d; /\* nothing reads" "$d/gen/fz.c")"
    echo "COVER overwritten $(grep -c "dropped: the next instruction on tile" "$d/gen/fz.c")"
    echo "COVER square $(grep -c "if (!tg_slow)" "$d/gen/fz.c")"
    echo "COVER iterlanes $(grep -c "every iteration of the loop above: lanes" "$d/gen/fz.c")"
    echo "COVER konst $(grep -c "read as the number its memset wrote" "$d/gen/fz.c")"
    echo "COVER chain $(grep -c "one loop (a chain" "$d/gen/fz.c")"
    echo "COVER kept $(grep -c "kept for the later ones instead of stored" "$d/gen/fz.c")"
    echo "COVER rawnan $(grep -cE "tg_x = tg_alu_raw_|tg_v[0-9]+ = tg_alu_raw_|tg_wr_f32\(tg_d, [^,]+, tg_alu_raw_" "$d/gen/fz.c")"
    # what the spec used: ops, dtypes, trn2, -D, carried loops, SPEC.md features
    { sed -n 's/^ *- \([a-z_0-9]*\):.*/\1/p' "$d/in/fz.yaml"; grep -o 'dtype: [a-z0-9_]*' "$d/in/fz.yaml" | cut -c8-
      cat "$d/in/features"
      grep -q '^target: trn2' "$d/in/fz.yaml" && echo target-trn2
      [ -n "$defs" ] && echo D-override; grep -q 'carried: true' "$d/in/fz.yaml" && echo carried-loop
    } | sort -u | sed 's/^/USES /'
  fi
  rm -rf "$d"
}

rtobjs=$RTOBJS
[ -z "$rtobjs" ] && for s in "$root"/runtime/*.c "$root"/runtime/host/tg_npy.c; do
  o=$work/rt/$(basename "$s" .c).o
  $CC $HOSTFLAGS -c "$s" -o "$o" || { echo "cannot build $s"; echo "0 passed, 1 failed"; exit 1; }
  rtobjs="$rtobjs $o"
done

# the harness, built once: each seed's kernel object is linked to it
$CC $HOSTFLAGS -DKERNEL_DESC=fz_kernel -c "$here/iss_agree.c" -o "$work/iss_agree.o" ||
  { echo "cannot build iss_agree.c"; echo "0 passed, 1 failed"; exit 1; }

if [ -z "$SEEDS" ]; then
  SEEDS=$(seq "${FUZZ_DIFF_START:-1}" $(( ${FUZZ_DIFF_START:-1} + ${FUZZ_DIFF_N:-20} - 1 )))
fi
res=$work/results.$$
: >"$res"
# JOBS workers, worker w takes every JOBS-th seed, generating them in batches
B=${FUZZ_DIFF_BATCH:-25}
rm -rf "$work/pre"; mkdir -p "$work/pre"
w=0
while [ $w -lt "$JOBS" ]; do
  (
    i=0; mine=
    for seed in $SEEDS; do
      [ $((i % JOBS)) = $w ] && mine="$mine $seed"
      i=$((i+1))
    done
    # shellcheck disable=SC2086 # a list of seeds
    set -- $mine
    while [ $# -gt 0 ]; do
      # shellcheck disable=SC2086
      [ -n "$FUZZ_DIFF_UNTIL" ] && [ "$(date +%s)" -ge "$FUZZ_DIFF_UNTIL" ] && { echo "STOPPED $*"; break; }
      batch=; n=0
      while [ $# -gt 0 ] && [ $n -lt "$B" ]; do batch="$batch $1"; shift; n=$((n+1)); done
      # shellcheck disable=SC2086
      "$PYTHON" "$here/fuzz_diff.py" gen-batch "$work/pre" $batch >/dev/null 2>&1
      for seed in $batch; do one "$seed"; done
    done >"$res.$w"
  ) &
  w=$((w+1))
done
wait
cat "$res".* >"$res"; rm -f "$res".*
grep '^FAIL' "$res" | sort -n -k2 | while read -r _ seed why; do
  echo "[  FAILED  ] seed $seed: $why (kept in $work/fail-$seed)"
done
nanonly=$(grep -c '^NANONLY' "$res")
[ "$nanonly" != 0 ] && echo "disagreeing only in NaN payload/sign bits (FUZZ_DIFF_NANBITS=ignore): $nanonly, seeds $(grep '^NANONLY' "$res" | cut -d' ' -f2 | sort -n | tr '\n' ' ')"
pass=$(grep -c '^PASS' "$res"); fail=$(grep -c '^FAIL' "$res"); rej=$(grep -c '^REJECTED' "$res")
stopped=$(grep '^STOPPED' "$res" | wc -w); stopped=$((stopped - $(grep -c '^STOPPED' "$res")))
[ "$stopped" != 0 ] && echo "FUZZ_DIFF_UNTIL reached: $stopped seeds not run; $((pass + fail)) specs run"
echo "specs rejected by tilegen check and regenerated: $rej (of $((pass + fail + rej)) generated)"
grep '^REJECTED' "$res" | cut -d' ' -f4- | sed 's/[^:]*:[0-9]*:[0-9]*: //' | sort | uniq -c | sort -rn | sed 's/^/  /'
grep '^USES' "$res" | awk '{ n[$2]++ } END { for (k in n) printf "%s %d\n", k, n[k] }' | sort |
  tr '\n' ' ' | sed 's/^/passing specs using each op, dtype, feature: /; s/$/\n/'
awk '$1 == "COVER" { n[$2] += $3; if ($3 > 0) k[$2]++ }
     END { printf "C back end transforms in passing specs: %d loads forwarded (%d specs), %d stores sunk (%d specs; %d of them with other readers, %d specs), %d copy loops folded (%d specs), %d row-local tiles (%d specs), %d sources staged (%d specs), %d instructions writing only unread tiles dropped (%d specs), %d writes overwritten before any read dropped (%d specs), %d unread dsts not written (%d specs), %d checked power-2 loops (%d specs), %d folds in iteration lanes (%d specs), %d scan sources read as a number (%d specs), %d chains (%d specs; %d values kept, %d specs), %d host NaNs left in values no one sees (%d specs)\n",
           n["forwarded"], k["forwarded"], n["sunk"], k["sunk"], n["sunkread"], k["sunkread"], n["folded"], k["folded"], n["rowlocal"], k["rowlocal"], n["staged"], k["staged"], n["dead"], k["dead"], n["overwritten"], k["overwritten"], n["discard"], k["discard"], n["square"], k["square"], n["iterlanes"], k["iterlanes"], n["konst"], k["konst"], n["chain"], k["chain"], n["kept"], k["kept"], n["rawnan"], k["rawnan"] }' "$res"
rm -f "$res"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
