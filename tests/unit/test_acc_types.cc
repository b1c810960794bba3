// Accumulate types and scaling arithmetic (no MPI job: MPI's datatype handles are only compared).
#include <armci.h>
#include <armcix.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "acc/acc_types.h"

using armcix::acc_type;
using armcix::scale_add;
using armcix::scale_copy;
using armcix::scale_is_one;

TEST(AccTypes, SizesMatchArmciTypes) {
  EXPECT_EQ(acc_type("t", ARMCI_ACC_INT).elem_bytes, 4);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_LNG).elem_bytes, 8);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_FLT).elem_bytes, 4);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_DBL).elem_bytes, 8);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_CPL).elem_bytes, 8);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_DCP).elem_bytes, 16);
  EXPECT_EQ(acc_type("t", ARMCI_ACC_DCP).mpi_per_elem, 2);
}

TEST(AccTypes, ScaleIsOneOnlyForIdentity) {
  int i1 = 1, i2 = 2;
  double d1 = 1.0, d0 = 0.999999;
  std::complex<float> c1(1, 0), ci(1, 1);
  EXPECT_TRUE(scale_is_one(acc_type("t", ARMCI_ACC_INT), &i1));
  EXPECT_FALSE(scale_is_one(acc_type("t", ARMCI_ACC_INT), &i2));
  EXPECT_TRUE(scale_is_one(acc_type("t", ARMCI_ACC_DBL), &d1));
  EXPECT_FALSE(scale_is_one(acc_type("t", ARMCI_ACC_DBL), &d0));
  EXPECT_TRUE(scale_is_one(acc_type("t", ARMCI_ACC_CPL), &c1));
  EXPECT_FALSE(scale_is_one(acc_type("t", ARMCI_ACC_CPL), &ci));
}

TEST(AccTypes, ComplexScaleMultipliesAsComplex) {
  std::complex<double> s(2, 3);
  std::vector<std::complex<double>> in = {{1, 1}, {0, -2}}, out(2);
  scale_copy(acc_type("t", ARMCI_ACC_DCP), &s, in.data(), out.data(), sizeof(in[0]) * 2);
  EXPECT_EQ(out[0], std::complex<double>(-1, 5));
  EXPECT_EQ(out[1], std::complex<double>(6, -4));
  std::vector<std::complex<double>> acc = {{10, 0}, {0, 10}};
  scale_add(acc_type("t", ARMCI_ACC_DCP), &s, in.data(), acc.data(), sizeof(in[0]) * 2);
  EXPECT_EQ(acc[0], std::complex<double>(9, 5));
  EXPECT_EQ(acc[1], std::complex<double>(6, 6));
}

TEST(AccTypes, IntegerScaleAndInPlace) {
  long s = -3;
  std::vector<long> v = {1, 2, 1L << 40};
  scale_copy(acc_type("t", ARMCI_ACC_LNG), &s, v.data(), v.data(), sizeof(long) * 3);
  EXPECT_EQ(v[0], -3);
  EXPECT_EQ(v[1], -6);
  EXPECT_EQ(v[2], -3 * (1L << 40));
}

// --- One list (src/acc/acc_types.h, ARMCIX_ACC_TYPES) ------------------------------------------------------

namespace {

struct Row {
  int type;
  const char* name;
  MPI_Datatype mpi;
  int bytes;
  int per;
};

// Written out by hand, not from the list: this is what the list must produce.
const Row kExpected[] = {
    {ARMCI_ACC_INT, "ARMCI_ACC_INT", MPI_INT, sizeof(int), 1},
    {ARMCI_ACC_LNG, "ARMCI_ACC_LNG", MPI_LONG, sizeof(long), 1},
    {ARMCI_ACC_FLT, "ARMCI_ACC_FLT", MPI_FLOAT, sizeof(float), 1},
    {ARMCI_ACC_DBL, "ARMCI_ACC_DBL", MPI_DOUBLE, sizeof(double), 1},
    {ARMCI_ACC_CPL, "ARMCI_ACC_CPL", MPI_FLOAT, 2 * sizeof(float), 2},
    {ARMCI_ACC_DCP, "ARMCI_ACC_DCP", MPI_DOUBLE, 2 * sizeof(double), 2},
};

struct ArmciErrorThrown {
  std::string message;
};
void throw_armci_error(const char* msg, int) {
  throw ArmciErrorThrown{msg ? msg : ""};
}

// The message ARMCI_Error got from f, or "" if f returned.
template <typename F>
std::string error_of(F f) {
  ARMCIX_Error_handler_t previous = ARMCIX_Set_error_handler(&throw_armci_error);
  std::string message;
  try {
    f();
  } catch (const ArmciErrorThrown& e) {
    message = e.message;
  }
  ARMCIX_Set_error_handler(previous);
  return message;
}

// scale_copy, scale_add and scale_is_one of one type, against arithmetic done here in T.
template <typename T>
void check_scaling(int type, T scale, T not_one) {
  const armcix::AccType& t = acc_type("t", type);
  const T one(1);
  EXPECT_TRUE(scale_is_one(t, &one)) << t.name;
  EXPECT_FALSE(scale_is_one(t, &scale)) << t.name;
  EXPECT_FALSE(scale_is_one(t, &not_one)) << t.name;
  const std::vector<T> in = {T(1), T(-2), T(7), T(0), T(5)};
  std::vector<T> out(in.size(), T(99)), acc(in.size(), T(10));
  // Four elements: the fifth must be left alone (bytes, not elements, are passed).
  scale_copy(t, &scale, in.data(), out.data(), 4 * sizeof(T));
  scale_add(t, &scale, in.data(), acc.data(), 4 * sizeof(T));
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i], scale * in[i]) << t.name << " element " << i;
    EXPECT_EQ(acc[i], T(10) + scale * in[i]) << t.name << " element " << i;
  }
  EXPECT_EQ(out[4], T(99)) << t.name;
  EXPECT_EQ(acc[4], T(10)) << t.name;
  std::vector<T> in_place = in;
  scale_copy(t, &scale, in_place.data(), in_place.data(), in.size() * sizeof(T));
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(in_place[i], scale * in[i]) << t.name;
}

}  // namespace

TEST(AccTypes, EveryTableRow) {
  ASSERT_EQ(armcix::kAccTypeCount, 6);
  ASSERT_EQ(sizeof kExpected / sizeof kExpected[0], 6u);
  for (const Row& e : kExpected) {
    const armcix::AccType& t = acc_type("t", e.type);
    EXPECT_EQ(t.armci_type, e.type);
    EXPECT_STREQ(t.name, e.name);
    EXPECT_TRUE(t.mpi_elem == e.mpi) << e.name;
    EXPECT_EQ(t.elem_bytes, e.bytes) << e.name;
    EXPECT_EQ(t.mpi_per_elem, e.per) << e.name;
  }
  // The compile-time view is the same list.
  EXPECT_EQ(armcix::AccTraits<ARMCI_ACC_LNG>::elem_bytes, static_cast<int>(sizeof(long)));
  EXPECT_TRUE(armcix::AccTraits<ARMCI_ACC_INT>::mpi_elem() == MPI_INT);
  EXPECT_TRUE(armcix::AccTraits<ARMCI_ACC_DCP>::mpi_elem() == MPI_DOUBLE);
  EXPECT_EQ(armcix::AccTraits<ARMCI_ACC_CPL>::mpi_per_elem, 2);
  EXPECT_TRUE((std::is_same_v<armcix::AccTraits<ARMCI_ACC_CPL>::type, std::complex<float>>));
}

TEST(AccTypes, ScalingOfEveryType) {
  check_scaling<int>(ARMCI_ACC_INT, -3, 0);
  check_scaling<long>(ARMCI_ACC_LNG, 1L << 33, -1);
  check_scaling<float>(ARMCI_ACC_FLT, 0.5f, 1.0f + 1e-6f);
  check_scaling<double>(ARMCI_ACC_DBL, -2.25, 1.0 + 1e-15);
  check_scaling<std::complex<float>>(ARMCI_ACC_CPL, {2, -1}, {1, 1e-6f});
  check_scaling<std::complex<double>>(ARMCI_ACC_DCP, {0, 1}, {1, -1e-15});
}

TEST(AccTypes, BadTypeNamesTheCallAndTheArgument) {
  for (int bad : {-1, 6, 42}) {
    const std::string m = error_of([&] { acc_type("ARMCI_AccS", bad); });
    EXPECT_EQ(m.rfind("ARMCI_AccS: ", 0), 0u) << m;
    EXPECT_NE(m.find("argument 'datatype' = " + std::to_string(bad) + " is not an accumulate type"), std::string::npos)
        << m;
    EXPECT_NE(m.find("ARMCI_ACC_INT..ARMCI_ACC_DCP = 0..5"), std::string::npos) << m;
  }
  EXPECT_EQ(error_of([] { acc_type("ARMCI_Acc", ARMCI_ACC_DCP); }), "");
}

// A row that did not come from acc_type() stops the kernels instead of leaving the output unwritten.
TEST(AccTypes, KernelsRefuseARowNotInTheList) {
  const armcix::AccType bogus = {17, "bogus", MPI_INT, 4, 1};
  int scale = 2, in = 1, out = 0;
  EXPECT_NE(error_of([&] { scale_copy(bogus, &scale, &in, &out, sizeof in); }).find("scale_copy: argument 't'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { scale_add(bogus, &scale, &in, &out, sizeof in); }).find("scale_add: argument 't'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { scale_is_one(bogus, &scale); }).find("scale_is_one: argument 't' has type 17"),
            std::string::npos);
  EXPECT_EQ(out, 0);
}

// --- The vector kernels (acc_types.cc: 16- or 32-byte vectors, a scalar tail, the scalar loop for overlap) --

namespace {

// Every length from 0 to 150 elements (tails of every size after whole vectors, on both sides of the 256-byte
// rows from which the 32-byte loop runs), both sides shifted by one element so that neither is aligned, scale
// one and not one: against the element-by-element loop.
template <typename T>
void check_lengths(int type, T scale) {
  const armcix::AccType& t = acc_type("t", type);
  for (const T s : {T(1), scale}) {
    for (std::size_t n = 0; n <= 150; ++n) {
      std::vector<T> in(n + 2), out(n + 2), acc(n + 2);
      for (std::size_t i = 0; i < n + 2; ++i) {
        in[i] = T(static_cast<int>(3 * i + 1));
        out[i] = T(-7);
        acc[i] = T(static_cast<int>(i % 5));
      }
      const std::vector<T> acc0 = acc;
      scale_copy(t, &s, in.data() + 1, out.data() + 1, n * sizeof(T));
      scale_add(t, &s, in.data() + 1, acc.data() + 1, n * sizeof(T));
      EXPECT_EQ(out[0], T(-7)) << t.name << " n " << n;
      EXPECT_EQ(out[n + 1], T(-7)) << t.name << " n " << n;
      EXPECT_EQ(acc[0], acc0[0]) << t.name << " n " << n;
      EXPECT_EQ(acc[n + 1], acc0[n + 1]) << t.name << " n " << n;
      for (std::size_t i = 1; i <= n; ++i) {
        ASSERT_EQ(out[i], s * in[i]) << t.name << " n " << n << " element " << i;
        ASSERT_EQ(acc[i], acc0[i] + s * in[i]) << t.name << " n " << n << " element " << i;
      }
    }
  }
}

}  // namespace

// At every vector width the processor has (16 bytes always; 32 with AVX2), then back to the default.
TEST(AccTypes, VectorKernelsEveryLengthAndTail) {
  const int chosen = armcix::acc_vector_bytes();
  EXPECT_TRUE(chosen == 16 || chosen == 32) << chosen;
  EXPECT_FALSE(armcix::set_acc_vector_bytes(8));
  EXPECT_FALSE(armcix::set_acc_vector_bytes(64));
  EXPECT_EQ(armcix::acc_vector_bytes(), chosen);
  int widths = 0;
  for (int bytes : {16, 32}) {
    if (!armcix::set_acc_vector_bytes(bytes)) continue;
    ++widths;
    SCOPED_TRACE(bytes);
    check_lengths<int>(ARMCI_ACC_INT, -3);
    check_lengths<long>(ARMCI_ACC_LNG, 1L << 33);
    check_lengths<float>(ARMCI_ACC_FLT, 0.5f);
    check_lengths<double>(ARMCI_ACC_DBL, -2.25);
    check_lengths<std::complex<float>>(ARMCI_ACC_CPL, {0.5f, -1.0f});
    check_lengths<std::complex<double>>(ARMCI_ACC_DCP, {2.0, 3.0});
  }
  EXPECT_GE(widths, chosen == 32 ? 2 : 1);
  EXPECT_TRUE(armcix::set_acc_vector_bytes(chosen));
}

// dst one element past src within one buffer: the result of the element-by-element loop (each element adds
// the value its left neighbour had just been given), which a vector of several elements would not give.
TEST(AccTypes, OverlappingRangesKeepElementOrder) {
  const armcix::AccType& t = acc_type("t", ARMCI_ACC_DBL);
  const double one = 1.0;
  std::vector<double> v(41, 1.0), expect = v;
  for (std::size_t i = 0; i < 40; ++i) expect[i + 1] += expect[i];
  scale_add(t, &one, v.data(), v.data() + 1, 40 * sizeof(double));
  EXPECT_EQ(v, expect);
  std::vector<double> w(41), wexpect(41);
  for (std::size_t i = 0; i < 41; ++i) w[i] = wexpect[i] = static_cast<double>(i);
  const double two = 2.0;
  for (std::size_t i = 0; i < 40; ++i) wexpect[i + 1] = two * wexpect[i];
  scale_copy(t, &two, w.data(), w.data() + 1, 40 * sizeof(double));
  EXPECT_EQ(w, wexpect);
}
