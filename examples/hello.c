/* hello.c -- the smallest twheel program: two timers, one facility. */
#include <stdio.h>
#include <twheel.h>

struct job {
    const char *name;
    struct tw_timer timer; /* embedded: no allocation per timer */
};

static void on_expiry(struct tw *tw, struct tw_timer *t)
{
    struct job *job = tw_container_of(t, struct job, timer);
    printf("tick %llu: %s\n", (unsigned long long)tw_now(tw), job->name);
}

int main(void)
{
    struct tw *tw;
    struct job a = {.name = "hello"}, b = {.name = "world"};
    if (tw_create(&tw, NULL) != 0) /* NULL: the default scheme */
        return 1;
    tw_timer_init(&a.timer, on_expiry);
    tw_timer_init(&b.timer, on_expiry);
    tw_start(tw, &a.timer, 10); /* fire 10 ticks from now */
    tw_start(tw, &b.timer, 20);
    for (tw_time_t now = 1; tw_count(tw) > 0; now++)
        tw_advance(tw, now); /* your clock drives time: one tick per step here */
    tw_destroy(tw);
    return 0;
}
