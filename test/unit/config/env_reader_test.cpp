// rc::EnvReader: unset or empty means the default; a set value is exactly
// one of its kind within its range, or an error naming the variable, the
// value and what it takes (the default stays meanwhile).
#include "rc/env_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using rc::EnvReader;

namespace {

EnvReader readerOf(std::map<std::string, std::string> values) {
  return EnvReader([values](const char *name) -> const char * {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
}

TEST(EnvReader, UnsetAndEmptyMeanTheDefault) {
  EnvReader env = readerOf({{"RC_EMPTY", ""}});
  EXPECT_EQ(env.count("RC_UNSET", 7, 0, 10), 7u);
  EXPECT_EQ(env.count("RC_EMPTY", 7, 0, 10), 7u);
  EXPECT_TRUE(env.onOff("RC_EMPTY", true));
  EXPECT_EQ(env.text("RC_EMPTY", "x"), "x");
  EXPECT_EQ(env.choice("RC_UNSET", "", {"a"}), "");
  EXPECT_DOUBLE_EQ(env.decimal("RC_UNSET", 1.5, 0, 2), 1.5);
  EXPECT_TRUE(env.ok()) << env.error();
}

TEST(EnvReader, GoodValuesAreTakenInTheirUnit) {
  EnvReader env = readerOf({{"RC_N", "0"},
                            {"RC_MIB", "12"},
                            {"RC_ON", "1"},
                            {"RC_OFF", "0"},
                            {"RC_WORD", "yield"},
                            {"RC_RATE", "2.5"}});
  EXPECT_EQ(env.count("RC_N", 5, 0, 10), 0u) << "0 is a value, not unset";
  EXPECT_EQ(env.count("RC_MIB", 1, 1, 64, 1 << 20), 12u << 20);
  EXPECT_TRUE(env.onOff("RC_ON", false));
  EXPECT_FALSE(env.onOff("RC_OFF", true));
  EXPECT_EQ(env.choice("RC_WORD", "", {"spin", "yield"}), "yield");
  EXPECT_DOUBLE_EQ(env.decimal("RC_RATE", 0, 0, 10), 2.5);
  EXPECT_TRUE(env.ok()) << env.error();
}

TEST(EnvReader, EveryBadValueIsNamedAndTheDefaultKept) {
  EnvReader env = readerOf({{"RC_JUNK", "12x"},
                            {"RC_NEG", "-1"},
                            {"RC_SPACE", " 3"},
                            {"RC_HEX", "0x10"},
                            {"RC_BIG", "99999999999999999999999"},
                            {"RC_LOW", "0"},
                            {"RC_SWITCH", "yes"},
                            {"RC_WORD", "nap"},
                            {"RC_RATE", "fast"}});
  EXPECT_EQ(env.count("RC_JUNK", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("RC_NEG", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("RC_SPACE", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("RC_HEX", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("RC_BIG", 5, 0, UINT64_MAX), 5u);
  EXPECT_EQ(env.count("RC_LOW", 5, 1, 100), 5u);
  EXPECT_TRUE(env.onOff("RC_SWITCH", true));
  EXPECT_EQ(env.choice("RC_WORD", "", {"spin", "yield"}), "");
  EXPECT_DOUBLE_EQ(env.decimal("RC_RATE", 1, 0, 10), 1);
  EXPECT_FALSE(env.ok());
  for (const char *named :
       {"RC_JUNK=12x is not a whole number from 0 to 100", "RC_NEG=-1",
        "RC_SPACE= 3", "RC_HEX=0x10", "RC_BIG=",
        "RC_LOW=0 is not a whole "
        "number from 1 to 100",
        "RC_SWITCH=yes is not 0 (off) or 1 (on)",
        "RC_WORD=nap is not one of spin, yield", "RC_RATE=fast"})
    EXPECT_NE(env.error().find(named), std::string::npos)
        << named << " in: " << env.error();
}

TEST(EnvReader, TheProcessEnvironmentIsTheDefaultSource) {
  setenv("RC_TEST_ENV_READER", "42", 1);
  EnvReader env;
  EXPECT_EQ(env.count("RC_TEST_ENV_READER", 0, 0, 100), 42u);
  unsetenv("RC_TEST_ENV_READER");
  EXPECT_EQ(EnvReader().count("RC_TEST_ENV_READER", 3, 0, 100), 3u);
}

} // namespace
