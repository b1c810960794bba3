/*
 * init_parts.c -- what the parts of ARMCI_Init cost when a process runs them for the first time (issue 30:
 * ARMCI_Init at 2 ranks against ARMCI-MPI's, benchmarks/results/2026-12-01-init-parts.md).
 * No ARMCI library: raw MPI and system calls, so that both libraries' start-up can be read off it.
 *
 *   mpicc.mpich -O2 benchmarks/init_parts.c -o /tmp/init_parts
 *   for i in $(seq 9); do for f in A B C D E G H; do mpiexec.mpich -n 2 /tmp/init_parts $f; done; done
 *   mpiexec.mpich -n 2 /tmp/init_parts local
 *
 * FORM (one letter; each run is a fresh process, so every form runs cold, as in ARMCI_Init), after MPI_Init
 * and a barrier; prints "FORM us" from rank 0, the max over ranks:
 *   A  MPI_Iallgather of 80 B (armci-x's census) and MPI_Comm_idup posted together, one wait (armci-x)
 *   B  the census, waited; then a blocking MPI_Comm_dup
 *   C  the census, waited; then MPI_Comm_idup, waited
 *   D  a blocking MPI_Comm_dup alone (ARMCI-MPI's ARMCI_Init)
 *   E  a blocking MPI_Allgather of 80 B, then MPI_Comm_dup
 *   G  MPI_Comm_idup alone
 *   H  the census alone
 * local: each system call the census record makes (topo/machine.cc, topo/node_keys.cc) and 70 getenv, first
 * call and second call, per rank.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Runs STMT twice and prints both times: the first is the cold one ARMCI_Init pays. */
#define TWICE(me, name, stmt)                                                                         \
    do {                                                                                              \
        double t0_ = now_us();                                                                        \
        stmt;                                                                                         \
        double t1_ = now_us();                                                                        \
        stmt;                                                                                         \
        double t2_ = now_us();                                                                        \
        printf("rank %d  %-30s first %6.1f us  again %6.1f us\n", me, name, t1_ - t0_, t2_ - t1_); \
    } while (0)

static void local_parts(int me) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], buf[64], host[256], name[64];
    int len, fd;
    ssize_t n = 0;
    cpu_set_t mask;
    struct stat st;
    volatile const char *v = NULL;
    TWICE(me, "MPI_Get_library_version", MPI_Get_library_version(lib, &len));
    TWICE(me, "70 getenv (unset names)", for (int i = 0; i < 70; i++) {
        snprintf(name, sizeof name, "ARMCI_PROBE_%d", i);
        v = getenv(name);
    });
    TWICE(me, "read boot_id (open+read+close)", fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
          n = fd >= 0 ? read(fd, buf, sizeof buf) : -1; if (fd >= 0) close(fd));
    TWICE(me, "gethostname", gethostname(host, sizeof host - 1));
    TWICE(me, "sched_getaffinity", sched_getaffinity(0, sizeof mask, &mask));
    TWICE(me, "stat /proc/self/ns/net", stat("/proc/self/ns/net", &st));
    (void)v;
    if (n < 0) printf("rank %d: boot_id unreadable\n", me);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *form = argc > 1 ? argv[1] : "A";
    if (strcmp(form, "local") == 0) {
        local_parts(me);
        MPI_Finalize();
        return 0;
    }
    char in[80] = {0}; /* sizeof(Census), src/runtime/runtime.cc (72 B before session 21) */
    char *out = malloc(80 * (size_t)np);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request r[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 at -O2 misreads its size (-Wstringop-overflow) */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_us();
    switch (form[0]) {
        case 'A':
            MPI_Iallgather(in, 80, MPI_BYTE, out, 80, MPI_BYTE, MPI_COMM_WORLD, &r[0]);
            MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r[1]);
            MPI_Waitall(2, r, st);
            break;
        case 'B':
            MPI_Iallgather(in, 80, MPI_BYTE, out, 80, MPI_BYTE, MPI_COMM_WORLD, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            MPI_Comm_dup(MPI_COMM_WORLD, &dup);
            break;
        case 'C':
            MPI_Iallgather(in, 80, MPI_BYTE, out, 80, MPI_BYTE, MPI_COMM_WORLD, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r[1]);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
            break;
        case 'D': MPI_Comm_dup(MPI_COMM_WORLD, &dup); break;
        case 'E':
            MPI_Allgather(in, 80, MPI_BYTE, out, 80, MPI_BYTE, MPI_COMM_WORLD);
            MPI_Comm_dup(MPI_COMM_WORLD, &dup);
            break;
        case 'G':
            MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r[1]);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
            break;
        case 'H':
            MPI_Iallgather(in, 80, MPI_BYTE, out, 80, MPI_BYTE, MPI_COMM_WORLD, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            break;
        default:
            if (me == 0) fprintf(stderr, "init_parts: unknown form '%s' (A B C D E G H or local)\n", form);
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double t = now_us() - t0, worst = 0;
    MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("%c %.1f\n", form[0], worst);
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    free(out);
    MPI_Finalize();
    return 0;
}
