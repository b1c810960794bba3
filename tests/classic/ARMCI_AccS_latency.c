/* Re-creation of ARMCI-MPI tests/ARMCI_AccS_latency.c: ARMCI_PutS_latency.c with ARMCI_AccS. */
#define DO_ACCS 1
#include "ARMCI_PutS_latency.c"
