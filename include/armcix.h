/*
 * armci-x extensions.  The ARMCIX_* declarations shared with ARMCI-MPI 0.3.1 keep its layout and names
 * (Copyright (C) 2010, Argonne National Laboratory); the ones marked "armci-x" are our own.
 */

#ifndef _ARMCIX_H_
#define _ARMCIX_H_

#include <armci.h>
#include <armciconf.h>

#ifdef __cplusplus
extern "C" {
#endif

#if   HAVE_STDINT_H
#  include <stdint.h>
#elif HAVE_INTTYPES_H
#  include <inttypes.h>
#endif

/** Processor group extensions.
  */

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/** Mutex handles: These improve on basic ARMCI mutexes by allowing you to
  * create multiple batches of mutexes.  This is needed to allow libraries access to
  * mutexes.
  */

struct armcix_mutex_hdl_s {
  int         my_count;
  int         max_count;
  ARMCI_Group grp;
  MPI_Win    *windows;
  uint8_t   **bases;
};

typedef struct armcix_mutex_hdl_s * armcix_mutex_hdl_t;

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
int  ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
/* proc: the host's absolute process id, whatever the group of the set (as in ARMCI-MPI). */
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
int  ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);

void ARMCIX_Progress(void);

/** armci-x: error handler.  ARMCI_Error calls the installed handler with the message and code before it
  * aborts the job; a handler that does not return (longjmp, C++ throw from C++ callers, exit) takes over
  * error handling.  Pass NULL to restore the default (print on stderr, then MPI_Abort).  Returns the
  * previous handler.
  */
typedef void (*ARMCIX_Error_handler_t)(const char *msg, int code);
ARMCIX_Error_handler_t ARMCIX_Set_error_handler(ARMCIX_Error_handler_t handler);

/** armci-x: library version string, e.g. "1.0.0". */
const char *ARMCIX_Version(void);

#ifdef __cplusplus
}
#endif

#endif /* _ARMCIX_H_ */
