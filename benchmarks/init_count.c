/*
 * init_count.c -- what ARMCI_Init asks of MPI (issue 30): a tiny PMPI shim counts the collectives,
 * communicator and window creations made between entering and leaving ARMCI_Init (and ARMCI_Finalize),
 * on any ARMCI library linked after it:
 *
 *   mpicc.mpich -O2 -Iinclude benchmarks/init_count.c build/src/.libs/libarmci.a -lstdc++ -lpthread -lm -o /tmp/ic
 *   mpicc.mpich -O2 benchmarks/init_count.c -larmci-mpich -o /tmp/ic-am
 *   ARMCI_USE_WIN_ALLOCATE=0 mpiexec.mpich -n 4 /tmp/ic
 *
 * Prints, from rank 0, one line per MPI function called during each phase (ARMCI_Init, the first
 * ARMCI_Malloc and ARMCI_Free, a short-lived group's cycle -- ARMCI_Group_create of the ranks of my parity,
 * ARMCI_Malloc_group, ARMCI_Free_group, ARMCI_Group_free -- repeated --cycles N times, ARMCI_Finalize):
 * calls on rank 0, the max over ranks, and the time spent inside the function (max over ranks; a non-blocking call's completion shows under MPI_Wait and MPI_Test).
 * Calls a library makes through PMPI_* directly are not seen (armci-x makes a few: a profiling tool would
 * not see them either).
 */
#include <mpi.h>
#include <armci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    C_BARRIER, C_IBARRIER, C_BCAST, C_ALLREDUCE, C_IALLREDUCE, C_REDUCE, C_ALLGATHER, C_IALLGATHER, C_ALLGATHERV,
    C_GATHER, C_ALLTOALL, C_SCAN, C_EXSCAN, C_COMM_DUP, C_COMM_IDUP, C_COMM_SPLIT, C_COMM_SPLIT_TYPE, C_COMM_CREATE,
    C_COMM_CREATE_GROUP, C_INTERCOMM_CREATE, C_WIN_CREATE, C_WIN_ALLOCATE, C_WIN_ALLOCATE_SHARED,
    C_WIN_CREATE_DYNAMIC, C_WIN_FREE, C_ALLOC_MEM, C_SEND, C_RECV, C_ISEND, C_IRECV, C_WAIT, C_WAITALL, C_TEST,
    C_TESTALL, C_COMM_FREE, C_WIN_LOCK_ALL, C_WIN_UNLOCK_ALL, C_WIN_SHARED_QUERY, C_COUNT
};
static const char *names[C_COUNT] = {
    "MPI_Barrier", "MPI_Ibarrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Iallreduce", "MPI_Reduce", "MPI_Allgather",
    "MPI_Iallgather", "MPI_Allgatherv", "MPI_Gather", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan", "MPI_Comm_dup",
    "MPI_Comm_idup", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_create_group",
    "MPI_Intercomm_create", "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create_dynamic",
    "MPI_Win_free", "MPI_Alloc_mem", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall",
    "MPI_Test", "MPI_Testall", "MPI_Comm_free", "MPI_Win_lock_all", "MPI_Win_unlock_all", "MPI_Win_shared_query"};
static long counts[C_COUNT];
static double secs[C_COUNT]; /* time inside each function (non-blocking ones: their waits are MPI_Wait/Test*) */
static int counting;
#define TIMED(c, call)                       \
    do {                                     \
        double t_ = counting ? PMPI_Wtime() : 0; \
        int rc_ = call;                      \
        if (counting) {                      \
            counts[c]++;                     \
            secs[c] += PMPI_Wtime() - t_;    \
        }                                    \
        return rc_;                          \
    } while (0)

int MPI_Barrier(MPI_Comm c) { TIMED(C_BARRIER, PMPI_Barrier(c)); }
int MPI_Ibarrier(MPI_Comm c, MPI_Request *r) { TIMED(C_IBARRIER, PMPI_Ibarrier(c, r)); }
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { TIMED(C_BCAST, PMPI_Bcast(b, n, t, root, c)); }
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{ TIMED(C_ALLREDUCE, PMPI_Allreduce(s, r, n, t, o, c)); }
int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{ TIMED(C_IALLREDUCE, PMPI_Iallreduce(s, r, n, t, o, c, q)); }
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{ TIMED(C_REDUCE, PMPI_Reduce(s, r, n, t, o, root, c)); }
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{ TIMED(C_ALLGATHER, PMPI_Allgather(s, sn, st, r, rn, rt, c)); }
int MPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{ TIMED(C_IALLGATHER, PMPI_Iallgather(s, sn, st, r, rn, rt, c, q)); }
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d, MPI_Datatype rt, MPI_Comm c)
{ TIMED(C_ALLGATHERV, PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c)); }
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{ TIMED(C_GATHER, PMPI_Gather(s, sn, st, r, rn, rt, root, c)); }
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{ TIMED(C_ALLTOALL, PMPI_Alltoall(s, sn, st, r, rn, rt, c)); }
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) { TIMED(C_SCAN, PMPI_Scan(s, r, n, t, o, c)); }
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) { TIMED(C_EXSCAN, PMPI_Exscan(s, r, n, t, o, c)); }
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) { TIMED(C_COMM_DUP, PMPI_Comm_dup(c, n)); }
int MPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *r) { TIMED(C_COMM_IDUP, PMPI_Comm_idup(c, n, r)); }
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) { TIMED(C_COMM_SPLIT, PMPI_Comm_split(c, color, key, n)); }
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n)
{ TIMED(C_COMM_SPLIT_TYPE, PMPI_Comm_split_type(c, type, key, i, n)); }
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n) { TIMED(C_COMM_CREATE, PMPI_Comm_create(c, g, n)); }
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n)
{ TIMED(C_COMM_CREATE_GROUP, PMPI_Comm_create_group(c, g, tag, n)); }
int MPI_Intercomm_create(MPI_Comm l, int ll, MPI_Comm p, int rl, int tag, MPI_Comm *n)
{ TIMED(C_INTERCOMM_CREATE, PMPI_Intercomm_create(l, ll, p, rl, tag, n)); }
int MPI_Win_create(void *b, MPI_Aint s, int d, MPI_Info i, MPI_Comm c, MPI_Win *w)
{ TIMED(C_WIN_CREATE, PMPI_Win_create(b, s, d, i, c, w)); }
int MPI_Win_allocate(MPI_Aint s, int d, MPI_Info i, MPI_Comm c, void *b, MPI_Win *w)
{ TIMED(C_WIN_ALLOCATE, PMPI_Win_allocate(s, d, i, c, b, w)); }
int MPI_Win_allocate_shared(MPI_Aint s, int d, MPI_Info i, MPI_Comm c, void *b, MPI_Win *w)
{ TIMED(C_WIN_ALLOCATE_SHARED, PMPI_Win_allocate_shared(s, d, i, c, b, w)); }
int MPI_Win_create_dynamic(MPI_Info i, MPI_Comm c, MPI_Win *w) { TIMED(C_WIN_CREATE_DYNAMIC, PMPI_Win_create_dynamic(i, c, w)); }
int MPI_Win_free(MPI_Win *w) { TIMED(C_WIN_FREE, PMPI_Win_free(w)); }
int MPI_Alloc_mem(MPI_Aint s, MPI_Info i, void *b) { TIMED(C_ALLOC_MEM, PMPI_Alloc_mem(s, i, b)); }
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) { TIMED(C_SEND, PMPI_Send(b, n, t, d, tag, c)); }
int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st)
{ TIMED(C_RECV, PMPI_Recv(b, n, t, s, tag, c, st)); }
int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{ TIMED(C_ISEND, PMPI_Isend(b, n, t, d, tag, c, r)); }
int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *r)
{ TIMED(C_IRECV, PMPI_Irecv(b, n, t, s, tag, c, r)); }

int MPI_Wait(MPI_Request *r, MPI_Status *st) { TIMED(C_WAIT, PMPI_Wait(r, st)); }
int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) { TIMED(C_WAITALL, PMPI_Waitall(n, r, st)); }
int MPI_Test(MPI_Request *r, int *f, MPI_Status *st) { TIMED(C_TEST, PMPI_Test(r, f, st)); }
int MPI_Testall(int n, MPI_Request r[], int *f, MPI_Status st[]) { TIMED(C_TESTALL, PMPI_Testall(n, r, f, st)); }

int MPI_Comm_free(MPI_Comm *c) { TIMED(C_COMM_FREE, PMPI_Comm_free(c)); }
int MPI_Win_lock_all(int a, MPI_Win w) { TIMED(C_WIN_LOCK_ALL, PMPI_Win_lock_all(a, w)); }
int MPI_Win_unlock_all(MPI_Win w) { TIMED(C_WIN_UNLOCK_ALL, PMPI_Win_unlock_all(w)); }
int MPI_Win_shared_query(MPI_Win w, int r, MPI_Aint *s, int *d, void *b)
{ TIMED(C_WIN_SHARED_QUERY, PMPI_Win_shared_query(w, r, s, d, b)); }

static void report(const char *phase, int me)
{
    long maxc[C_COUNT];
    double maxs[C_COUNT];
    int i;
    PMPI_Reduce(counts, maxc, C_COUNT, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(secs, maxs, C_COUNT, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (i = 0; i < C_COUNT; i++)
            if (maxc[i])
                printf("COUNT %s %s rank0 %ld max %ld ms-max %.3f\n", phase, names[i], counts[i], maxc[i],
                       maxs[i] * 1e3);
    memset(counts, 0, sizeof counts);
    memset(secs, 0, sizeof secs);
}

int main(int argc, char **argv)
{
    int me, np;
    double t0, t, tmax;
    int cycles = 20;
    if (argc == 3 && strcmp(argv[1], "--cycles") == 0 && atoi(argv[2]) >= 2)
        cycles = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: init_count [--cycles N]   (group cycles to time, N >= 2; default 20)\n");
        return 2;
    }
    PMPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    PMPI_Barrier(MPI_COMM_WORLD);
    counting = 1;
    t0 = PMPI_Wtime();
    if (ARMCI_Init() != 0)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    t = PMPI_Wtime() - t0;
    counting = 0;
    PMPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("# init_count: %d ranks, ARMCI_Init %.3f ms (max over ranks)\n", np, tmax * 1e3);
    report("ARMCI_Init", me);
    /* What a library may leave out of ARMCI_Init its first collective pays: the first ARMCI_Malloc (64 KiB
     * per rank) and ARMCI_Free, timed and counted apart, and the sum with ARMCI_Init. */
    {
        void **ptrs = malloc(sizeof(void *) * np);
        double tm, tmmax;
        PMPI_Barrier(MPI_COMM_WORLD);
        counting = 1;
        t0 = PMPI_Wtime();
        if (ARMCI_Malloc(ptrs, 65536) != 0 || ARMCI_Free(ptrs[me]) != 0)
            PMPI_Abort(MPI_COMM_WORLD, 1);
        tm = PMPI_Wtime() - t0;
        counting = 0;
        PMPI_Reduce(&tm, &tmmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        tm += t;
        PMPI_Reduce(&tm, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("# init_count: first ARMCI_Malloc+ARMCI_Free %.3f ms; ARMCI_Init through them %.3f ms\n",
                   tmmax * 1e3, t * 1e3);
        report("first ARMCI_Malloc/Free", me);
        free(ptrs);
    }
    /* A short-lived group (the ranks of my parity): ARMCI_Group_create, ARMCI_Malloc_group, ARMCI_Free_group,
     * ARMCI_Group_free; one warm-up cycle, then the mean of CYCLES, calls per cycle. */
    {
        int *list = malloc(sizeof(int) * np), m = 0, i, r, grank;
        void **gp = malloc(sizeof(void *) * np);
        double tc, tcmax, th = 0, thmax;
        ARMCI_Group grp;
        for (i = me % 2; i < np; i += 2)
            list[m++] = i;
        for (r = -1; r < cycles; r++) {
            if (r == 0) {
                PMPI_Barrier(MPI_COMM_WORLD);
                counting = 1;
                t0 = PMPI_Wtime();
            }
            if (r == cycles / 2)
                th = PMPI_Wtime();
            ARMCI_Group_create(m, list, &grp);
            ARMCI_Group_rank(&grp, &grank);
            if (ARMCI_Malloc_group(gp, 4096, &grp) != 0 || ARMCI_Free_group(gp[grank], &grp) != 0)
                PMPI_Abort(MPI_COMM_WORLD, 1);
            ARMCI_Group_free(&grp);
        }
        th = (PMPI_Wtime() - th) / (cycles - cycles / 2);
        tc = (PMPI_Wtime() - t0) / cycles;
        counting = 0;
        PMPI_Reduce(&tc, &tcmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        PMPI_Reduce(&th, &thmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("# init_count: group cycle (create, Malloc_group of 4 KiB, Free_group, free) %.1f us, the second "
                   "half %.1f us; counts below are for %d cycles\n", tcmax * 1e6, thmax * 1e6, cycles);
        report("group cycle", me);
        free(gp);
        free(list);
    }
    counting = 1;
    ARMCI_Finalize();
    counting = 0;
    report("ARMCI_Finalize", me);
    PMPI_Finalize();
    return 0;
}
