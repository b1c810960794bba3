/*
 * tile_floor.c -- what MPI itself costs for one small GA tile to the partner process, by RMA and by two-sided
 * messages (no ARMCI, no GA): the floor under benchmarks/ga_ports.c's small get/put rows between nodes, where
 * GA's MPI-PR port (two-sided messages to a progress process) and any MPI-RMA ARMCI (armci-x, ARMCI-MPI) part
 * ways.  Issue 58.
 *
 * Every rank at once (as ga_ports.c), each to its partner (rank + np/2: on the other host with block
 * placement); a tile is ROWS x ROWS doubles of a matrix with a leading dimension of 512 doubles, so the
 * target side is an MPI vector type for RMA.  Per variant: us per tile, the maximum over ranks of the mean
 * over N tiles, after one untimed pass.
 *   rma get+flush_local        MPI_Get (vector target) + MPI_Win_flush_local  (armci-x's strided get)
 *   rma getacc+flush_local     MPI_Get_accumulate(MPI_NO_OP) + flush_local    (the same as an accumulate)
 *   rma rgetacc+wait           MPI_Rget_accumulate(MPI_NO_OP) + MPI_Wait
 *   rma contig rget+wait       MPI_Rget of the same bytes, contiguous at the target (no datatype)
 *   rma put+flush_local        MPI_Put (vector target) + flush_local
 *   rma accrepl+flush_local    MPI_Accumulate(MPI_REPLACE) + flush_local      (a put as an accumulate)
 *   rma accrepl streamed       MPI_Accumulate(MPI_REPLACE), no local completion but a flush per 64
 *                              (armci-x's put from a held copy)
 *   rma acc streamed           MPI_Accumulate(MPI_SUM), the same
 *   2-sided get                a small request message to the partner, which answers with the packed tile
 *                              (MPI_Isend / MPI_Irecv; the partner serves requests whenever it waits: the
 *                              shape of MPI-PR's get, without its separate progress process)
 *   2-sided put                the packed tile as one message, acknowledged by a small reply
 *                              (MPI-PR's put also needs no acknowledgement before returning; the ack keeps
 *                              the message count bounded here)
 * Data: every get variant's tile is checked after its completion (the partner's values for that pass);
 * a mismatch prints "CHECK FAILED" and exits 1.  MPICH 4.0.2's MPI_Rget with a derived target type completes
 * its request before the data landed (measured with this check), so that variant is not offered.
 *
 * Build and run (between 2 simulated hosts over TCP, as the ga_ports tables):
 *   mpicc.mpich -O2 -o tile_floor benchmarks/tile_floor.c
 *   UCX_TLS=tcp,self tools/simhosts.sh --hosts 2 -n 2 ./tile_floor 8 2000
 *   UCX_TLS=tcp,self tools/simhosts.sh --hosts 2 -n 2 ./tile_floor 32 2000
 * Arguments: ROWS (default 8), N tiles per variant (default 1000).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LD 512
#define TAG_REQ 11
#define TAG_DATA 12

#define CHECK_MPI(call)                                                    \
    do {                                                                   \
        int rc_ = (call);                                                  \
        if (rc_ != MPI_SUCCESS) {                                          \
            fprintf(stderr, "tile_floor: %s failed (%d)\n", #call, rc_); \
            MPI_Abort(MPI_COMM_WORLD, 2);                                  \
        }                                                                  \
    } while (0)

enum {
    V_GET_FL, V_GETACC_FL, V_RGETACC, V_CONTIG_RGET, V_PUT_FL, V_ACCREPL_FL, V_ACCREPL_STREAM, V_ACC_STREAM,
    V_2S_GET, V_2S_PUT, NV
};
static const char *names[NV] = {"rma get+flush_local",     "rma getacc+flush_local", "rma rgetacc+wait",
                                "rma contig rget+wait",    "rma put+flush_local",    "rma accrepl+flush_local",
                                "rma accrepl streamed",    "rma acc streamed",       "2-sided get",
                                "2-sided put"};

static int me, np, partner, rows;
static double *base, *tile, *packed;
static MPI_Win win;
static MPI_Datatype vt;
static MPI_Comm replies; /* answers travel apart from requests: the standing receive takes any tag */

/* The value of element (r, c) of rank `owner`'s tile for pass `pass`. */
static double value(int owner, int pass, int r, int c) { return owner * 1e6 + pass * 1e3 + r * rows + c; }

static void fill_own(int pass) {
    CHECK_MPI(MPI_Win_sync(win));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < rows; ++c) base[(size_t)r * LD + c] = value(me, pass, r, c);
    CHECK_MPI(MPI_Win_sync(win));
}

/* Serve one pending 2-sided request if there is one (a get request or a put message). */
static void serve(MPI_Request *rq, double *rbuf, int *rflag) {
    MPI_Status st;
    CHECK_MPI(MPI_Test(rq, rflag, &st));
    if (!*rflag) return;
    if (st.MPI_TAG == TAG_REQ) { /* get: pack my tile, answer */
        for (int r = 0; r < rows; ++r) memcpy(packed + r * rows, base + (size_t)r * LD, rows * sizeof(double));
        CHECK_MPI(MPI_Send(packed, rows * rows, MPI_DOUBLE, st.MPI_SOURCE, TAG_DATA, replies));
    } else { /* put: unpack into my matrix, acknowledge */
        for (int r = 0; r < rows; ++r) memcpy(base + (size_t)r * LD, rbuf + r * rows, rows * sizeof(double));
        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_DATA, replies));
    }
    /* repost */
    CHECK_MPI(MPI_Irecv(rbuf, rows * rows, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, rq));
}

static int check_tile(int v, int pass) {
    /* the contiguous get reads the partner's first rows * rows doubles: its tile's first row, then the rest of
       that matrix row */
    const int check_rows = v == V_CONTIG_RGET ? 1 : rows;
    for (int r = 0; r < check_rows; ++r)
        for (int c = 0; c < rows; ++c)
            if (tile[r * rows + c] != value(partner, pass, r, c)) {
                fprintf(stderr, "CHECK FAILED tile_floor %s: rank %d pass %d (%d,%d) got %g want %g\n", names[v], me,
                        pass, r, c, tile[r * rows + c], value(partner, pass, r, c));
                return 1;
            }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rows = argc > 1 ? atoi(argv[1]) : 8;
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    if (np % 2 || rows < 1 || rows > LD || n < 1) {
        if (me == 0) fprintf(stderr, "usage: tile_floor [ROWS 1..%d] [N] with an even number of processes\n", LD);
        MPI_Finalize();
        return 2;
    }
    partner = (me + np / 2) % np;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &replies));
    const int elems = rows * rows;
    CHECK_MPI(MPI_Alloc_mem((MPI_Aint)LD * rows * sizeof(double), MPI_INFO_NULL, &base));
    CHECK_MPI(MPI_Win_create(base, (MPI_Aint)LD * rows * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Type_vector(rows, rows, LD, MPI_DOUBLE, &vt));
    CHECK_MPI(MPI_Type_commit(&vt));
    tile = malloc(elems * sizeof(double));
    packed = malloc(elems * sizeof(double));
    double *rbuf = malloc(elems * sizeof(double));
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    int failed = 0;
    double us[NV];
    for (int v = 0; v < NV; ++v) {
        const int is_get = v <= V_CONTIG_RGET || v == V_2S_GET;
        double t = 0;
        for (int pass = 0; pass < 2; ++pass) { /* pass 0 untimed, its data checked too */
            fill_own(pass);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            MPI_Request rq = MPI_REQUEST_NULL;
            int rflag = 0;
            if (v >= V_2S_GET)
                CHECK_MPI(MPI_Irecv(rbuf, elems, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            const double t0 = MPI_Wtime();
            for (int i = 0; i < n; ++i) {
                MPI_Request q;
                if (is_get) memset(tile, 0xff, elems * sizeof(double));
                switch (v) {
                case V_GET_FL:
                    CHECK_MPI(MPI_Get(tile, elems, MPI_DOUBLE, partner, 0, 1, vt, win));
                    CHECK_MPI(MPI_Win_flush_local(partner, win));
                    break;
                case V_GETACC_FL:
                    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_BYTE, tile, elems, MPI_DOUBLE, partner, 0, 1, vt,
                                                 MPI_NO_OP, win));
                    CHECK_MPI(MPI_Win_flush_local(partner, win));
                    break;
                case V_RGETACC:
                    CHECK_MPI(MPI_Rget_accumulate(NULL, 0, MPI_BYTE, tile, elems, MPI_DOUBLE, partner, 0, 1, vt,
                                                  MPI_NO_OP, win, &q));
                    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
                    break;
                case V_CONTIG_RGET:
                    /* the same number of bytes from the start of the partner's window, contiguous */
                    CHECK_MPI(MPI_Rget(tile, elems, MPI_DOUBLE, partner, 0, elems, MPI_DOUBLE, win, &q));
                    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
                    break;
                case V_PUT_FL:
                    CHECK_MPI(MPI_Put(packed, elems, MPI_DOUBLE, partner, 0, 1, vt, win));
                    CHECK_MPI(MPI_Win_flush_local(partner, win));
                    break;
                case V_ACCREPL_FL:
                    CHECK_MPI(MPI_Accumulate(packed, elems, MPI_DOUBLE, partner, 0, 1, vt, MPI_REPLACE, win));
                    CHECK_MPI(MPI_Win_flush_local(partner, win));
                    break;
                case V_ACCREPL_STREAM:
                case V_ACC_STREAM:
                    CHECK_MPI(MPI_Accumulate(packed, elems, MPI_DOUBLE, partner, 0, 1, vt,
                                             v == V_ACC_STREAM ? MPI_SUM : MPI_REPLACE, win));
                    if (i % 64 == 63) CHECK_MPI(MPI_Win_flush(partner, win));
                    break;
                case V_2S_GET:
                case V_2S_PUT: {
                    MPI_Request d;
                    int dflag = 0;
                    CHECK_MPI(MPI_Irecv(tile, elems, MPI_DOUBLE, partner, TAG_DATA, replies, &d));
                    if (v == V_2S_GET)
                        CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_REQ, MPI_COMM_WORLD));
                    else
                        CHECK_MPI(MPI_Send(packed, elems, MPI_DOUBLE, partner, TAG_REQ + 10, MPI_COMM_WORLD));
                    while (!dflag) { /* wait for my answer, serving the partner meanwhile */
                        CHECK_MPI(MPI_Test(&d, &dflag, MPI_STATUS_IGNORE));
                        serve(&rq, rbuf, &rflag);
                    }
                    break;
                }
                }
                if (is_get && i == n - 1) failed |= check_tile(v, pass);
            }
            if (v == V_ACCREPL_STREAM || v == V_ACC_STREAM) CHECK_MPI(MPI_Win_flush(partner, win));
            if (pass == 1) t = MPI_Wtime() - t0;
            if (v >= V_2S_GET) { /* serve until every rank has its answers, then cancel the standing receive */
                MPI_Request b;
                int bflag = 0;
                CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &b));
                while (!bflag) {
                    CHECK_MPI(MPI_Test(&b, &bflag, MPI_STATUS_IGNORE));
                    serve(&rq, rbuf, &rflag);
                }
                CHECK_MPI(MPI_Cancel(&rq));
                CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            }
            CHECK_MPI(MPI_Win_flush_all(win));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
        double mine = t / n * 1e6;
        CHECK_MPI(MPI_Reduce(&mine, &us[v], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    int any;
    CHECK_MPI(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (me == 0) {
        printf("tile_floor: %d processes, tile %dx%d doubles (%d bytes), %d tiles per variant, us per tile\n", np,
               rows, rows, elems * 8, n);
        for (int v = 0; v < NV; ++v) printf("row %-26s %8.2f\n", names[v], us[v]);
        printf("tile_floor: %s\n", any ? "CHECK FAILED" : "all checks passed");
    }
    CHECK_MPI(MPI_Type_free(&vt));
    CHECK_MPI(MPI_Comm_free(&replies));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Free_mem(base));
    free(tile);
    free(packed);
    free(rbuf);
    MPI_Finalize();
    return any ? 1 : 0;
}
