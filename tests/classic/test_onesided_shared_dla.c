/*
 * Re-creation of ARMCI-MPI tests/test_onesided_shared_dla.c: test_onesided.c with the origin buffer in the
 * upper half of the caller's own slice of the same region (direct local access between
 * ARMCI_Access_begin/end), so origin and target ranges lie in one allocation.
 */
#define SHARED_BUF 2
#include "test_onesided.c"
