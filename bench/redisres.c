/*
 * redisres.c -- the Redis module's figures in twbench's report: the
 * rounds scripts/redis-bench.sh wrote (one line of key=value pairs per
 * round and implementation, from contrib/redis/tqbench), read by
 * --redis FILE and reduced to the median of each cell.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct redis_result redisres;

/* The rounds of one row, before the medians. */
static double samples[REDIS_ROWS_MAX][REDIS_FIELDS][REDIS_ROUNDS_MAX];

const struct redis_field redis_field[REDIS_FIELDS] = {
    {"add_piped", "adds/s pipelined", "adds/s pipe", "adds_per_s_pipelined", "%.0f", 0},
    {"add_single", "adds/s one by one", "adds 1by1", "adds_per_s_single", "%.0f", 0},
    {"pop_piped", "pops/s pipelined", "pops/s pipe", "pops_per_s_pipelined", "%.0f", 1},
    {"pop_single", "pops/s one by one", "pops 1by1", "pops_per_s_single", "%.0f", 1},
    {"bytes_per_timer", "bytes per timer", "B/timer", "bytes_per_timer", "%.1f", 0},
    {"late_p50", "lateness p50 ms", "p50 ms", "lateness_ms_p50", "%.2f", 0},
    {"late_p99", "p99 ms", "p99 ms", "lateness_ms_p99", "%.2f", 0},
    {"late_max", "max ms", "max ms", "lateness_ms_max", "%.2f", 0},
};

const char *redis_cell(char *buf, size_t size, int k, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, redis_field[k].fmt, v);
    return buf;
}

/* The row of (n, name), added if new; -1 if the table is full. */
static int row_of(size_t n, const char *name)
{
    for (int r = 0; r < redisres.nrows; r++)
        if (redisres.row[r].n == n && !strcmp(redisres.row[r].name, name))
            return r;
    if (redisres.nrows == REDIS_ROWS_MAX)
        return -1;
    struct redis_row *row = &redisres.row[redisres.nrows];
    memset(row, 0, sizeof *row);
    row->n = n;
    snprintf(row->name, sizeof row->name, "%.*s", (int)sizeof row->name - 1, name);
    return redisres.nrows++;
}

/* One line: 0, or -1 if it is not tqbench's. */
static int parse_line(char *line)
{
    char scheme[32] = "-", impl[32] = "";
    double v[REDIS_FIELDS];
    int have = 0;
    size_t n = 0;
    for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            return -1;
        *eq = '\0';
        const char *val = eq + 1;
        if (!strcmp(tok, "scheme"))
            snprintf(scheme, sizeof scheme, "%s", val);
        else if (!strcmp(tok, "impl"))
            snprintf(impl, sizeof impl, "%s", val);
        else if (!strcmp(tok, "n"))
            n = (size_t)strtoull(val, NULL, 10);
        for (int f = 0; f < REDIS_FIELDS; f++)
            if (!strcmp(tok, redis_field[f].key)) {
                char *end;
                v[f] = strtod(val, &end);
                if (*end)
                    return -1;
                have |= 1 << f;
            }
    }
    for (int f = 0; f < REDIS_FIELDS; f++)
        if (!(have & 1 << f)) {
            if (!redis_field[f].optional)
                return -1;
            v[f] = NAN; /* a line of an older tqbench */
        }
    if (!impl[0] || n == 0)
        return -1;
    char name[80];
    if (!strcmp(impl, "tw"))
        snprintf(name, sizeof name, "twheel (%s)", scheme);
    else
        snprintf(name, sizeof name, "sorted set, polled every %s",
                 strncmp(impl, "zset/", 5) ? impl : impl + 5);
    int r = row_of(n, name);
    if (r < 0 || redisres.row[r].rounds == REDIS_ROUNDS_MAX)
        return -1;
    for (int f = 0; f < REDIS_FIELDS; f++)
        samples[r][f][redisres.row[r].rounds] = v[f];
    redisres.row[r].rounds++;
    return 0;
}

int redis_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    memset(&redisres, 0, sizeof redisres);
    snprintf(redisres.path, sizeof redisres.path, "%s", path);
    char line[1024];
    int rc = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n' && parse_line(line) != 0)
            rc = -1;
    fclose(f);
    if (rc != 0 || redisres.nrows == 0)
        return -1;
    for (int r = 0; r < redisres.nrows; r++) {
        struct redis_row *row = &redisres.row[r];
        for (int k = 0; k < REDIS_FIELDS; k++) {
            int gap = 0; /* a round without this figure: none for the row */
            for (int i = 0; i < row->rounds; i++)
                gap |= isnan(samples[r][k][i]);
            if (gap) {
                row->v[k] = NAN;
                continue;
            }
            qsort(samples[r][k], (size_t)row->rounds, sizeof(double), cmp_double);
            row->v[k] = samples[r][k][(row->rounds - 1) / 2];
        }
    }
    redisres.have = 1;
    return 0;
}
