/* Re-creation of ARMCI-MPI tests/test_accs_dla.c: test_accs.c with the source block in the caller's own ARMCI
 * slice (direct local access). */
#define ACCS_DLA 1
#include "test_accs.c"
