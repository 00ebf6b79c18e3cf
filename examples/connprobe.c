/*
 * connprobe.c -- a client for examples/server.c: opens connections of one
 * kind, all at once, and measures from the client's side when the server
 * closes each.
 *
 *   connprobe --port N --mode MODE [--conns N] [--timeout-ms T]
 *             [--host ADDR] [--sources K] [--interval-ms I] [--depth D]
 *             [--quiet]
 *
 * MODE (what each connection does, and when its close is due):
 *   idle       one GET, the answer, then nothing: closed by the server's
 *              idle timer, due T ms after the request's last byte was sent
 *   pipeline   D GETs in one write (--depth, default 3), the D answers,
 *              then as idle
 *   silent     connects and sends nothing: closed by the header timer, due
 *              T ms after connect() returned
 *   slowloris  sends a request line a byte every I ms (default 100), never
 *              finishing it: closed by the header timer, due T ms after
 *              connect() returned
 *   garbage    sends a line that is no request: answered 400 and closed
 *   halfclose  one GET, then shutdown(SHUT_WR): answered, then closed
 *   reset      sends half a request, then resets (SO_LINGER 0): the server
 *              must go on; nothing to measure
 * The lateness of a close is its time minus the time it was due; a close
 * before it was due is "early".  Prints the count, the lateness at p50,
 * p99 and max, and exits 1 if any close was early, any connection was not
 * closed within T + 10 s, or an answer was wrong.  With --sources K the
 * connections come from 127.0.0.1 .. 127.0.0.K (the ports of one source
 * address run out near 28,000 connections).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum mode { M_IDLE, M_PIPELINE, M_SILENT, M_SLOWLORIS, M_GARBAGE, M_HALFCLOSE, M_RESET };
static const char *const mode_names[] = {"idle",    "pipeline",  "silent", "slowloris",
                                         "garbage", "halfclose", "reset"};

static const char req[] = "GET / HTTP/1.1\r\nHost: probe\r\n\r\n";
static const char slow[] = "GET / HTTP/1.1\r\nHost: probe\r\nX-Slow: ";

struct probe {
    int fd;
    int done;
    uint64_t due_ns;        /* when its close is due; 0: not yet known */
    uint64_t closed_ns;
    size_t got, answers;    /* bytes and complete answers received */
    size_t slow_sent;
    char head[16];          /* the first bytes of the answer */
    char tail[8];           /* the last bytes received, for a status line
                             * split between two reads */
    size_t ntail;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* Take in k bytes received: their count, the first bytes of the answer,
 * and the answers, by their status lines, one split between two reads
 * included. */
static void count_answers(struct probe *q, const char *buf, size_t k)
{
    if (q->got < sizeof q->head - 1) {
        size_t c = sizeof q->head - 1 - q->got < k ? sizeof q->head - 1 - q->got : k;
        memcpy(q->head + q->got, buf, c);
    }
    q->got += k;
    char win[sizeof q->tail + 4096];
    for (size_t off = 0; off < k;) {
        size_t c = k - off < 4096 ? k - off : 4096;
        memcpy(win, q->tail, q->ntail);
        memcpy(win + q->ntail, buf + off, c);
        size_t n = q->ntail + c;
        for (char *h = win; (h = memmem(h, (size_t)(win + n - h), "HTTP/1.1 ", 9)); h += 9)
            q->answers++;
        /* fewer than 9 bytes: no whole status line, so none counted twice */
        q->ntail = n < sizeof q->tail ? n : sizeof q->tail;
        memcpy(q->tail, win + n - q->ntail, q->ntail);
        off += c;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0, conns = 100, sources = 1, quiet = 0;
    uint64_t timeout_ms = 1000, interval_ms = 100, depth = 3;
    enum mode mode = M_IDLE;
    if (argc == 2 && !strcmp(argv[1], "--help")) {
        puts("usage: connprobe --port N [--mode MODE] [--conns N] [--timeout-ms T] [--host ADDR]\n"
             "                 [--sources K] [--interval-ms I] [--depth D] [--quiet]\n"
             "  --mode        idle (default), pipeline, silent, slowloris, garbage, halfclose,\n"
             "                reset (this file's top comment says what each does)\n"
             "  --conns       connections, opened at once (default 100)\n"
             "  --timeout-ms  the server's timeout for the mode (default 1000): its\n"
             "                --idle-ms for idle and pipeline, --header-ms for silent\n"
             "                and slowloris (the server's defaults are 5000 and 10000)\n"
             "  --host        the server's address (default 127.0.0.1)\n"
             "  --sources     source addresses 127.0.0.1 .. 127.0.0.K (default 1)\n"
             "  --interval-ms slowloris: a byte every I ms (default 100)\n"
             "  --depth       pipeline: requests in one write (default 3)\n"
             "Exits 1 if a close came early, a connection was not closed, or an answer\n"
             "was wrong.");
        return 0;
    }
    for (int i = 1; i + 1 < argc || (i < argc && !strcmp(argv[i], "--quiet")); i++) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        i++;
        if (!strcmp(a, "--port"))
            port = atoi(v);
        else if (!strcmp(a, "--host"))
            host = v;
        else if (!strcmp(a, "--conns"))
            conns = atoi(v);
        else if (!strcmp(a, "--timeout-ms"))
            timeout_ms = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--interval-ms"))
            interval_ms = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--sources"))
            sources = atoi(v);
        else if (!strcmp(a, "--depth"))
            depth = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--mode")) {
            int m = -1;
            for (int k = 0; k < 7; k++)
                if (!strcmp(v, mode_names[k]))
                    m = k;
            if (m < 0) {
                fprintf(stderr, "connprobe: unknown --mode '%s'\n", v);
                return 2;
            }
            mode = (enum mode)m;
        } else {
            fprintf(stderr, "connprobe: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (port <= 0 || conns <= 0 || sources < 1 || sources > 250 || depth < 1 || depth > 100000) {
        fprintf(stderr, "connprobe: want --port N, --conns N > 0 (default 100), --sources 1 "
                        "to 250 and --depth 1 to 100000 (connprobe --help)\n");
        return 2;
    }
    struct rlimit rl = {(rlim_t)conns + 64, (rlim_t)conns + 64};
    struct rlimit cur;
    getrlimit(RLIMIT_NOFILE, &cur);
    if (cur.rlim_cur < rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        rl.rlim_cur = rl.rlim_max = cur.rlim_max; /* as many as allowed */
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct probe *p = calloc((size_t)conns, sizeof *p);
    int ep = epoll_create1(0);
    if (p == NULL || ep < 0)
        die("connprobe: setup");
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &to.sin_addr) != 1) {
        fprintf(stderr, "connprobe: bad --host '%s'\n", host);
        return 2;
    }
    const uint64_t T = timeout_ms * 1000000u;
    int bad = 0;
    /* connect and send, one connection at a time (blocking connect), then
     * watch them all */
    for (int i = 0; i < conns; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            die("connprobe: socket (raise the descriptor limit?)");
        if (sources > 1) {
            struct sockaddr_in from = {.sin_family = AF_INET};
            from.sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)(i % sources));
            if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0)
                die("connprobe: bind");
        }
        /* Times are taken before the call: on loopback the server can
         * accept, read and answer before connect() or write() returns. */
        uint64_t t = now_ns();
        if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0)
            die("connprobe: connect");
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        p[i].fd = fd;
        switch (mode) {
        case M_IDLE:
        case M_HALFCLOSE:
            t = now_ns();
            if (write(fd, req, sizeof req - 1) != (ssize_t)(sizeof req - 1))
                die("connprobe: write");
            if (mode == M_IDLE)
                p[i].due_ns = t + T; /* from the request's last byte */
            else
                shutdown(fd, SHUT_WR);
            break;
        case M_PIPELINE: {
            size_t n = 0;
            char *all = malloc(depth * (sizeof req - 1));
            if (all == NULL)
                die("connprobe: malloc");
            for (uint64_t k = 0; k < depth; k++, n += sizeof req - 1)
                memcpy(all + n, req, sizeof req - 1);
            /* Written whole while the answers are read: a server that
             * reads no further until its answers are out must not block
             * this write for good. */
            int fl = fcntl(fd, F_GETFL);
            fcntl(fd, F_SETFL, fl | O_NONBLOCK);
            t = now_ns();
            for (size_t off = 0; off < n;) {
                ssize_t k = write(fd, all + off, n - off);
                if (k > 0) {
                    off += (size_t)k;
                    continue;
                }
                if (k < 0 && errno != EAGAIN && errno != EINTR)
                    die("connprobe: write");
                char sink[4096]; /* the answers so far, counted as below */
                ssize_t r = recv(fd, sink, sizeof sink, 0);
                if (r > 0)
                    count_answers(&p[i], sink, (size_t)r);
            }
            fcntl(fd, F_SETFL, fl);
            free(all);
            p[i].due_ns = t + T;
            break;
        }
        case M_SILENT:
        case M_SLOWLORIS:
            p[i].due_ns = t + T; /* the header timer starts at accept, after connect() began */
            break;
        case M_GARBAGE:
            if (write(fd, "HELLO\r\n\r\n", 9) != 9)
                die("connprobe: write");
            break;
        case M_RESET: {
            if (write(fd, "GET / HT", 8) != 8)
                die("connprobe: write");
            struct linger lg = {1, 0};
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
            close(fd);
            p[i].done = 1;
            continue;
        }
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    int left = 0;
    for (int i = 0; i < conns; i++)
        left += !p[i].done;
    uint64_t give_up = now_ns() + T + 10000000000u, next_slow = now_ns();
    struct epoll_event evs[512];
    while (left > 0 && now_ns() < give_up) {
        int wait = 100;
        if (mode == M_SLOWLORIS)
            wait = (int)interval_ms;
        int n = epoll_wait(ep, evs, 512, wait);
        uint64_t t = now_ns();
        for (int e = 0; e < n; e++) {
            struct probe *q = &p[evs[e].data.u32];
            char buf[4096];
            ssize_t k;
            while ((k = recv(q->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
                count_answers(q, buf, (size_t)k);
            if (k == 0 || (k < 0 && errno != EAGAIN)) {
                /* The time the close is seen, not the time epoll_wait
                 * returned: a loaded client may read an answer that was
                 * waiting and find the close that came after it, during
                 * this loop.  Never before the close, so never "early"
                 * by mistake; late by this loop's delay at most. */
                q->closed_ns = now_ns();
                q->done = 1;
                left--;
                epoll_ctl(ep, EPOLL_CTL_DEL, q->fd, NULL);
                close(q->fd);
            }
        }
        if (mode == M_SLOWLORIS && t >= next_slow) {
            next_slow = t + interval_ms * 1000000u;
            for (int i = 0; i < conns; i++)
                if (!p[i].done && p[i].slow_sent < sizeof slow - 1) {
                    if (write(p[i].fd, slow + p[i].slow_sent, 1) == 1)
                        p[i].slow_sent++;
                } else if (!p[i].done && write(p[i].fd, "x", 1) != 1) {
                    (void)0; /* closed under us: the read side sees it */
                }
        }
    }
    /* the figures */
    int64_t *late = calloc((size_t)conns, sizeof *late);
    int nlate = 0, early = 0, open = 0, wrong = 0;
    for (int i = 0; i < conns; i++) {
        struct probe *q = &p[i];
        if (mode == M_RESET)
            continue;
        if (!q->done) {
            open++;
            close(q->fd);
            continue;
        }
        if (mode == M_GARBAGE && strncmp(q->head, "HTTP/1.1 400", 12) != 0)
            wrong++;
        if ((mode == M_IDLE || mode == M_HALFCLOSE) && strncmp(q->head, "HTTP/1.1 200", 12) != 0)
            wrong++;
        if (mode == M_PIPELINE && q->answers != depth)
            wrong++;
        if (q->due_ns) {
            late[nlate] = (int64_t)(q->closed_ns - q->due_ns);
            early += late[nlate] < 0;
            nlate++;
        }
    }
    printf("connprobe: %s, %d connections", mode_names[mode], conns);
    if (nlate > 0) {
        qsort(late, (size_t)nlate, sizeof *late, cmp_i64);
        printf(", close lateness after %llu ms: p50 %.3f ms, p99 %.3f ms, max %.3f ms, early %d",
               (unsigned long long)timeout_ms, (double)late[nlate / 2] / 1e6,
               (double)late[(size_t)nlate * 99 / 100] / 1e6, (double)late[nlate - 1] / 1e6, early);
    }
    printf(", not closed %d, wrong answers %d\n", open, wrong);
    if (!quiet && nlate > 0 && early)
        printf("connprobe: the earliest close came %.3f ms early\n", (double)-late[0] / 1e6);
    bad = early || open || wrong;
    free(late);
    free(p);
    return bad ? 1 : 0;
}
