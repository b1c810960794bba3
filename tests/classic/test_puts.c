/* Re-creation of ARMCI-MPI tests/test_puts.c: test_puts_gets.c with strided puts only. */
#define PUTS_ONLY 1
#include "test_puts_gets.c"
