#!/bin/sh
# Install the Debian packages tilegen needs, when any is missing.
# As root it runs apt-get itself, with sudo available it uses sudo, otherwise
# it prints the exact command to run and fails.
set -eu
quiet=0; [ "${1:-}" = -q ] && quiet=1
PKGS="build-essential clang llvm libclang-rt-14-dev libyaml-dev re2c libcmocka-dev \
python3 python3-numpy python3-jinja2 libopenblas-dev pkg-config valgrind groff-base \
gcc-arm-none-eabi qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  [ "$quiet" = 1 ] || echo "deps: all packages present"
  exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing$missing"
  sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "deps: installing$missing (sudo)"
  sudo sh -c "$cmd"
else
  echo "deps: missing packages:$missing" >&2
  echo "deps: run as root:  $cmd" >&2
  exit 1
fi
