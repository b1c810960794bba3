/* heap-by-caller: an LD_PRELOAD tool that says whose memory a benchmark's heap reading holds.  Between the
 * program's first and second mallinfo2() calls it records every allocation with its call stack; at the
 * second call, on the rank named by HBC_RANK (PMI_RANK or OMPI_COMM_WORLD_RANK), it prints the bytes still
 * live, grouped by stack (groups under 256 B left out).  Made for benchmarks/scale.c, which reads mallinfo2
 * before and after its measured ARMCI_Mallocs (doc/performance.md, "Cost as jobs grow"):
 *   gcc -O1 -g -shared -fPIC -o /tmp/hbc.so tools/heap-by-caller.c -ldl
 *   mpiexec.mpich -n 64 -env LD_PRELOAD /tmp/hbc.so -env HBC_RANK 0 build/benchmarks/scale --quick
 * Not thread-safe beyond a per-thread recursion guard; a development tool, not part of libarmci. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
extern void* __libc_memalign(size_t, size_t);
#define DEPTH 8
#define SLOTS (1u << 20)
typedef struct {
  void* p;
  size_t sz;
  void* st[DEPTH];
} ent;
static ent* tab;
static int recording, marks;
static __thread int guard;
static void put(void* p, size_t sz) {
  if (!recording || !p || guard) return;
  guard = 1;
  if (!tab) tab = mmap(0, sizeof(ent) * SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint32_t h = ((uintptr_t)p >> 4) * 2654435761u & (SLOTS - 1);
  while (tab[h].p) h = (h + 1) & (SLOTS - 1);
  tab[h].p = p;
  tab[h].sz = sz;
  void* st[DEPTH + 2];
  int n = backtrace(st, DEPTH + 2);
  memset(tab[h].st, 0, sizeof tab[h].st);
  for (int i = 2; i < n; i++) tab[h].st[i - 2] = st[i];
  guard = 0;
}
static void del(void* p) {
  if (!tab || !p) return;
  uint32_t h = ((uintptr_t)p >> 4) * 2654435761u & (SLOTS - 1);
  while (tab[h].p) {
    if (tab[h].p == p) {
      tab[h].p = (void*)1;
      tab[h].sz = 0;
      return;
    }
    h = (h + 1) & (SLOTS - 1);
  }
}
void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  put(p, n);
  return p;
}
void* calloc(size_t a, size_t b) {
  void* p = __libc_calloc(a, b);
  put(p, a * b);
  return p;
}
void* realloc(void* q, size_t n) {
  del(q);
  void* p = __libc_realloc(q, n);
  put(p, n);
  return p;
}
void free(void* p) {
  del(p);
  __libc_free(p);
}
void* memalign(size_t a, size_t n) {
  void* p = __libc_memalign(a, n);
  put(p, n);
  return p;
}
void* aligned_alloc(size_t a, size_t n) {
  void* p = __libc_memalign(a, n);
  put(p, n);
  return p;
}
int posix_memalign(void** r, size_t a, size_t n) {
  *r = __libc_memalign(a, n);
  put(*r, n);
  return *r ? 0 : 12;
}
static int cmp(const void* a, const void* b) {
  const ent *x = a, *y = b;
  return memcmp(x->st, y->st, sizeof x->st);
}
struct mallinfo2 mallinfo2(void) {
  static struct mallinfo2 (*real)(void);
  if (!real) real = (struct mallinfo2(*)(void))dlsym(RTLD_NEXT, "mallinfo2");
  struct mallinfo2 m = real();
  const char *want = getenv("HBC_RANK"), *me = getenv("PMI_RANK");
  if (!me) me = getenv("OMPI_COMM_WORLD_RANK");
  int mine = want && me && !strcmp(want, me);
  ++marks;
  if (marks == 1) {
    void* st[4];
    backtrace(st, 4);
    recording = 1;
    return m;
  }
  if (marks == 2 && mine && tab) {
    recording = 0;
    guard = 1;
    static ent live[1 << 16];
    size_t k = 0, total = 0;
    for (uint32_t i = 0; i < SLOTS && k < (1u << 16); i++)
      if ((uintptr_t)tab[i].p > 1) live[k++] = tab[i];
    qsort(live, k, sizeof(ent), cmp);
    fprintf(stderr, "hbc: %zu live allocations since mark 1\n", k);
    for (size_t i = 0; i < k;) {
      size_t j = i, bytes = 0;
      while (j < k && !memcmp(live[j].st, live[i].st, sizeof live[i].st)) bytes += live[j++].sz;
      total += bytes;
      if (bytes >= 256) {
        fprintf(stderr, "hbc: %zu B in %zu allocations\n", bytes, j - i);
        for (int d = 0; d < DEPTH && live[i].st[d]; d++) {
          Dl_info di;
          if (dladdr(live[i].st[d], &di) && di.dli_sname)
            fprintf(stderr, "hbc:    %s+%#lx\n", di.dli_sname,
                    (unsigned long)((char*)live[i].st[d] - (char*)di.dli_saddr));
          else
            fprintf(stderr, "hbc:    %p (%s+%#lx)\n", live[i].st[d], di.dli_fname ? di.dli_fname : "?",
                    (unsigned long)((char*)live[i].st[d] - (char*)di.dli_fbase));
        }
      }
      i = j;
    }
    fprintf(stderr, "hbc: total %zu B\n", total);
  }
  return m;
}
