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
 * ARMCI_Malloc and ARMCI_Free, ARMCI_Finalize): calls on rank 0, and the max over ranks.  Calls a library makes through PMPI_* directly are not seen (armci-x makes a few: a profiling tool
 * would not see them either).
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
    C_WIN_CREATE_DYNAMIC, C_WIN_FREE, C_ALLOC_MEM, C_SEND, C_RECV, C_ISEND, C_IRECV, C_COUNT
};
static const char *names[C_COUNT] = {
    "MPI_Barrier", "MPI_Ibarrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Iallreduce", "MPI_Reduce", "MPI_Allgather",
    "MPI_Iallgather", "MPI_Allgatherv", "MPI_Gather", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan", "MPI_Comm_dup",
    "MPI_Comm_idup", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_create_group",
    "MPI_Intercomm_create", "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_create_dynamic",
    "MPI_Win_free", "MPI_Alloc_mem", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv"};
static long counts[C_COUNT];
static int counting;
#define COUNT(c) (counting ? (void)counts[c]++ : (void)0)

int MPI_Barrier(MPI_Comm c) { COUNT(C_BARRIER); return PMPI_Barrier(c); }
int MPI_Ibarrier(MPI_Comm c, MPI_Request *r) { COUNT(C_IBARRIER); return PMPI_Ibarrier(c, r); }
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { COUNT(C_BCAST); return PMPI_Bcast(b, n, t, root, c); }
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{ COUNT(C_ALLREDUCE); return PMPI_Allreduce(s, r, n, t, o, c); }
int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q)
{ COUNT(C_IALLREDUCE); return PMPI_Iallreduce(s, r, n, t, o, c, q); }
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c)
{ COUNT(C_REDUCE); return PMPI_Reduce(s, r, n, t, o, root, c); }
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{ COUNT(C_ALLGATHER); return PMPI_Allgather(s, sn, st, r, rn, rt, c); }
int MPI_Iallgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{ COUNT(C_IALLGATHER); return PMPI_Iallgather(s, sn, st, r, rn, rt, c, q); }
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d, MPI_Datatype rt, MPI_Comm c)
{ COUNT(C_ALLGATHERV); return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c); }
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{ COUNT(C_GATHER); return PMPI_Gather(s, sn, st, r, rn, rt, root, c); }
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{ COUNT(C_ALLTOALL); return PMPI_Alltoall(s, sn, st, r, rn, rt, c); }
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) { COUNT(C_SCAN); return PMPI_Scan(s, r, n, t, o, c); }
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) { COUNT(C_EXSCAN); return PMPI_Exscan(s, r, n, t, o, c); }
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) { COUNT(C_COMM_DUP); return PMPI_Comm_dup(c, n); }
int MPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *r) { COUNT(C_COMM_IDUP); return PMPI_Comm_idup(c, n, r); }
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) { COUNT(C_COMM_SPLIT); return PMPI_Comm_split(c, color, key, n); }
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n)
{ COUNT(C_COMM_SPLIT_TYPE); return PMPI_Comm_split_type(c, type, key, i, n); }
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n) { COUNT(C_COMM_CREATE); return PMPI_Comm_create(c, g, n); }
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n)
{ COUNT(C_COMM_CREATE_GROUP); return PMPI_Comm_create_group(c, g, tag, n); }
int MPI_Intercomm_create(MPI_Comm l, int ll, MPI_Comm p, int rl, int tag, MPI_Comm *n)
{ COUNT(C_INTERCOMM_CREATE); return PMPI_Intercomm_create(l, ll, p, rl, tag, n); }
int MPI_Win_create(void *b, MPI_Aint s, int d, MPI_Info i, MPI_Comm c, MPI_Win *w)
{ COUNT(C_WIN_CREATE); return PMPI_Win_create(b, s, d, i, c, w); }
int MPI_Win_allocate(MPI_Aint s, int d, MPI_Info i, MPI_Comm c, void *b, MPI_Win *w)
{ COUNT(C_WIN_ALLOCATE); return PMPI_Win_allocate(s, d, i, c, b, w); }
int MPI_Win_allocate_shared(MPI_Aint s, int d, MPI_Info i, MPI_Comm c, void *b, MPI_Win *w)
{ COUNT(C_WIN_ALLOCATE_SHARED); return PMPI_Win_allocate_shared(s, d, i, c, b, w); }
int MPI_Win_create_dynamic(MPI_Info i, MPI_Comm c, MPI_Win *w) { COUNT(C_WIN_CREATE_DYNAMIC); return PMPI_Win_create_dynamic(i, c, w); }
int MPI_Win_free(MPI_Win *w) { COUNT(C_WIN_FREE); return PMPI_Win_free(w); }
int MPI_Alloc_mem(MPI_Aint s, MPI_Info i, void *b) { COUNT(C_ALLOC_MEM); return PMPI_Alloc_mem(s, i, b); }
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) { COUNT(C_SEND); return PMPI_Send(b, n, t, d, tag, c); }
int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st)
{ COUNT(C_RECV); return PMPI_Recv(b, n, t, s, tag, c, st); }
int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r)
{ COUNT(C_ISEND); return PMPI_Isend(b, n, t, d, tag, c, r); }
int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *r)
{ COUNT(C_IRECV); return PMPI_Irecv(b, n, t, s, tag, c, r); }

static void report(const char *phase, int me)
{
    long maxc[C_COUNT];
    int i;
    PMPI_Reduce(counts, maxc, C_COUNT, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (i = 0; i < C_COUNT; i++)
            if (maxc[i])
                printf("COUNT %s %s rank0 %ld max %ld\n", phase, names[i], counts[i], maxc[i]);
    memset(counts, 0, sizeof counts);
}

int main(int argc, char **argv)
{
    int me, np;
    double t0, t, tmax;
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
        printf("# init_count: %d ranks, ARMCI_Init %.1f ms (max over ranks)\n", np, tmax * 1e3);
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
            printf("# init_count: first ARMCI_Malloc+ARMCI_Free %.1f ms; ARMCI_Init through them %.1f ms\n",
                   tmmax * 1e3, t * 1e3);
        report("first ARMCI_Malloc/Free", me);
        free(ptrs);
    }
    counting = 1;
    ARMCI_Finalize();
    counting = 0;
    report("ARMCI_Finalize", me);
    PMPI_Finalize();
    return 0;
}
