// rc::EnvReader: unset or empty means the default; a set value is exactly
// one of its kind within its range, or an error naming the variable, the
// value and what it takes (the default stays meanwhile). The names are
// samples, not variables of remote-clang.
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
  EnvReader env = readerOf({{"SAMPLE_EMPTY", ""}});
  EXPECT_EQ(env.count("SAMPLE_UNSET", 7, 0, 10), 7u);
  EXPECT_EQ(env.count("SAMPLE_EMPTY", 7, 0, 10), 7u);
  EXPECT_TRUE(env.onOff("SAMPLE_EMPTY", true));
  EXPECT_EQ(env.text("SAMPLE_EMPTY", "x"), "x");
  EXPECT_EQ(env.choice("SAMPLE_UNSET", "", {"a"}), "");
  EXPECT_DOUBLE_EQ(env.decimal("SAMPLE_UNSET", 1.5, 0, 2), 1.5);
  EXPECT_TRUE(env.ok()) << env.error();
}

TEST(EnvReader, GoodValuesAreTakenInTheirUnit) {
  EnvReader env = readerOf({{"SAMPLE_N", "0"},
                            {"SAMPLE_MIB", "12"},
                            {"SAMPLE_ON", "1"},
                            {"SAMPLE_OFF", "0"},
                            {"SAMPLE_WORD", "yield"},
                            {"SAMPLE_RATE", "2.5"}});
  EXPECT_EQ(env.count("SAMPLE_N", 5, 0, 10), 0u) << "0 is a value, not unset";
  EXPECT_EQ(env.count("SAMPLE_MIB", 1, 1, 64, 1 << 20), 12u << 20);
  EXPECT_TRUE(env.onOff("SAMPLE_ON", false));
  EXPECT_FALSE(env.onOff("SAMPLE_OFF", true));
  EXPECT_EQ(env.choice("SAMPLE_WORD", "", {"spin", "yield"}), "yield");
  EXPECT_DOUBLE_EQ(env.decimal("SAMPLE_RATE", 0, 0, 10), 2.5);
  EXPECT_TRUE(env.ok()) << env.error();
}

TEST(EnvReader, EveryBadValueIsNamedAndTheDefaultKept) {
  EnvReader env = readerOf({{"SAMPLE_JUNK", "12x"},
                            {"SAMPLE_NEG", "-1"},
                            {"SAMPLE_SPACE", " 3"},
                            {"SAMPLE_HEX", "0x10"},
                            {"SAMPLE_BIG", "99999999999999999999999"},
                            {"SAMPLE_LOW", "0"},
                            {"SAMPLE_SWITCH", "yes"},
                            {"SAMPLE_WORD", "nap"},
                            {"SAMPLE_RATE", "fast"}});
  EXPECT_EQ(env.count("SAMPLE_JUNK", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("SAMPLE_NEG", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("SAMPLE_SPACE", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("SAMPLE_HEX", 5, 0, 100), 5u);
  EXPECT_EQ(env.count("SAMPLE_BIG", 5, 0, UINT64_MAX), 5u);
  EXPECT_EQ(env.count("SAMPLE_LOW", 5, 1, 100), 5u);
  EXPECT_TRUE(env.onOff("SAMPLE_SWITCH", true));
  EXPECT_EQ(env.choice("SAMPLE_WORD", "", {"spin", "yield"}), "");
  EXPECT_DOUBLE_EQ(env.decimal("SAMPLE_RATE", 1, 0, 10), 1);
  EXPECT_FALSE(env.ok());
  for (const char *named :
       {"SAMPLE_JUNK=12x is not a whole number from 0 to 100", "SAMPLE_NEG=-1",
        "SAMPLE_SPACE= 3", "SAMPLE_HEX=0x10", "SAMPLE_BIG=",
        "SAMPLE_LOW=0 is not a whole "
        "number from 1 to 100",
        "SAMPLE_SWITCH=yes is not 0 (off) or 1 (on)",
        "SAMPLE_WORD=nap is not one of spin, yield", "SAMPLE_RATE=fast"})
    EXPECT_NE(env.error().find(named), std::string::npos)
        << named << " in: " << env.error();
}

TEST(EnvReader, TheProcessEnvironmentIsTheDefaultSource) {
  setenv("ENV_READER_TEST_VALUE", "42", 1);
  EnvReader env;
  EXPECT_EQ(env.count("ENV_READER_TEST_VALUE", 0, 0, 100), 42u);
  unsetenv("ENV_READER_TEST_VALUE");
  EXPECT_EQ(EnvReader().count("ENV_READER_TEST_VALUE", 3, 0, 100), 3u);
}

} // namespace
