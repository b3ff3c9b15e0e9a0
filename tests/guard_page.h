/**
 * @file guard_page.h
 * @brief Host memory that ends right before an inaccessible page, for the
 *        host tests of the kernels' index arithmetic: a read one byte past
 *        the end crashes the test instead of passing unnoticed.
 */
#ifndef TRANSPOSE_GUARD_PAGE_H
#define TRANSPOSE_GUARD_PAGE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/** @brief A mapping whose last @p bytes end at a page that may not be touched. */
struct guarded {
    void *map;         /**< what mmap() returned */
    size_t map_bytes;  /**< its size, the guard page included */
    void *data;        /**< the first of the @p bytes */
};

/** @brief Map @p bytes that end exactly where an inaccessible page begins; exit 3 if the system refuses. */
static inline guarded guarded_alloc_bytes(size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t data_pages = (bytes + page - 1) / page;
    guarded g;
    g.map_bytes = (data_pages + 1) * page;
    g.map = mmap(NULL, g.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g.map == MAP_FAILED) {
        perror("mmap");
        exit(3);
    }
    unsigned char *guard = (unsigned char *)g.map + data_pages * page;
    mprotect(guard, page, PROT_NONE);
    g.data = guard - bytes;
    return g;
}

/** @brief Give the mapping back. */
static inline void guarded_free(guarded g)
{
    munmap(g.map, g.map_bytes);
}

#endif /* TRANSPOSE_GUARD_PAGE_H */
