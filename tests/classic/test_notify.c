/*
 * The classic ARMCI calls Global Arrays' configure looks for, used the way GA's ARMCI tests use them:
 * armci_msg_init starts MPI before ARMCI_Init and armci_msg_finalize ends it after ARMCI_Finalize;
 * armci_group_comm returns the group's communicator; armci_notify / armci_notify_wait pass a data block
 * around the ring of processes (each process puts the block, adds its rank, into the next one's memory and
 * notifies it; the receiver reads the block with plain loads right after its wait), several rounds, with
 * the counts the calls return checked.  A notification that overtook its data, or a wait that returned
 * early, shows up as a block from the previous round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>
#include <message.h>

#define ROUNDS 20
#define N 4096 /* doubles per block: 32 KiB, more than one eager MPI message */

static int errors = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "[%d] FAIL: ", armci_msg_me());     \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      ++errors;                                           \
    }                                                     \
  } while (0)

static double value(int round, int hop, int i)
{
  return round * 1000000.0 + hop * 10000.0 + i;
}

int main(int argc, char **argv)
{
  int up = 0, down = 0;
  armci_msg_init(&argc, &argv);
  MPI_Initialized(&up);
  if (!up) {
    fprintf(stderr, "FAIL: armci_msg_init did not start MPI\n");
    return 1;
  }
  ARMCI_Init();
  int me = armci_msg_me(), n = armci_msg_nproc();

  /* armci_group_comm: the world group's communicator has every process, in rank order */
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  MPI_Comm comm = armci_group_comm(&world);
  int crank = -1, csize = -1;
  MPI_Comm_rank(comm, &crank);
  MPI_Comm_size(comm, &csize);
  CHECK(crank == me && csize == n, "armci_group_comm: rank %d of %d, expected %d of %d", crank, csize, me, n);
  CHECK(comm == world.comm, "armci_group_comm differs from the group's comm field");

  void **bufs = malloc(sizeof(void *) * n);
  ARMCI_Malloc(bufs, sizeof(double) * N);
  double *mine = bufs[me], *out = malloc(sizeof(double) * N);
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  ARMCI_Barrier();

  for (int round = 0; round < ROUNDS; ++round) {
    int waited = -1, got;
    if (me != 0) { /* receive the block from prev (it has added prev's rank as its hop) */
      got = armci_notify_wait(prev, &waited);
      CHECK(waited == round + 1, "round %d: notify_wait set *pval = %d", round, waited);
      CHECK(got >= waited, "round %d: notify_wait returned %d < %d waits", round, got, waited);
      for (int i = 0; i < N; ++i)
        if (mine[i] != value(round, me - 1, i)) {
          CHECK(0, "round %d: element %d is %g, expected %g (data did not arrive before the notification)",
                round, i, mine[i], value(round, me - 1, i));
          break;
        }
    }
    if (me != n - 1 || n == 1) {
      for (int i = 0; i < N; ++i) out[i] = value(round, me, i);
      ARMCI_Put(out, bufs[next], sizeof(double) * N, next);
      got = armci_notify(next);
      CHECK(got == round + 1, "round %d: armci_notify returned %d", round, got);
    }
    /* the last process hands the turn back to 0, so that 0 does not overwrite a block not yet read */
    if (n > 1 && me == n - 1) {
      got = armci_notify(0);
      CHECK(got == round + 1, "round %d: armci_notify to 0 returned %d", round, got);
    }
    if (n > 1 && me == 0) {
      got = armci_notify_wait(n - 1, &waited);
      CHECK(waited == round + 1 && got >= waited, "round %d: turn wait returned %d (*pval %d)", round, got, waited);
    }
  }

  ARMCI_Barrier();
  ARMCI_Free(bufs[me]);
  free(out);
  free(bufs);
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  armci_msg_finalize();
  MPI_Finalized(&down);
  if (!down) {
    fprintf(stderr, "FAIL: armci_msg_finalize did not finalize MPI\n");
    return 1;
  }
  if (me == 0) printf("test_notify: %d rounds, %s\n", ROUNDS, total ? "FAILED" : "OK");
  return total ? 1 : 0;
}
