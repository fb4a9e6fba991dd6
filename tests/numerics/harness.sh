# harness.sh - sourced by check.sh and iss_check.sh: the host flags of the
# kernel harnesses, the runtime objects built once per run, and a kernel's
# generated files. Expects root, work, CC, TILEGEN, SPECS (and GEN_DIR).
# TG_HOST_ARCH: the top-level Makefile's ARCH (-march=native under NATIVE=1).
# HARNESS_OPT: the optimisation flag of those builds (default -O2).
HOSTFLAGS="-std=c11 ${HARNESS_OPT:--O2} ${TG_HOST_ARCH:-} -ffp-contract=off -Wall -Wextra -Werror -I$root/runtime -I$root/runtime/host"

# The runtime sources an ISS check links (iss_check.sh; gen_cli.sh builds them
# once for all its checks).
RT_ISS_SRCS="tg_core tg_dtype tg_math tg_alu tg_ops tg_prog tg_iss tg_iss_row host/tg_npy"

# build_rt SRC...: compile runtime/SRC.c into $work/rt; sets rtobjs. A
# failure ends the suite ("0 passed, 1 failed"). RTOBJS, when set, are the
# runtime objects already built (`make generate` passes the Makefile's).
build_rt() {
  if [ -n "$RTOBJS" ]; then rtobjs=$RTOBJS; return; fi
  mkdir -p "$work/rt" || exit 2
  rtobjs=
  for s in "$@"; do
    o=$work/rt/$(basename "$s").o
    $CC $HOSTFLAGS -c "$root/runtime/$s.c" -o "$o" || { echo "cannot build runtime/$s.c"; echo "0 passed, 1 failed"; exit 1; }
    rtobjs="$rtobjs $o"
  done
}

# kernel_files K D: D/gen/K.h, K.c (and K.s) from $GEN_DIR, else `tilegen gen`
# of $SPECS/K.yaml; log in D/gen.log. Sets ok=0 and why on a failure.
kernel_files() {
  rm -rf "$2"; mkdir -p "$2/gen"
  if [ -n "$GEN_DIR" ]; then
    cp "$GEN_DIR/$1.h" "$GEN_DIR/$1.c" "$2/gen/" >"$2/gen.log" 2>&1 || { ok=0; why="no $GEN_DIR/$1.c"; }
    [ -f "$GEN_DIR/$1.s" ] && cp "$GEN_DIR/$1.s" "$2/gen/"
  elif ! "$TILEGEN" gen -o "$2/gen" "$SPECS/$1.yaml" >"$2/gen.log" 2>&1; then
    ok=0; why="tilegen gen failed"
  fi
}

# build_harness K D MAIN OUT: D/OUT from the harness MAIN.c, D/gen/K.c and the
# runtime objects (log appended to D/gen.log).
build_harness() {
  $CC $HOSTFLAGS -I"$2/gen" "-DKERNEL_H=\"$1.h\"" -DKERNEL_DESC="$1_kernel" \
    "$here/$3" "$2/gen/$1.c" $rtobjs -o "$2/$4" >>"$2/gen.log" 2>&1
}

# verdict K D: count kernel K as passed or failed (ok, why) and print it, with
# the head of D/gen.log on a failure.
verdict() {
  if [ $ok = 1 ]; then
    pass=$((pass+1)); echo "[       OK ] $1"
  else
    fail=$((fail+1)); echo "[  FAILED  ] $1: $why (log: $2/gen.log)"; sed 's/^/    /' "$2/gen.log" | head -20
  fi
}
