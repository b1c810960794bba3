// The regular shapes of the wrappers (wrap.h), one macro each: a line of calls.def names its shape and
// expands to the whole extern "C" definition of MPI function `name`.  `params` is the function's parameter
// list, `args` the arguments it passes on, both in parentheses; `twin` is the PMPI_ non-blocking form that
// takes `args` and a request.  The communicator parameter is named comm.  Expanded in sources that use the
// namespaces armcix and armcix::mpiwrap (the generated ones: gen-call.sh).
#pragma once

#include "mpiwrap/wrap.h"

// The elements of a parenthesised list: ARMCIX_ELEMENTS (a, b) is a, b.
#define ARMCIX_ELEMENTS(...) __VA_ARGS__

// Passed on with the communicators translated in `args` (world_or); not timed: they do not block.
#define ARMCIX_PASS(name, params, args) \
  extern "C" int name params {          \
    return ARMCIX_NEXT(name) args;      \
  }

// Blocking, without a non-blocking form or a barrier in front: timed and passed on.
#define ARMCIX_TIMED(name, params, args)                             \
  extern "C" int name params {                                       \
    ARMCIX_TIME_CALL(CallKind::Mpi, #name, 0);                       \
    return with_yield_timer([&] { return ARMCIX_NEXT(name) args; }); \
  }

// A blocking collective: its non-blocking twin completed with back-off when yield_collective(comm).
// `handoff`: HandOff::Allowed for MPI_Barrier only (wrap.h, poll_pause).
#define ARMCIX_COLLECTIVE_HANDOFF(name, twin, params, args, handoff)                              \
  extern "C" int name params {                                                                    \
    ARMCIX_TIME_CALL(CallKind::Mpi, #name, 0);                                                    \
    comm = world_or(comm);                                                                        \
    if (!yield_collective(comm)) return with_yield_timer([&] { return ARMCIX_NEXT(name) args; }); \
    MPI_Request req;                                                                              \
    return complete(twin(ARMCIX_ELEMENTS args, &req), &req, MPI_STATUS_IGNORE, handoff);          \
  }
#define ARMCIX_COLLECTIVE(name, twin, params, args) ARMCIX_COLLECTIVE_HANDOFF(name, twin, params, args, HandOff::Never)

// A blocking send: its non-blocking twin completed with back-off when yield_p2p().
#define ARMCIX_P2P(name, twin, params, args)                                           \
  extern "C" int name params {                                                         \
    ARMCIX_TIME_CALL(CallKind::Mpi, #name, 0);                                         \
    comm = world_or(comm);                                                             \
    if (!yield_p2p()) return with_yield_timer([&] { return ARMCIX_NEXT(name) args; }); \
    MPI_Request req;                                                                   \
    return complete(twin(ARMCIX_ELEMENTS args, &req), &req, MPI_STATUS_IGNORE);        \
  }

// A collective creation without a non-blocking form: the members arrive together first (arrive_together)
// when yield_collective(comm).
#define ARMCIX_ARRIVE(name, params, args)                               \
  extern "C" int name params {                                          \
    ARMCIX_TIME_CALL(CallKind::Mpi, #name, 0);                          \
    comm = world_or(comm);                                              \
    if (yield_collective(comm))                                         \
      if (int rc = arrive_together(comm); rc != MPI_SUCCESS) return rc; \
    return with_yield_timer([&] { return ARMCIX_NEXT(name) args; });    \
  }
