#!/bin/sh
# gen_cli.sh - the gen-cli suite: `tilegen gen` as a build step (exit codes,
# located E100 for constructs the C back end lacks, nothing written on errors,
# deterministic output with no absolute paths, rewrite only on change, -MD
# depfile, -D, --report) and the harness's strict .npy reader (dtype, shape,
# byte order, fortran order); the test-only kernels of tests/numerics/specs
# against refs.py. Ends with "N passed, M failed".
# Env: TILEGEN, PYTHON, CC, BUILD.
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
here=$(dirname "$0")
root=$here/../..
w=$BUILD/gen-cli
rm -rf "$w"; mkdir -p "$w/out" "$w/out2" || exit 2
pass=0; fail=0
# The runtime objects every check.sh and iss_check.sh below links (the latter's
# list, a superset of the former's), built once here with the flags and CC
# their build_rt would use, not again by each of the ~55 runs (~15 s each).
work=$w/rt-once
. "$here/harness.sh"
build_rt $RT_ISS_SRCS
RTOBJS=$rtobjs
export RTOBJS
ok() { pass=$((pass+1)); echo "[       OK ] $1"; }
ko() { fail=$((fail+1)); echo "[  FAILED  ] $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

# rows_checks K FN N [FN N]...: tests/numerics/specs/K.yaml matches numpy,
# its C simulation and the ISS agree bit for bit, and its generated C calls
# each runtime row FN N times (every op of K through them).
rows_checks() {
  k=$1; shift
  check "$k: $k.yaml matches numpy" \
    "TILEGEN=\"\$TILEGEN\" PYTHON=\"\$PYTHON\" CC=\"\$CC\" BUILD=\"\$w\" SPECS=\"\$here/specs\" \"\$here/check.sh\" $k >\"\$w/$k.log\" 2>&1"
  check "$k: $k.yaml C simulation and ISS bit-identical" \
    "TILEGEN=\"\$TILEGEN\" PYTHON=\"\$PYTHON\" CC=\"\$CC\" BUILD=\"\$w\" SPECS=\"\$here/specs\" \"\$here/iss_check.sh\" $k >\"\$w/$k-iss.log\" 2>&1"
  calls= fns=
  while [ $# -ge 2 ]; do
    calls="$calls && [ \"\$(grep -c \"$1(\" \"\$w/$k-gen/$k.c\")\" = $2 ]"; fns="$fns${fns:+ / }$1"; shift 2
  done
  check "$k: every op through $fns" "\"\$TILEGEN\" gen -o \"\$w/$k-gen\" \"\$here/specs/$k.yaml\" $calls"
}

check "gen writes k.h and k.c" \
  '"$TILEGEN" gen -o "$w/out" "$root/specs/softmax.yaml" && [ -s "$w/out/softmax.h" ] && [ -s "$w/out/softmax.c" ]'
check "banner names spec, template and version, no absolute path or date" \
  'head -1 "$w/out/softmax.c" | grep -q "tilegen $("$TILEGEN" --version | cut -d" " -f2) from .*specs/softmax.yaml (kernel.c.j2)" &&
   ! grep -q "$(cd "$root" && pwd)" "$w/out/softmax.c" "$w/out/softmax.h" && ! grep -qE "20[0-9][0-9]-[0-9][0-9]-" "$w/out/softmax.c"'
cp "$root/specs/softmax.yaml" "$w/softmax.yaml"
check "absolute spec path: banner shows the basename only" \
  '"$TILEGEN" gen -o "$w/out2" "$(cd "$w" && pwd)/softmax.yaml" && head -1 "$w/out2/softmax.c" | grep -q " from softmax.yaml "'
check "output is deterministic" \
  '"$TILEGEN" gen -o "$w/out2" "$root/specs/softmax.yaml" && cmp -s "$w/out/softmax.c" "$w/out2/softmax.c" && cmp -s "$w/out/softmax.h" "$w/out2/softmax.h"'
touch -d "2000-01-01" "$w/out/softmax.c"
check "unchanged output is not rewritten" \
  '"$TILEGEN" gen -o "$w/out" "$root/specs/softmax.yaml" && [ -z "$(find "$w/out/softmax.c" -newer "$w/softmax.yaml")" ]'
check "changed output is replaced (-D N=256 changes the loop trip: 2 iterations, 2 programs)" \
  '"$TILEGEN" gen -o "$w/out" -D N=256 "$root/specs/softmax.yaml" && grep -q "tg_hi\[3\] = {2, 1, 1};" "$w/out/softmax.c" &&
   grep -q "^#define SOFTMAX_PROGRAMS 2$" "$w/out/softmax.h" && ! ls "$w/out" | grep -q tmp'
check "-MD writes a depfile naming spec, both templates and the binary" \
  '"$TILEGEN" gen -MD -o "$w/out" "$root/specs/softmax.yaml" && d="$w/out/softmax.d" &&
   grep -q "^$w/out/softmax.h $w/out/softmax.c\( $w/out/softmax.s\)\{0,1\}: .*specs/softmax.yaml .*kernel.h.j2 .*kernel.c.j2 \(.*kernel.s.j2 \)\{0,1\}$TILEGEN$" "$d" &&
   grep -q "^$TILEGEN:$" "$d"'
check "--report prints the occupancy table" \
  '"$TILEGEN" gen --report -o "$w/out" "$root/specs/softmax.yaml" | grep -q "SBUF peak"'
check "header states the planned peaks" \
  'grep -q "#define SOFTMAX_SBUF_PEAK_BYTES [0-9]" "$w/out/softmax.h" && grep -q "_Static_assert(SOFTMAX_SBUF_PEAK_BYTES" "$w/out/softmax.h"'
cat > "$w/vf.yaml" <<'YAML'
tilegen: 1
kernel: vfree
inputs:
  x: {dtype: float32, shape: [128, 64]}
outputs:
  y: {dtype: float32, shape: [128, 64]}
tiles:
  yt: {buffer: sbuf, dtype: float32, shape: [128, 64]}
body:
  - load: {dst: xt, src: "x[0:128, :]"}
  - memset: {dst: yt, value: 0.0}
  - for: {var: i, range: 4}
    body:
      - tensor_copy: {dst: "yt[:, 0:i+1]", src: "xt[:, 0:i+1]"}
  - store: {dst: "y[0:128, :]", src: yt}
YAML
"$TILEGEN" gen -o "$w/out" "$w/vf.yaml" 2>"$w/vf.err"; rc=$?
check "a free dim whose size varies between iterations (once E100) generates C, header and assembly" \
  '[ $rc = 0 ] && [ ! -s "$w/vf.err" ] && [ -s "$w/out/vfree.c" ] && [ -s "$w/out/vfree.h" ] && [ -s "$w/out/vfree.s" ] &&
   grep -q "tg_j0 < (v_i + 1)" "$w/out/vfree.c"'
# partition_reduce (add, maximum, bitwise_or, bitwise_and; full and ragged
# partition counts) against refs.py's sequential-fold reference, bit-exact.
check "partition_reduce kernel (tests/numerics/specs/preduce.yaml) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" preduce >"$w/preduce.log" 2>&1'
# partition_reduce maximum as order keys (runtime/tg_ops.h tg_max8_key): ±0,
# NaNs, ±inf and subnormals, fp32 and bf16, exactly numpy's and the ISS's bits.
check "partition_reduce maximum (preduce_keys.yaml) matches numpy exactly" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" preduce_keys >"$w/preduce_keys.log" 2>&1'
check "partition_reduce maximum (preduce_keys.yaml) C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" preduce_keys >"$w/preduce_keys-iss.log" 2>&1'
# operands overlapping at a shift run element by element in order (no
# vectorizing pragma, no memcpy of an overlapping run), bit-exact.
check "shifted in-place ops (tests/numerics/specs/shift.yaml) match numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" shift >"$w/shift.log" 2>&1'
check "shifted in-place ops: shift.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" shift >"$w/shift-iss.log" 2>&1'
# Carried K loops of accumulating matmuls folded into one tg_matmul_blocks
# call (gen/emit.c matmul_fold): four of kfold.yaml's five loops fold (one
# with a negative block stride, two with the matmul before them), the one
# with a load in it stays a loop; every output numpy-exact and ISS-identical.
check "kfold: kfold.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" kfold >"$w/kfold.log" 2>&1'
check "kfold: kfold.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" kfold >"$w/kfold-iss.log" 2>&1'
check "kfold: four loops folded, two with the matmul before them, one left" \
  '"$TILEGEN" gen -o "$w/kfold-gen" "$here/specs/kfold.yaml" &&
   [ "$(grep -c "tg_matmul_blocks(" "$w/kfold-gen/kfold.c")" = 4 ] &&
   [ "$(grep -c "folded with the matmul before it" "$w/kfold-gen/kfold.c")" = 2 ] &&
   [ "$(grep -c "tg_matmul(" "$w/kfold-gen/kfold.c")" = 2 ]'
# Elementwise ops on int32 sources in int32 where exact (runtime/tg_alu.c):
# all ten of introws.yaml's ops take the int32 rows (two of them on sources
# read two apart, gathered first); every output numpy-exact (-0 products and
# minimum included) and ISS-identical.
rows_checks introws tg_tensor_tensor_i32 5 tg_tensor_scalar_i32 5
# Comparisons, logical ops, abs and scalar_tensor_tensor on fp32 rows take
# the runtime's fp32 rows (their AVX2 body; runtime/tg_ops.c): all twelve of
# cmprows.yaml's elementwise ops, every output numpy-exact and ISS-identical.
rows_checks cmprows tg_tensor_tensor_f32_row 8 tg_tensor_scalar_f32_row 2 tg_scalar_tensor_tensor_f32_row 2
# Loop-invariant matmul operands packed once (gen/emit.c put_keep): three
# loops keep an operand (moving, moving under an outer loop that changes it,
# stationary), the loop of two matmuls keeps nothing; numpy-exact (y2 shows
# the outer loop's new weight is packed) and ISS-identical.
check "keep: keep.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" keep >"$w/keep.log" 2>&1'
check "keep: keep.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" keep >"$w/keep-iss.log" 2>&1'
check "keep: three matmuls keep an operand, the two in one loop do not" \
  '"$TILEGEN" gen -o "$w/keep-gen" "$here/specs/keep.yaml" &&
   [ "$(grep -c "tg_matmul_keep(.*? 2 : 0);" "$w/keep-gen/keep.c")" = 2 ] &&
   [ "$(grep -c "tg_matmul_keep(.*? 1 : 0);" "$w/keep-gen/keep.c")" = 1 ] &&
   [ "$(grep -c "tg_matmul(" "$w/keep-gen/keep.c")" = 2 ]'
# Copies that only feed a store sink like stores (gen/forward.c): y1, y2
# (a folded K loop) and y5 lose their copy, y3 (a running sum) and y4 (a
# conversion) keep it; numpy-exact and ISS-identical.
check "copysink: copysink.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" copysink >"$w/copysink.log" 2>&1'
check "copysink: copysink.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" copysink >"$w/copysink-iss.log" 2>&1'
check "copysink: the copies to y1, y2, y5 sink, those to y3, y4 stay" \
  '"$TILEGEN" gen -o "$w/copysink-gen" "$here/specs/copysink.yaml" &&
   [ "$(grep -c "tensor_copy sunk: its tile.s writers write y[125] directly" "$w/copysink-gen/copysink.c")" = 3 ] &&
   [ "$(grep -c "tensor_copy sunk" "$w/copysink-gen/copysink.c")" = 3 ]'
# Forwarding on ragged tiles and into gathers (gen/forward.c): y1's load and
# store and y6's (ragged partitions, a ragged free dim) go, y3's stay (a
# reader and a writer of row 0 only); the gathers of y4, y5 and y7 only check
# and keep their indices (y7's column is overwritten before its reader runs);
# numpy-exact and ISS-identical.
check "raggedfwd: raggedfwd.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" raggedfwd >"$w/raggedfwd.log" 2>&1'
check "raggedfwd: raggedfwd.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" raggedfwd >"$w/raggedfwd-iss.log" 2>&1'
check "raggedfwd: the loads of x, x6 and three gathers go, the stores of y1, y5, y6, y7 sink" \
  '"$TILEGEN" gen -o "$w/raggedfwd-gen" "$here/specs/raggedfwd.yaml" &&
   c="$w/raggedfwd-gen/raggedfwd.c" &&
   [ "$(grep -c "load forwarded: its readers read x6* directly \*/" "$c")" = 2 ] &&
   [ "$(grep -c "load forwarded: its readers read table directly at the indices it checks and keeps here" "$c")" = 3 ] &&
   [ "$(grep -c "load forwarded" "$c")" = 5 ] &&
   [ "$(grep -c "store sunk: its tile.s writers write y[1567] directly" "$c")" = 4 ] &&
   [ "$(grep -c "store sunk" "$c")" = 4 ]'
# Row-local tiles (gen/emit.c): the temporaries t1, t7a and t7b live on the
# stack; t2, t3, t5 (a lanes region) and t8 (over the budget) keep SBUF.
check "rowlocal: rowlocal.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" rowlocal >"$w/rowlocal.log" 2>&1'
check "rowlocal: rowlocal.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" rowlocal >"$w/rowlocal-iss.log" 2>&1'
check "rowlocal: t1, t7a, t7b, t9, t10, xh and t13 row-local, no other tile" \
  '"$TILEGEN" gen -o "$w/rowlocal-gen" "$here/specs/rowlocal.yaml" &&
   [ "$(sed -n "s|.*/\* \([a-z0-9]*\): partition tg_p.s row, row-local (docs/ir.md) \*/|\1|p" "$w/rowlocal-gen/rowlocal.c" | tr "\n" " ")" = "t1 t7a t7b t9 t10 xh t13 " ]'
# the host's NaN left by the writers of t1, t7a, t7b, t9 and t13 and by
# y12's first stage; not by t10's (a copy reads it) nor y12's second
check "rowlocal: six raw NaN writes (t1, t7a, t7b, t9, t13, y12's first stage)" \
  '[ "$(grep -cE "tg_x = tg_alu_raw_|tg_v[0-9]+ = tg_alu_raw_|tg_wr_f32\(tg_d, [^,]+, tg_alu_raw_" "$w/rowlocal-gen/rowlocal.c")" = 6 ]'
# HBM windows (gen/emit.c FuseWin): y1's halves from two statements and y2's
# read-back share a region (tb row-local); the reads of y3 one row further on
# and of y4 after its loop start regions of their own (five in all).
check "hbmcopy: dma_copy of 300 HBM rows matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" hbmcopy >"$w/hbmcopy.log" 2>&1'
check "hbmcopy: C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" hbmcopy >"$w/hbmcopy-iss.log" 2>&1'
check "hbmcopy: profile times the copies" \
  '"$TILEGEN" profile "$here/specs/hbmcopy.yaml" >"$w/hbmcopy-prof.log" 2>&1 && grep -q "DMA  *3 " "$w/hbmcopy-prof.log"'
check "hbmwin: hbmwin.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" hbmwin >"$w/hbmwin.log" 2>&1'
check "hbmwin: hbmwin.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" hbmwin >"$w/hbmwin-iss.log" 2>&1'
check "hbmwin: tb row-local, five partition regions" \
  '"$TILEGEN" gen -o "$w/hbmwin-gen" "$here/specs/hbmwin.yaml" &&
   [ "$(sed -n "s|.*/\* \([a-z0-9]*\): partition tg_p.s row, row-local (docs/ir.md) \*/|\1|p" "$w/hbmwin-gen/hbmwin.c" | tr "\n" " ")" = "p3 r3 ta tb o2 o3 b3 b4 " ] &&
   [ "$(grep -c "partitions run the statements below in turn" "$w/hbmwin-gen/hbmwin.c")" = 5 ]'
# Chains (gen/emit.c chain_run): statements 48-50 one loop, their fp32
# temporaries kept as values (no store in the loop but y1's); 67 and 69 one
# loop with the bf16 temporary stored (the store of y5 between them dropped);
# the shifted reads and writes (54-55, 59-60), the scalar operand 65 takes
# from 64 and 65 (alone a runtime fp32 row) next to the bf16 ones left apart.
# numpy exact, the ISS bit for bit.
check "chains: chains.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" chains >"$w/chains.log" 2>&1'
check "chains: chains.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" chains >"$w/chains-iss.log" 2>&1'
check "chains: two chains, 48-50 and 67-69, temporaries kept in the fp32 one only" \
  '"$TILEGEN" gen -o "$w/chains-gen" "$here/specs/chains.yaml" &&
   [ "$(sed -n "s|.*{ /\* \(.*\): one loop (a chain, docs/ir.md) \*/|\1|p" "$w/chains-gen/chains.c" | tr "\n" "|")" = "chains.yaml:48: dve.tensor_scalar, chains.yaml:49: dve.tensor_tensor, chains.yaml:50: dve.tensor_tensor|chains.yaml:67: dve.tensor_scalar, chains.yaml:69: dve.tensor_tensor|" ] &&
   [ "$(grep -c "float tg_v[0-9]*; /\* a member" "$w/chains-gen/chains.c")" = 2 ]'
# Sources read every second element (gen/emit.c operand's stage): gathered
# by tg_stage2_<bits> before the innermost loop, numpy exact, the ISS bit for
# bit; every such source of 16 to EMIT_STAGE_MAX_BYTES a row staged (y6's 15
# elements and y10's 4200 bytes not).
check "stage2: stage2.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" stage2 >"$w/stage2.log" 2>&1'
check "stage2: stage2.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" stage2 >"$w/stage2-iss.log" 2>&1'
check "stage2: the staged sources, their widths and row lengths" \
  '"$TILEGEN" gen -o "$w/stage2-gen" "$here/specs/stage2.yaml" &&
   [ "$(sed -n "s#.*tg_stage2_\([0-9]*\)((uint8_t \*)tg_g[0-9], tg_s[0-9] + (\([^)]*\)) \* [0-9], \([0-9]*\), \(1\|tg_avx512\));#\1:\2:\3#p" "$w/stage2-gen/stage2.c" | tr "\n" " ")" = "32:0:101 32:0:101 16:0:101 8:0:101 32:0:40 32:0:40 32:0:16 32:tg_j0 * 50:20 8:0:101 16:0:101 16:0:101 16:0:101 " ]'
# Folds and scans in lanes over a ragged two-level free pattern, 100
# partitions: numpy exact, the ISS bit for bit.
check "lanes: lanes.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" lanes >"$w/lanes.log" 2>&1'
check "lanes: lanes.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" lanes >"$w/lanes-iss.log" 2>&1'
# Activations on short rows, a block of TG_LANES partitions packed into one
# row call (gen/emit.c act_pack): numpy, the ISS bit for bit, and which
# activations pack (rows of 20 twice, one with a row sum the lanes fold; 51
# twice, 100, 153; not 64 nor 300).
check "actpack: actpack.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" actpack >"$w/actpack.log" 2>&1'
check "actpack: actpack.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" actpack >"$w/actpack-iss.log" 2>&1'
check "actpack: the activations whose blocks of rows run packed, and their row lengths (not 64, not 300)" \
  '"$TILEGEN" gen -o "$w/actpack-gen" "$here/specs/actpack.yaml" &&
   [ "$(sed -n "s|.*float tg_pk\[TG_LANES \* \([0-9]*\)\].*|\1|p" "$w/actpack-gen/actpack.c" | tr "\n" " ")" = "20 20 51 51 100 153 " ]'
# Activations with a row sum into a narrow dst, the sums folded in lanes from
# the fp32 results kept on the stack (gen/emit.c lane_f32_elems): numpy, the
# ISS bit for bit, and the columns each keeps per row (256, 3 x 37, 64; 1024
# in blocks of 512, 576 in blocks of 192; not the max reduce, the row of 600,
# the 3 partitions; tensor_scalar's accumulate: 256, 3 x 37; both over two
# loops, 3 x 64; not the row whose bias is its own dst's column, nor the sums
# shifted into the next row's bias).
check "lanesact: lanesact.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" lanesact >"$w/lanesact.log" 2>&1'
check "lanesact: lanesact.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" lanesact >"$w/lanesact-iss.log" 2>&1'
check "lanesact: the activations and tensor_scalars whose fp32 results the lanes fold, and their row lengths" \
  '"$TILEGEN" gen -o "$w/lanesact-gen" "$here/specs/lanesact.yaml" &&
   [ "$(sed -n "s|.*float tg_lf\[TG_LANES \* \([0-9]*\)\];.*|\1|p" "$w/lanesact-gen/lanesact.c" | tr "\n" " ")" = "256 111 64 512 192 256 111 192 192 512 " ]'
# tensor_scalar power 2 as x·x where no element of the row is flagged
# (tg_alu_pow2_slow), and writes nothing reads (gen/forward.c drop_dead):
# numpy, the ISS bit for bit (rows with ties and subnormal squares run
# tg_alu_power), three checked power-2 loops, the two copies nobody reads
# dropped, and three instructions that write only their [P,1] sums (the
# activation on 3 partitions keeps its row call and writes its dst).
check "sqdead: sqdead.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" sqdead >"$w/sqdead.log" 2>&1'
check "sqdead: sqdead.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" sqdead >"$w/sqdead-iss.log" 2>&1'
# sqdead: the rows' power-2 checks (y1's, s5's) and the column blocks' one
# (s2's: flagged elements again after the squares), the dropped copies, the two
# accumulates' unwritten dsts, the square sum over rows of 1024 folded from its
# staged source (kernel.c.j2 act_staged)
check "sqdead: power-2 loops checked, unread copies dropped, unread dsts not written" \
  '"$TILEGEN" gen -o "$w/sqdead-gen" "$here/specs/sqdead.yaml" && c="$w/sqdead-gen/sqdead.c" &&
   [ "$(grep -c "if (!tg_slow)" "$c")" = 2 ] && [ "$(grep -c "if (tg_slow)" "$c")" = 1 ] &&
   [ "$(grep -c "tensor_copy dropped: nothing reads tile c[12] \*/" "$c")" = 2 ] &&
   [ "$(grep -c "(void)tg_d; /\* nothing reads" "$c")" = 2 ] &&
   [ "$(grep -c "tg_lanes_stage_act_fold_f32(" "$c")" = 1 ]'
# Folds on few partitions whose loop's iterations run in lanes after it
# (gen/emit.c iter_lanes): numpy, the ISS bit for bit, and which folds go
# (the sums into columns, the products from a tile loaded before the loop, the
# differences into one shared column, an exp sum, a square sum into bf16, a
# tensor_scalar accumulate in column blocks and one by power 2; not the sum an
# op in the loop reads back, the sum of a tile an op in the loop writes, nor
# the exp sum whose bias an op in the loop computes), and an activation whose
# fp32 dst every iteration shares.
check "iterlanes: iterlanes.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" iterlanes >"$w/iterlanes.log" 2>&1'
check "iterlanes: iterlanes.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" iterlanes >"$w/iterlanes-iss.log" 2>&1'
check "iterlanes: the folds whose iterations run in lanes after their loop" \
  '"$TILEGEN" gen -o "$w/iterlanes-gen" "$here/specs/iterlanes.yaml" &&
   [ "$(sed -n "s|^ */\* iterlanes.yaml:\([0-9]*\): [a-z_.]*, every iteration of the loop above: lanes\$|\1|p" "$w/iterlanes-gen/iterlanes.c" | tr "\n" " ")" = "81 89 94 111 116 121 125 136 " ]'
# Folds, scans and bn_stats in lanes over bf16 sources (x from HBM, zh from
# SBUF) and scans into bf16 dsts: numpy's fp32 chains exactly (bn_aggr's mean
# and variance within fp32 sums' error), the ISS bit for bit, every bf16 source
# block staged by tg_lanes_stage_bf16 (the four scans' two sources each, the two
# folds', bn_stats') and both bf16 scan results written by tg_lanes_unstage_bf16.
rows_checks lanes_bf16 tg_lanes_stage_bf16 11 tg_lanes_unstage_bf16 2
# The same over fp16 sources and into fp16 dsts (tg_lanes_stage_f16: the folds',
# the scans' and bn_stats' sources, eleven calls; tg_lanes_unstage_f16: both fp16
# scan results), with subnormal and overflowing results.
rows_checks lanes_f16 tg_lanes_stage_f16 11 tg_lanes_unstage_f16 2
# And over fp8: e4m3 x (its fold's and two scans' sources, five calls; one scan
# result), e5m2 z and w (fold, scans, bn_stats: six; one scan result).
rows_checks lanes_f8 tg_lanes_stage_e4m3 5 tg_lanes_stage_e5m2 6 tg_lanes_unstage_e4m3 1 tg_lanes_unstage_e5m2 1
# Scans with sources on constant tiles (gen/forward.c const_reads): numpy's
# fp32 chains exactly, the ISS bit for bit, and which scans read the number
# (a ones tile in lanes, a bf16 0.1 in the row form, -0 in lanes; not a tile
# set in a loop, one a copy writes too, one set in part). consts_grid: a
# cumsum whose ones tile each program of a grid sets, read as the number too.
for k in consts consts_grid; do
  check "consts: $k.yaml matches numpy exactly" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" $k >"$w/$k.log" 2>&1'
  check "consts: $k.yaml C simulation and ISS bit-identical" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" $k >"$w/$k-iss.log" 2>&1'
done
check "consts: the scans that read their constant tile as a number" \
  '"$TILEGEN" gen -o "$w/consts-gen" "$here/specs/consts.yaml" &&
   [ "$(awk "/consts.yaml:[0-9]+: dve.tensor_tensor_scan/ { match(\$0, /consts.yaml:[0-9]+/); n = substr(\$0, RSTART + 12, RLENGTH - 12) }
             /read as the number its memset wrote/ { printf \"%s \", n }" "$w/consts-gen/consts.c")" = "48 50 52 " ]'
check "consts: consts_grid's scan reads its ones as the number 1" \
  '"$TILEGEN" gen -o "$w/consts-gen" "$here/specs/consts_grid.yaml" &&
   [ "$(grep -c "read as the number its memset wrote" "$w/consts-gen/consts_grid.c")" = 1 ] &&
   grep -q "tg_alu_raw_multiply(1.0f, tg_r\[tg_l\])" "$w/consts-gen/consts_grid.c"'
# HBM forwarding (gen/forward.c): the cases of forward.yaml it takes and
# leaves (the notes it leaves in the C, against tests/numerics/forward.notes:
# loads, stores, and copies whose own store sank),
# the values against numpy, and the ISS (which runs every DMA) bit for bit.
check "HBM forwarding: forward.yaml drops exactly the expected loads, stores and copies" \
  '"$TILEGEN" gen -o "$w/out" "$here/specs/forward.yaml" &&
   sed -n "s|^ */\* \(forward.yaml:[0-9]*: [a-z]*\.[a-z_]* [a-z]*: .*\) \*/$|\1|p" "$w/out/forward.c" | diff -u "$here/forward.notes" - >"$w/forward.diff"'
check "HBM forwarding: forward.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" forward >"$w/forward.log" 2>&1'
check "HBM forwarding: forward.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" forward >"$w/forward-iss.log" 2>&1'
# Loops of strided copies folded into one transposing copy (emit.c): int32
# on SBUF with ragged 8x8 edges, a loop from 1; numpy and the ISS bit for bit.
check "folding: fold.yaml folds both loops into tg_transpose_f32 calls" \
  '"$TILEGEN" gen -o "$w/out" "$here/specs/fold.yaml" &&
   [ "$(grep -c "folded: a 12 x 20 transposing copy\|folded: a 11 x 20 transposing copy" "$w/out/fold.c")" = 2 ] &&
   [ "$(grep -c "tg_transpose_f32(" "$w/out/fold.c")" = 2 ]'
check "folding: fold.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" fold >"$w/fold.log" 2>&1'
check "folding: fold.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" fold >"$w/fold-iss.log" 2>&1'
# A matmul with a ragged contraction (K = min(...) partitions): numpy exact, ISS bit for bit.
check "ragged-K matmul (ragged_k.yaml) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" ragged_k >"$w/ragged_k.log" 2>&1'
check "ragged-K matmul: C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" ragged_k >"$w/ragged_k-iss.log" 2>&1'
# Number fields in floating point (SPEC.md §2.1): scale 1/D is float32(1/D), not 0.
check "float fields: fscale.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" fscale >"$w/fscale.log" 2>&1'
check "float fields: fscale.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" fscale >"$w/fscale-iss.log" 2>&1'
check "indirect DMA: gather.yaml (row and element gathers, scatter, every index width) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" gather >"$w/gather.log" 2>&1'
check "indirect DMA: gather.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" gather >"$w/gather-iss.log" 2>&1'
check "HBM views: views.yaml (reshape and bitcast views of inputs and outputs in a grid) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" views >"$w/views.log" 2>&1'
check "HBM views: views.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" views >"$w/views-iss.log" 2>&1'
check "HBM views: tilegen run --out of a view writes its base's bytes in the view's dtype" \
  '"$TILEGEN" run "$here/specs/views.yaml" --out o="$w/vo.npy" --out ob="$w/vob.npy" >/dev/null &&
   "$PYTHON" -c "import numpy as np, sys; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); sys.exit(not (a.shape == (2, 160, 64) and b.shape == (320, 64) and a.tobytes() == b.tobytes()))" "$w/vo.npy" "$w/vob.npy"'
for k in scratch rank5; do
  check "$k.yaml (scratch tensors / rank-5 tensors and views) matches numpy" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" '$k' >"$w/'$k'.log" 2>&1'
  check "$k.yaml C simulation and ISS bit-identical" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" '$k' >"$w/'$k'-iss.log" 2>&1'
done
check "scratch: k.h states each scratch tensor's bytes; the entry point takes it after the outputs" \
  '"$TILEGEN" gen -o "$w/scr" "$here/specs/scratch.yaml" &&
   grep -q "^#define SCRATCH_SCRATCH_S_BYTES 32768u" "$w/scr/scratch.h" &&
   grep -q "float \*y, float \*r, float \*s);" "$w/scr/scratch.h"'
check "transposed store: tstore.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" tstore >"$w/tstore.log" 2>&1'
check "transposed store: tstore.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" tstore >"$w/tstore-iss.log" 2>&1'
check "PSUM tiles spanning banks: psum_banks.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" psum_banks >"$w/psum_banks.log" 2>&1'
check "PSUM tiles spanning banks: psum_banks.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" psum_banks >"$w/psum_banks-iss.log" 2>&1'
# The ops of SPEC.md §2.1 "More ops", one test kernel each group, over the
# dtypes they take: numpy exact, ISS bit for bit.
for k in reduce_ops select_ops top8_ops loopnum_ops intsum trcast trsink shortrows affsel_int actstage overwrite selraw; do
  check "more ops: $k.yaml matches numpy" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" '$k' >"$w/'$k'.log" 2>&1'
  check "more ops: $k.yaml C simulation and ISS bit-identical" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" '$k' >"$w/'$k'-iss.log" 2>&1'
done
check "trsink: each transposing load sunk into its store is one blocked tg_transpose" \
  '"$TILEGEN" gen -o "$w/trsink-gen" "$here/specs/trsink.yaml" &&
   [ "$(grep -c "dma.load, transposed: one blocked tg_transpose" "$w/trsink-gen/trsink.c")" = 3 ] &&
   [ "$(grep -c "dma.store sunk" "$w/trsink-gen/trsink.c")" = 3 ]'
check "actstage: the fp32, bf16 and fp16 reduces with a discarded dst fold their rows in one call each (fp8: the table)" \
  '"$TILEGEN" gen -o "$w/actstage-gen" "$here/specs/actstage.yaml" &&
   [ "$(grep -c "tg_lanes_stage_act_fold_f32(tg_r, tg_rows" "$w/actstage-gen/actstage.c")" = 2 ] &&
   [ "$(grep -c "tg_lanes_stage_act_fold_bf16(tg_r, tg_rows" "$w/actstage-gen/actstage.c")" = 1 ] &&
   [ "$(grep -c "tg_lanes_stage_act_fold_f16(tg_r, tg_rows" "$w/actstage-gen/actstage.c")" = 1 ] &&
   [ "$(grep -c "tg_lanes_act_fold_f32(tg_r, tg_t0" "$w/actstage-gen/actstage.c")" = 0 ]'
# overwrite: the three writes the next instruction on their tile overwrites
# go (at's, ft's two), the square whose dst a copy overwrites folds its rows
# from the source (gen/forward.c drop_overwritten); nothing else is dropped
check "overwrite: writes overwritten before any read dropped, the others kept" \
  '"$TILEGEN" gen -o "$w/overwrite-gen" "$here/specs/overwrite.yaml" && c="$w/overwrite-gen/overwrite.c" &&
   [ "$(grep -c "dropped: the next instruction on tile at overwrites" "$c")" = 1 ] &&
   [ "$(grep -c "dropped: the next instruction on tile ft overwrites" "$c")" = 2 ] &&
   [ "$(grep -c "dropped" "$c")" = 3 ] &&
   [ "$(grep -c "tg_lanes_stage_act_fold_f32(tg_r, tg_rows" "$c")" = 1 ]'
# selraw: the ten selects of one narrow dtype move encodings (tg_sel<W>),
# int32 and fp32 keep the fp32 form, and the gathered rows' select reads the
# table
check "selraw: selects of one dtype move encodings, the gathered rows are read in place" \
  '"$TILEGEN" gen -o "$w/selraw-gen" "$here/specs/selraw.yaml" && c="$w/selraw-gen/selraw.c" &&
   [ "$(grep -c "tg_sel[0-9]*(" "$c")" = 10 ] && [ "$(grep -c "tg_where(" "$c")" = 2 ] &&
   grep -q "dma.load forwarded: its readers read tbl directly at the indices" "$c"'
# print statements (NKI device_print): the outputs and every saved print
# against numpy; the C simulation and the ISS hand the callback the same
# records (iss_agree.c); run without --print-dir prints no summary line.
check "prints: print_loops.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" print_loops >"$w/print_loops.log" 2>&1'
check "prints: print_loops.yaml C simulation and ISS give the same outputs and print records" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" print_loops >"$w/print_loops-iss.log" 2>&1 &&
   grep -q "print_loops: 12 prints identical" "$w/print_loops-iss.log"'
check "prints: tilegen run --print-dir saves each print as LABEL.INDICES.npy, bit-identical to numpy, one line each" \
  'pd="$w/prints" && "$PYTHON" "$here/refs.py" inputs print_loops --dir "$pd" &&
   "$TILEGEN" run "$here/specs/print_loops.yaml" --in x="$pd/x.npy" --in w="$pd/w.npy" --out y="$pd/y.npy" \
     --print-dir "$pd/p" >"$pd/run.log" &&
   [ "$(grep -c "^  print " "$pd/run.log")" = 12 ] &&
   grep -q "^  print acc.1.0 (line 32): float32 \[16, 24\], min " "$pd/run.log" &&
   grep -q "^  saved 12 prints in $pd/p$" "$pd/run.log" &&
   "$PYTHON" "$here/refs.py" compare print_loops --dir "$pd" >"$pd/compare.log" &&
   "$PYTHON" "$here/refs.py" prints print_loops --dir "$pd" --prints "$pd/p" >"$pd/prints.log" &&
   [ "$(grep -c "PASS$" "$pd/prints.log")" = 12 ] && ! ls -a "$pd/p" | grep -q "^\.[^.]"'
check "prints: without --print-dir, run prints no summary line" \
  '"$TILEGEN" run "$here/specs/print_loops.yaml" >"$w/noprint.log" && grep -q "^print_loops: " "$w/noprint.log" &&
   ! grep -q "^  print \|^  saved " "$w/noprint.log"'
check "prints: a failed run saves no print (all or none)" \
  '! "$TILEGEN" run "$here/specs/print_loops.yaml" --budget 60 --print-dir "$w/pfail" >"$w/pfail.log" 2>&1 &&
   grep -q "^  print " "$w/pfail.log" && [ -z "$(ls -A "$w/pfail")" ]'
# Activations on sources of 16 bits or fewer read result tables (gen/emit.c
# act_table): four tables, the PE storage they need, numpy, and the ISS (which
# computes every element) bit for bit.
check "activation tables: acttab.yaml builds one table per setting, counted in ACTTAB_PE_FLOATS" \
  '"$TILEGEN" gen -o "$w/out" "$here/specs/acttab.yaml" &&
   [ "$(grep -c "tg_built[0-9]* = 1;" "$w/out/acttab.c")" = 4 ] &&
   [ "$(grep -c "= tg_tab\[tg_key" "$w/out/acttab.c")" = 4 ] &&
   grep -q "define ACTTAB_PE_FLOATS 131584$" "$w/out/acttab.h"'
check "activation tables: acttab.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" acttab >"$w/acttab.log" 2>&1'
check "activation tables: acttab.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" acttab >"$w/acttab-iss.log" 2>&1'
# The bench's NKI-size matmul spec (make bench runs it with -D at the
# tutorial's size) at its default size: numpy exact.
check "bench: bench/specs/matmul_nki.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$root/bench/specs" "$here/check.sh" matmul_nki >"$w/matmul_nki.log" 2>&1'
# An independent loop updating its own column after a memset (no value flows
# between iterations, so E054 does not apply): numpy exact, ISS bit for bit.
check "column updates: colacc.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" colacc >"$w/colacc.log" 2>&1'
check "column updates: colacc.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" colacc >"$w/colacc-iss.log" 2>&1'
# Shapes every back end supports (E090/E100/E032 before): 1-D and one-row
# broadcasts, 44 rows through a [128, D] tile, ragged free dims.
check "shapes.yaml (broadcast rows, short DMAs, ragged free dims) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" shapes >"$w/shapes.log" 2>&1'
check "shapes.yaml: C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" shapes >"$w/shapes-iss.log" 2>&1'
check "shapes.yaml: both loads of gt (one tile, two loaders: gen/forward.c loads_forwardable) are forwarded" \
  '"$TILEGEN" gen -o "$w/shapes-gen" "$here/specs/shapes.yaml" &&
   [ "$(grep -c "dma.load forwarded: its readers read [gh] directly" "$w/shapes-gen/shapes.c")" = 2 ]'
# Ragged tiles declared once (SPEC.md §2.1): ragged partition and free dims,
# undeclared tiles inheriting them, a ragged PSUM matmul tile, a triangular loop.
check "ragged tiles: ragged_tiles.yaml matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" ragged_tiles >"$w/ragged_tiles.log" 2>&1'
check "ragged tiles: ragged_tiles.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" ragged_tiles >"$w/ragged_tiles-iss.log" 2>&1'
check "ragged tiles: statements over one ragged partition count share a partition loop (a region)" \
  '"$TILEGEN" gen -o "$w/ragged_tiles-gen" "$here/specs/ragged_tiles.yaml" &&
   [ "$(grep -c "for (int64_t tg_p = 0; tg_p < (tg_min(128, (300 - (v_[ir] \* 128)))); tg_p++) {" "$w/ragged_tiles-gen/ragged_tiles.c")" = 2 ]'
check "ragged tiles: ragged_attn.yaml (triangular loop, PSUM ragged in both dims) matches numpy" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" ragged_attn >"$w/ragged_attn.log" 2>&1'
check "ragged tiles: ragged_attn.yaml C simulation and ISS bit-identical" \
  'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" ragged_attn >"$w/ragged_attn-iss.log" 2>&1'
# SPMD grids (SPEC.md §2.1) of rank 1 (ragged last block), 2 (tiled matmul)
# and 3 (program_id in a tile shape, regions, iota, affine_select, a loop
# range), and cores: 2 (grid_cores: two physical cores' instruction streams,
# each on its own SBUF/PSUM): numpy exact, ISS bit for bit; the per-program
# entry in any order.
for k in grid_rows grid_mm grid_blocks grid_cores; do
  check "grid: $k.yaml matches numpy" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/check.sh" $k >"$w/$k.log" 2>&1'
  check "grid: $k.yaml C simulation and ISS bit-identical" \
    'TILEGEN="$TILEGEN" PYTHON="$PYTHON" CC="$CC" BUILD="$w" SPECS="$here/specs" "$here/iss_check.sh" $k >"$w/$k-iss.log" 2>&1'
done
check "grid: k_run_program in reverse and shuffled order writes what k() writes (grid_order.c)" \
  'mkdir -p "$w/order" && "$TILEGEN" gen -o "$w/order" "$here/specs/grid_blocks.yaml" &&
   $CC -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -I"$root/runtime" -I"$w/order" \
     "$here/grid_order.c" "$w/order/grid_blocks.c" "$root"/runtime/tg_core.c "$root"/runtime/tg_dtype.c \
     "$root"/runtime/tg_math.c "$root"/runtime/tg_alu.c "$root"/runtime/tg_ops.c -o "$w/order/run" &&
   "$w/order/run" >"$w/order.log" 2>&1 && grep -q "^5 passed, 0 failed" "$w/order.log"'
# The disagreements the differential fuzzer found (tests/numerics/fuzz_diff_cases/
# <case>/fz.yaml + its inputs) stay fixed: C simulation and ISS bit for bit,
# built as the fuzzer builds them and with -march=native (int-cast-negzero
# differed only with SSE4.1 and up).
agree_case() { # agree_case DIR [CFLAGS]: 0 when the C simulation and the ISS agree
  c=$1; d=$w/case-$(basename "$1"); rm -rf "$d"; mkdir -p "$d/g" && cp "$c"/*.npy "$d/" &&
  "$TILEGEN" gen -o "$d/g" "$c/fz.yaml" && "$TILEGEN" asm "$d/g/fz.s" -o "$d/fz.bin" &&
  $CC -std=c11 -O2 $2 -ffp-contract=off -I"$root/runtime" -I"$root/runtime/host" -I"$d/g" \
    '-DKERNEL_H="fz.h"' -DKERNEL_DESC=fz_kernel "$here/iss_agree.c" "$d/g/fz.c" \
    "$root"/runtime/tg_*.c "$root/runtime/host/tg_npy.c" -o "$d/agree" && "$d/agree" "$d" 1 "$d/fz.bin"
}
for c in "$here"/fuzz_diff_cases/*/; do
  check "fuzz_diff case $(basename "$c"): C simulation and ISS bit-identical" 'agree_case "$c" >"$w/case.log" 2>&1'
  check "fuzz_diff case $(basename "$c"), -march=native: C simulation and ISS bit-identical" \
    'agree_case "$c" -march=native >"$w/case.log" 2>&1'
done
"$TILEGEN" gen -o "$w/out" --bogus "$root/specs/softmax.yaml" 2>/dev/null; rc=$?
check "unknown option: exit 2" '[ $rc = 2 ]'
"$TILEGEN" gen -o "$w/nodir/sub" "$root/specs/softmax.yaml" 2>/dev/null; rc=$?
check "missing output dir: created (mkdir -p)" '[ $rc = 0 ] && [ -f "$w/nodir/sub/softmax.c" ]'
"$TILEGEN" gen -o "$w/out" "$w/missing.yaml" 2>/dev/null; rc=$?
check "missing spec: exit 2" '[ $rc = 2 ]'

# The harness's .npy reader is strict.
h="$w/h"; mkdir -p "$h"
if "$TILEGEN" gen -o "$h" "$root/specs/tensor_add.yaml" &&
   $CC -std=c11 -O1 -Wall -Wextra -Werror -I"$root/runtime" -I"$root/runtime/host" -I"$h" '-DKERNEL_H="tensor_add.h"' \
     -DKERNEL_DESC=tensor_add_kernel "$here/run_kernel.c" "$h/tensor_add.c" "$root/runtime/host/tg_npy.c" \
     "$root/runtime/tg_core.c" "$root/runtime/tg_dtype.c" "$root/runtime/tg_math.c" "$root/runtime/tg_alu.c" \
     "$root/runtime/tg_ops.c" -o "$h/run"; then
  for case in "dtype:<f8:want '<f4'" "shape:bad:shape (512, 2047), want (512, 2048)" "order:>f4:big-endian" \
              "fortran:F:fortran_order" "short:cut:truncated data"; do
    name=${case%%:*}; rest=${case#*:}; kind=${rest%%:*}; want=${rest#*:}
    "$PYTHON" - "$h" "$kind" <<'PY'
import sys, numpy as np
d, kind = sys.argv[1], sys.argv[2]
a = np.zeros((512, 2048), np.float32)
np.save(d + "/b.npy", a)
if kind == "bad":
    a = np.zeros((512, 2047), np.float32)
elif kind == "F":
    a = np.asfortranarray(a)
elif kind not in ("cut",):
    a = a.astype(kind)
np.save(d + "/a.npy", a)
if kind == "cut":
    raw = open(d + "/a.npy", "rb").read()
    open(d + "/a.npy", "wb").write(raw[:-4])
PY
    "$h/run" "$h" 2>"$h/err"; rc=$?
    check "npy reader rejects $name with a clear message" '[ $rc = 2 ] && grep -q -- "$want" "$h/err"'
  done
  "$PYTHON" -c "import numpy as np; np.save('$h/a.npy', np.ones((512,2048),np.float32)); np.save('$h/b.npy', np.full((512,2048),2,np.float32))"
  check "harness round trip: c = a + b read back by numpy" \
    '"$h/run" "$h" && "$PYTHON" -c "import numpy as np, sys; c=np.load(\"$h/c.npy\"); sys.exit(0 if c.dtype==np.float32 and c.shape==(512,2048) and (c==3).all() else 1)"'
else
  ko "harness build for the npy tests"
fi
echo "$pass passed, $fail failed"
