// Atomic read-modify-write (ARMCI_Rmw) on MPI-3 atomics.
#pragma once

namespace armcix {

int rmw(const char* call, int op, void* ploc, void* prem, int value, int proc);

}  // namespace armcix
