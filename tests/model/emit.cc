// Writes a (shrunk) model program as a plain C file that reproduces its finding: the same allocations,
// operations and completion calls on every rank, with the one check that failed.  Single-threaded programs
// only (a threaded finding is reported with its seed and listing).
#include "emit.h"

#include <cstdio>
#include <string>

namespace model {

namespace {

const char* kPrelude = R"(/* Reproducer written by the armci-x model tester (tests/model).  Build and run:
 *   mpicc.mpich repro.c -I<prefix>/include <libarmci> -lstdc++ -o repro && mpiexec.mpich -n NP ./repro
 * It prints "REPRODUCED: ..." and exits 1 where the finding recurs. */
#include <armci.h>
#include <message.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, failed;
static int gen_value(uint32_t key, uint64_t i) { return (int)((key * 2654435761u + (uint32_t)i * 40503u) % 97u) - 48; }
/* elem: 0 int, 1 long, 2 float, 3 double, 4 complex float, 5 complex double */
static void fill(int elem, uint32_t key, void *buf, long bytes) {
  static const int cb[] = {4, 8, 4, 8, 4, 8};
  long n = bytes / cb[elem], i;
  for (i = 0; i < n; ++i) {
    int v = gen_value(key, (uint64_t)i);
    if (elem == 0) ((int32_t *)buf)[i] = v;
    else if (elem == 1) ((int64_t *)buf)[i] = v;
    else if (elem == 2 || elem == 4) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
  }
}
static void check(const void *p, const char *hex, const char *what) {
  const unsigned char *b = p;
  char seen[64] = "";
  size_t i, n = strlen(hex) / 2;
  for (i = 0; i < n; ++i) sprintf(seen + 2 * i, "%02x", b[i]);
  if (strcmp(seen, hex) != 0) {
    printf("REPRODUCED: rank %d, %s: expected %s, seen %s\n", me, what, hex, seen);
    failed = 1;
  }
}
static void *buffer(long bytes, unsigned char junk) { void *b = malloc(bytes > 0 ? bytes : 1); memset(b, junk, bytes); return b; }
)";

struct Emitter {
  const Program& p;
  const Finding& f;
  FILE* o;
  int ph = 0;

  std::string base(int slot, int rank) { return "base[" + std::to_string(slot) + "][" + std::to_string(rank) + "]"; }

  void alloc(int s) {
    const Slot& sl = p.slots[static_cast<std::size_t>(s)];
    std::fprintf(o, "  { /* slot %d: %s */\n    static const long bytes[] = {", s, elem_name(sl.elem));
    for (long b : sl.bytes) std::fprintf(o, "%ld, ", b);
    std::fprintf(o, "};\n    void *ptrs[%d];\n", p.cfg.nranks);
    if (sl.group < 0) {
      std::fprintf(o, "    ARMCI_Malloc(ptrs, bytes[me]);\n    for (int r = 0; r < np; ++r) base[%d][r] = ptrs[r];\n", s);
    } else {
      const auto& m = p.groups[static_cast<std::size_t>(sl.group)].members;
      std::fprintf(o, "    static const int members[] = {");
      for (int r : m) std::fprintf(o, "%d, ", r);
      std::fprintf(o, "};\n    int mine = 0;\n    for (int k = 0; k < %zu; ++k) mine |= members[k] == me;\n", m.size());
      std::fprintf(o, "    if (mine) {\n      ARMCI_Malloc_group(ptrs, bytes[me], &group[%d]);\n"
                      "      for (int k = 0; k < %zu; ++k) base[%d][members[k]] = ptrs[k];\n    }\n", sl.group, m.size(), s);
    }
    std::fprintf(o, "    if (bytes[me] > 0) { ARMCI_Access_begin(base[%d][me]); memset(base[%d][me], 0, bytes[me]);\n"
                    "      fill(%d, %uu * %du + (uint32_t)me * 104729u + 17u, base[%d][me], bytes[me] / %d * %d); ARMCI_Access_end(base[%d][me]); }\n  }\n",
                 s, s, static_cast<int>(sl.elem), 7919u, sl.serial, s, comp_bytes(sl.elem), comp_bytes(sl.elem), s);
  }
  void release(int s) {
    const Slot& sl = p.slots[static_cast<std::size_t>(s)];
    if (sl.group < 0) std::fprintf(o, "  ARMCI_Free(base[%d][me]);\n", s);
    else {
      std::string cond = "0";
      for (int r : p.groups[static_cast<std::size_t>(sl.group)].members) cond += " || me == " + std::to_string(r);
      std::fprintf(o, "  if (%s) ARMCI_Free_group(base[%d][me], &group[%d]);\n", cond.c_str(), s, sl.group);
    }
  }

  void op(int r, const std::vector<Op>& ops, std::size_t i) {
    const Op& op = ops[i];
    const std::string id = std::to_string(ph) + "_" + std::to_string(i);
    const bool failing = f.phase == ph && f.rank == r && f.index == static_cast<int>(i);
    std::fprintf(o, "    /* #%zu: %s */\n", i, describe(p, ph, r, 0, static_cast<int>(i)).c_str());
    switch (op.kind) {
      case Kind::Wait: if (ops[static_cast<std::size_t>(op.ref)].keep) std::fprintf(o, "    ARMCI_Wait(&h%d_%d);\n", ph, op.ref); return;
      case Kind::Test: if (ops[static_cast<std::size_t>(op.ref)].keep) std::fprintf(o, "    while (ARMCI_Test(&h%d_%d) != 0) ;\n", ph, op.ref); return;
      case Kind::WaitProc: std::fprintf(o, "    ARMCI_WaitProc(%d);\n", op.target); return;
      case Kind::Fence: std::fprintf(o, "    ARMCI_Fence(%d);\n", op.target); return;
      case Kind::WaitAll: std::fprintf(o, "    ARMCI_WaitAll();\n"); return;
      case Kind::AllFence: std::fprintf(o, "    ARMCI_AllFence();\n"); return;
      default: break;
    }
    const Slot& sl = p.slots[static_cast<std::size_t>(op.slot)];
    const int e = static_cast<int>(sl.elem);
    const std::string rem = "(char *)" + base(op.slot, op.target);
    static const char* ctype[] = {"int", "long", "float", "double"};
    static const char* vname[] = {"Int", "Long", "Float", "Double"};
    switch (op.kind) {
      case Kind::PutVal:
        std::fprintf(o, "    ARMCI_PutValue%s((%s)%d, %s + %ld, %d);\n", vname[e], ctype[e], op.value, rem.c_str(), op.base, op.target);
        return;
      case Kind::GetVal:
        std::fprintf(o, "    { %s v = ARMCI_GetValue%s(%s + %ld, %d);%s }\n", ctype[e], vname[e], rem.c_str(), op.base, op.target,
                     failing ? (" check(&v, \"" + f.expected + "\", \"ARMCI_GetValue\");").c_str() : "");
        return;
      case Kind::FetchAdd:
        std::fprintf(o, "    { %s v = 0; ARMCI_Rmw(%s, &v, %s + %ld, %d, %d);%s }\n", e == 0 ? "int" : "long",
                     e == 0 ? "ARMCI_FETCH_AND_ADD" : "ARMCI_FETCH_AND_ADD_LONG", rem.c_str(), op.base, op.value, op.target,
                     failing ? " printf(\"rank %d fetched %ld (the model allowed " "the range in the tester's report)\\n\", me, (long)v);" : "");
        return;
      case Kind::Swap:
        std::fprintf(o, "    { %s v = %d; ARMCI_Rmw(%s, &v, %s + %ld, 0, %d);%s }\n", e == 0 ? "int" : "long", op.value,
                     e == 0 ? "ARMCI_SWAP" : "ARMCI_SWAP_LONG", rem.c_str(), op.base, op.target,
                     failing ? (" check(&v, \"" + f.expected + "\", \"swap\");").c_str() : "");
        return;
      case Kind::LockedInc:
        std::fprintf(o, "    { unsigned char v[16]; ARMCI_Lock(%d, %d); ARMCI_Get(%s + %ld, v, %d, %d);\n"
                        "      /* +1 in the element type */ %s x; memcpy(&x, v, sizeof x); x += 1; memcpy(v, &x, sizeof x);\n"
                        "      ARMCI_Put(v, %s + %ld, %d, %d); ARMCI_Fence(%d); ARMCI_Unlock(%d, %d); }\n",
                     op.mutex, op.target, rem.c_str(), op.base, elem_bytes(sl.elem), op.target,
                     e <= 3 ? ctype[e] : e == 4 ? "float" : "double", rem.c_str(), op.base, elem_bytes(sl.elem), op.target,
                     op.target, op.mutex, op.target);
        return;
      case Kind::LocalRead:
        std::fprintf(o, "    ARMCI_Access_begin(base[%d][me]);%s ARMCI_Access_end(base[%d][me]);\n", op.slot,
                     failing ? (" check((char *)base[" + std::to_string(op.slot) + "][me] + " + std::to_string(op.base) + ", \"" + f.expected + "\", \"local load\");").c_str() : "",
                     op.slot);
        return;
      case Kind::LocalWrite:
        std::fprintf(o, "    ARMCI_Access_begin(base[%d][me]); { %s x = %d; memcpy((char *)base[%d][me] + %ld, &x, sizeof x); } ARMCI_Access_end(base[%d][me]);\n",
                     op.slot, e <= 3 ? ctype[e] : e == 4 ? "float" : "double", op.value, op.slot, op.base, op.slot);
        return;
      default: break;
    }
    // transfers
    const bool nb = op.mode != Mode::Blocking;
    const bool get = op.kind == Kind::Get;
    std::string L = "b" + id;
    if (op.buf == Buf::OwnArmci)
      std::fprintf(o, "    %s = (char *)base[%d][me] + %ld;\n", L.c_str(), op.own_slot, op.own_base);
    else
      std::fprintf(o, "    %s = buffer(%ld, %s);%s\n", L.c_str(), op.local_extent, get ? "0xC3" : "0",
                   get ? "" : (" fill(" + std::to_string(e) + ", " + std::to_string(op.key) + "u, " + L + ", " + std::to_string(op.local_extent) + ");").c_str());
    std::string H = op.mode == Mode::NbExplicit ? "&h" + id : "NULL";
    if (op.mode == Mode::NbExplicit) std::fprintf(o, "    ARMCI_INIT_HANDLE(&h%s);\n", id.c_str());
    const char* scale_t[] = {"int", "long", "float", "double", "float", "double"};
    if (op.kind == Kind::Acc)
      std::fprintf(o, "    { %s scale[2] = {%d, %d};\n", scale_t[e], op.scale_re, op.scale_im);
    else
      std::fprintf(o, "    {\n");
    const std::string acc_head = "ARMCI_ACC_" + std::string(e == 0 ? "INT" : e == 1 ? "LNG" : e == 2 ? "FLT" : e == 3 ? "DBL" : e == 4 ? "CPL" : "DCP") + ", scale, ";
    const char* nbp = nb ? "Nb" : "";
    const std::string hh = nb ? ", " + H : "";
    if (op.shape == Shape::Contig) {
      if (op.kind == Kind::Put) std::fprintf(o, "      ARMCI_%sPut(%s, %s + %ld, %d, %d%s);\n", nbp, L.c_str(), rem.c_str(), op.base, op.count[0], op.target, hh.c_str());
      else if (get) std::fprintf(o, "      ARMCI_%sGet(%s + %ld, %s, %d, %d%s);\n", nbp, rem.c_str(), op.base, L.c_str(), op.count[0], op.target, hh.c_str());
      else std::fprintf(o, "      ARMCI_%sAcc(%s%s, %s + %ld, %d, %d%s);\n", nbp, acc_head.c_str(), L.c_str(), rem.c_str(), op.base, op.count[0], op.target, hh.c_str());
    } else if (op.shape == Shape::Strided) {
      std::fprintf(o, "      int count[4] = {%d, %d, %d, %d}, ls[3] = {%d, %d, %d}, rs[3] = {%d, %d, %d};\n", op.count[0], op.count[1],
                   op.count[2], op.count[3], op.lstride[0], op.lstride[1], op.lstride[2], op.rstride[0], op.rstride[1], op.rstride[2]);
      if (op.kind == Kind::Put) std::fprintf(o, "      ARMCI_%sPutS(%s, ls, %s + %ld, rs, count, %d, %d%s);\n", nbp, L.c_str(), rem.c_str(), op.base, op.levels, op.target, hh.c_str());
      else if (get) std::fprintf(o, "      ARMCI_%sGetS(%s + %ld, rs, %s, ls, count, %d, %d%s);\n", nbp, rem.c_str(), op.base, L.c_str(), op.levels, op.target, hh.c_str());
      else std::fprintf(o, "      ARMCI_%sAccS(%s%s, ls, %s + %ld, rs, count, %d, %d%s);\n", nbp, acc_head.c_str(), L.c_str(), rem.c_str(), op.base, op.levels, op.target, hh.c_str());
    } else {
      const std::size_t n = op.seg_loc.size();
      std::fprintf(o, "      static void *ptrs[%zu];\n      static armci_giov_t iov[2];\n", 2 * n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::string lp = "(char *)" + L + " + " + std::to_string(op.seg_loc[k]);
        const std::string rp = rem + " + " + std::to_string(op.seg_rem[k]);
        std::fprintf(o, "      ptrs[%zu] = %s; ptrs[%zu] = %s;\n", k, (get ? rp : lp).c_str(), n + k, (get ? lp : rp).c_str());
      }
      const std::size_t first = op.niov == 2 ? n / 2 : n;
      std::fprintf(o, "      iov[0].src_ptr_array = ptrs; iov[0].dst_ptr_array = ptrs + %zu; iov[0].bytes = %d; iov[0].ptr_array_len = %zu;\n",
                   n, op.seg_bytes, first);
      if (first < n)
        std::fprintf(o, "      iov[1].src_ptr_array = ptrs + %zu; iov[1].dst_ptr_array = ptrs + %zu; iov[1].bytes = %d; iov[1].ptr_array_len = %zu;\n",
                     first, n + first, op.seg_bytes, n - first);
      const int nv = first < n ? 2 : 1;
      if (op.kind == Kind::Put) std::fprintf(o, "      ARMCI_%sPutV(iov, %d, %d%s);\n", nbp, nv, op.target, hh.c_str());
      else if (get) std::fprintf(o, "      ARMCI_%sGetV(iov, %d, %d%s);\n", nbp, nv, op.target, hh.c_str());
      else std::fprintf(o, "      ARMCI_%sAccV(%s%s, iov, %d, %d%s);\n", nbp, acc_head.c_str(), "", nv, op.target, hh.c_str());
    }
    std::fprintf(o, "    }\n");
  }

  // The check of a failing get, placed after the call that completed it.
  void get_check(const std::vector<Op>& ops) {
    const Op& op = ops[static_cast<std::size_t>(f.index)];
    long at = 0, loc = 0;
    for (const Chunk& c : chunks_of(op)) {
      if (f.offset < at + c.len) {
        loc = c.loc + (f.offset - at);
        break;
      }
      at += c.len;
    }
    std::fprintf(o, "    check((char *)b%d_%d + %ld, \"%s\", \"get of op #%d\");\n", ph, f.index, loc, f.expected.c_str(), f.index);
  }

  void write() {
    std::fprintf(o, "%s", kPrelude);
    std::fprintf(o, "/* seed %llu, %d ranks, finding: %s */\n", static_cast<unsigned long long>(p.cfg.seed), p.cfg.nranks, f.message.c_str());
    std::fprintf(o, "static void *base[%zu][%d];\nstatic ARMCI_Group group[%zu];\n", p.slots.size() + 1, p.cfg.nranks, p.groups.size() + 1);
    // buffers and handles of every operation
    for (int q = 0; q <= f.phase; ++q)
      for (int r = 0; r < p.cfg.nranks; ++r) {
        const auto& ops = p.phases[static_cast<std::size_t>(q)].ops[static_cast<std::size_t>(r)][0];
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].keep && is_transfer(ops[i].kind)) std::fprintf(o, "static void *b%d_%zu_%d; static armci_hdl_t h%d_%zu_%d;\n", q, i, r, q, i, r);
      }
    std::fprintf(o, "\nint main(int argc, char **argv) {\n  int np;\n  MPI_Init(&argc, &argv);\n  ARMCI_Init();\n"
                    "  MPI_Comm_rank(MPI_COMM_WORLD, &me);\n  MPI_Comm_size(MPI_COMM_WORLD, &np);\n"
                    "  if (np != %d) { if (me == 0) printf(\"run on %d ranks\\n\"); MPI_Abort(MPI_COMM_WORLD, 2); }\n", p.cfg.nranks, p.cfg.nranks);
    for (std::size_t g = 0; g < p.groups.size(); ++g) {
      std::fprintf(o, "  { int m[] = {");
      for (int r : p.groups[g].members) std::fprintf(o, "%d, ", r);
      std::fprintf(o, "}; ARMCI_Group_create(%zu, m, &group[%zu]); }\n", p.groups[g].members.size(), g);
    }
    std::fprintf(o, "  ARMCI_Create_mutexes(%d);\n", p.cfg.nmutex);
    for (ph = 0; ph <= f.phase; ++ph) {
      const Phase& F = p.phases[static_cast<std::size_t>(ph)];
      std::fprintf(o, "\n  /* ---- phase %d ---- */\n", ph);
      for (int s : F.frees) release(s);
      for (int g : F.group_frees) std::fprintf(o, "  ARMCI_Group_free(&group[%d]);\n", g);
      for (int s : F.allocs) alloc(s);
      std::fprintf(o, "  ARMCI_Barrier();\n");
      for (int r = 0; r < p.cfg.nranks; ++r) {
        const auto& ops = F.ops[static_cast<std::size_t>(r)][0];
        bool any = false;
        for (const Op& x : ops) any |= x.keep;
        if (!any) continue;
        std::fprintf(o, "  if (me == %d) {\n", r);
        // name this rank's buffers b<phase>_<index> and handles h<phase>_<index>
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].keep && is_transfer(ops[i].kind))
            std::fprintf(o, "#define b%d_%zu b%d_%zu_%d\n#define h%d_%zu h%d_%zu_%d\n", ph, i, ph, i, r, ph, i, ph, i, r);
        for (std::size_t i = 0; i < ops.size(); ++i) {
          if (!ops[i].keep) continue;
          op(r, ops, i);
          if (f.phase == ph && f.rank == r && f.done_by == static_cast<int>(i) && f.index >= 0 &&
              ops[static_cast<std::size_t>(f.index)].kind == Kind::Get) {
            if (f.late)
              std::fprintf(o, "    memset(b%d_%d, 0x3C, %ld); /* completed: nothing may write here any more */\n", ph, f.index,
                           ops[static_cast<std::size_t>(f.index)].local_extent);
            else
              get_check(ops);
          }
        }
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].keep && is_transfer(ops[i].kind)) std::fprintf(o, "#undef b%d_%zu\n#undef h%d_%zu\n", ph, i, ph, i);
        std::fprintf(o, "  }\n");
      }
      static const char* ends[] = {"ARMCI_WaitAll(); ARMCI_Barrier();", "ARMCI_AllFence(); armci_msg_barrier();",
                                   "ARMCI_AllFence(); MPI_Barrier(MPI_COMM_WORLD);", "ARMCI_WaitAll(); armci_msg_barrier();",
                                   "ARMCI_WaitAll(); MPI_Barrier(MPI_COMM_WORLD);"};
      std::fprintf(o, "  %s\n", ends[F.end]);
      if (f.phase == ph && f.late) {
        std::fprintf(o, "  armci_msg_barrier();\n  if (me == %d) {\n#define b%d_%d b%d_%d_%d\n", f.rank, ph, f.index, ph, f.index, f.rank);
        std::fprintf(o, "    check((char *)b%d_%d + %ld, \"%s\", \"a late write into the get's buffer\");\n#undef b%d_%d\n  }\n", ph,
                     f.index, f.offset, f.expected.c_str(), ph, f.index);
      } else if (f.phase == ph && f.index >= 0 && f.done_by < 0 &&
          F.ops[static_cast<std::size_t>(f.rank)][0][static_cast<std::size_t>(f.index)].kind == Kind::Get) {
        std::fprintf(o, "  if (me == %d) {\n#define b%d_%d b%d_%d_%d\n", f.rank, ph, f.index, ph, f.index, f.rank);
        get_check(F.ops[static_cast<std::size_t>(f.rank)][0]);
        std::fprintf(o, "#undef b%d_%d\n  }\n", ph, f.index);
      }
      if (f.phase == ph && f.slot >= 0)
        std::fprintf(o, "  if (me == %d) { ARMCI_Access_begin(base[%d][me]); check((char *)base[%d][me] + %ld, \"%s\", \"slice after the phase\"); ARMCI_Access_end(base[%d][me]); }\n",
                     f.rank, f.slot, f.slot, f.offset, f.expected.c_str(), f.slot);
    }
    std::fprintf(o, "\n  ARMCI_Barrier();\n  { int any = failed; MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);\n"
                    "    if (me == 0) printf(\"%%s\\n\", any ? \"the finding recurs\" : \"not reproduced\"); failed = any; }\n"
                    "  ARMCI_Finalize();\n  MPI_Finalize();\n  return failed;\n}\n");
  }
};

}  // namespace

bool emit_c(const Program& p, const Finding& f, const std::string& path) {
  if (p.cfg.nthreads != 1) return false;
  FILE* o = std::fopen(path.c_str(), "w");
  if (!o) return false;
  Emitter{p, f, o}.write();
  return std::fclose(o) == 0;
}

}  // namespace model
