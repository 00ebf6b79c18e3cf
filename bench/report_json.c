/*
 * report_json.c -- twbench.json: the machine, the command, every target
 * and how it was set up, every cell with its samples and its workload's
 * own counts and its counts per operation (instructions, cycles, L1D
 * misses, and their source), the slopes against their claims, the lawn
 * crossover and fig9; every figure the tables and plots show, and more.
 * Under --counts a cell's median, min, max and samples are instructions
 * per operation, as its unit says.
 */
#define _GNU_SOURCE

#include "report.h"

#include <twheel.h>

#include <math.h>
#include <string.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* A number JSON can hold: NaN and infinities become null. */
static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

/* [v0, v1, ...] */
static void json_nums(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_num(f, v[i]);
    }
    fputc(']', f);
}

static const char *state_name(enum cell_state s)
{
    static const char *st[] = {"none", "ok", "skipped", "n/a", "missing"};
    return st[s];
}

static void json_cell(FILE *f, int *first, const struct series *s, int xi, int ti)
{
    const struct cell *c = &s->cell[xi][ti];
    if (c->state == CELL_NONE)
        return;
    fprintf(f, "%s\n    {\"workload\": ", *first ? "" : ",");
    *first = 0;
    json_str(f, s->name);
    fprintf(f, ", \"target\": ");
    json_str(f, targets[ti].name);
    fprintf(f, ", \"n\": %zu", s->n[xi]);
    if (s->d[xi])
        fprintf(f, ", \"ttls\": %u", s->d[xi]);
    fprintf(f, ", \"status\": ");
    json_str(f, state_name(c->state));
    if (c->state != CELL_OK) {
        fprintf(f, ", \"reason\": ");
        json_str(f, c->why ? c->why : "");
        fputc('}', f);
        return;
    }
    const struct wl_result *r = &c->last;
    int second = s->second;
    char ub[64];
    fprintf(f, ", \"unit\": ");
    json_str(f, series_unit(s, ub, sizeof ub));
    fprintf(f, ", \"reps\": %d, \"median\": ", c->reps);
    json_num(f, c->med);
    fprintf(f, ", \"min\": ");
    json_num(f, c->min);
    fprintf(f, ", \"max\": ");
    json_num(f, c->max);
    fprintf(f, ", \"samples\": ");
    json_nums(f, c->ns, c->reps);
    fprintf(f, ", \"unstable\": %s", cell_unstable(c) ? "true" : "false");
    if (c->rounds > 1) {
        /* samples: the windows of the first round; median, min and max:
         * over every round */
        fprintf(f, ", \"rounds\": %d, \"round_medians\": ", c->rounds);
        json_nums(f, c->round_med, c->rounds);
    }
    fprintf(f, ", \"ops_per_window\": %llu",
            (unsigned long long)(second ? r->ops2 : r->ops));
    fprintf(f, ", \"interval_lo\": %llu, \"interval_hi\": %llu", (unsigned long long)c->lo,
            (unsigned long long)c->hi);
    fprintf(f, ", \"node_bytes\": %zu, \"facility_bytes\": %zu, \"bytes_per_timer\": ",
            r->node_bytes, r->facility_bytes);
    json_num(f, c->bytes_per_timer);
    fprintf(f, ", \"seconds\": ");
    json_num(f, c->seconds);
    if (!strcmp(s->name, "expire") && r->ops)
        fprintf(f, ", \"start_ns_per_timer\": %.3f, \"advance_ns_per_timer\": %.3f",
                (double)r->phase1_ns / (double)r->ops, (double)r->phase2_ns / (double)r->ops);
    if (s->wl == WL_TCP)
        fprintf(f, ", \"restarts\": %llu, \"expiries\": %llu, \"stopped_share\": %.4f",
                (unsigned long long)r->stops, (unsigned long long)r->fired,
                r->ops ? (double)r->stops / (double)r->ops : 0.0);
    if (!strncmp(s->name, "ttl-", 4) && !second)
        fprintf(f, ", \"started\": %llu, \"expired\": %llu, \"advances\": %llu, \"live\": %zu",
                (unsigned long long)r->ops, (unsigned long long)r->fired,
                (unsigned long long)r->advances, r->live);
    /* the counts per operation, those the source gave */
    static const char *const key[3] = {"instructions_per_op", "cycles_per_op",
                                       "l1d_misses_per_op"};
    if (isfinite(cell_count(c, 0))) {
        fprintf(f, ", \"counts\": {\"source\": ");
        json_str(f, counters_source_name());
        for (int k = 0; k < 3; k++)
            if (isfinite(cell_count(c, k))) {
                fprintf(f, ", \"%s\": ", key[k]);
                json_num(f, cell_count(c, k));
            }
        fputc('}', f);
    }
    fputc('}', f);
}

/* Where the counts come from, what they count, or why there are none;
 * and what the figures are under --counts. */
static void json_counts(FILE *f)
{
    char line[400];
    fprintf(f, ",\n  \"counts_mode\": %s", ropt.counts ? "true" : "false");
    if (ropt.counts)
        fprintf(f, ", \"figures\": \"instructions per operation, counted by callgrind; no "
                   "times (valgrind runs ~50x slower)\"");
    fprintf(f, ",\n  \"counts\": {\"source\": ");
    if (counters_source() == COUNTS_NONE) {
        fprintf(f, "null, \"status\": \"unavailable\", \"reason\": ");
        json_str(f, counters_why());
    } else {
        json_str(f, counters_source_name());
        fprintf(f, ", \"status\": \"ok\", \"events\": [\"instructions\"");
        if (counters_have_cycles())
            fprintf(f, ", \"cycles\"");
        if (counters_have_l1d()) {
            fprintf(f, ", ");
            json_str(f, counters_l1d_name());
        }
        fprintf(f, "], \"scope\": ");
        json_str(f, counters_source() == COUNTS_PERF
                        ? "user space of twbench's thread (kernel and hypervisor excluded)"
                        : "the client program under valgrind (no kernel work); D1 misses are "
                          "the simulated L1 data cache's, reads and writes");
        fprintf(f, ", \"interval\": \"the phases each window times, the harness's loop and "
                   "its two clock reads included\", \"per_op\": \"median over the measured "
                   "windows of the window's count over its operations\"");
    }
    fprintf(f, ", \"line\": ");
    json_str(f, counts_line(line, sizeof line));
    fputc('}', f);
}

void json_write(FILE *f)
{
    fprintf(f, "{\n  \"tool\": \"twbench\",\n  \"twheel_version\": ");
    json_str(f, tw_version());
    fprintf(f, ",\n  \"command\": ");
    json_str(f, ropt.cmdline);
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, machine.cpu);
    fprintf(f, ", \"cpus\": %d, \"compiler\": ", machine.cpus);
    json_str(f, machine.compiler);
    fprintf(f, ", \"flags\": ");
    json_str(f, machine.flags);
    fprintf(f, ", \"kernel\": ");
    json_str(f, machine.kernel);
    fprintf(f, ", \"date\": ");
    json_str(f, machine.date);
    fprintf(f, ", \"rev\": ");
    json_str(f, machine.rev);
    fprintf(f, ", \"load_start\": ");
    json_num(f, machine.load_start[0]);
    fprintf(f, ", \"load_end\": ");
    json_num(f, machine.load_end[0]);
    fprintf(f, ", \"clock_gettime_ns\": ");
    json_num(f, machine.clock_read_ns);
    fprintf(f, ", \"epoll_wait_zero_ns\": ");
    json_num(f, machine.poll_ns);
    fprintf(f, "},\n  \"quick\": %s, \"seed\": %llu, \"warmup_windows\": 1, \"statistic\": "
               "\"median\", \"clock\": \"CLOCK_MONOTONIC\", \"real_poll\": %s, \"seconds\": ",
            ropt.quick ? "true" : "false", (unsigned long long)ropt.seed,
            ropt.real_poll ? "true" : "false");
    json_num(f, ropt.seconds);
    json_counts(f);
    fprintf(f, ",\n  \"targets\": [");
    for (int ti = 0; ti < ntargets; ti++) {
        const struct target *t = &targets[ti];
        fprintf(f, "%s\n    {\"name\": ", ti ? "," : "");
        json_str(f, t->name);
        fprintf(f, ", \"kind\": ");
        json_str(f, t->peer == PEER_NONE ? "twheel" : "peer");
        fprintf(f, ", \"status\": ");
        json_str(f, t->missing ? t->missing : "ok");
        if (t->peer == PEER_NONE) {
            fprintf(f, ", \"scheme\": ");
            json_str(f, tw_scheme_name((enum tw_scheme)t->scheme));
            fprintf(f, ", \"options\": %u, \"fires\": \"deadline <= now\"", t->options);
        } else if (t->peer == PEER_REFWHEEL && !t->missing) {
            fprintf(f, ", \"role\": \"the lean-wheel yardstick: Scheme 7 written here from "
                       "the paper\", \"source\": \"bench/refwheel.c\", \"tick\": ");
            json_str(f, t->tick);
            fprintf(f, ", \"clock\": \"none (called directly)\", \"poll\": \"none\", "
                       "\"fires\": \"deadline <= now\"");
        } else if (!t->missing) {
            fprintf(f, ", \"version\": ");
            json_str(f, t->info.version);
            fprintf(f, ", \"backend\": ");
            json_str(f, t->info.backend);
            fprintf(f, ", \"tick\": ");
            json_str(f, t->tick);
            fprintf(f, ", \"clock\": \"virtual (interposed clock_gettime)\", \"poll\": ");
            json_str(f, t->info.real_poll ? "real epoll_wait" : "stubbed, 0 events");
            fprintf(f, ", \"polls_per_advance\": ");
            json_num(f, t->info.polls_per_advance);
            fprintf(f, ", \"clock_reads_per_advance\": ");
            json_num(f, t->info.reads_per_advance);
            fprintf(f, ", \"clock_reads_per_start\": ");
            json_num(f, t->info.reads_per_start);
            fprintf(f, ", \"fires\": ");
            json_str(f, t->late ? "deadline < now (one tick late)" : "deadline <= now");
        }
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"workloads\": [");
    for (int si = 0; si < nseries; si++) {
        fprintf(f, "%s\n    {\"name\": ", si ? "," : "");
        json_str(f, series[si].name);
        char fb[256], ub[64];
        fprintf(f, ", \"figure\": ");
        json_str(f, series_figure(&series[si], fb, sizeof fb));
        fprintf(f, ", \"unit\": ");
        json_str(f, series_unit(&series[si], ub, sizeof ub));
        fprintf(f, ", \"x\": ");
        json_str(f, series[si].by_ttls ? "distinct TTLs" : "n");
        fprintf(f, ", \"plot\": ");
        char file[64];
        plot_file(&series[si], GR_MAIN, file, sizeof file);
        json_str(f, file);
        fprintf(f, ", \"plots\": [");
        for (int g = 0, k = 0; g < GR_COUNT; g++)
            if (group_drawn(&series[si], (enum group)g)) {
                fprintf(f, "%s{\"file\": ", k++ ? ", " : "");
                json_str(f, plot_file(&series[si], (enum group)g, file, sizeof file));
                fprintf(f, ", \"shows\": ");
                json_str(f, group_name(&series[si], (enum group)g));
                fputc('}', f);
            }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"results\": [");
    int first = 1;
    for (int si = 0; si < nseries; si++)
        for (int xi = 0; xi < series[si].nx; xi++)
            for (int ti = 0; ti < ntargets; ti++)
                json_cell(f, &first, &series[si], xi, ti);
    fprintf(f, "\n  ],\n  \"slopes\": [");
    first = 1;
    for (int si = 0; si < nseries; si++)
        for (int ti = 0; ti < ntargets; ti++) {
            const struct slope *sl = &series[si].slope[ti];
            if (sl->points < 2)
                continue;
            fprintf(f, "%s\n    {\"workload\": ", first ? "" : ",");
            first = 0;
            json_str(f, series[si].name);
            fprintf(f, ", \"target\": ");
            json_str(f, targets[ti].name);
            fprintf(f, ", \"slope\": ");
            json_num(f, sl->s);
            fprintf(f, ", \"points\": %d, \"ratio_last_first\": ", sl->points);
            json_num(f, sl->ratio);
            fprintf(f, ", \"claim\": ");
            json_str(f, claim_name(sl->claim));
            fprintf(f, ", \"claim_source\": ");
            json_str(f, sl->why ? sl->why : "");
            fprintf(f, ", \"contradiction\": %s}", sl->flag ? "true" : "false");
        }
    fprintf(f, "\n  ],\n  \"crossover\": ");
    if (!cross.have)
        fprintf(f, "null");
    else {
        fprintf(f, "{\"n\": %zu, \"d_cross\": ", cross.n);
        if (cross.d_cross > 0)
            json_num(f, cross.d_cross);
        else
            fprintf(f, "null");
        fprintf(f, ", \"ratio\": ");
        if (cross.d_cross > 0)
            json_num(f, cross.d_cross / (double)cross.n);
        else
            fprintf(f, "null");
        fprintf(f, ", \"findings\": [");
        for (int i = 0; i < cross.ntext; i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_str(f, cross.text[i]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, ",\n  \"service\": ");
    if (!svcres.have) {
        fprintf(f, "{\"status\": ");
        json_str(f, svcres.why ? svcres.why : "not selected");
        fputc('}', f);
    } else {
        fprintf(f, "{\"status\": \"ok\", \"unit\": \"million stop + start per second\", "
                   "\"ms_per_cell\": %u, \"threads\": [", svcres.ms);
        for (int h = 0; h < SVC_THREADS; h++)
            fprintf(f, "%s%u", h ? ", " : "", svcres.threads[h]);
        fprintf(f, "], \"n\": [");
        for (int i = 0; i < svcres.npts; i++)
            fprintf(f, "%s%zu", i ? ", " : "", svcres.n[i]);
        fprintf(f, "], \"cells\": [");
        int none_yet = 1;
        for (int t = 0; t < svcres.ntargets; t++)
            for (int h = 0; h < SVC_THREADS; h++)
                for (int i = 0; i < svcres.npts; i++) {
                    int st = svcres.status[t][h][i];
                    if (st == 2)
                        continue;
                    fprintf(f, "%s\n    {\"target\": ", none_yet ? "" : ",");
                    none_yet = 0;
                    json_str(f, svcres.target[t]);
                    fprintf(f, ", \"threads\": %u, \"n\": %zu, ", svcres.threads[h],
                            svcres.n[i]);
                    if (st == 1) {
                        fprintf(f, "\"status\": \"limit\"}");
                        continue;
                    }
                    fprintf(f, "\"status\": \"ok\", \"mops\": ");
                    json_num(f, svcres.mops[t][h][i]);
                    fprintf(f, ", \"p50_ns\": ");
                    json_num(f, svcres.p50[t][h][i]);
                    fprintf(f, ", \"p99_ns\": ");
                    json_num(f, svcres.p99[t][h][i]);
                    fputc('}', f);
                }
        fprintf(f, "]}");
    }
    fprintf(f, ",\n  \"redis\": ");
    if (!redisres.have) {
        fprintf(f, "{\"status\": \"not run\"}");
    } else {
        fprintf(f, "{\"status\": \"ok\", \"source\": ");
        json_str(f, redisres.path);
        fprintf(f, ", \"rows\": [");
        for (int r = 0; r < redisres.nrows; r++) {
            const struct redis_row *w = &redisres.row[r];
            fprintf(f, "%s\n    {\"n\": %zu, \"implementation\": ", r ? "," : "", w->n);
            json_str(f, w->name);
            fprintf(f, ", \"rounds\": %d", w->rounds);
            for (int k = 0; k < REDIS_FIELDS; k++) {
                fprintf(f, ", \"%s\": ", redis_field[k].json);
                json_num(f, w->v[k]);
            }
            fputc('}', f);
        }
        fprintf(f, "]}");
    }
    fprintf(f, ",\n  \"fig9\": ");
    if (!fig9.have) {
        fprintf(f, "{\"status\": ");
        json_str(f, fig9.why ? fig9.why : "not selected");
        fputc('}', f);
    } else {
        static const char *names[3] = {"a_bsd_list", "b_scheme6_hash", "c_scheme6_handle"};
        fprintf(f, "{\"status\": \"ok\", \"unit\": \"ns per cancel + re-set\", \"n\": [");
        for (int i = 0; i < fig9.npts; i++)
            fprintf(f, "%s%zu", i ? ", " : "", fig9.n[i]);
        fprintf(f, "]");
        for (int k = 0; k < 3; k++) {
            fprintf(f, ", \"%s\": ", names[k]);
            json_nums(f, fig9.ns[k], fig9.npts);
            fprintf(f, ", \"%s_slope\": ", names[k]);
            json_num(f, fig9.slope[k]);
        }
        fprintf(f, ", \"c_over_b\": ");
        json_num(f, fig9.order_ratio);
        fprintf(f, ", \"checks\": {\"a_linear\": %s, \"b_c_flat\": %s, \"c_below_b\": %s}}",
                fig9.linear_ok ? "true" : "false", fig9.flat_ok ? "true" : "false",
                fig9.order_ok ? "true" : "false");
    }
    fprintf(f, "\n}\n");
}
