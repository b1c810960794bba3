/*
 * nb_path.c -- a fixed amount of non-blocking request work, for instruction counts (valgrind --tool=callgrind)
 * rather than times: rank 0 makes N rounds of 8-byte operations to the last rank and completes them in every
 * way the request table offers, with no time-dependent loop, so two libraries (or two versions of one) can be
 * compared by the instructions rank 0 executes, whatever else the machine is doing.
 *
 *   nb_path [N]        (default 2000)
 *
 * One round: NbPut + Wait, NbGet + Wait, NbAcc + Test, 4 implicit NbPuts + WaitProc, 4 implicit NbGets +
 * WaitAll, NbGet + Fence.  Prints "RESULT nb_path round N <microseconds per round> us" (wall time, for
 * side-by-side runs); the gets' data is checked (exit 1 and "WRONG" if wrong).
 * Run it through MPI for every target (ARMCI_SHM=0) to reach the request table:
 *   ARMCI_SHM=0 mpiexec.mpich -n 2 valgrind --tool=callgrind --callgrind-out-file=cg.%p ./nb_path 2000
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int me, np, i, k, bad = 0;
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
    if (me == 0) {
        const int t = np - 1;
        long *remote = base[t];
        long v = 7, got[4], one = 1, scale = 1;
        const double t0 = MPI_Wtime();
        for (i = 0; i < rounds; i++) {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbPut(&v, remote + 40, sizeof v, t, &h);
            ARMCI_Wait(&h);
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGet(remote + 1, &got[0], sizeof(long), t, &h);
            ARMCI_Wait(&h);
            bad += got[0] != 1000L * t + 1;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, &one, remote + 50, sizeof one, t, &h);
            while (ARMCI_Test(&h)) {
            }
            for (k = 0; k < 4; k++) ARMCI_NbPut(&v, remote + 41 + k, sizeof v, t, NULL);
            ARMCI_WaitProc(t);
            for (k = 0; k < 4; k++) ARMCI_NbGet(remote + 2 + k, &got[k], sizeof(long), t, NULL);
            ARMCI_WaitAll();
            for (k = 0; k < 4; k++) bad += got[k] != 1000L * t + 2 + k;
            ARMCI_NbGet(remote + 6, &got[0], sizeof(long), t, NULL);
            ARMCI_Fence(t);
            bad += got[0] != 1000L * t + 6;
        }
        const double us = (MPI_Wtime() - t0) * 1e6 / rounds;
        printf("RESULT nb_path round %d %.3f us%s\n", rounds, us, bad ? " WRONG" : "");
    }
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return bad != 0;
}
