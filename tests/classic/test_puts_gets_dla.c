/* Re-creation of ARMCI-MPI tests/test_puts_gets_dla.c: test_puts_gets.c with the local buffers inside the
 * caller's own ARMCI slice (direct local access). */
#define PUTS_DLA 1
#include "test_puts_gets.c"
