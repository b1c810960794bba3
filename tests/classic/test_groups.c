/*
 * Re-creation of ARMCI-MPI tests/test_groups.c (and the group parts of GA's ARMCI tests): ARMCI_Group_create
 * of the even and of the odd processes (collective over the default group, or by the members only when
 * ARMCI_NONCOLLECTIVE_GROUPS=1 is set, which both libraries read), Group_rank/size/Absolute_id,
 * ARMCI_Malloc_group (the pointer array is indexed by GROUP rank, operations take ABSOLUTE ids), puts around
 * the group ring, accumulates into group rank 0, group barriers and group collectives, ARMCI_Free_group;
 * ARMCI_Group_create_child of a reversed subset of the group (ranks relative to the parent);
 * ARMCI_Group_set_default + ARMCI_Malloc_group on the group ARMCI_Group_get_default returns, and
 * ARMCI_Group_create relative to that default; ARMCI_Uses_shm_grp.  (ARMCI_Malloc itself is collective over
 * the WORLD group in ARMCI-MPI 0.3.1 whatever the default group is: PARMCI_Malloc passes
 * &ARMCI_GROUP_WORLD.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <armci.h>

#define N 256

static int rank, nproc, errors = 0;
#define FAIL(...)                                                                                            \
  do {                                                                                                       \
    printf("[%d] FAIL line %d: ", rank, __LINE__);                                                           \
    printf(__VA_ARGS__);                                                                                     \
    printf("\n");                                                                                            \
    fflush(stdout);                                                                                          \
    errors++;                                                                                                \
  } while (0)

/* exercises a group: the caller is a member; ids[] are the members' absolute ids in group-rank order */
static void exercise(ARMCI_Group *g, int n, const int *ids, int use_default_malloc)
{
  int grank = -1, gsize = -1, i, r;
  double **ptrs = malloc(sizeof(double *) * n), *buf = malloc(sizeof(double) * N);
  double one = 1.0;
  int x[3];

  ARMCI_Group_rank(g, &grank);
  ARMCI_Group_size(g, &gsize);
  if (gsize != n) FAIL("group size %d, expected %d", gsize, n);
  if (grank < 0 || grank >= n || ids[grank] != rank) FAIL("group rank %d does not match my id %d", grank, rank);
  for (i = 0; i < n; i++)
    if (ARMCI_Absolute_id(g, i) != ids[i]) FAIL("ARMCI_Absolute_id(%d) = %d, expected %d", i, ARMCI_Absolute_id(g, i), ids[i]);

  if (use_default_malloc) {
    ARMCI_Group def;
    ARMCI_Group_get_default(&def);
    ARMCI_Malloc_group((void **)ptrs, (grank + 2) * N * sizeof(double), &def);
  } else {
    ARMCI_Malloc_group((void **)ptrs, (grank + 2) * N * sizeof(double), g);
  }
  for (i = 0; i < n; i++)
    if (ptrs[i] == NULL) FAIL("slice of group rank %d is NULL", i);
  ARMCI_Access_begin(ptrs[grank]);
  for (i = 0; i < (grank + 2) * N; i++) ptrs[grank][i] = -1.0;
  ARMCI_Access_end(ptrs[grank]);
  armci_msg_group_barrier(g);

  /* ring put: to the next group rank, at an offset only that process's slice has */
  r = (grank + 1) % n;
  for (i = 0; i < N; i++) buf[i] = rank * 1000.0 + i;
  ARMCI_Put(buf, ptrs[r] + r * N, N * sizeof(double), ARMCI_Absolute_id(g, r));
  /* accumulate into group rank 0 */
  for (i = 0; i < N; i++) buf[i] = 1.0;
  ARMCI_Acc(ARMCI_ACC_DBL, &one, buf, ptrs[0] + N, N * sizeof(double), ARMCI_Absolute_id(g, 0));
  ARMCI_AllFence();
  armci_msg_group_barrier(g);

  {
    int left = ids[(grank + n - 1) % n];
    ARMCI_Access_begin(ptrs[grank]);
    for (i = 0; i < N; i++)
      if (ptrs[grank][grank * N + i] != left * 1000.0 + i) {
        FAIL("ring put: element %d = %f, expected %f", i, ptrs[grank][grank * N + i], left * 1000.0 + i);
        break;
      }
    if (grank == 0)
      for (i = 0; i < N; i++)
        if (ptrs[0][N + i] != -1.0 + n) {
          FAIL("acc into group rank 0: element %d = %f, expected %f", i, ptrs[0][N + i], -1.0 + n);
          break;
        }
    ARMCI_Access_end(ptrs[grank]);
  }

  /* group collectives */
  x[0] = rank;
  x[1] = 1;
  x[2] = -rank;
  armci_msg_group_igop(x, 3, "+", g);
  {
    int s = 0;
    for (i = 0; i < n; i++) s += ids[i];
    if (x[0] != s || x[1] != n || x[2] != -s) FAIL("group igop + = (%d,%d,%d), expected (%d,%d,%d)", x[0], x[1], x[2], s, n, -s);
  }
  {
    double d = rank + 0.5;
    armci_msg_group_dgop(&d, 1, "max", g);
    if (d != ids[0] + 0.5 && d < rank + 0.5) FAIL("group dgop max = %f", d);
    for (i = 0; i < n; i++)
      if (d < ids[i] + 0.5) FAIL("group dgop max = %f below member %d", d, ids[i]);
  }
  {
    long l = 0;
    if (grank == n - 1) l = 4242L + rank;
    armci_msg_group_bcast_scope(SCOPE_ALL, &l, sizeof(long), ids[n - 1], g);
    if (l != 4242L + ids[n - 1]) FAIL("group bcast from absolute %d: %ld", ids[n - 1], l);
  }

  armci_msg_group_barrier(g);
  if (use_default_malloc) {
    ARMCI_Group def;
    ARMCI_Group_get_default(&def);
    ARMCI_Free_group(ptrs[grank], &def);
  } else {
    ARMCI_Free_group(ptrs[grank], g);
  }
  free(ptrs);
  free(buf);
}

int main(int argc, char **argv)
{
  int i, n, member, noncoll;
  int *ids = malloc(sizeof(int) * 8 * 8);
  ARMCI_Group world, g, child;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  noncoll = getenv("ARMCI_NONCOLLECTIVE_GROUPS") && atoi(getenv("ARMCI_NONCOLLECTIVE_GROUPS"));
  if (rank == 0) printf("Starting ARMCI groups test with %d processes (%scollective group creation)\n", nproc, noncoll ? "non" : "");

  ARMCI_Group_get_world(&world);
  {
    int wr, ws;
    ARMCI_Group_rank(&world, &wr);
    ARMCI_Group_size(&world, &ws);
    if (wr != rank || ws != nproc) FAIL("world group rank/size %d/%d", wr, ws);
  }

  /* even, then odd processes */
  for (int parity = 0; parity < 2; parity++) {
    n = 0;
    for (i = parity; i < nproc; i += 2) ids[n++] = i;
    member = rank % 2 == parity;
    memset(&g, 0, sizeof g);
    if (n == 0) continue;
    if (member || !noncoll) ARMCI_Group_create(n, ids, &g);
    if (member) {
      exercise(&g, n, ids, 0);
      /* child: the parent's members in reverse order, minus the parent's rank 0 when there are 2+ */
      {
        int cn = n > 1 ? n - 1 : 1, *rel = malloc(sizeof(int) * cn), *cids = malloc(sizeof(int) * cn), grank;
        ARMCI_Group_rank(&g, &grank);
        for (i = 0; i < cn; i++) {
          rel[i] = n - 1 - i;
          cids[i] = ids[rel[i]];
        }
        memset(&child, 0, sizeof child);
        ARMCI_Group_create_child(cn, rel, &child, &g);
        if (n == 1 || grank != 0) {
          exercise(&child, cn, cids, 0);
          ARMCI_Group_free(&child);
        }
        free(rel);
        free(cids);
      }
      if (ARMCI_Uses_shm_grp(&g) != ARMCI_Uses_shm()) FAIL("ARMCI_Uses_shm_grp %d vs ARMCI_Uses_shm %d", ARMCI_Uses_shm_grp(&g), ARMCI_Uses_shm());
    }
    ARMCI_Barrier();
    if (member) ARMCI_Group_free(&g);
  }

  /* default group = the first half of the processes (at least 1); ARMCI_Malloc by its members only; a
   * group created relative to the default group; then back to world */
  n = nproc / 2 > 0 ? nproc / 2 : 1;
  for (i = 0; i < n; i++) ids[i] = i;
  member = rank < n;
  memset(&g, 0, sizeof g);
  if (member || !noncoll) ARMCI_Group_create(n, ids, &g);
  if (member) {
    ARMCI_Group_set_default(&g);
    exercise(&g, n, ids, 1);
    {
      ARMCI_Group def, rel;
      int one = n - 1, abs;
      ARMCI_Group_get_default(&def);
      if (def.comm == MPI_COMM_NULL) FAIL("default group has no communicator");
      /* a singleton group created relative to the default group: its last member */
      memset(&rel, 0, sizeof rel);
      if (!noncoll || rank == n - 1) ARMCI_Group_create(1, &one, &rel);
      abs = n - 1;
      if (rank == n - 1) {
        exercise(&rel, 1, &abs, 0);
        ARMCI_Group_free(&rel);
      }
    }
    ARMCI_Group_set_default(&world);
  }
  ARMCI_Barrier();
  if (member) ARMCI_Group_free(&g);

  ARMCI_Barrier();
  free(ids);
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
