// Operation parsing and typed kernels of the ARMCI message-passing collectives (armci_msg_*gop,
// armci_msg_reduce*, armci_msg_sel*).  Free of MPI so that the unit tests exercise them without a job;
// scopes.cc maps the parsed operation onto MPI's predefined reductions.
//
// absmax/absmin need no user-defined MPI_Op: ARMCI defines them as "take |x| first, then max/min", and on
// non-negative values MPI_MAX/MPI_MIN give exactly that while keeping MPI's optimised predefined paths.
// The one user-defined operation is the record selection of armci_msg_sel (sel_combine below).
#pragma once

#include <message.h>  // enum armci_type_e: the numbers of the list below

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace armcix {
namespace msg {

enum class Op { kSum, kProd, kMax, kMin, kAbsMax, kAbsMin, kBitOr, kBitAnd, kLogOr, kLogAnd };

// The element types of the collectives, one list: X(ENUM, C type, MPI datatype, integer?), in
// the order of enum armci_type_e (include/message.h, ARMCI-MPI's ABI: ARMCI_INT..ARMCI_DOUBLE = 0..4).
// valid_type, is_integer_type, type_name, type_size, with_type and scopes.cc's mpi_type all expand
// it.  It is not made of rows of acc/acc_types.h's ARMCIX_ACC_TYPES, although int, long, float and double
// are in both: the numbers differ (ARMCI_FLOAT is 3, ARMCI_ACC_FLT 2), so no row could be shared by value;
// the sets differ (long long here; no complex, for which max, min, absmax and the bit operations mean
// nothing); and the columns differ (integer-ness here, scaling there).  The MPI column is expanded only in
// scopes.cc: this header stays free of MPI calls for the unit tests.
#define ARMCIX_MSG_TYPES(X)                          \
  X(ARMCI_INT, int, MPI_INT, true)                   \
  X(ARMCI_LONG, long, MPI_LONG, true)                \
  X(ARMCI_LONG_LONG, long long, MPI_LONG_LONG, true) \
  X(ARMCI_FLOAT, float, MPI_FLOAT, false)            \
  X(ARMCI_DOUBLE, double, MPI_DOUBLE, false)

static_assert(ARMCI_INT == 0 && ARMCI_LONG == 1 && ARMCI_LONG_LONG == 2 && ARMCI_FLOAT == 3 && ARMCI_DOUBLE == 4,
              "enum armci_type_e differs from ARMCI-MPI's ABI");

// The list in value order without gaps, so that "0..kElemTypeCount-1" in check_type's message is the truth.
#define ARMCIX_MSG_VALUE(e, T, M, integer) e,
inline constexpr int kElemTypeValues[] = {ARMCIX_MSG_TYPES(ARMCIX_MSG_VALUE)};
#undef ARMCIX_MSG_VALUE
constexpr bool elem_types_in_value_order() {
  for (std::size_t i = 0; i < sizeof kElemTypeValues / sizeof kElemTypeValues[0]; ++i)
    if (kElemTypeValues[i] != static_cast<int>(i)) return false;
  return true;
}
static_assert(elem_types_in_value_order(), "ARMCIX_MSG_TYPES must list ARMCI_INT (0) upwards without gaps");

#define ARMCIX_MSG_COUNT(e, T, M, integer) +1
inline constexpr int kElemTypeCount = 0 ARMCIX_MSG_TYPES(ARMCIX_MSG_COUNT);
#undef ARMCIX_MSG_COUNT

// The names, for check_type's message: " ARMCI_INT ARMCI_LONG ...".
#define ARMCIX_MSG_NAME(e, T, M, integer) " " #e
inline constexpr const char kElemTypeNames[] = ARMCIX_MSG_TYPES(ARMCIX_MSG_NAME);
#undef ARMCIX_MSG_NAME

struct OpSpelling {
  const char* text;
  Op op;
};

// Accepted spellings (parse_op: as prefixes).  "+ * max min absmax absmin or" are ARMCI's; "&&" and "||" are
// ARMCI-MPI's logical operations (Debian's Global Arrays passes "&&" through pnga_gop, e.g. in matrix.c);
// "and" is the bitwise counterpart of ARMCI's bitwise "or"; band/bor/land/lor are the names GA's TCGMSG
// layer uses.
inline constexpr OpSpelling kOpSpellings[] = {
    {"+", Op::kSum},         {"*", Op::kProd},    {"max", Op::kMax},    {"min", Op::kMin},     {"absmax", Op::kAbsMax},
    {"absmin", Op::kAbsMin}, {"or", Op::kBitOr},  {"and", Op::kBitAnd}, {"bor", Op::kBitOr},   {"band", Op::kBitAnd},
    {"||", Op::kLogOr},      {"&&", Op::kLogAnd}, {"lor", Op::kLogOr},  {"land", Op::kLogAnd},
};

// Parses an ARMCI operation string: the longest spelling the text starts with, as ARMCI-MPI and classic
// ARMCI match.  Prefixes, not whole strings, because Global Arrays' Fortran wrappers (ga_igop_, ga_dgop_,
// ... in GA's fapi.c) pass the Fortran CHARACTER argument unchanged, without a terminating NUL: GA's own
// test.x, built from source on Open MPI, handed us "+'" and died in its ga_igop check when this parser
// matched whole strings.  Returns false for NULL or a text that starts with no spelling.
inline bool parse_op(const char* text, Op* out) {
  if (text == nullptr) return false;
  const OpSpelling* best = nullptr;
  std::size_t best_len = 0;
  for (const OpSpelling& s : kOpSpellings) {
    const std::size_t len = std::strlen(s.text);
    if (len > best_len && std::strncmp(text, s.text, len) == 0) {
      best = &s;
      best_len = len;
    }
  }
  if (!best) return false;
  *out = best->op;
  return true;
}

// Bitwise and logical operations are defined for integers only (MPI has no MPI_BOR/MPI_LAND for floats).
inline bool integer_only(Op op) {
  return op == Op::kBitOr || op == Op::kBitAnd || op == Op::kLogOr || op == Op::kLogAnd;
}

inline bool takes_abs(Op op) {
  return op == Op::kAbsMax || op == Op::kAbsMin;
}

// The reduction applied after the |x| pre-pass (absmax -> max, absmin -> min; others unchanged).
inline Op reduction_of(Op op) {
  if (op == Op::kAbsMax) return Op::kMax;
  if (op == Op::kAbsMin) return Op::kMin;
  return op;
}

inline bool valid_type(int type) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) case e:
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    return true;
    default:
      return false;
  }
}

inline bool is_integer_type(int type) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) \
  case e:                                 \
    return integer;
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    default:
      return false;
  }
}

inline const char* type_name(int type) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) \
  case e:                                 \
    return #e;
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    default:
      return "unknown type";
  }
}

inline std::size_t type_size(int type) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) \
  case e:                                 \
    return sizeof(T);
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    default:
      return 0;
  }
}

// Calls f(T{}) with T the C type of `type` (which must be valid_type(): callers check it first, with the
// call's name for the error, so an invalid type does nothing here).
template <typename F>
inline void with_type(int type, F&& f) {
  switch (type) {
#define ARMCIX_MSG_CASE(e, T, M, integer) \
  case e:                                 \
    f(static_cast<T>(0));                 \
    break;
    ARMCIX_MSG_TYPES(ARMCIX_MSG_CASE)
#undef ARMCIX_MSG_CASE
    default:
      break;
  }
}

// |v| without undefined behaviour: for signed integers the negation is done in the unsigned type, so
// |INT_MIN| wraps to INT_MIN (what ARMCI's abs() did in practice) instead of being UB.
template <typename T>
inline T abs_value(T v) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return v < 0 ? static_cast<T>(U{0} - static_cast<U>(v)) : v;
  } else {
    return v < 0 ? -v : v;  // also maps -0.0 to -0.0, which compares equal to 0.0
  }
}

// out[i] = |in[i]|; in and out may be the same array.
template <typename T>
inline void abs_copy(const T* in, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = abs_value(in[i]);
}

// Untyped form for operations.cc: `type` must be valid_type().
inline void abs_copy_typed(int type, const void* in, void* out, std::size_t n) {
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    abs_copy(static_cast<const T*>(in), static_cast<T*>(out), n);
  });
}

// --- armci_msg_sel -----------------------------------------------------------------------------------------
//
// Each rank contributes a record: this header, then the caller's n-byte payload whose first element (of
// the selection type) is the key.  The reduction keeps the winning record; ties go to the lower rank so the
// operation is commutative and every rank gets the same record.  Non-contributors lose to any contributor.
// The payload size travels in the header so the combine function needs no MPI query.
struct SelHeader {
  std::int32_t contribute;  // 0 or 1
  std::int32_t type;        // enum armci_type_e of the key
  std::int32_t rank;        // contributor's rank in the scope's communicator (tie break)
  std::int32_t want_max;    // 1 for "max", 0 for "min"
  std::int64_t payload_bytes;
};
static_assert(sizeof(SelHeader) == 24, "SelHeader is part of the wire record");

template <typename T>
inline T load_key(const unsigned char* payload) {
  T v;
  std::memcpy(&v, payload, sizeof v);  // records need not be aligned inside MPI's temporary buffers
  return v;
}

// True if record a (header ha, payload pa) beats record b.
inline bool sel_beats(const SelHeader& ha, const unsigned char* pa, const SelHeader& hb, const unsigned char* pb) {
  if (ha.contribute != hb.contribute) return ha.contribute != 0;
  if (!ha.contribute) return ha.rank < hb.rank;
  int order = 0;  // <0: a's key is better, >0: b's key is better
  with_type(ha.type, [&](auto tag) {
    using T = decltype(tag);
    T ka = load_key<T>(pa), kb = load_key<T>(pb);
    if (ka == kb) return;
    bool a_smaller = ka < kb;
    order = (a_smaller != (ha.want_max != 0)) ? -1 : 1;
  });
  if (order != 0) return order < 0;
  return ha.rank < hb.rank;
}

// inout = the better of (in, inout); both are complete records (header + payload).
inline void sel_combine(const void* in, void* inout) {
  SelHeader hi, ho;
  std::memcpy(&hi, in, sizeof hi);
  std::memcpy(&ho, inout, sizeof ho);
  const auto* pi = static_cast<const unsigned char*>(in) + sizeof(SelHeader);
  const auto* po = static_cast<const unsigned char*>(inout) + sizeof(SelHeader);
  if (sel_beats(hi, pi, ho, po)) std::memcpy(inout, in, sizeof(SelHeader) + static_cast<std::size_t>(hi.payload_bytes));
}

}  // namespace msg
}  // namespace armcix
