/*
 * schemes.c -- the table of schemes, made from TW_SCHEME_MAP (twheel.h):
 * X(ENUM, name) there means enum value TW_ENUM, name "name", and the const
 * struct tw_ops tw_name_ops that the scheme's own file defines
 * (docs/adding-a-scheme.md).  Nothing else in the core names a scheme.
 */
#include "scheme.h"

#define TW_OPS_DECLARE_(ENUM, name) extern const struct tw_ops tw_##name##_ops;
TW_SCHEME_MAP(TW_OPS_DECLARE_)

/* What tw_create() makes from a NULL configuration. */
const enum tw_scheme tw_default_scheme = TW_HIERARCHICAL;

#define TW_OPS_ENTRY_(ENUM, name) [TW_##ENUM] = &tw_##name##_ops,
const struct tw_ops *const tw_schemes[TW_SCHEME_COUNT] = {TW_SCHEME_MAP(TW_OPS_ENTRY_)};

#define TW_NAME_ENTRY_(ENUM, name) [TW_##ENUM] = #name,
const char *const tw_scheme_names[TW_SCHEME_COUNT] = {TW_SCHEME_MAP(TW_NAME_ENTRY_)};
