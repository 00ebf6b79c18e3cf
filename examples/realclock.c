/* realclock.c -- the README's example: two idle timeouts on a real clock. */
#include <poll.h>
#include <stdio.h>
#include <twheel.h>

struct conn { int id; struct tw_timer idle; }; /* the node lives in your struct */

static void on_idle(struct tw *tw, struct tw_timer *t)
{
    (void)tw;
    printf("connection %d idle\n", tw_container_of(t, struct conn, idle)->id);
}

int main(void)
{
    struct conn a = {.id = 1}, b = {.id = 2};
    struct tw_clock clk;
    struct tw *tw;
    if (tw_clock_init(&clk, TW_CLOCK_MONOTONIC, TW_MSEC(1)) != 0 || /* 1 tick = 1 ms */
        tw_clock_create(&tw, NULL, &clk) != 0) /* its time starts at the clock's */
        return 1;
    tw_timer_init(&a.idle, on_idle);
    tw_timer_init(&b.idle, on_idle);
    tw_clock_start(&clk, tw, &a.idle, TW_MSEC(50)); /* fires 50 ms from now, never sooner */
    tw_clock_start(&clk, tw, &b.idle, TW_MSEC(100));
    while (tw_count(tw) > 0) {
        tw_clock_update(&clk);                        /* the wait counts from now */
        poll(NULL, 0, tw_clock_timeout_ms(&clk, tw)); /* your loop's poll or epoll_wait */
        tw_advance(tw, tw_clock_update(&clk));        /* runs the callbacks that are due */
    }
    return tw_destroy(tw);
}
