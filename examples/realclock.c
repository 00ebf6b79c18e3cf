/* realclock.c -- the README's example: two idle timeouts on a real clock. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <twheel.h>

static tw_time_t now_ms(void) /* one tick = 1 ms of CLOCK_MONOTONIC */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (tw_time_t)ts.tv_sec * 1000 + (tw_time_t)ts.tv_nsec / 1000000;
}

struct conn { int id; struct tw_timer idle; }; /* the node lives in your struct */

static void on_idle(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    printf("connection %d idle\n", tw_container_of(t, struct conn, idle)->id);
}

int main(void)
{
    struct conn a = {.id = 1}, b = {.id = 2};
    struct tw_config cfg;
    struct tw *tw;
    tw_config_init(&cfg, TW_HIERARCHICAL);
    cfg.start = now_ms();                      /* not 0: the clock's reading */
    if (tw_create(&tw, &cfg) != 0)
        return 1;
    tw_timer_init(&a.idle, on_idle);
    tw_timer_init(&b.idle, on_idle);
    tw_start(tw, &a.idle, 50);                 /* 50 ms from now */
    tw_start(tw, &b.idle, 100);
    tw_time_t next;
    while (tw_next_expiry(tw, &next) == 1) {   /* 0: nothing pending */
        tw_time_t now = now_ms(), wait = next > now ? next - now : 0;
        if (wait > 0)                          /* your loop's poll or epoll_wait */
            poll(NULL, 0, wait > INT_MAX ? INT_MAX : (int)wait);
        tw_advance(tw, now_ms());              /* runs the callbacks that are due */
    }
    return tw_destroy(tw);
}
