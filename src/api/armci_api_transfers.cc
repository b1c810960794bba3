// The ARMCI C API's transfers: contiguous, strided, I/O vector and value operations, as PARMCI_x with
// ARMCI_x a weak alias of each (armci_api.cc holds the other entry points and says why).
#include <armci.h>

#include <cstring>

#include "api/api_internal.h"
#include "base/error.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "nb/request.h"
#include "profile/profiler.h"
#include "transfer/rma.h"

using namespace armcix;

namespace {

Request* nb_request(const char* call, armci_hdl_t* hdl, int proc) {
  require_initialized(call);
  check_rank(call, "proc", proc);
  return request_for_handle(call, hdl, proc);
}

}  // namespace

extern "C" {

/* ---- Contiguous transfers ---------------------------------------------------------------------------- */

void ARMCI_Copy(void* src, void* dst, int size) {
  ARMCIX_REQUIRE(size >= 0, "ARMCI_Copy", "argument 'size' = %d is negative", size);
  if (size == 0) return;
  ARMCIX_REQUIRE(src != nullptr, "ARMCI_Copy", "argument 'src' is NULL");
  ARMCIX_REQUIRE(dst != nullptr, "ARMCI_Copy", "argument 'dst' is NULL");
  std::memmove(dst, src, static_cast<std::size_t>(size));
}

int PARMCI_Put(void* src, void* dst, int size, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Put, size > 0 ? size : 0);
  put("ARMCI_Put", src, dst, size, proc, nullptr);
  return 0;
}
int PARMCI_Get(void* src, void* dst, int size, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Get, size > 0 ? size : 0);
  get("ARMCI_Get", src, dst, size, proc, nullptr);
  return 0;
}
int PARMCI_Acc(int datatype, void* scale, void* src, void* dst, int bytes, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Acc, bytes > 0 ? bytes : 0);
  acc("ARMCI_Acc", datatype, scale, src, dst, bytes, proc, nullptr);
  return 0;
}
int PARMCI_NbPut(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbPut, bytes > 0 ? bytes : 0);
  Request* r = nb_request("ARMCI_NbPut", hdl, proc);
  put("ARMCI_NbPut", src, dst, bytes, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbGet(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbGet, bytes > 0 ? bytes : 0);
  Request* r = nb_request("ARMCI_NbGet", hdl, proc);
  get("ARMCI_NbGet", src, dst, bytes, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbAcc(int datatype, void* scale, void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbAcc, bytes > 0 ? bytes : 0);
  Request* r = nb_request("ARMCI_NbAcc", hdl, proc);
  acc("ARMCI_NbAcc", datatype, scale, src, dst, bytes, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_Put_flag(void* src, void* dst, int size, int* flag, int value, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::Put, size > 0 ? size : 0);
  check_remote("ARMCI_Put_flag", "flag", flag, sizeof(int), proc);
  put("ARMCI_Put_flag", src, dst, size, proc, nullptr);
  put_flag("ARMCI_Put_flag", flag, value, proc);
  return 0;
}
int ARMCI_Put(void* src, void* dst, int size, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Put);
int ARMCI_Get(void* src, void* dst, int size, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Get);
int ARMCI_Acc(int datatype, void* scale, void* src, void* dst, int bytes, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Acc);
int ARMCI_NbPut(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) ARMCIX_WEAK_ALIAS(ARMCI_NbPut);
int ARMCI_NbGet(void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl) ARMCIX_WEAK_ALIAS(ARMCI_NbGet);
int ARMCI_NbAcc(int datatype, void* scale, void* src, void* dst, int bytes, int proc, armci_hdl_t* hdl)
    ARMCIX_WEAK_ALIAS(ARMCI_NbAcc);
int ARMCI_Put_flag(void* src, void* dst, int size, int* flag, int value, int proc) ARMCIX_WEAK_ALIAS(ARMCI_Put_flag);

/* ---- Strided transfers ----------------------------------------------------------------------------- */

int PARMCI_PutS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::PutS, strided_bytes(count, levels));
  strided("ARMCI_PutS", XferOp::Put, nullptr, src, src_stride, dst, dst_stride, count, levels, proc, nullptr);
  return 0;
}
int PARMCI_GetS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::GetS, strided_bytes(count, levels));
  strided("ARMCI_GetS", XferOp::Get, nullptr, src, src_stride, dst, dst_stride, count, levels, proc, nullptr);
  return 0;
}
int PARMCI_AccS(int datatype, void* scale, void* src, int src_stride[], void* dst, int dst_stride[], int count[],
                int levels, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::AccS, strided_bytes(count, levels));
  AccArgs a{datatype, scale};
  strided("ARMCI_AccS", XferOp::Acc, &a, src, src_stride, dst, dst_stride, count, levels, proc, nullptr);
  return 0;
}
int PARMCI_PutS_flag(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int* flag,
                     int value, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::PutS, strided_bytes(count, levels));
  check_remote("ARMCI_PutS_flag", "flag", flag, sizeof(int), proc);
  strided("ARMCI_PutS_flag", XferOp::Put, nullptr, src, src_stride, dst, dst_stride, count, levels, proc, nullptr);
  put_flag("ARMCI_PutS_flag", flag, value, proc);
  return 0;
}
int PARMCI_NbPutS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc,
                  armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbPutS, strided_bytes(count, levels));
  Request* r = nb_request("ARMCI_NbPutS", hdl, proc);
  strided("ARMCI_NbPutS", XferOp::Put, nullptr, src, src_stride, dst, dst_stride, count, levels, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbGetS(void* src, int src_stride[], void* dst, int dst_stride[], int count[], int levels, int proc,
                  armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbGetS, strided_bytes(count, levels));
  Request* r = nb_request("ARMCI_NbGetS", hdl, proc);
  strided("ARMCI_NbGetS", XferOp::Get, nullptr, src, src_stride, dst, dst_stride, count, levels, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbAccS(int datatype, void* scale, void* src, int src_stride[], void* dst, int dst_stride[], int count[],
                  int levels, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbAccS, strided_bytes(count, levels));
  Request* r = nb_request("ARMCI_NbAccS", hdl, proc);
  AccArgs a{datatype, scale};
  strided("ARMCI_NbAccS", XferOp::Acc, &a, src, src_stride, dst, dst_stride, count, levels, proc, r);
  request_issued(r, proc);
  return 0;
}
int ARMCI_PutS(void* s, int ss[], void* d, int ds[], int c[], int l, int p) ARMCIX_WEAK_ALIAS(ARMCI_PutS);
int ARMCI_GetS(void* s, int ss[], void* d, int ds[], int c[], int l, int p) ARMCIX_WEAK_ALIAS(ARMCI_GetS);
int ARMCI_AccS(int t, void* sc, void* s, int ss[], void* d, int ds[], int c[], int l, int p)
    ARMCIX_WEAK_ALIAS(ARMCI_AccS);
int ARMCI_PutS_flag(void* s, int ss[], void* d, int ds[], int c[], int l, int* f, int v, int p)
    ARMCIX_WEAK_ALIAS(ARMCI_PutS_flag);
int ARMCI_NbPutS(void* s, int ss[], void* d, int ds[], int c[], int l, int p, armci_hdl_t* h)
    ARMCIX_WEAK_ALIAS(ARMCI_NbPutS);
int ARMCI_NbGetS(void* s, int ss[], void* d, int ds[], int c[], int l, int p, armci_hdl_t* h)
    ARMCIX_WEAK_ALIAS(ARMCI_NbGetS);
int ARMCI_NbAccS(int t, void* sc, void* s, int ss[], void* d, int ds[], int c[], int l, int p, armci_hdl_t* h)
    ARMCIX_WEAK_ALIAS(ARMCI_NbAccS);

// As in ARMCI and ARMCI-MPI: "write" packs the strided region at ptr into buf, "read" unpacks buf into
// it (GA's ghost-cell exchange packs with write, sends buf with armci_msg_snd and unpacks with read).
void armci_write_strided(void* ptr, int levels, int stride[], int count[], char* buf) {
  local_strided_copy("armci_write_strided", ptr, levels, stride, count, buf, true);
}
void armci_read_strided(void* ptr, int levels, int stride[], int count[], char* buf) {
  local_strided_copy("armci_read_strided", ptr, levels, stride, count, buf, false);
}

/* ---- I/O vector transfers -------------------------------------------------------------------------- */

int PARMCI_PutV(armci_giov_t* iov, int len, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::PutV, iov_bytes(iov, len));
  armcix::iov("ARMCI_PutV", XferOp::Put, nullptr, iov, len, proc, nullptr);
  return 0;
}
int PARMCI_GetV(armci_giov_t* iov, int len, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::GetV, iov_bytes(iov, len));
  armcix::iov("ARMCI_GetV", XferOp::Get, nullptr, iov, len, proc, nullptr);
  return 0;
}
int PARMCI_AccV(int datatype, void* scale, armci_giov_t* iov, int len, int proc) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::AccV, iov_bytes(iov, len));
  AccArgs a{datatype, scale};
  armcix::iov("ARMCI_AccV", XferOp::Acc, &a, iov, len, proc, nullptr);
  return 0;
}
int PARMCI_NbPutV(armci_giov_t* iov, int len, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbPutV, iov_bytes(iov, len));
  Request* r = nb_request("ARMCI_NbPutV", hdl, proc);
  armcix::iov("ARMCI_NbPutV", XferOp::Put, nullptr, iov, len, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbGetV(armci_giov_t* iov, int len, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbGetV, iov_bytes(iov, len));
  Request* r = nb_request("ARMCI_NbGetV", hdl, proc);
  armcix::iov("ARMCI_NbGetV", XferOp::Get, nullptr, iov, len, proc, r);
  request_issued(r, proc);
  return 0;
}
int PARMCI_NbAccV(int datatype, void* scale, armci_giov_t* iov, int len, int proc, armci_hdl_t* hdl) {
  ARMCIX_API_GUARD;
  ProfScope prof(ProfKind::NbAccV, iov_bytes(iov, len));
  Request* r = nb_request("ARMCI_NbAccV", hdl, proc);
  AccArgs a{datatype, scale};
  armcix::iov("ARMCI_NbAccV", XferOp::Acc, &a, iov, len, proc, r);
  request_issued(r, proc);
  return 0;
}
int ARMCI_PutV(armci_giov_t* iov, int len, int proc) ARMCIX_WEAK_ALIAS(ARMCI_PutV);
int ARMCI_GetV(armci_giov_t* iov, int len, int proc) ARMCIX_WEAK_ALIAS(ARMCI_GetV);
int ARMCI_AccV(int t, void* s, armci_giov_t* iov, int len, int proc) ARMCIX_WEAK_ALIAS(ARMCI_AccV);
int ARMCI_NbPutV(armci_giov_t* iov, int len, int proc, armci_hdl_t* h) ARMCIX_WEAK_ALIAS(ARMCI_NbPutV);
int ARMCI_NbGetV(armci_giov_t* iov, int len, int proc, armci_hdl_t* h) ARMCIX_WEAK_ALIAS(ARMCI_NbGetV);
int ARMCI_NbAccV(int t, void* s, armci_giov_t* iov, int len, int proc, armci_hdl_t* h) ARMCIX_WEAK_ALIAS(ARMCI_NbAccV);

/* ---- Value operations ------------------------------------------------------------------------------ */

#define ARMCIX_VALUE_OPS(Suffix, T)                                                                 \
  int PARMCI_PutValue##Suffix(T src, void* dst, int proc) {                                         \
    ARMCIX_API_GUARD;                                                                               \
    ProfScope prof(ProfKind::PutValue, sizeof(T));                                                  \
    put("ARMCI_PutValue" #Suffix, &src, dst, sizeof(T), proc, nullptr);                             \
    return 0;                                                                                       \
  }                                                                                                 \
  int PARMCI_NbPutValue##Suffix(T src, void* dst, int proc, armci_hdl_t* hdl) {                     \
    ARMCIX_API_GUARD;                                                                               \
    /* the value lives on our stack: complete it locally now, count it in the handle */             \
    Request* r = nb_request("ARMCI_NbPutValue" #Suffix, hdl, proc);                                 \
    put("ARMCI_NbPutValue" #Suffix, &src, dst, sizeof(T), proc, nullptr);                           \
    request_issued(r, proc);                                                                        \
    return 0;                                                                                       \
  }                                                                                                 \
  T PARMCI_GetValue##Suffix(void* src, int proc) {                                                  \
    ARMCIX_API_GUARD;                                                                               \
    ProfScope prof(ProfKind::GetValue, sizeof(T));                                                  \
    T v{};                                                                                          \
    get("ARMCI_GetValue" #Suffix, src, &v, sizeof(T), proc, nullptr);                               \
    return v;                                                                                       \
  }                                                                                                 \
  int ARMCI_PutValue##Suffix(T src, void* dst, int proc) ARMCIX_WEAK_ALIAS(ARMCI_PutValue##Suffix); \
  int ARMCI_NbPutValue##Suffix(T src, void* dst, int proc, armci_hdl_t* hdl)                        \
      ARMCIX_WEAK_ALIAS(ARMCI_NbPutValue##Suffix);                                                  \
  T ARMCI_GetValue##Suffix(void* src, int proc) ARMCIX_WEAK_ALIAS(ARMCI_GetValue##Suffix);

ARMCIX_VALUE_OPS(Int, int)
ARMCIX_VALUE_OPS(Long, long)
ARMCIX_VALUE_OPS(Float, float)
ARMCIX_VALUE_OPS(Double, double)

}  // extern "C"
