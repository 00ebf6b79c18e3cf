/*
 * schemes.c -- the table of schemes: the one place that names them all.
 * Each scheme is one file under schemes/ that defines its struct tw_ops
 * (scheme.h); adding one is a value in enum tw_scheme (twheel.h), its file,
 * and one line here (docs/adding-a-scheme.md).
 */
#include "scheme.h"

extern const struct tw_ops tw_list_ops, tw_ordered_ops, tw_heap_ops, tw_wheel_ops,
    tw_hashed_sorted_ops, tw_hashed_ops, tw_hier_ops, tw_coarse_ops, tw_lawn_ops, tw_hybrid_ops;

/* What tw_create() makes from a NULL configuration. */
const enum tw_scheme tw_default_scheme = TW_HIERARCHICAL;

const struct tw_ops *const tw_schemes[TW_SCHEME_COUNT] = {
    [TW_LIST] = &tw_list_ops,
    [TW_ORDERED] = &tw_ordered_ops,
    [TW_HEAP] = &tw_heap_ops,
    [TW_WHEEL] = &tw_wheel_ops,
    [TW_HASHED_SORTED] = &tw_hashed_sorted_ops,
    [TW_HASHED] = &tw_hashed_ops,
    [TW_HIERARCHICAL] = &tw_hier_ops,
    [TW_HIERARCHICAL_COARSE] = &tw_coarse_ops,
    [TW_LAWN] = &tw_lawn_ops,
    [TW_HYBRID] = &tw_hybrid_ops,
};
