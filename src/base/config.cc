#include "base/config.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "base/error.h"
#include "base/mpi_library.h"

namespace armcix {

bool parse_bool(const char* text, bool* out) {
  static const char* const yes[] = {"1", "y", "yes", "true", "on"};
  static const char* const no[] = {"0", "n", "no", "false", "off"};
  for (const char* w : yes)
    if (strcasecmp(text, w) == 0) return *out = true, true;
  for (const char* w : no)
    if (strcasecmp(text, w) == 0) return *out = false, true;
  return false;
}

bool parse_int(const char* text, long min, long max, long* out) {
  if (!text || !*text) return false;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

bool parse_size(const char* text, std::size_t* out) {
  if (!text || !*text) return false;
  // strtoull skips blanks and takes a sign, negating the value: " -1" would be 2^64 - 1.  A size has none.
  const char* first = text;
  while (std::isspace(static_cast<unsigned char>(*first))) ++first;
  if (*first == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || end == text) return false;
  unsigned long long mult = 1;
  if (*end) {
    switch (*end) {
      case 'k':
      case 'K':
        mult = 1ull << 10;
        break;
      case 'm':
      case 'M':
        mult = 1ull << 20;
        break;
      case 'g':
      case 'G':
        mult = 1ull << 30;
        break;
      default:
        return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end) return false;
  }
  if (v > (~0ull) / mult) return false;
  *out = static_cast<std::size_t>(v * mult);
  return true;
}

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

template <typename E>
struct Spelling {
  const char* name;
  E value;
};
const Spelling<StridedMethod> kStrided[] = {{"AUTO", StridedMethod::Auto},
                                            {"DIRECT", StridedMethod::Direct},
                                            {"IOV", StridedMethod::Iov},
                                            {"PACK", StridedMethod::Pack}};
const Spelling<IovMethod> kIov[] = {{"AUTO", IovMethod::Auto},
                                    {"CONSRV", IovMethod::Consrv},
                                    {"BATCHED", IovMethod::Batched},
                                    {"DIRECT", IovMethod::Direct}};
const Spelling<MutexMethod> kMutex[] = {{"MCS", MutexMethod::Mcs}, {"QUEUE", MutexMethod::Queue}};
const Spelling<ShrBufMethod> kShrBuf[] = {{"NOGUARD", ShrBufMethod::NoGuard}, {"COPY", ShrBufMethod::Copy}};
const auto& spellings(StridedMethod) {
  return kStrided;
}
const auto& spellings(IovMethod) {
  return kIov;
}
const auto& spellings(MutexMethod) {
  return kMutex;
}
const auto& spellings(ShrBufMethod) {
  return kShrBuf;
}

template <typename E>
const char* spelling_of(E v) {
  for (const auto& s : spellings(E{}))
    if (s.value == v) return s.name;
  return "?";
}

// --- parsing: one overload per field type, the kind says which spellings ------------------------------

void read_value(const char* name, const SettingKind&, const char* v, bool* field) {
  if (!parse_bool(v, field)) fail("ARMCI_Init", "environment variable %s='%s' is not a boolean (0/1)", name, v);
}

void read_value(const char* name, const SettingKind& kind, const char* v, WindowKind* field) {
  bool on = *field == WindowKind::Allocate;
  read_value(name, kind, v, &on);
  *field = on ? WindowKind::Allocate : WindowKind::Create;
}

void read_value(const char* name, const SettingKind& kind, const char* v, int* field) {
  long x = 0;
  bool on = false;
  switch (kind.type) {
    case SettingKind::AutoFlag:  // auto|1|0 (and the other boolean spellings): -1 for auto
      if (strcasecmp(v, "auto") == 0)
        *field = -1;
      else if (parse_bool(v, &on))
        *field = on ? 1 : 0;
      else
        fail("ARMCI_Init", "environment variable %s='%s' is not auto, 1 or 0", name, v);
      return;
    case SettingKind::AutoInt:  // auto or an integer in [min, max]: -1 for auto
      if (strcasecmp(v, "auto") == 0)
        *field = -1;
      else if (parse_int(v, kind.min, kind.max, &x))
        *field = static_cast<int>(x);
      else
        fail("ARMCI_Init", "environment variable %s='%s' is not auto or an integer in [%ld, %ld]", name, v, kind.min,
             kind.max);
      return;
    default:
      if (!parse_int(v, kind.min, kind.max, &x))
        fail("ARMCI_Init", "environment variable %s='%s' is not an integer in [%ld, %ld]", name, v, kind.min, kind.max);
      *field = static_cast<int>(x);
  }
}

void read_value(const char* name, const SettingKind& kind, const char* v, std::size_t* field) {
  if (std::strcmp(v, "auto") == 0) return void(*field = 0);
  if (!parse_size(v, field) || *field < static_cast<std::size_t>(kind.min))
    fail("ARMCI_Init", "environment variable %s='%s' is not 'auto' or a size >= %ld bytes", name, v, kind.min);
}

void read_value(const char*, const SettingKind&, const char* v, std::string* field) {
  *field = v;
}

template <typename E>
void read_value(const char* name, const SettingKind&, const char* v, E* field) {
  for (const auto& s : spellings(E{}))
    if (strcasecmp(v, s.name) == 0) return void(*field = s.value);
  std::string allowed;
  for (const auto& s : spellings(E{})) allowed += std::string(allowed.empty() ? "" : ", ") + s.name;
  fail("ARMCI_Init", "environment variable %s='%s' is not one of %s", name, v, allowed.c_str());
}

// flag_on_open_mpi(), flag_on_open_mpi_before(major): the default where the library is Open MPI (older than
// that major version).
template <typename T>
void set_open_mpi_default(T*) {}
void set_open_mpi_default(bool* field) {
  *field = true;
}
void set_open_mpi_default(WindowKind* field) {
  *field = WindowKind::Allocate;
}

template <typename T>
void read_setting(const char* name, const SettingKind& kind, const MpiLibrary& lib, T* field) {
  if (lib.is_open_mpi() && kind.on_open_mpi_before > 0 &&
      (kind.on_open_mpi_before == kAnyVersion || lib.before(kind.on_open_mpi_before, 0)))
    set_open_mpi_default(field);
  if (const char* v = env(name)) read_value(name, kind, v, field);
}

// --- showing: the value as text, as a number (agreement, notes), and whether it means "auto" -------------

std::string shown(bool v) {
  return v ? "1" : "0";
}
std::string shown(WindowKind v) {
  return shown(v == WindowKind::Allocate);
}
std::string shown(int v) {
  return v == -1 ? "auto" : std::to_string(v);
}
std::string shown(std::size_t v) {
  return v == 0 ? "auto" : std::to_string(v);
}
std::string shown(const std::string& v) {
  return v;
}
template <typename E>
std::string shown(E v) {
  return spelling_of(v);
}

long number(bool v) {
  return v ? 1 : 0;
}
long number(int v) {
  return v;
}
long number(std::size_t v) {
  return static_cast<long>(v);
}
long number(const std::string&) {
  return 0;
}
template <typename E>
long number(E v) {
  return static_cast<long>(v);
}

bool means_auto(const SettingKind& kind, long n) {
  return kind.type == SettingKind::Size ? n == 0 : (n == -1 && kind.type != SettingKind::OneOf);
}

template <typename T>
std::string banner_line(const char* name, const SettingKind& kind, const T& v) {
  const long n = number(v);
  const char* note = means_auto(kind, n) ? kind.if_auto : n == 0 ? kind.if_zero : kind.if_other;
  return std::string(name) + "=" + shown(v) + (note ? std::string("  (") + note + ")" : "");
}

// The name as the agreement's error message shows it: with the meaning of the numbers compared.
template <typename T>
std::string agreement_label(const char* name, const SettingKind& kind, const T&) {
  std::string label = name;
  if constexpr (std::is_enum_v<T> && !std::is_same_v<T, WindowKind>) {
    label += " (";
    for (const auto& s : spellings(T{}))
      label += (label.back() == '(' ? "" : ", ") + std::to_string(static_cast<long>(s.value)) + " = " + s.name;
    label += ")";
  } else if (kind.type == SettingKind::AutoFlag || kind.type == SettingKind::AutoInt) {
    label += " (-1 = auto)";
  }
  return label;
}

template <typename T>
std::string default_shown(const SettingKind& kind, const T& v) {
  if (kind.on_open_mpi_before == kAnyVersion) return shown(v) + " on MPICH, 1 on Open MPI";
  if (kind.on_open_mpi_before > 0)
    return "1 on Open MPI before " + std::to_string(kind.on_open_mpi_before) + ", else " + shown(v);
  const std::string s = shown(v);
  return s.empty() ? "(none)" : s;
}

}  // namespace

const char* name_of(StridedMethod m) {
  return spelling_of(m);
}
const char* name_of(IovMethod m) {
  return spelling_of(m);
}
const char* name_of(ShrBufMethod m) {
  return spelling_of(m);
}
const char* name_of(MutexMethod m) {
  return spelling_of(m);
}

int Config::progress_ranks_requested() {
  long k = 0;
  if (const char* v = env("ARMCI_PROGRESS_RANKS"))
    if (!parse_int(v, 0, 1 << 20, &k)) k = 0;
  return static_cast<int>(k);
}

bool Config::progress_thread_requested() {
  bool on = Config().progress_thread;
  if (const char* v = env("ARMCI_PROGRESS_THREAD")) parse_bool(v, &on);
  return on;
}

Config Config::from_environment() {
  Config c;
  const MpiLibrary& lib = mpi_library();
#define ARMCIX_READ(type, field, name, kind, by_default, agree, doc) read_setting(name, kind, lib, &c.field);
  ARMCIX_SETTINGS(ARMCIX_READ)
#undef ARMCIX_READ
  // A pooled block must fit the pool: a block larger than the capacity would never be served from it.
  if (c.pool_block_kb > 0 && static_cast<long>(c.pool_block_kb) > static_cast<long>(c.pool_mb) * 1024)
    fail("ARMCI_Init",
         "environment variable ARMCI_POOL_BLOCK_KB=%d is more than the pool holds (ARMCI_POOL_MB=%d, %ld KiB): "
         "raise ARMCI_POOL_MB or lower ARMCI_POOL_BLOCK_KB",
         c.pool_block_kb, c.pool_mb, static_cast<long>(c.pool_mb) * 1024);
  return c;
}

std::vector<std::string> Config::describe() const {
  std::vector<std::string> lines;
#define ARMCIX_DESCRIBE(type, field, name, kind, by_default, agree, doc) \
  lines.push_back(banner_line(name, kind, field));
  ARMCIX_SETTINGS(ARMCIX_DESCRIBE)
#undef ARMCIX_DESCRIBE
  return lines;
}

std::vector<std::pair<std::string, long>> Config::must_agree() const {
  std::vector<std::pair<std::string, long>> settings;
#define ARMCIX_AGREE(type, field, name, kind, by_default, agree, doc) \
  if (agree) settings.emplace_back(agreement_label(name, kind, field), number(field));
  ARMCIX_SETTINGS(ARMCIX_AGREE)
#undef ARMCIX_AGREE
  return settings;
}

std::vector<long> Config::must_agree_values() const {
  std::vector<long> values;
#define ARMCIX_AGREE_VALUE(type, field, name, kind, by_default, agree, doc) \
  if (agree) values.push_back(number(field));
  ARMCIX_SETTINGS(ARMCIX_AGREE_VALUE)
#undef ARMCIX_AGREE_VALUE
  return values;
}

std::vector<SettingInfo> settings_table() {
  const Config defaults;
  std::vector<SettingInfo> rows;
#define ARMCIX_ROW(type, field, name, kind, by_default, agree, doc) \
  rows.push_back(SettingInfo{name, default_shown(kind, defaults.field), agree, doc});
  ARMCIX_SETTINGS(ARMCIX_ROW)
#undef ARMCIX_ROW
  return rows;
}

}  // namespace armcix
