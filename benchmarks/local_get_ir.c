/*
 * local_get_ir.c -- a fixed number of node-local 8-byte strided gets (stride levels 0, as GA issues a 1-D
 * section), for instruction counts with valgrind --tool=callgrind rather than times: what GA's small gets cost
 * in armci-x, blocking (ARMCI_GetS) and as GA issues every get (ARMCI_NbGetS + ARMCI_Wait).  Issue 58.
 *
 *   local_get_ir MODE N      MODE 0: N x ARMCI_GetS; 1: N x (ARMCI_NbGetS + ARMCI_Wait); 2: none (baseline);
 *                            3: N x ARMCI_Get; 4: N x (ARMCI_NbGet + ARMCI_Wait);
 *                            5: N x ARMCI_PutS (GA's put to a rank of its node); 6: N x ARMCI_Put
 *
 * Rank 0 gets 8 bytes from rank 1 (the same node: load/store), or puts them and reads them back once; the data
 * is checked (exit 1, "WRONG").
 *   mpicc.mpich -O2 -Iinclude benchmarks/local_get_ir.c -o local_get_ir -Lbuild/src/.libs -larmci
 *   for m in 0 1 2; do mpiexec.mpich -n 2 valgrind --tool=callgrind --callgrind-out-file=cg.$m.%p \
 *       ./local_get_ir $m 20000; done
 *   callgrind_annotate --inclusive=no --threshold=100 cg.<mode>.<rank 0's pid> > a && \
 *       benchmarks/libarmci_ir.py a 'wait_yielding|barrier|Barrier|progress|poll'
 * (libarmci's instructions on rank 0; (mode - baseline) / N per call.)
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const int mode = argc > 1 ? atoi(argv[1]) : 0, n = argc > 2 ? atoi(argv[2]) : 20000;
    void *base[2];
    if (ARMCI_Malloc(base, 4096) != 0) ARMCI_Error("local_get_ir: ARMCI_Malloc failed", 1);
    ((double *)base[me])[0] = 1000.0 + me;
    ARMCI_Barrier();
    if (me == 0) {
        double got = 0;
        int stride[1] = {8}, count[1] = {8};
        for (int i = 0; i < n; ++i) {
            got = 0;
            if (mode == 0) {
                ARMCI_GetS(base[1], stride, &got, stride, count, 0, 1);
            } else if (mode == 1) {
                armci_hdl_t h;
                ARMCI_INIT_HANDLE(&h);
                ARMCI_NbGetS(base[1], stride, &got, stride, count, 0, 1, &h);
                ARMCI_Wait(&h);
            } else if (mode == 3) {
                ARMCI_Get(base[1], &got, 8, 1);
            } else if (mode == 4) {
                armci_hdl_t h;
                ARMCI_INIT_HANDLE(&h);
                ARMCI_NbGet(base[1], &got, 8, 1, &h);
                ARMCI_Wait(&h);
            } else if (mode == 5) {
                double v = 2000.0 + i;
                ARMCI_PutS(&v, stride, base[1], stride, count, 0, 1);
                got = 1001.0;
            } else if (mode == 6) {
                double v = 2000.0 + i;
                ARMCI_Put(&v, base[1], 8, 1);
                got = 1001.0;
            } else {
                got = 1001.0;
            }
            bad |= got != 1001.0;
        }
        if (mode >= 5) {  /* what the puts left there */
            got = 0;
            ARMCI_Get(base[1], &got, 8, 1);
            bad |= got != 2000.0 + n - 1;
        }
        printf("local_get_ir: mode %d, %d calls: %s\n", mode, n, bad ? "WRONG" : "data ok");
    }
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return bad;
}
