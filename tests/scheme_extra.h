/*
 * scheme_extra.h -- the line that adds the test-only scheme to the scheme
 * map, in the build of the library that carries it (twheel_extra,
 * tests/CMakeLists.txt, which puts this file before every source with
 * -include).  A scheme of the library is added by the same line in
 * TW_SCHEME_MAP itself (docs/adding-a-scheme.md).
 */
#define TW_SCHEME_MAP_EXTRA(X) X(SORTED_ARRAY, sorted_array)
