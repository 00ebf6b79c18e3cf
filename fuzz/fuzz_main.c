/*
 * fuzz_main.c -- replay inputs through LLVMFuzzerTestOneInput() without
 * libFuzzer, so that the seed corpus (and every crash reproducer added to
 * it) runs as an ordinary test on any compiler.
 *
 *     twheel_fuzz_replay PATH...
 *
 * Each PATH is a file or a directory, whose regular files are all replayed
 * (in name order, not recursing).  A violation aborts, as it does under
 * libFuzzer; otherwise prints how many inputs ran and exits 0.  Exit 2 when
 * a path cannot be read or nothing was replayed.
 */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64 /* readdir() of a 64-bit file system from 32-bit code */

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;
static unsigned long bytes;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        return -1;
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return -1;
    }
    if (getenv("TWFUZZ_TRACE"))
        fprintf(stderr, "replaying %s (%zu bytes)\n", path, n);
    /* An exact-size copy, so that AddressSanitizer sees reads past the end. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact == NULL) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    replayed++;
    bytes += n;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    for (;;) {
        errno = 0;
        if ((e = readdir(d)) == NULL) {
            if (errno != 0) { /* an error, not the end: no input is left out */
                perror(dir);
                rc = -1;
            }
            break;
        }
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (p == NULL) {
            rc = -1;
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (nn == NULL) {
                free(p);
                rc = -1;
                break;
            }
            names = nn;
        }
        names[n++] = p;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && replay_file(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        int rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        if (rc != 0)
            return 2;
    }
    printf("fuzz replay: %lu inputs, %lu bytes, no violation\n", replayed, bytes);
    return replayed ? 0 : 2;
}
