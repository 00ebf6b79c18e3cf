/*
 * report.h -- what the files of twbench's report share: how a cell is
 * judged and ranked (report_cells.c); each target's look and the plots a
 * series gets (report_style.c); the SVG drawing (report_svg.c); the
 * writers of twbench.json (report_json.c, json_write() in harness.h),
 * report.html (report_html.c) and summary.md (report_md.c); report.c
 * writes the files.  A file here calls only the files listed before it,
 * util.c, counters.c (where the counts come from) and claims.c's
 * claim_name().
 */
#ifndef TWBENCH_REPORT_H
#define TWBENCH_REPORT_H

#include "harness.h"

#include <stdio.h>

/* -------------------------------------------------------- report_cells.c */

/* A cell with a figure. */
int cell_ok(const struct cell *c);
/* Unstable: the windows, or the round medians, fall in two clusters, so
 * the median may sit in either and a trend through it may be fake. */
int cell_unstable(const struct cell *c);

/* The notes under the tables, in words: the unstable rule, the narrowed
 * intervals, the late scheme. */
extern const char unstable_rule[];
extern const char narrowed_note[];
extern const char late_note[];

int is_peer(int ti);
/* The default scheme, hierarchical (tw_create() with no configuration). */
int is_default(int ti);
/* Fires late by design (hierarchical_coarse). */
int fires_late(int ti);
/* Does the workload fire timers (so that firing late could matter)? */
int series_fires(const struct series *s);
/* Has ti a cell in s (with a figure or why not), a figure in s? */
int has_target(const struct series *s, int ti);
int has_data(const struct series *s, int ti);
/* The default scheme's target index, -1 if not in the run. */
int default_target(void);
/* The reference wheel's target index if show[] marks it, else -1. */
int refwheel_target(const int *show);
/* The longest interval the other targets drew at point xi of s. */
uint64_t others_hi(const struct series *s, int xi, int ti);
/* Did ti draw shorter intervals than the others there (the wheel, up to
 * its MaxInterval)?  Then it ran an easier workload: shown, not ranked. */
int cell_narrowed(const struct series *s, int xi, int ti);
/* Did any cell, did a late scheme, run? */
int any_narrowed(void);
int any_late(void);

/* A twheel scheme, one that fires on time, any peer, an event loop's. */
enum pick { PICK_TWHEEL, PICK_EXACT, PICK_PEER, PICK_LOOP };

/* The target of kind p with the lowest median at x index xi, other than
 * `except` and those that ran narrower intervals; -1 if none. */
int best_at(const struct series *s, int xi, enum pick p, int except);
/* The lowest figure at point xi of s, twheel's or a peer's; -1 if none. */
int best_any(const struct series *s, int xi);
/* a / b at one point, as twbench prints it (*paired: the median of the
 * rounds' ratios, *lo..*hi their range); 0 when either is missing. */
double cell_ratio(const struct cell *a, const struct cell *b, double *lo, double *hi,
                  int *paired);
/* The x of a point as the tables write it: n, or D in the ttl sweep. */
const char *x_name(const struct series *s, int xi, char *buf, size_t len);
/* A figure in ns: one decimal, none from 10^4 on. */
const char *fmt_ns(double v, char *buf, size_t len);
/* Is s in the summary (every series against n)?  Has point xi a row
 * there?  Is target ti in any series of it?  Its largest n (0: none). */
int in_summary(const struct series *s);
int summary_row(const struct series *s, int xi);
int in_any_summary(int ti);
size_t largest_n(void);
/* Bytes per timer of target ti, and at which n; 0 if none. */
double target_bytes(int ti, size_t *n_at);

/* -------------------------------------------------------- report_style.c */

/* Okabe and Ito's colour-blind-safe palette. */
#define OI_BLACK "#000000"
#define OI_ORANGE "#E69F00"
#define OI_SKY "#56B4E9"
#define OI_GREEN "#009E73"
#define OI_YELLOW "#F0E442"
#define OI_BLUE "#0072B2"
#define OI_VERMILION "#D55E00"
#define OI_PURPLE "#CC79A7"
#define EDGE_DARK "#555555" /* yellow's outline: yellow alone fades on white */
#define REF_GREY "#808080"  /* refwheel's, a neutral beside every palette colour */

enum marker {
    MK_CIRCLE,
    MK_SQUARE,
    MK_DIAMOND,
    MK_TRI_UP,
    MK_TRI_DOWN,
    MK_PLUS,
    MK_CROSS,
    MK_STAR,
    MK_HEXAGON
};

struct style {
    const char *colour;
    enum marker marker;
    const char *dash; /* stroke-dasharray, NULL: solid */
    const char *edge; /* outline of the line and markers, NULL: none */
};

struct style style_make(const char *colour, enum marker mk, const char *dash);
/* Target ti's look, the same in every plot. */
struct style style_of(int ti);

/* A series' plots (report_style.c says which targets each shows). */
enum group { GR_MAIN, GR_SCHEMES, GR_WHEELS, GR_LISTS, GR_LAWN, GR_COUNT };

#define GROUP_MAX 6

/* The targets of plot g of s, in drawing order (the default first); how
 * many: 0 if s has no such plot, but for the main one, always drawn. */
int group_members(const struct series *s, enum group g, int *out);
int group_drawn(const struct series *s, enum group g);
/* The plot's file name, "startstop-wheels.svg". */
const char *plot_file(const struct series *s, enum group g, char *buf, size_t len);
/* What the plot shows, "twheel vs peers". */
const char *group_name(const struct series *s, enum group g);

/* ---------------------------------------------------------- report_svg.c */

/* A plot's size, px. */
#define SVG_W 690
#define SVG_H 430

/* Text for SVG and HTML, in element content and in attribute values. */
void xml_text(FILE *f, const char *s);
/* A legend's line sample of style st at (x, y): its dash and its marker. */
void svg_sample(FILE *f, const struct style *st, double x, double y, int hollow);
/* Plot g of series s; the fig9 plot. */
void svg_series(FILE *f, const struct series *s, enum group g);
void svg_fig9(FILE *f);

/* --------------------------------------------------------- report_html.c */

void html_write(FILE *f);

/* ----------------------------------------------------------- report_md.c */

void md_write(FILE *f);

#endif /* TWBENCH_REPORT_H */
