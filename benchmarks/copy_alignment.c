/*
 * copy_alignment.c -- what the placement of two buffers within their pages costs a memcpy between them: the
 * time of one copy of 3 KB-512 KB (as GA's perf2 times puts: 16 copies, alternately 1 KB further on both
 * sides), for source and destination each at offset 0, 16, 64, 2384 or 4032 in a page.  No MPI, no ARMCI:
 * one process, both buffers warm in its caches.  Issue 58: why armci-x's node-local puts of 3 KB-1 MB took
 * 1.1-1.4x MPI-PR's time in perf2 while the path around the copy cost less (ARMCI_Malloc_local handed out
 * MPI_Alloc_mem's malloc alignment, 16 bytes past a cache line; MPI-PR's blocks are whole pages).
 *
 *   cc -O2 benchmarks/copy_alignment.c -o copy_alignment && ./copy_alignment [rounds]
 *
 * Prints per size the minimum over `rounds` (default 200) in us, one column per (source/destination offset).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 200;
    const size_t big = 4 << 20;
    char *a = NULL, *b = NULL;
    if (rounds < 1 || posix_memalign((void **)&a, 4096, big) || posix_memalign((void **)&b, 4096, big)) {
        fprintf(stderr, "copy_alignment: usage: copy_alignment [rounds >= 1] (or out of memory)\n");
        return 2;
    }
    memset(a, 1, big);
    memset(b, 2, big);
    const size_t sizes[] = {3200, 7200, 12800, 21632, 32768, 131072, 524288};
    const int offs[] = {0, 16, 64, 2384, 4032};
    enum { NS = sizeof sizes / sizeof *sizes, NO = sizeof offs / sizeof *offs };
    printf("%8s", "bytes");
    for (int s = 0; s < NO; ++s)
        for (int d = 0; d < NO; ++d) printf(" %4d/%-4d", offs[s], offs[d]);
    printf("   (source/destination offset in the page; us per copy, minimum)\n");
    for (int k = 0; k < NS; ++k) {
        const size_t n = sizes[k];
        printf("%8zu", n);
        for (int s = 0; s < NO; ++s)
            for (int d = 0; d < NO; ++d) {
                double best = 1e9;
                for (int r = 0; r < rounds; ++r) {
                    const double t0 = now();
                    for (int i = 0; i < 16; ++i) memcpy(b + offs[d] + (i & 1) * 1024, a + offs[s] + (i & 1) * 1024, n);
                    const double t = (now() - t0) / 16;
                    if (t < best) best = t;
                }
                printf(" %9.3f", best * 1e6);
            }
        printf("\n");
    }
    /* The copies' data: every byte of b that a copy reached is a's. */
    for (size_t i = 0; i < sizes[NS - 1]; ++i)
        if (b[offs[0] + i] != 1) {
            fprintf(stderr, "copy_alignment: WRONG at byte %zu\n", i);
            return 1;
        }
    free(a);
    free(b);
    return 0;
}
