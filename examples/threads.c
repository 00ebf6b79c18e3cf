/* threads.c -- timers shared by threads: four threads of a pool arm and
 * cancel per-request deadlines on one tw_service; the service's two worker
 * threads fire the ones left.  A request is answered when its stop
 * prevented the deadline, else its deadline's callback counts it as timed
 * out (it may be running right then).  After the pool is done, the
 * service drains, and the requests are freed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <twheel.h>

struct request {
    int id;
    struct tw_stimer deadline; /* the service timer lives in your struct */
};

static atomic_int timed_out;

static void on_deadline(struct tw_service *svc, struct tw_stimer *t)
{
    (void)svc; /* runs in the service's worker thread, no lock held */
    struct request *r = tw_container_of(t, struct request, deadline);
    if (r->id % 1000 == 0)
        printf("request %d timed out\n", r->id);
    atomic_fetch_add(&timed_out, 1);
}

struct pool_thread { struct tw_service *svc; struct request *reqs; int first, n; int answered; };

static void *serve(void *arg)
{
    struct pool_thread *p = arg;
    for (int i = p->first; i < p->first + p->n; i++) {
        struct request *r = &p->reqs[i];
        tw_stimer_init(&r->deadline, on_deadline);
        if (tw_service_start(p->svc, &r->deadline, TW_MSEC(20), NULL) != 0) /* 20 ms to answer */
            abort();
        /* Three in four are answered.  stop() == 1: in time, the deadline
         * will not fire.  0: the deadline has fired or is firing now, and
         * on_deadline counts it; a program that frees r here would call
         * tw_service_stop_sync() instead, which waits for on_deadline. */
        if (i % 4 != 0 && tw_service_stop(p->svc, &r->deadline, 0) == 1)
            p->answered++;
    }
    return NULL;
}

int main(void)
{
    enum { THREADS = 4, PER_THREAD = 2500 };
    struct tw_service_config cfg;
    struct tw_service *svc;
    tw_service_config_init(&cfg);
    cfg.shards = 2; /* two worker threads, each with its own wheel and lock */
    if (tw_service_create(&svc, &cfg) != 0)
        return 1;
    struct request *reqs = calloc(THREADS * PER_THREAD, sizeof *reqs);
    if (reqs == NULL) {
        tw_service_destroy(svc); /* cancels the service and joins its workers */
        return 1;
    }
    for (int i = 0; i < THREADS * PER_THREAD; i++)
        reqs[i].id = i;
    pthread_t th[THREADS];
    struct pool_thread pt[THREADS];
    int started = 0;
    for (; started < THREADS; started++) {
        int k = started;
        pt[k] = (struct pool_thread){svc, reqs, k * PER_THREAD, PER_THREAD, 0};
        if (pthread_create(&th[k], NULL, serve, &pt[k]) != 0)
            break; /* the threads started still run: join them, then fail */
    }
    int answered = 0;
    for (int k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        answered += pt[k].answered;
    }
    if (started < THREADS) {
        /* their deadlines may still fire: no callback runs once the
         * destroy (a cancelling shutdown) returns */
        tw_service_destroy(svc);
        free(reqs);
        return 1;
    }
    /* Let the deadlines left fire; when the drain returns no callback
     * runs any more, so the requests may go. */
    tw_service_shutdown(svc, TW_SHUTDOWN_DRAIN);
    int late = atomic_load(&timed_out); /* 2500, and more on a busy machine */
    printf("answered %d, timed out %d: %d of %d requests\n", answered, late, answered + late,
           THREADS * PER_THREAD);
    free(reqs);
    return tw_service_destroy(svc);
}
