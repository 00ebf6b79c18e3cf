#!/bin/sh
# The README's example is examples/realclock.c without its first line (the
# file's own title comment): fail if the two have drifted apart.
#
#   examples/readme-check.sh README.md examples/realclock.c
readme=$1
source=$2
# The first ```c block of the README, without its fences.
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$readme" >"${TMPDIR:-/tmp}/readme-example.$$"
tail -n +2 "$source" | diff -u --label "README.md example" --label "$source" \
  "${TMPDIR:-/tmp}/readme-example.$$" -
rc=$?
rm -f "${TMPDIR:-/tmp}/readme-example.$$"
[ "$rc" -eq 0 ] && echo "readme-check: the README's example is $source"
exit "$rc"
