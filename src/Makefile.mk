# The library.
lib_LTLIBRARIES += src/libarmci.la
include_HEADERS += include/armci.h include/armcix.h include/message.h include/mp3.h
nodist_include_HEADERS += include/armciconf.h
src_libarmci_la_LDFLAGS = -version-info 0:0:0 $(SAN_FLAGS)
src_libarmci_la_SOURCES = \
	src/api/armci_api.cc \
	src/runtime/runtime.cc src/runtime/runtime.h \
	src/runtime/modules.cc src/runtime/modules.h \
	src/runtime/config.cc src/runtime/config.h \
	src/runtime/error.cc src/runtime/error.h \
	src/runtime/progress.cc src/runtime/progress.h src/runtime/thread_lock.h \
	src/runtime/progress_ranks.cc src/runtime/progress_ranks.h src/runtime/progress_roles.cc src/runtime/progress_roles.h src/runtime/mpi_world.cc src/runtime/mpi_yield.h src/runtime/yield_timer.cc src/runtime/yield_timer.h \
	src/runtime/watchdog.cc src/runtime/watchdog.h src/runtime/call_stats.cc src/runtime/call_stats.h \
	src/runtime/node_sync.cc src/runtime/node_sync.h \
	src/runtime/window.cc src/runtime/window.h \
	src/runtime/machine.cc src/runtime/machine.h \
	src/runtime/collective_check.cc src/runtime/collective_check.h \
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
