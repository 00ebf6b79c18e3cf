#!/usr/bin/env bash
# Install what building, testing and benchmarking twheel needs, with apt-get,
# when it is missing; does nothing (and needs no network) when all is there.
#
#   scripts/deps.sh          compiler, make, cmake, pkg-config, and the
#                            benchmark's peers: libev-dev, libuv1-dev, libevent-dev
#   scripts/deps.sh --ci     the same plus valgrind and python3
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd cmake || need+=(cmake)
have_cmd make || need+=(make)
have_cmd gcc || need+=(gcc)
have_cmd cc || need+=(gcc)
[ -e /usr/include/stdio.h ] || need+=(libc6-dev)
have_cmd pkg-config || need+=(pkg-config)
[ -e /usr/include/ev.h ] || need+=(libev-dev)
[ -e /usr/include/uv.h ] || need+=(libuv1-dev)
[ -e /usr/include/event2/event.h ] || need+=(libevent-dev)
if [ "${1:-}" = "--ci" ]; then
  have_cmd valgrind || need+=(valgrind)
  have_cmd python3 || need+=(python3)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "deps: installing ${need[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then
    sudo=(sudo)
  else
    echo "deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi
# apt-get, waiting while another process (unattended-upgrades, a second
# install) holds apt's lock, up to 10 minutes; any other failure ends with
# the command to run by hand.
apt_wait() {
  local log waited=0
  log=$(mktemp)
  while :; do
    if DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=60 "$@" \
        >"$log" 2>&1; then
      rm -f "$log"
      return 0
    fi
    if grep -qiE 'could not get lock|unable to lock|is another process using it' "$log" &&
        [ "$waited" -lt 600 ]; then
      [ "$waited" -eq 0 ] && echo "deps: apt is busy (another process holds its lock); waiting up to 10 minutes..."
      sleep 10
      waited=$((waited + 10))
      continue
    fi
    tail -n 5 "$log" | sed 's/^/deps: apt-get: /' >&2
    rm -f "$log"
    echo "deps: could not install ${need[*]}; install them by hand and run again:" >&2
    echo "      sudo apt-get update && sudo apt-get install ${need[*]}" >&2
    exit 1
  done
}
apt_wait update -q
apt_wait install -y -q --no-install-recommends "${need[@]}"
echo "deps: installed ${need[*]}"
