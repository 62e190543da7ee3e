// The RC_TRANSPORT_* knobs' parsing: RC_TRANSPORT_SPIN_US=0 must mean "no
// busy-poll" (it used to fall back to the 100 us default), and malformed
// values must leave the default in place rather than become 0 or garbage.
#include "env_int.h"

#include <gtest/gtest.h>

#include <cstdlib>

using rc::transport::detail::envIntAtLeast;
using rc::transport::detail::parseIntAtLeast;

TEST(EnvInt, ZeroIsAValueWhereTheMinimumAllowsIt) {
  int n = -1;
  EXPECT_TRUE(parseIntAtLeast("0", 0, &n));
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(parseIntAtLeast("0", 1, &n));
  EXPECT_TRUE(parseIntAtLeast("50", 0, &n));
  EXPECT_EQ(n, 50);
}

TEST(EnvInt, MalformedValuesAreRejected) {
  int n = 7;
  for (const char *bad : {"", "abc", "12x", "-1", " ", "99999999999"})
    EXPECT_FALSE(parseIntAtLeast(bad, 0, &n)) << "'" << bad << "'";
  EXPECT_FALSE(parseIntAtLeast(nullptr, 0, &n));
  EXPECT_EQ(n, 7) << "a rejected value leaves the output alone";
}

TEST(EnvInt, VariableOrFallback) {
  setenv("RC_TEST_ENV_INT", "0", 1);
  EXPECT_EQ(envIntAtLeast("RC_TEST_ENV_INT", 0, 100), 0);
  EXPECT_EQ(envIntAtLeast("RC_TEST_ENV_INT", 1, 300), 300);
  setenv("RC_TEST_ENV_INT", "junk", 1);
  EXPECT_EQ(envIntAtLeast("RC_TEST_ENV_INT", 0, 100), 100);
  unsetenv("RC_TEST_ENV_INT");
  EXPECT_EQ(envIntAtLeast("RC_TEST_ENV_INT", 0, 100), 100);
}
