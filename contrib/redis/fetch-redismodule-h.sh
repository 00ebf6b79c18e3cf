#!/usr/bin/env bash
# Put Redis's module API header, redismodule.h, into DIR, taken from the
# machine's Debian source package of redis (never from this repository,
# which holds no Redis code).
#
#   contrib/redis/fetch-redismodule-h.sh DIR
#
# With DIR/redismodule.h already there, does nothing.  Else downloads the
# source package `redis` of the machine's Debian suite through apt-get,
# with a private list of deb-src entries made from the machine's deb
# entries (the system's apt configuration is not changed), and extracts
# that one file from the upstream tarball.  Exit 0 with the header in
# place, or 1 having said why not (no apt-get, no network, no Debian).
set -euo pipefail
out=${1:?usage: fetch-redismodule-h.sh DIR}
[ -s "$out/redismodule.h" ] && exit 0
command -v apt-get >/dev/null 2>&1 || { echo "fetch-redismodule-h: no apt-get" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts"

# deb-src twins of the machine's Debian entries, one-line and deb822 form.
: >"$tmp/sources.list"
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^[[:space:]]*deb[[:space:]]\+\(.*debian.*\)$/deb-src \1/p' /etc/apt/sources.list \
    >>"$tmp/sources.list"
fi
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && grep -qi 'debian' "$f" || continue
  sed 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' "$f" >"$tmp/parts/$(basename "$f")"
done
if [ ! -s "$tmp/sources.list" ] && [ -z "$(ls -A "$tmp/parts")" ]; then
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || { echo "fetch-redismodule-h: not a Debian system" >&2; exit 1; }
  printf 'deb-src http://deb.debian.org/debian %s main\n' "$codename" >"$tmp/sources.list"
  printf 'deb-src http://deb.debian.org/debian-security %s-security main\n' "$codename" \
    >>"$tmp/sources.list"
fi

opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts"
      -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
      -o "APT::Sandbox::User=$(id -un)" -o Debug::NoLocking=1 -q)
echo "fetch-redismodule-h: downloading Debian's redis source package for redismodule.h"
if ! (cd "$tmp" && apt-get "${opts[@]}" update >"$tmp/log" 2>&1 &&
      apt-get "${opts[@]}" source --download-only redis >>"$tmp/log" 2>&1); then
  tail -n 3 "$tmp/log" | sed 's/^/fetch-redismodule-h: apt-get: /' >&2
  exit 1
fi
tarball=$(ls "$tmp"/redis_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "fetch-redismodule-h: no upstream tarball in the package" >&2; exit 1; }
member=$(tar -tf "$tarball" | awk '/^[^\/]*\/src\/redismodule\.h$/ && !m { m = $0 } END { print m }')
[ -n "$member" ] ||
  { echo "fetch-redismodule-h: no src/redismodule.h in $(basename "$tarball")" >&2; exit 1; }
mkdir -p "$out"
tar -xOf "$tarball" "$member" >"$tmp/redismodule.h"
grep -q REDISMODULE_APIVER_1 "$tmp/redismodule.h" ||
  { echo "fetch-redismodule-h: the header is not Redis's module API" >&2; exit 1; }
mv "$tmp/redismodule.h" "$out/redismodule.h"
echo "fetch-redismodule-h: $out/redismodule.h from $(basename "$tarball")"
