// Runs a model program on ARMCI and checks every value read against the model (program.h).
#pragma once

#include <atomic>
#include <string>

#include "program.h"

namespace model {

struct Outcome {
  bool failed = false;     // on any rank (agreed by all)
  int phase = -1;          // first failing phase (agreed)
  std::string message;     // this rank's first finding ("" if none)
  long ops_checked = 0;    // this rank's checked values (gets, fetches, slice comparisons)
  long ops_run = 0;        // this rank's operations issued
  // The failing operation on this rank (for the reproducer): phase, thread, index; -1 if a slice check failed
  int fail_thread = -1, fail_index = -1;
  int fail_done_by = -1;  // the operation whose completion revealed it (-1: the phase's end)
  long fail_offset = -1;   // offset of the first wrong byte (in the get's chunks or the slice)
  int fail_slot = -1;      // slice check: the slot
  std::string fail_expected, fail_seen;  // hex of the wrong element
  bool late = false;                     // a get's buffer changed after its completion call
};

extern volatile int crash_phase;   // the phase running (for a crash report)
extern std::atomic<long> heartbeat;  // counts phases started (main.cc's hang watchdog)

// Runs p (ops with keep == false are skipped; phases after last_phase are not run), collectively.
Outcome run_program(const Program& p, int last_phase);

// ARMCIX_MODEL_INJECT=N: the Nth (from 0) checked get of rank 0 is corrupted before its check (the tester's self-test).
}  // namespace model
