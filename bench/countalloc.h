/*
 * countalloc.h -- a malloc/calloc/realloc/free that count the bytes live,
 * for the peers whose allocator hook takes no context pointer (libuv's
 * uv_replace_allocator, libevent's event_set_mem_functions).  Each file
 * that includes it gets its own counter, cnt_live_bytes: one per library.
 * Bytes are malloc_usable_size(), what the allocator really holds.
 */
#ifndef TWBENCH_COUNTALLOC_H
#define TWBENCH_COUNTALLOC_H

#include <malloc.h>
#include <stdlib.h>

static size_t cnt_live_bytes;

static inline void *cnt_malloc(size_t size)
{
    void *p = malloc(size);
    if (p)
        cnt_live_bytes += malloc_usable_size(p);
    return p;
}

static inline void *cnt_calloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p)
        cnt_live_bytes += malloc_usable_size(p);
    return p;
}

static inline void *cnt_realloc(void *ptr, size_t size)
{
    size_t old = ptr ? malloc_usable_size(ptr) : 0;
    void *p = realloc(ptr, size);
    if (p) {
        cnt_live_bytes -= old;
        cnt_live_bytes += malloc_usable_size(p);
    } else if (size == 0) {
        cnt_live_bytes -= old;
    }
    return p;
}

static inline void cnt_free(void *ptr)
{
    if (ptr)
        cnt_live_bytes -= malloc_usable_size(ptr);
    free(ptr);
}

#endif /* TWBENCH_COUNTALLOC_H */
