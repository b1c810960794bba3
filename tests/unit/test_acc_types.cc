// Accumulate types and scaling arithmetic (no MPI).
#include <armci.h>
#include <gtest/gtest.h>

#include <complex>
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
