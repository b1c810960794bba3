/*
 * Re-creation of ARMCI-MPI tests/test_group_split.c: ARMCIX_Group_split of the world group by colour
 * (rank % 2 and, second round, rank < nproc/2) with a key that reverses the order, ARMCIX_Group_dup, then in
 * each new group: rank/size/ARMCI_Absolute_id consistent with the split, ARMCI_Malloc_group, a put to the
 * next group member and a get back, armci_msg_group_igop, ARMCI_Free_group, ARMCI_Group_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>
#include <armcix.h>

#define N 100

static int rank, nproc, errors = 0;

static void use_group(ARMCI_Group *g, int color, int (*colour_of)(int))
{
  int grank, gsize, i, expect_size = 0, expect_rank = 0;
  int **ptrs, *buf = malloc(N * sizeof(int)), next, prev;

  for (i = 0; i < nproc; i++)
    if (colour_of(i) == color) {
      expect_size++;
      if (i > rank) expect_rank++; /* key = -rank: higher ranks come first */
    }
  ARMCI_Group_rank(g, &grank);
  ARMCI_Group_size(g, &gsize);
  if (gsize != expect_size || grank != expect_rank) {
    printf("[%d] FAIL split: group rank/size %d/%d, expected %d/%d\n", rank, grank, gsize, expect_rank, expect_size);
    errors++;
  }
  if (ARMCI_Absolute_id(g, grank) != rank) {
    printf("[%d] FAIL ARMCI_Absolute_id(%d) = %d\n", rank, grank, ARMCI_Absolute_id(g, grank));
    errors++;
  }
  ptrs = malloc(gsize * sizeof(int *));
  ARMCI_Malloc_group((void **)ptrs, N * sizeof(int), g);
  ARMCI_Access_begin(ptrs[grank]);
  for (i = 0; i < N; i++) ptrs[grank][i] = -1;
  ARMCI_Access_end(ptrs[grank]);
  armci_msg_group_barrier(g);
  next = (grank + 1) % gsize;
  prev = (grank + gsize - 1) % gsize;
  for (i = 0; i < N; i++) buf[i] = rank * 100 + i;
  ARMCI_Put(buf, ptrs[next], N * sizeof(int), ARMCI_Absolute_id(g, next));
  ARMCI_AllFence();
  armci_msg_group_barrier(g);
  ARMCI_Get(ptrs[next], buf, N * sizeof(int), ARMCI_Absolute_id(g, next));
  for (i = 0; i < N; i++)
    if (buf[i] != rank * 100 + i || ptrs[grank][i] != ARMCI_Absolute_id(g, prev) * 100 + i) {
      printf("[%d] FAIL data at %d: got back %d, mine %d\n", rank, i, buf[i], ptrs[grank][i]);
      errors++;
      break;
    }
  {
    int x = 1;
    armci_msg_group_igop(&x, 1, "+", g);
    if (x != gsize) {
      printf("[%d] FAIL group igop: %d, expected %d\n", rank, x, gsize);
      errors++;
    }
  }
  armci_msg_group_barrier(g);
  ARMCI_Free_group(ptrs[grank], g);
  free(ptrs);
  free(buf);
}

static int parity(int r) { return r % 2; }
static int half(int r) { return r < nproc / 2; }

int main(int argc, char **argv)
{
  ARMCI_Group world, g, d;

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (rank == 0) printf("Starting ARMCI group split test with %d processes\n", nproc);

  ARMCI_Group_get_world(&world);
  if (ARMCIX_Group_split(&world, parity(rank), -rank, &g)) {
    printf("[%d] FAIL ARMCIX_Group_split returned nonzero\n", rank);
    errors++;
  }
  use_group(&g, parity(rank), parity);
  ARMCIX_Group_dup(&g, &d);
  use_group(&d, parity(rank), parity);
  ARMCI_Group_free(&d);
  ARMCI_Group_free(&g);

  ARMCIX_Group_split(&world, half(rank), -rank, &g);
  use_group(&g, half(rank), half);
  ARMCI_Group_free(&g);

  ARMCI_Barrier();
  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
