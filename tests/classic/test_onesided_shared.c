/*
 * Re-creation of ARMCI-MPI tests/test_onesided_shared.c: test_onesided.c with the origin buffer in a second
 * ARMCI_Malloc region (shared -> shared transfers), allocated and freed every iteration.
 */
#define SHARED_BUF 1
#include "test_onesided.c"
