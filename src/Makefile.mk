# The library.
lib_LTLIBRARIES += src/libarmci.la
include_HEADERS += include/armci.h include/armcix.h include/message.h include/mp3.h
nodist_include_HEADERS += include/armciconf.h
src_libarmci_la_LDFLAGS = -version-info 0:0:0 $(SAN_FLAGS)
# Folders lowest first (doc/design.md, "Layers"; tools/check-layering.sh).
src_libarmci_la_SOURCES = \
	src/base/config.cc src/base/config.h src/base/error.cc src/base/error.h \
	src/base/state.cc src/base/state.h src/base/machine_count.h src/base/thread_lock.h \
	src/base/window.cc src/base/window.h \
	src/topo/machine.cc src/topo/machine.h src/topo/nodes.cc src/topo/nodes.h \
	src/wait/backoff.h src/wait/call_stats.cc src/wait/call_stats.h src/wait/handoff.cc src/wait/handoff.h \
	src/wait/mpi_yield.cc src/wait/mpi_yield.h src/wait/node_sync.cc src/wait/node_sync.h \
	src/wait/wait.cc src/wait/wait.h src/wait/yield_timer.cc src/wait/yield_timer.h \
	src/checks/collective_check.cc src/checks/collective_check.h src/checks/watchdog.cc src/checks/watchdog.h \
	src/progress/progress_ranks.cc src/progress/progress_ranks.h src/progress/progress_roles.cc \
	src/progress/progress_roles.h src/progress/protocol.h src/progress/thread.cc src/progress/thread.h \
	src/runtime/runtime.cc src/runtime/runtime.h src/runtime/modules.cc src/runtime/modules.h \
	src/runtime/mpi_hooks.cc src/runtime/mpi_hooks.h \
	src/api/armci_api.cc \
	src/mpiwrap/mpi_world.cc \
	src/groups/group.cc src/groups/group.h \
	src/gmr/gmr.cc src/gmr/gmr.h src/gmr/pending.h src/gmr/shm_cache.cc src/gmr/shm_cache.h \
	src/acc/acc_types.cc src/acc/acc_types.h \
	src/gmr/ordering.cc src/gmr/ordering.h \
	src/transfer/staging.cc src/transfer/staging.h \
	src/transfer/contig.cc src/transfer/rma.h \
	src/transfer/strided.cc src/transfer/strided_shape.h \
	src/transfer/engine_choice.cc src/transfer/engine_choice.h \
	src/transfer/iov.cc \
	src/transfer/datatypes.cc src/transfer/datatypes.h \
	src/transfer/conflict_tree.cc src/transfer/conflict_tree.h \
	src/nb/request.cc src/nb/request.h \
	src/sync/rmw.cc src/sync/rmw.h src/sync/fence.cc src/sync/fence.h \
	src/shm/node_path.cc src/shm/node_path.h \
	src/profile/profiler.cc src/profile/profiler.h \
	src/sync/mutex.cc src/sync/mutex.h \
	src/sync/mutex_impl.h src/sync/mutex_mcs.cc src/sync/mutex_queue.cc src/sync/mutex_shm.cc \
	src/sync/notify.cc
src_libarmci_la_SOURCES += src/msg/message.cc src/msg/reduce_ops.h
