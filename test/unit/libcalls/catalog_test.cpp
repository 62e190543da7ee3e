// The wire rule of library calls (rc/lib_call.h) and rc-server's catalog
// of served rows (gpu-server/src/libraries/library_catalog.h).
#include "libraries/library_catalog.h"

#include <curand.h>
#include <gtest/gtest.h>

namespace {

using namespace rc::server::lib;

TEST(LibCallRule, ParsesTokensCountsAndSizes) {
  std::vector<ParamRule> rules;
  std::string why;
  ASSERT_TRUE(parseParams("h d#2+1:4 v o t:80 d?", &rules, &why)) << why;
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_FALSE(rules[1].nullable);
  EXPECT_TRUE(rules[5].nullable);
  EXPECT_EQ(rules[0].pass, Pass::Object);
  EXPECT_EQ(rules[1].pass, Pass::Device);
  EXPECT_EQ(rules[1].countParam, 2);
  EXPECT_EQ(rules[1].countAdd, 1u);
  EXPECT_EQ(rules[1].elementBytes, 4u);
  EXPECT_EQ(rules[3].countParam, -1);
  EXPECT_EQ(rules[4].pass, Pass::Table);
  EXPECT_EQ(rules[4].elementBytes, 80u);
}

TEST(LibCallRule, RefusesMalformedRows) {
  std::vector<ParamRule> rules;
  for (const char *bad :
       {"q", "d#", "d#5", "d#0", "v d#0+", "v i:", "vv", "u?", "v d@"}) {
    std::string why;
    EXPECT_FALSE(parseParams(bad, &rules, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(LibCallRule, CountsAndExtentsStayBounded) {
  int negative = -1;
  EXPECT_EQ(countValue(reinterpret_cast<const uint8_t *>(&negative), 4),
            UINT64_MAX);
  // Parameters: 0 a count, 1 a cudaDataType, 2 a pointer.
  uint64_t count = 10;
  int type = 5; // CUDA_C_64F: 16 bytes
  auto valueOf = [&](size_t k) {
    return k == 0 ? std::pair<const uint8_t *, size_t>(
                        reinterpret_cast<const uint8_t *>(&count), 8)
                  : std::pair<const uint8_t *, size_t>(
                        reinterpret_cast<const uint8_t *>(&type), 4);
  };
  std::vector<ParamRule> rules;
  std::string why;
  ASSERT_TRUE(parseParams("v v o#0", &rules, &why)) << why;
  uint64_t bytes = 0;
  EXPECT_TRUE(paramExtent(rules, 2, 4, 1 << 20, valueOf, &bytes));
  EXPECT_EQ(bytes, 40u);
  ASSERT_TRUE(parseParams("v v i#0+1@1", &rules, &why)) << why;
  EXPECT_TRUE(paramExtent(rules, 2, 0, 1 << 20, valueOf, &bytes));
  EXPECT_EQ(bytes, 11u * 16);
  type = 99; // names no data type
  EXPECT_FALSE(paramExtent(rules, 2, 0, 1 << 20, valueOf, &bytes));
  type = 0;
  count = UINT64_MAX; // + 1 overflows
  EXPECT_FALSE(paramExtent(rules, 2, 0, UINT64_MAX, valueOf, &bytes));
  count = 1 << 18; // 4 bytes each: over the limit
  EXPECT_FALSE(paramExtent(rules, 2, 0, 1 << 20, valueOf, &bytes));
  EXPECT_FALSE(parseParams("v v i@2", &rules, &why)) << "a type from a pointer";
  EXPECT_EQ(dataTypeBytes(14), 2u); // CUDA_R_16BF
}

TEST(LibraryCatalog, EveryRowMatchesItsFunction) {
  // The catalog aborts at start-up on a row that contradicts its header;
  // reaching here means every row was checked.
  const auto &rows = LibraryCatalog::instance().rows();
  EXPECT_GE(rows.size(), 30u);
  const CatalogRow *row =
      LibraryCatalog::instance().find("curandGenerateUniform_host");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->function, "curandGenerateUniform");
  EXPECT_EQ(row->rules[1].pass, Pass::HostOut);
  EXPECT_STREQ(row->library->name, "cuRAND");
  EXPECT_EQ(LibraryCatalog::instance().find("curandCreateGenerator")->destroys,
            "curandDestroyGenerator");
  EXPECT_EQ(LibraryCatalog::instance().find("dlopen"), nullptr);
}

TEST(LibraryCatalog, RowsThatContradictTheTypeAreCaught) {
  CatalogRow row{"k", "curandGenerateUniform",
                 "",  "h v v",
                 {},  signatureOf<decltype(::curandGenerateUniform)>()};
  std::string why;
  auto check = [&](const char *params) {
    row.params = params;
    why.clear();
    EXPECT_TRUE(parseParams(params, &row.rules, &why)) << why;
    return LibraryCatalog::rowMatchesType(row, &why);
  };
  EXPECT_FALSE(check("h v v"));
  EXPECT_NE(why.find("a pointer passed by value"), std::string::npos) << why;
  EXPECT_FALSE(check("h d"));
  EXPECT_NE(why.find("2 parameter rules for 3"), std::string::npos) << why;
  EXPECT_FALSE(check("d d#2 v"));
  EXPECT_NE(why.find("a library object (or stream) passed as memory"),
            std::string::npos)
      << why;
  EXPECT_FALSE(check("h h v"));
  EXPECT_NE(why.find("names no library object"), std::string::npos) << why;
  EXPECT_FALSE(check("h d d"));
  EXPECT_NE(why.find("a value passed as a pointer"), std::string::npos) << why;
  EXPECT_TRUE(check("h d#2 v")) << why;
  row.destroys = "curandDestroyGenerator";
  EXPECT_FALSE(check("h d#2 v"));
  EXPECT_NE(why.find("makes no object"), std::string::npos) << why;

  CatalogRow create{"c", "curandCreateGenerator",
                    "",  "h v",
                    {},  signatureOf<decltype(::curandCreateGenerator)>()};
  create.params = "c v";
  ASSERT_TRUE(parseParams("c v", &create.rules, &why));
  EXPECT_FALSE(LibraryCatalog::rowMatchesType(create, &why));
  EXPECT_NE(why.find("names nothing that destroys it"), std::string::npos);
}

} // namespace
