// The model tester's reproducers: a finding written as a plain C program (emit.cc).
#pragma once

#include <string>

#include "program.h"

namespace model {

struct Finding {
  int phase = -1, rank = -1;
  int index = -1;    // the failing operation (in rank's thread 0 list), -1 for a slice check
  int done_by = -1;  // the operation whose completion call revealed it (-1: the phase's end)
  long offset = -1;  // get: byte in the result; slice: byte in the slice
  int slot = -1;     // slice check
  bool late = false; // the get's buffer changed after its completion call (checked at the phase's end)
  std::string expected, message;
};

// Writes the reproducer; false for threaded programs or when the file cannot be written.
bool emit_c(const Program& p, const Finding& f, const std::string& path);

}  // namespace model
