/*
 * contig_path.c -- a fixed amount of blocking contiguous work, for instruction counts (valgrind
 * --tool=callgrind) rather than times: rank 0 makes N rounds of 8-byte blocking ARMCI_Put / ARMCI_Get /
 * ARMCI_Acc to the last rank, with no time-dependent loop, so two versions of the library can be compared by
 * the instructions rank 0 executes (the contiguous path's choice and completion; nb_path.c does the same for
 * the request table).
 *
 *   contig_path [N]        (default 2000)
 *
 * One round: Put to a fresh word, Put twice to one word (the second overlaps the first: an ordered put to
 * another node), Get, Acc (long), and every 16th round a Fence.  Prints
 * "RESULT contig_path round N <microseconds per round> us"; the gets and the accumulated sum are checked
 * (exit 1 and "WRONG" if wrong).  Run it through MPI for every target (ARMCI_SHM=0), within a node and
 * across MPICH cliques (other-node paths):
 *   ARMCI_SHM=0 mpiexec.mpich -n 2 valgrind --tool=callgrind --callgrind-out-file=cg.%p ./contig_path 2000
 *   MPIR_CVAR_NUM_CLIQUES=2 mpiexec.mpich -n 2 valgrind --tool=callgrind ... ./contig_path 2000
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int me, np, i, bad = 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **base = malloc(sizeof(void *) * np);
    ARMCI_Malloc(base, 64 * sizeof(long));
    long *mine = base[me];
    for (i = 0; i < 64; i++) mine[i] = 1000L * me + i;
    ARMCI_Barrier();
    const int t = np - 1;
    if (me == 0) {
        long *remote = base[t];
        long v = 7, got = 0, one = 1, scale = 1;
        const double t0 = MPI_Wtime();
        for (i = 0; i < rounds; i++) {
            ARMCI_Put(&v, remote + 10 + i % 16, sizeof v, t);
            ARMCI_Put(&v, remote + 40, sizeof v, t);
            ARMCI_Put(&i, remote + 40, sizeof i, t);
            ARMCI_Get(remote + 1, &got, sizeof got, t);
            bad += got != 1000L * t + 1;
            ARMCI_Acc(ARMCI_ACC_LNG, &scale, &one, remote + 50, sizeof one, t);
            if (i % 16 == 15) ARMCI_Fence(t);
        }
        const double us = (MPI_Wtime() - t0) * 1e6 / rounds;
        ARMCI_Fence(t);
        printf("RESULT contig_path round %d %.3f us%s\n", rounds, us, bad ? " WRONG" : "");
    }
    ARMCI_Barrier();
    if (me == t && mine[50] != 1000L * t + 50 + rounds) {
        printf("contig_path: WRONG accumulated sum %ld\n", mine[50]);
        bad = 1;
    }
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return bad != 0;
}
