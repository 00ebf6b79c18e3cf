#!/usr/bin/env bash
# Install what building, testing and benchmarking twheel needs, with apt-get,
# when it is missing; does nothing (and needs no network) when all is there.
#
#   scripts/deps.sh             required: a C compiler, make, cmake, libc's
#                               headers, pkg-config; optional: libev-dev and
#                               libuv1-dev (the loop drivers, and the
#                               benchmark's peers), redis-server and
#                               redis-tools (the Redis module's tests)
#   scripts/deps.sh --bench     the same plus the benchmark's third peer,
#                               libevent-dev, and libhiredis-dev for the
#                               Redis module's benchmark client (optional)
#   scripts/deps.sh --ci        the default set plus valgrind and python3
#                               (required)
#   scripts/deps.sh --pkg P...  install the Debian packages P if apt-get can;
#                               exit 1 if not (for CI's optional tools)
#
# Without apt-get, or without root or sudo, a missing required tool is an
# error that names it; a missing peer is a warning (twbench then reports
# its column as missing), and the build goes on.
set -euo pipefail

have_cmd() { command -v "$1" >/dev/null 2>&1; }
# A header the C compiler finds, wherever the system keeps it.
have_header() { printf '#include <%s>\n' "$1" | cc -E -x c - >/dev/null 2>&1; }

sudo=()
can_apt=1
if ! have_cmd apt-get; then
  can_apt=0
elif [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then sudo=(sudo); else can_apt=0; fi
fi

# apt-get, waiting while another process (unattended-upgrades, a second
# install) holds one of apt's locks, for 10 minutes at most; output goes to
# a log, shown when apt-get fails for another reason.
apt_wait() {
  local log deadline=$((SECONDS + 600)) said=0
  log=$(mktemp)
  while :; do
    if ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
        apt-get -o DPkg::Lock::Timeout=30 "$@" </dev/null >"$log" 2>&1; then
      rm -f "$log"
      return 0
    fi
    if grep -qiE 'could not get lock|unable to lock|is another process using it' "$log" &&
        [ "$SECONDS" -lt "$deadline" ]; then
      if [ "$said" -eq 0 ]; then
        echo "deps: apt is busy (another process holds its lock); waiting up to 10 minutes..."
        said=1
      fi
      sleep 5
      continue
    fi
    tail -n 5 "$log" | sed 's/^/deps: apt-get: /' >&2
    rm -f "$log"
    return 1
  done
}

# Install packages $@ (after an update): 0, or 1 having said why not.
install() {
  if [ "$can_apt" -eq 0 ]; then
    return 1
  fi
  echo "deps: installing $* (apt-get; a minute or so)"
  apt_wait update -q && apt_wait install -y -q --no-install-recommends "$@" &&
    echo "deps: installed $*"
}

if [ "${1:-}" = "--pkg" ]; then
  shift
  install "$@"
  exit $?
fi

need=()
have_cmd cmake || need+=(cmake)
have_cmd make || need+=(make)
have_cmd cc || need+=(gcc)
[ ${#need[@]} -gt 0 ] || have_header stdio.h || need+=(libc6-dev)
have_cmd pkg-config || need+=(pkg-config)
if [ "${1:-}" = "--ci" ]; then
  have_cmd valgrind || need+=(valgrind)
  have_cmd python3 || need+=(python3)
fi
peers=()
have_cmd redis-server || peers+=(redis-server)
have_cmd redis-cli || peers+=(redis-tools)
if have_cmd cc; then
  have_header ev.h || have_header libev/ev.h || peers+=(libev-dev)
  have_header uv.h || peers+=(libuv1-dev)
  [ "${1:-}" != "--bench" ] || have_header event2/event.h || peers+=(libevent-dev)
  [ "${1:-}" != "--bench" ] || have_header hiredis/hiredis.h || peers+=(libhiredis-dev)
else
  peers+=(libev-dev libuv1-dev)
  [ "${1:-}" != "--bench" ] || peers+=(libevent-dev libhiredis-dev)
fi

if [ $((${#need[@]} + ${#peers[@]})) -eq 0 ]; then
  exit 0
fi
if install ${need[@]+"${need[@]}"} ${peers[@]+"${peers[@]}"}; then
  exit 0
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: missing ${need[*]}: install them (on Debian: sudo apt-get install ${need[*]}${peers[*]:+ ${peers[*]}}) and run again" >&2
  exit 1
fi
echo "deps: ${peers[*]} missing (optional: the drivers they need are skipped and twbench" \
     "marks their columns missing; on Debian: sudo apt-get install ${peers[*]}); going on" \
     "without them"
exit 0
