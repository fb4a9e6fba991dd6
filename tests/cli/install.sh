#!/bin/sh
# install.sh - the install suite: `make install` into a fresh temporary prefix,
# the installed tree file by file, libtgrt.a freestanding, tgrt.pc through
# pkg-config, the installed tilegen finding its templates from anywhere, the
# host example (examples/host) built with pkg-config and the installed make
# fragment alone and run, the CMake helper likewise (when cmake is installed),
# then `make uninstall` removing exactly what install put there.
# Env: MAKE, BUILD (scratch under $BUILD/install-suite), SAN (the calling build's
# sanitizer flags: with any, install builds plain objects of its own under
# $BUILD/install-plain, as a user's install is built; an instrumented libtgrt.a
# needs the sanitizer runtimes, which its consumers do not link).
# Ends "N passed, M failed".
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
ivars="BUILD=$BUILD"
if [ -n "$SAN" ]; then
  rm -rf "$BUILD/install-plain" # objects of other flags would be taken as up to date
  ivars="BUILD=$BUILD/install-plain BIN=$BUILD/install-plain/bin"
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$BUILD/install-suite" || exit 2
work=$(cd "$BUILD/install-suite" && pwd)
prefix=$work/prefix
log=$work/log
rm -rf "$work"/* ; : >"$log"
pass=0; fail=0
ok() { pass=$((pass+1)); echo "[       OK ] $1"; }
ko() { fail=$((fail+1)); echo "[  FAILED  ] $1 (log: $log)"; tail -15 "$log" | sed 's/^/    /'; }
# A make of the example or of install must not see the calling make's flags
# (nor its command-line variables, which make exports: `make asan`'s SAN, OPT, BIN).
clean_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS -u SAN -u OPT -u BIN "$MAKE" --no-print-directory "$@"; }
ex_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS -u SAN -u OPT -u BIN -u BUILD -u MAKE "${EX_MAKE:-$MAKE}" --no-print-directory "$@"; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

if (cd "$root" && clean_make install PREFIX="$prefix" $ivars) >>"$log" 2>&1; then ok "make install PREFIX=<fresh dir>"
else ko "make install"; echo "$pass passed, $((fail+1)) failed"; exit 1; fi

# The tree: exactly these files.
{ echo bin/tilegen; echo lib/libtgrt.a; echo lib/pkgconfig/tgrt.pc; echo lib/cmake/tilegen/tilegen.cmake
  echo share/tilegen/tilegen.mk; echo include/tilegen/tg_isa.def; echo share/man/man1/tilegen.1
  for h in "$root"/runtime/*.h; do echo "include/tilegen/$(basename "$h")"; done
  for t in "$root"/templates/*.j2; do echo "share/tilegen/templates/$(basename "$t")"; done; } | sort >"$work/want"
(cd "$prefix" && find . -type f | sed 's|^\./||' | sort) >"$work/got"
if cmp -s "$work/want" "$work/got"; then ok "installed tree: $(wc -l <"$work/got") files as listed"
else diff "$work/want" "$work/got" >>"$log"; ko "installed tree differs from the list"; fi

# libtgrt.a: the freestanding runtime, nothing undefined beyond memcpy/memset.
members=$(ar t "$prefix/lib/libtgrt.a" | sort | tr '\n' ' ')
want="tg_alu.o tg_core.o tg_cost.o tg_cost_rules.o tg_cost_table.o tg_dtype.o tg_iss.o tg_iss_row.o tg_math.o tg_ops.o tg_prog.o "
if [ "$members" = "$want" ]; then ok "libtgrt.a members: $members"
else echo "members: $members" >>"$log"; ko "libtgrt.a members"; fi
nm --defined-only "$prefix/lib/libtgrt.a" | awk 'NF == 3 {print $3}' | sort -u >"$work/defs"
bad=$(nm -u "$prefix/lib/libtgrt.a" | awk 'NF {print $NF}' | grep -v ':$' | sort -u | grep -vxF -f "$work/defs" |
      grep -vx -e memcpy -e memset | tr '\n' ' ')
if [ -z "$bad" ]; then ok "libtgrt.a needs nothing beyond memcpy/memset"
else echo "undefined: $bad" >>"$log"; ko "libtgrt.a needs $bad"; fi

# pkg-config
flags=$(echo $(pkg-config --cflags --libs tgrt 2>>"$log"))
if [ "$flags" = "-I$prefix/include/tilegen -L$prefix/lib -ltgrt" ] &&
   [ "$(pkg-config --modversion tgrt)" = "$(sed -n 's/^#define TILEGEN_VERSION "\(.*\)"/\1/p' "$root/gen/version.h")" ]
then ok "pkg-config --cflags --libs tgrt: $flags"; else echo "flags: $flags" >>"$log"; ko "pkg-config tgrt"; fi

# The installed tilegen finds the installed templates, run by path and by
# PATH lookup, from a directory with no templates/ and no TILEGEN_TEMPLATES.
mkdir -p "$work/cwd/o1" "$work/cwd/o2"
if (cd "$work/cwd" && env -u TILEGEN_TEMPLATES "$prefix/bin/tilegen" gen -o o1 "$root/specs/softmax.yaml" &&
    env -u TILEGEN_TEMPLATES PATH="$prefix/bin:/usr/bin:/bin" tilegen gen -o o2 "$root/specs/softmax.yaml" &&
    [ -s o1/softmax.c ] && [ -s o2/softmax.c ]) >>"$log" 2>&1
then ok "installed tilegen finds $prefix/share/tilegen/templates"; else ko "installed tilegen gen"; fi

# The host example, out of the source tree, with pkg-config and tilegen.mk only.
cp -R "$root/examples/host" "$work/host"
if (cd "$work/host" && ex_make TILEGEN_SPECS="$root/specs" check) >"$work/host.log" 2>&1 &&
   grep -q '^softmax 1024x512: max relative error' "$work/host.log"; then
  ok "examples/host: $(grep '^softmax' "$work/host.log")"
else cat "$work/host.log" >>"$log"; ko "examples/host build and run"; fi
if (cd "$work/host" && ex_make -q TILEGEN_SPECS="$root/specs" host) >>"$log" 2>&1; then ok "examples/host up to date after a build"
else ko "examples/host: make -q host wants to rebuild"; fi

# The CMake helper, when cmake is there.
if command -v cmake >/dev/null 2>&1; then
  mkdir -p "$work/cm"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.13)' 'project(tgcm C)' \
    "include($prefix/lib/cmake/tilegen/tilegen.cmake)" "add_executable(host $root/examples/host/main.c)" \
    "tilegen_add_kernel(host $root/specs/softmax.yaml)" >"$work/cm/CMakeLists.txt"
  if (env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKE cmake -S "$work/cm" -B "$work/cm/b" &&
      env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKE cmake --build "$work/cm/b" && "$work/cm/b/host") >"$work/cm.log" 2>&1 &&
     grep -q '^softmax 1024x512' "$work/cm.log"; then ok "tilegen_add_kernel (CMake): $(grep '^softmax' "$work/cm.log")"
  else cat "$work/cm.log" >>"$log"; ko "CMake helper build and run"; fi
else
  echo "cmake not installed: CMake helper not exercised"
fi

# the man page is found under the prefix
if command -v man >/dev/null 2>&1; then
  if MANPATH="$prefix/share/man" MANWIDTH=80 man tilegen 2>>"$log" | grep -q 'tilegen - C code generator'
  then ok "man tilegen (MANPATH=<prefix>/share/man)"; else ko "man tilegen from the prefix"; fi
fi

# uninstall: every installed file and tilegen's own directories go; what
# else is in the prefix stays.
mkdir -p "$prefix/share/doc"; : >"$prefix/lib/libother.a"; : >"$prefix/share/doc/other"
if (cd "$root" && clean_make uninstall PREFIX="$prefix" $ivars) >>"$log" 2>&1 &&
   [ "$(cd "$prefix" && find . -type f | sort | tr '\n' ' ')" = "./lib/libother.a ./share/doc/other " ] &&
   [ ! -e "$prefix/share/tilegen" ] && [ ! -e "$prefix/include/tilegen" ] && [ ! -e "$prefix/lib/cmake/tilegen" ]
then ok "make uninstall removes exactly what install put there"
else (cd "$prefix" && find . | sort) >>"$log"; ko "make uninstall"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
