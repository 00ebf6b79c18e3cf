/*
 * mem.c -- a facility's memory: every byte a facility or its scheme holds
 * comes through its allocator (struct tw_allocator, malloc by default)
 * and is counted in tw->memory, which tw_memory() reports.
 */
#include "facility.h"

#include <stdlib.h>

static void *default_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *default_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(p, new_size);
}

static void default_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

const struct tw_allocator tw_default_allocator = {default_alloc, default_realloc, default_free,
                                                 NULL};

void *tw_mem_alloc(struct tw *tw, size_t size)
{
    void *p = tw->alloc.alloc_fn(tw->alloc.ctx, size);
    if (p)
        tw->memory += size;
    return p;
}

void *tw_mem_realloc(struct tw *tw, void *p, size_t old_size, size_t new_size)
{
    void *q;
    if (tw->alloc.realloc_fn) {
        q = tw->alloc.realloc_fn(tw->alloc.ctx, p, old_size, new_size);
    } else {
        q = tw->alloc.alloc_fn(tw->alloc.ctx, new_size);
        if (q && p) {
            memcpy(q, p, old_size < new_size ? old_size : new_size);
            tw->alloc.free_fn(tw->alloc.ctx, p, old_size);
        }
    }
    if (q)
        tw->memory = tw->memory - old_size + new_size;
    return q;
}

void tw_mem_free(struct tw *tw, void *p, size_t size)
{
    if (p) {
        tw->alloc.free_fn(tw->alloc.ctx, p, size);
        tw->memory -= size;
    }
}
