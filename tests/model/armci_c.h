// armci.h and message.h for the model tester's C++: ARMCI-MPI's headers (the second oracle,
// run-against-armci-mpi.sh) have no extern "C" of their own; MPI's header comes first, outside the block.
#pragma once

#include <mpi.h>

extern "C" {
#include <armci.h>
#include <message.h>
}
