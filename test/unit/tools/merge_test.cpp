#include "merge.h"
#include "test_manifests.h"

#include <gtest/gtest.h>

using rc::link::mergeFragments;

TEST(Merge, RenumbersModulesAndSortsKernels) {
  std::vector<std::vector<uint8_t>> frags = {
      rc::test::fragment("a.cu", {{30, "_Z1cv", {}}, {10, "_Z1av", {}}}),
      rc::test::fragment("b.cu", {{20, "_Z1bv", {}}})};
  std::vector<uint8_t> out;
  std::string err;
  ASSERT_TRUE(mergeFragments(frags, out, &err)) << err;
  const rc::manifest::Manifest *m = rc::manifest::GetManifest(out.data());
  ASSERT_EQ(m->modules()->size(), 2u);
  ASSERT_EQ(m->kernels()->size(), 3u);
  EXPECT_EQ(m->kernels()->Get(0)->id(), 10u);
  EXPECT_EQ(m->kernels()->Get(1)->id(), 20u);
  EXPECT_EQ(m->kernels()->Get(1)->module_index(), 1u);
  EXPECT_EQ(m->kernels()->Get(2)->module_index(), 0u);
  EXPECT_NE(m->kernels()->LookupByKey(20), nullptr);
}

TEST(Merge, SameIdDifferentNameIsAnError) {
  std::vector<std::vector<uint8_t>> frags = {
      rc::test::fragment("a.cu", {{7, "_Z5alphav", {}}}),
      rc::test::fragment("b.cu", {{7, "_Z4betav", {}}})};
  std::vector<uint8_t> out;
  std::string err;
  EXPECT_FALSE(mergeFragments(frags, out, &err));
  EXPECT_NE(err.find("_Z5alphav"), std::string::npos);
  EXPECT_NE(err.find("_Z4betav"), std::string::npos);
  EXPECT_NE(err.find("a.cu"), std::string::npos);
  EXPECT_NE(err.find("b.cu"), std::string::npos);
}

TEST(Merge, SameKernelInTwoUnitsKeptOnceWithAllLaunchSites) {
  std::vector<std::vector<uint8_t>> frags = {
      rc::test::fragment("a.cu", {{7, "_Z4tmplIiEvv", {"a.cu"}}}),
      rc::test::fragment("b.cu", {{7, "_Z4tmplIiEvv", {"b.cu"}}})};
  std::vector<uint8_t> out;
  std::string err;
  ASSERT_TRUE(mergeFragments(frags, out, &err)) << err;
  const rc::manifest::Manifest *m = rc::manifest::GetManifest(out.data());
  ASSERT_EQ(m->kernels()->size(), 1u);
  EXPECT_EQ(m->kernels()->Get(0)->module_index(), 0u);
  ASSERT_EQ(m->kernels()->Get(0)->launch_sites()->size(), 2u);
  EXPECT_EQ(m->kernels()->Get(0)->launch_sites()->Get(1)->file()->str(),
            "b.cu");
}

TEST(Merge, ResultDoesNotDependOnFragmentOrder) {
  std::vector<uint8_t> a = rc::test::fragment("a.cu", {{1, "_Z1av", {"a.cu"}}});
  std::vector<uint8_t> b = rc::test::fragment("b.cu", {{2, "_Z1bv", {"b.cu"}}});
  std::vector<uint8_t> ab, ba;
  std::string err;
  ASSERT_TRUE(mergeFragments({a, b}, ab, &err)) << err;
  ASSERT_TRUE(mergeFragments({b, a}, ba, &err)) << err;
  EXPECT_EQ(ab, ba);
}
