/*
 * report_style.c -- how each target looks in the report's plots and which
 * plots a series gets: the colour, marker and dash of every target, the
 * same in every plot, and the split of a series' targets into plots of at
 * most six lines (every target, or twheel against the peers and then the
 * other schemes, by family when they do not fit in one).
 */
#define _GNU_SOURCE

#include "report.h"

#include <twheel.h>

#include <string.h>

/* Okabe and Ito's colour-blind-safe palette (report.h).  The event-loop
 * peers take the warm colours and are dashed, twheel the others and solid,
 * the default black.  Ten schemes share four colours, each pair with
 * another marker: no two of a family share either, nor heap,
 * hierarchical_coarse and hybrid (the default run's), and plots that mix
 * families check (look_apart()).  refwheel, the lean wheel, which is in
 * every plot, is dashed too, in a grey outside the palette and with a
 * marker of its own, the hexagon: it looks apart from every target. */

struct style style_make(const char *colour, enum marker mk, const char *dash)
{
    struct style st = {.colour = colour,
                       .marker = mk,
                       .dash = dash,
                       .edge = strcmp(colour, OI_YELLOW) ? NULL : EDGE_DARK};
    return st;
}

struct style style_of(int ti)
{
    switch (targets[ti].peer) {
    case PEER_LIBEV:
        return style_make(OI_VERMILION, MK_PLUS, "9 4");
    case PEER_LIBUV:
        return style_make(OI_ORANGE, MK_CROSS, "14 4 3 4");
    case PEER_LIBEVENT:
        return style_make(OI_PURPLE, MK_STAR, "4 3");
    case PEER_REFWHEEL:
        return style_make(REF_GREY, MK_HEXAGON, "10 3 2 3");
    case PEER_NONE:
        break;
    }
    switch (targets[ti].scheme) {
    case TW_LIST:
        return style_make(OI_SKY, MK_TRI_DOWN, NULL);
    case TW_ORDERED:
        return style_make(OI_YELLOW, MK_TRI_UP, NULL);
    case TW_HEAP:
        return style_make(OI_BLUE, MK_SQUARE, NULL);
    case TW_WHEEL:
        return style_make(OI_BLUE, MK_TRI_UP, NULL);
    case TW_HASHED_SORTED:
        return style_make(OI_YELLOW, MK_TRI_DOWN, NULL);
    case TW_HASHED:
        return style_make(OI_GREEN, MK_SQUARE, NULL);
    case TW_HIERARCHICAL:
        return style_make(OI_BLACK, MK_CIRCLE, NULL);
    case TW_HIERARCHICAL_COARSE:
        return style_make(OI_SKY, MK_DIAMOND, NULL);
    case TW_LAWN:
        return targets[ti].options ? style_make(OI_YELLOW, MK_DIAMOND, NULL)
                                   : style_make(OI_SKY, MK_SQUARE, NULL);
    case TW_HYBRID:
        return style_make(OI_GREEN, MK_TRI_DOWN, NULL);
    default:
        return style_make("#777777", MK_CIRCLE, "2 2");
    }
}

/* A figure's plots, at most six lines each, the default in every one of
 * them as the reference, and refwheel, the lean wheel, as the yardstick:
 *   - every target in one plot, when they are few enough and look apart;
 *   - else "main": the default, the best other twheel scheme at the largest
 *     n and the four peers (refwheel first); and "schemes": the other
 *     twheel schemes with refwheel, when they fit in one plot and look
 *     apart (the default run's do);
 *   - else, for those, one plot per family, each with refwheel: the wheels
 *     (the paper's Schemes 4-7), the lists and the heap (Schemes 1-3), the
 *     Lawn family.
 * Every measured target is in some plot. */

static const char *const group_suffix[GR_COUNT] = {"", "-schemes", "-wheels", "-lists",
                                                   "-lawn"};
static const char *const group_title[GR_COUNT] = {
    "twheel vs peers", "twheel schemes", "wheels: Schemes 4-7", "lists and heap: Schemes 1-3",
    "Lawn and hybrid"};

static enum group family_of(int ti)
{
    switch (targets[ti].scheme) {
    case TW_WHEEL:
    case TW_HASHED_SORTED:
    case TW_HASHED:
    case TW_HIERARCHICAL:
    case TW_HIERARCHICAL_COARSE:
        return GR_WHEELS;
    case TW_LAWN:
    case TW_HYBRID:
        return GR_LAWN;
    default:
        return GR_LISTS;
    }
}

/* No two of t[0..m-1] share a colour or a marker. */
static int look_apart(const int *t, int m)
{
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++) {
            struct style a = style_of(t[i]), b = style_of(t[j]);
            if (!strcmp(a.colour, b.colour) || a.marker == b.marker)
                return 0;
        }
    return 1;
}

/* The targets measured in s, the default first; with twheel_only, the
 * twheel schemes other than the default.  How many. */
static int measured(const struct series *s, int *out, int twheel_only)
{
    int m = 0, def = default_target();
    if (!twheel_only && def >= 0 && has_data(s, def))
        out[m++] = def;
    for (int ti = 0; ti < ntargets; ti++)
        if (ti != def && has_data(s, ti) && !(twheel_only && is_peer(ti)))
            out[m++] = ti;
    return m;
}

/* Is every target of s in its one plot? */
static int single_plot(const struct series *s)
{
    int all[TARGETS_MAX], m = measured(s, all, 0);
    return m <= GROUP_MAX && look_apart(all, m);
}

/* refwheel's target index if it has figures in s, else -1: the lean
 * wheel is in every plot, beside the default, as the yardstick. */
static int refwheel_in(const struct series *s)
{
    for (int ti = 0; ti < ntargets; ti++)
        if (targets[ti].peer == PEER_REFWHEEL && has_data(s, ti))
            return ti;
    return -1;
}

/* Do the twheel schemes but the default fit in one plot, with refwheel? */
static int schemes_plot(const struct series *s)
{
    int rest[TARGETS_MAX + 1], m = measured(s, rest, 1), ref = refwheel_in(s);
    if (ref >= 0)
        rest[m++] = ref;
    return m <= GROUP_MAX - 1 && look_apart(rest, m);
}

/* The targets of plot g of s, in drawing order (the default first); how
 * many: 0 if s has no such plot, but for the main one, which is always
 * drawn (its file name is the one in the JSON since the first report). */
int group_members(const struct series *s, enum group g, int *out)
{
    int m = 0, def = default_target(), rest[TARGETS_MAX], nrest = measured(s, rest, 1);
    if (single_plot(s))
        return g == GR_MAIN ? measured(s, out, 0) : 0;
    if (g != GR_MAIN && (g == GR_SCHEMES) != schemes_plot(s))
        return 0;
    if (def >= 0 && has_data(s, def))
        out[m++] = def;
    if (g == GR_MAIN) {
        /* the best other twheel scheme at the largest x that has one */
        for (int xi = s->nx - 1; xi >= 0; xi--) {
            int b = best_at(s, xi, PICK_TWHEEL, def);
            if (b >= 0) {
                out[m++] = b;
                break;
            }
        }
        for (int ti = 0; ti < ntargets && m < GROUP_MAX; ti++)
            if (is_peer(ti) && has_data(s, ti))
                out[m++] = ti;
        return m;
    }
    int ref = refwheel_in(s);
    if (ref >= 0)
        out[m++] = ref;
    int base = m;
    for (int i = 0; i < nrest && m < GROUP_MAX; i++)
        if (g == GR_SCHEMES || family_of(rest[i]) == g)
            out[m++] = rest[i];
    return m > base ? m : 0;
}

int group_drawn(const struct series *s, enum group g)
{
    int mem[GROUP_MAX];
    return g == GR_MAIN || group_members(s, g, mem) > 0;
}

const char *plot_file(const struct series *s, enum group g, char *buf, size_t len)
{
    snprintf(buf, len, "%.40s%s.svg", s->name, group_suffix[g]);
    return buf;
}

const char *group_name(const struct series *s, enum group g)
{
    if (g != GR_MAIN)
        return group_title[g];
    if (single_plot(s))
        return "every target";
    int mem[GROUP_MAX], m = group_members(s, g, mem);
    for (int i = 0; i < m; i++)
        if (is_peer(mem[i]))
            return group_title[g];
    return "the default and the best other scheme";
}
