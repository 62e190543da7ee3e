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
  ASSERT_TRUE(parseParams("h d#2+1:4 v o t:80", &rules, &why)) << why;
  ASSERT_EQ(rules.size(), 5u);
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
  for (const char *bad : {"q", "d#", "d#5", "d#0", "v d#0+", "v i:", "vv"}) {
    std::string why;
    EXPECT_FALSE(parseParams(bad, &rules, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(LibCallRule, CountsAndExtentsStayBounded) {
  int negative = -1;
  EXPECT_EQ(countValue(reinterpret_cast<const uint8_t *>(&negative), 4),
            UINT64_MAX);
  size_t n = 10;
  EXPECT_EQ(countValue(reinterpret_cast<const uint8_t *>(&n), 8), 10u);
  ParamRule r;
  r.pass = Pass::HostOut;
  r.countParam = 0;
  uint64_t bytes = 0;
  EXPECT_TRUE(extentBytes(r, 10, 4, 1 << 20, &bytes));
  EXPECT_EQ(bytes, 40u);
  EXPECT_FALSE(extentBytes(r, UINT64_MAX, 4, 1 << 20, &bytes));
  EXPECT_FALSE(extentBytes(r, 1 << 19, 4, 1 << 20, &bytes));
  r.countAdd = 1;
  EXPECT_FALSE(extentBytes(r, UINT64_MAX, 1, UINT64_MAX, &bytes));
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
