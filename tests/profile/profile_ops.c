/*
 * A fixed set of profiled ARMCI calls for tests/profile/run_profile.sh, which runs it on 2 ranks with
 * ARMCI_PROFILE=1 and checks the profile file record by record.  Per rank r:
 *   Malloc 1 x 8192 B, Barrier 2, Put 7 x 100 B, Fence 1, Get 3 x 4096 B,
 *   AccS 2 x (count {128 B, 8} = 1024 B), Rmw 5 (ARMCI_FETCH_AND_ADD: 4 B), PutValue r+1 x 4 B,
 *   PutV 1 (one descriptor, 2 x 16 B), Free 1.
 * Nothing else that the profiler counts (the checks below read memory with Access_begin/end, which is
 * not profiled).  Keep run_profile.sh in step with this list.
 */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kSlice = 8192, kAccOff = 4096, kVecOff = 6000, kRmwOff = 8000, kValOff = 8100 };

int main(int argc, char** argv) {
  int me, nproc, right, left, i, j, failed = 0, any_failed = 0;
  void** ptrs;
  char *mine, buf[4096];
  double src[8][16], scale = 1.0;
  int sstride[1] = {16 * sizeof(double)}, dstride[1] = {16 * sizeof(double)}, count[2] = {16 * sizeof(double), 8};

  MPI_Init(&argc, &argv);
  ARMCI_Init();
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  right = (me + 1) % nproc;
  left = (me + nproc - 1) % nproc;
  ptrs = malloc(nproc * sizeof(void*));
  ARMCI_Malloc(ptrs, kSlice);
  mine = ptrs[me];
  ARMCI_Access_begin(mine);
  for (i = 0; i < kSlice; ++i) mine[i] = 0;
  ARMCI_Access_end(mine);
  for (i = 0; i < 4096; ++i) buf[i] = (char)(me + i);
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 16; ++j) src[i][j] = me * 1000 + i * 16 + j;
  ARMCI_Barrier();

  for (i = 0; i < 7; ++i) ARMCI_Put(buf, (char*)ptrs[right] + i * 100, 100, right);
  ARMCI_Fence(right);
  for (i = 0; i < 3; ++i) ARMCI_Get(ptrs[right], buf, 4096, right);
  for (i = 0; i < 2; ++i)
    ARMCI_AccS(ARMCI_ACC_DBL, &scale, src, sstride, (char*)ptrs[right] + kAccOff, dstride, count, 1, right);
  for (i = 0; i < 5; ++i) {
    int old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, (char*)ptrs[right] + kRmwOff, 1, right);
    if (old != i) ++failed, fprintf(stderr, "[%d] Rmw fetched %d, expected %d\n", me, old, i);
  }
  for (i = 0; i <= me; ++i) ARMCI_PutValueInt(100 + i, (char*)ptrs[right] + kValOff, right);
  {
    void* vsrc[2] = {buf, buf + 16};
    void* vdst[2] = {(char*)ptrs[right] + kVecOff, (char*)ptrs[right] + kVecOff + 100};
    armci_giov_t v = {vsrc, vdst, 16, 2}; /* 2 segments of 16 bytes */
    ARMCI_PutV(&v, 1, right);
  }
  ARMCI_Barrier();

  /* The operations did what they say (so that the profile describes real work). */
  ARMCI_Access_begin(mine);
  for (i = 0; i < 700; ++i)
    if (mine[i] != (char)(left + i % 100)) ++failed;
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 16; ++j)
      if (((double*)(mine + kAccOff))[i * 16 + j] != 2.0 * (left * 1000 + i * 16 + j)) ++failed;
  for (i = 0; i < 16; ++i)
    if (mine[kVecOff + i] != (char)(left + i) || mine[kVecOff + 100 + i] != (char)(left + 16 + i)) ++failed;
  if (*(int*)(mine + kRmwOff) != 5) ++failed;
  if (*(int*)(mine + kValOff) != 100 + left) ++failed;
  ARMCI_Access_end(mine);
  if (failed) fprintf(stderr, "[%d] %d wrong results\n", me, failed);

  ARMCI_Free(mine);
  free(ptrs);
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ARMCI_Finalize();
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
