// Configuration parsing (no MPI).
#include <gtest/gtest.h>

#include "runtime/config.h"

using armcix::parse_bool;
using armcix::parse_int;
using armcix::parse_size;

TEST(ConfigParse, Booleans) {
  bool v = false;
  for (const char* t : {"1", "y", "YES", "true", "On"}) {
    v = false;
    EXPECT_TRUE(parse_bool(t, &v)) << t;
    EXPECT_TRUE(v) << t;
  }
  for (const char* t : {"0", "n", "No", "FALSE", "off"}) {
    v = true;
    EXPECT_TRUE(parse_bool(t, &v)) << t;
    EXPECT_FALSE(v) << t;
  }
  for (const char* t : {"", "2", "yess", "maybe"}) EXPECT_FALSE(parse_bool(t, &v)) << t;
}

TEST(ConfigParse, IntegersWithinBounds) {
  long v = 0;
  EXPECT_TRUE(parse_int("42", 0, 100, &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_int("-3", -5, 5, &v));
  EXPECT_EQ(v, -3);
  EXPECT_FALSE(parse_int("101", 0, 100, &v));
  EXPECT_FALSE(parse_int("-1", 0, 100, &v));
  EXPECT_FALSE(parse_int("12abc", 0, 100, &v));
  EXPECT_FALSE(parse_int("", 0, 100, &v));
  EXPECT_FALSE(parse_int("99999999999999999999999", 0, 100, &v));
}

TEST(ConfigParse, SizesWithSuffixes) {
  std::size_t v = 0;
  EXPECT_TRUE(parse_size("64", &v));
  EXPECT_EQ(v, 64u);
  EXPECT_TRUE(parse_size("16k", &v));
  EXPECT_EQ(v, 16u * 1024);
  EXPECT_TRUE(parse_size("2MiB", &v));
  EXPECT_EQ(v, 2u * 1024 * 1024);
  EXPECT_TRUE(parse_size("1G", &v));
  EXPECT_EQ(v, 1024u * 1024 * 1024);
  EXPECT_FALSE(parse_size("-1", &v));
  EXPECT_FALSE(parse_size("12Q", &v));
  EXPECT_FALSE(parse_size("k", &v));
  EXPECT_FALSE(parse_size("99999999999999999999G", &v));
}

TEST(ConfigParse, DefaultsDescribeEverySetting) {
  armcix::Config c;
  auto lines = c.describe();
  ASSERT_GE(lines.size(), 10u);
  EXPECT_NE(lines[0].find("ARMCI_USE_WIN_ALLOCATE=0"), std::string::npos) << lines[0];
  bool saw_iov = false;
  for (auto& l : lines) saw_iov |= l.rfind("ARMCI_IOV_METHOD=AUTO", 0) == 0;
  EXPECT_TRUE(saw_iov);
}
