/*
 * report.c -- twbench's report as files: twbench.json, report.html and
 * summary.md, one or more SVG plots per series (at most six lines each)
 * and fig9.svg in the output folder.  Every file is written under a
 * temporary name in that folder and renamed once all of them are
 * complete, so a failure (a full disk, a folder that is not writable)
 * leaves no partial report behind.  What each file says: report_json.c,
 * report_html.c, report_md.c, report_svg.c (report.h).
 */
#define _GNU_SOURCE

#include "report.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int report_probe(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "output folder %s exists and is not a folder", dir);
            return -1;
        }
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/.twbench-probe-%ld", dir, (long)getpid());
        FILE *f = fopen(probe, "w");
        if (f == NULL) {
            snprintf(err, errlen, "cannot write into the output folder %s: %s", dir,
                     strerror(errno));
            return -1;
        }
        fclose(f);
        remove(probe);
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "cannot use the output folder %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Missing: its parent must let us create it (done when writing). */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    size_t len = strlen(parent);
    while (len > 1 && parent[len - 1] == '/')
        parent[--len] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash == NULL)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    if (access(parent, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot create the output folder %s: %s: %s", dir, parent,
                 strerror(errno));
        return -1;
    }
    /* Try it (some file systems refuse what access() allows); created for
     * good only when the report is written. */
    if (mkdir(dir, 0777) != 0) {
        snprintf(err, errlen, "cannot create the output folder %s: %s", dir, strerror(errno));
        return -1;
    }
    rmdir(dir);
    return 0;
}

/* Every file of a report: at most the JSON, the page, the summary, four
 * plots per series and fig9. */
#define FILES_MAX (SERIES_MAX * GR_COUNT + 4)

enum file_kind { F_JSON, F_HTML, F_MD, F_PLOT, F_FIG9 };

struct outfile {
    char name[64];
    enum file_kind kind;
    int si;                /* F_PLOT: its series and group */
    enum group g;
};

static int list_files(struct outfile *out)
{
    static const char *const fixed[3] = {"twbench.json", "report.html", "summary.md"};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        snprintf(out[k].name, sizeof out[k].name, "%s", fixed[i]);
        out[k++].kind = (enum file_kind)i;
    }
    for (int si = 0; si < nseries; si++)
        for (int g = 0; g < GR_COUNT; g++)
            if (group_drawn(&series[si], (enum group)g)) {
                plot_file(&series[si], (enum group)g, out[k].name, sizeof out[k].name);
                out[k].kind = F_PLOT;
                out[k].si = si;
                out[k++].g = (enum group)g;
            }
    if (fig9.have) {
        snprintf(out[k].name, sizeof out[k].name, "fig9.svg");
        out[k++].kind = F_FIG9;
    }
    return k;
}

/* The file's path in dir: its final name, or the temporary one; 0, or -1
 * if it does not fit in buf. */
static int file_path(char *buf, size_t len, const char *dir, const struct outfile *o, int tmp)
{
    int k = tmp ? snprintf(buf, len, "%s/.%.63s.tmp-%ld", dir, o->name, (long)getpid())
                : snprintf(buf, len, "%s/%.63s", dir, o->name);
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

static void file_write(FILE *f, const struct outfile *o)
{
    switch (o->kind) {
    case F_JSON:
        json_write(f);
        break;
    case F_HTML:
        html_write(f);
        break;
    case F_MD:
        md_write(f);
        break;
    case F_PLOT:
        svg_series(f, &series[o->si], o->g);
        break;
    case F_FIG9:
        svg_fig9(f);
        break;
    }
}

int report_write(const char *dir, char *err, size_t errlen)
{
    static struct outfile files[FILES_MAX];
    char tmp[4200], fin[4200];
    int nfiles = list_files(files), written = 0, created = 0;
    if (file_path(tmp, sizeof tmp, dir, &files[0], 1) != 0) {
        snprintf(err, errlen, "output folder name too long: %.200s...", dir);
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, errlen, "cannot create the output folder %s: %s", dir, strerror(errno));
            return -1;
        }
        created = 1;
    }
    int failed = 0;
    for (; written < nfiles && !failed; written++) {
        file_path(tmp, sizeof tmp, dir, &files[written], 1);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            failed = 1;
            break;
        }
        file_write(f, &files[written]);
        if (ferror(f) | (fclose(f) != 0)) {
            snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
            failed = 1;
        }
    }
    for (int i = 0; i < nfiles && !failed; i++) {
        file_path(tmp, sizeof tmp, dir, &files[i], 1);
        file_path(fin, sizeof fin, dir, &files[i], 0);
        if (rename(tmp, fin) != 0) {
            snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, fin, strerror(errno));
            failed = 1;
            for (int j = 0; j < i; j++) {
                file_path(fin, sizeof fin, dir, &files[j], 0);
                remove(fin);
            }
        }
    }
    if (failed) {
        for (int i = 0; i < written; i++) {
            file_path(tmp, sizeof tmp, dir, &files[i], 1);
            remove(tmp);
        }
        if (created)
            rmdir(dir);
        return -1;
    }
    return 0;
}
