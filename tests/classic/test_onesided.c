/*
 * Re-creation of ARMCI-MPI tests/test_onesided.c: per iteration, ARMCI_Malloc a region, initialise the
 * local slice between ARMCI_Access_begin/end, put to the right neighbour, check, get from it, check,
 * accumulate from every process into every process (ARMCI_ACC_INT with scale), check, ARMCI_Free.
 * The origin buffer is private (malloc) memory; test_onesided_shared.c and test_onesided_shared_dla.c include
 * this file with SHARED_BUF = 1 (origin buffer in a second ARMCI_Malloc region) or 2 (origin buffer in the
 * upper half of the same region's local slice), accessed between ARMCI_Access_begin/end.
 */
#ifndef SHARED_BUF
#define SHARED_BUF 0
#endif
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <armci.h>

#define DATA_NELTS 1000
#define NUM_ITERATIONS 10
#define DATA_SZ (DATA_NELTS * sizeof(int))

static int errors = 0;
#define CHECK(cond, ...)                                                                                     \
  do {                                                                                                       \
    if (!(cond)) {                                                                                           \
      if (errors++ < 10) {                                                                                   \
        printf("[%d] FAIL line %d: ", rank, __LINE__);                                                       \
        printf(__VA_ARGS__);                                                                                 \
        printf("\n");                                                                                        \
        fflush(stdout);                                                                                      \
      }                                                                                                      \
    }                                                                                                        \
  } while (0)

int main(int argc, char **argv)
{
  int rank, nproc, i, test_iter, p, scale = 2, total;
  int *my_data, *buf;
  void **base_ptrs;

  MPI_Init(&argc, &argv);
  ARMCI_Init();

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);

  if (rank == 0) printf("Starting ARMCI test with %d processes\n", nproc);

  base_ptrs = malloc(sizeof(void *) * nproc);
#if SHARED_BUF == 0
  buf = malloc(DATA_SZ);
#define BUF_BEGIN()
#define BUF_END()
#else
  void **buf_ptrs = malloc(sizeof(void *) * nproc);
  (void)buf_ptrs;
#define BUF_BEGIN() ARMCI_Access_begin(SHARED_BUF == 1 ? (void *)buf : (void *)my_data)
#define BUF_END() ARMCI_Access_end(SHARED_BUF == 1 ? (void *)buf : (void *)my_data)
#endif

  for (test_iter = 0; test_iter < NUM_ITERATIONS; test_iter++) {
    int right = (rank + 1) % nproc, left = (rank + nproc - 1) % nproc;
    if (rank == 0) printf("Iteration %d\n", test_iter);

#if SHARED_BUF == 2
    ARMCI_Malloc(base_ptrs, 2 * DATA_SZ);
    my_data = base_ptrs[rank];
    buf = my_data + DATA_NELTS;
#else
    ARMCI_Malloc(base_ptrs, DATA_SZ);
    my_data = base_ptrs[rank];
#endif
#if SHARED_BUF == 1
    ARMCI_Malloc(buf_ptrs, DATA_SZ);
    buf = buf_ptrs[rank];
#endif

    ARMCI_Access_begin(my_data);
    for (i = 0; i < DATA_NELTS; i++) my_data[i] = -1;
    ARMCI_Access_end(my_data);
    ARMCI_Barrier();

    /* Put */
    BUF_BEGIN();
    for (i = 0; i < DATA_NELTS; i++) buf[i] = rank * 1000 + test_iter;
    BUF_END();
    ARMCI_Put(buf, base_ptrs[right], DATA_SZ, right);
    ARMCI_Barrier();

    ARMCI_Access_begin(my_data);
    for (i = 0; i < DATA_NELTS; i++)
      CHECK(my_data[i] == left * 1000 + test_iter, "put: my_data[%d] = %d, expected %d", i, my_data[i],
            left * 1000 + test_iter);
    ARMCI_Access_end(my_data);
    ARMCI_Barrier();

    /* Get */
    ARMCI_Get(base_ptrs[right], buf, DATA_SZ, right);
    BUF_BEGIN();
    for (i = 0; i < DATA_NELTS; i++)
      CHECK(buf[i] == rank * 1000 + test_iter, "get: buf[%d] = %d, expected %d", i, buf[i], rank * 1000 + test_iter);
    BUF_END();
    ARMCI_Barrier();

    /* Accumulate from everyone to everyone */
    ARMCI_Access_begin(my_data);
    for (i = 0; i < DATA_NELTS; i++) my_data[i] = 0;
    ARMCI_Access_end(my_data);
    ARMCI_Barrier();
    BUF_BEGIN();
    for (i = 0; i < DATA_NELTS; i++) buf[i] = rank + i;
    BUF_END();
    for (p = 0; p < nproc; p++) {
      int target = (rank + p) % nproc;
      ARMCI_Acc(ARMCI_ACC_INT, &scale, buf, base_ptrs[target], DATA_SZ, target);
    }
    ARMCI_Barrier();
    total = 0;
    for (p = 0; p < nproc; p++) total += p;
    ARMCI_Access_begin(my_data);
    for (i = 0; i < DATA_NELTS; i++)
      CHECK(my_data[i] == scale * (total + nproc * i), "acc: my_data[%d] = %d, expected %d", i, my_data[i],
            scale * (total + nproc * i));
    ARMCI_Access_end(my_data);

#if SHARED_BUF == 1
    ARMCI_Free(buf);
#endif
    ARMCI_Free(my_data);
  }

#if SHARED_BUF == 0
  free(buf);
#else
  free(buf_ptrs);
#endif
  free(base_ptrs);

  MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ARMCI_Finalize();
  if (rank == 0) printf(errors ? "%d errors: FAILED\n" : "All tests passed\n", errors);
  MPI_Finalize();
  return errors != 0;
}
