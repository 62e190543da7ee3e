// The device a client sees: every attribute through cudaDeviceGetAttribute,
// cuDeviceGetAttribute and cudaGetDeviceProperties, from a program linked
// like an application (programs/device_attrs.cpp) against an rc-server on
// the host test device. The attributes of remoteAttributes() have their
// table value, every other one the device's own; docs/device-attributes.md
// carries the same table.
#include "child_process.h"
#include "core/device_props.h"
#include "rc/server/host_backend.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using rc::rt::RemoteAttribute;

struct Seen {
  std::string runtime, driver; // "-" when the call failed
};

// Runs the program against a fresh test-device rc-server; its stdout.
std::string runAgainstTestDevice() {
  char dir[] = "/tmp/rc-attrs-XXXXXX";
  std::string d = mkdtemp(dir) ? dir : "/tmp";
  std::string url = "shm://rc-attrs-" + std::to_string(getpid());
  pid_t server = rc::test::startChild(
      {RC_SERVER_BIN, "--test-device", "--listen", url}, {}, d + "/server.log");
  for (int i = 0; i < 500; ++i) {
    if (rc::test::readFile(d + "/server.log").find("listening on") !=
        std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  rc::test::ChildResult r = rc::test::runChild(
      {RC_DEVICE_ATTRS_PROG}, {"RC_SERVER=" + url}, d + "/prog.out", 60);
  kill(server, SIGTERM);
  rc::test::waitBounded(server, 10);
  EXPECT_EQ(r.status, 0) << r.output << "\n--- server ---\n"
                         << rc::test::readFile(d + "/server.log");
  if (d != "/tmp")
    std::filesystem::remove_all(d);
  return r.output;
}

class DeviceAttrs : public testing::Test {
protected:
  static void SetUpTestSuite() {
    std::istringstream in(runAgainstTestDevice());
    std::string kind;
    while (in >> kind) {
      if (kind == "attr") {
        int a;
        Seen s;
        in >> a >> s.runtime >> s.driver;
        attrs[a] = s;
      } else if (kind == "prop") {
        std::string name;
        int attr;
        long long value;
        in >> name >> attr >> value;
        props[name] = {attr, value};
      }
    }
  }
  static std::map<int, Seen> attrs;
  static std::map<std::string, std::pair<int, long long>> props;
};
std::map<int, Seen> DeviceAttrs::attrs;
std::map<std::string, std::pair<int, long long>> DeviceAttrs::props;

const RemoteAttribute *remote(int a) {
  for (const RemoteAttribute &r : rc::rt::remoteAttributes())
    if (int(r.attribute) == a)
      return &r;
  return nullptr;
}

TEST_F(DeviceAttrs, EveryAttributeIsTheDevicesOrTheTablesAlikeBothWays) {
  ASSERT_FALSE(attrs.empty());
  // The GPU the server describes: the test device's own attributes.
  rc::server::HostBackend device(1);
  const std::vector<int32_t> &physical = device.device(0).attributes;
  int differing = 0;
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    ASSERT_TRUE(attrs.count(a)) << a;
    const Seen &s = attrs[a];
    EXPECT_EQ(s.runtime, s.driver) << "attribute " << a;
    int want = size_t(a) < physical.size() ? physical[size_t(a)] : 0;
    if (const RemoteAttribute *r = remote(a)) {
      want = r->value;
      differing += r->value != physical[size_t(a)];
    }
    EXPECT_EQ(s.runtime, std::to_string(want))
        << "attribute " << a << (remote(a) ? " (" : "")
        << (remote(a) ? remote(a)->reason : "") << (remote(a) ? ")" : "");
  }
  // The test device reports what an H100 does: most of the table differs
  // from it, so the table is what the client sees, not a coincidence.
  EXPECT_GE(differing, 20);
}

TEST_F(DeviceAttrs, WhatTheHeadersDoNotKnowFailsBothWays) {
  for (int a = CU_DEVICE_ATTRIBUTE_MAX; a < CU_DEVICE_ATTRIBUTE_MAX + 16; ++a) {
    ASSERT_TRUE(attrs.count(a)) << a;
    EXPECT_EQ(attrs[a].runtime, "-") << "attribute " << a;
    EXPECT_EQ(attrs[a].driver, "-") << "attribute " << a;
  }
}

TEST_F(DeviceAttrs, PropertiesSayWhatAttributesSay) {
  ASSERT_GE(props.size(), 30u);
  for (const auto &[name, field] : props) {
    ASSERT_TRUE(attrs.count(field.first)) << name;
    EXPECT_EQ(std::to_string(field.second), attrs[field.first].runtime)
        << "cudaDeviceProp::" << name;
  }
  // What samples decide by (systemWideAtomics, simpleZeroCopy, ...).
  EXPECT_EQ(props["managedMemory"].second, 1);
  EXPECT_EQ(props["concurrentManagedAccess"].second, 0);
  EXPECT_EQ(props["pageableMemoryAccess"].second, 0);
  EXPECT_EQ(props["hostNativeAtomicSupported"].second, 0);
  EXPECT_EQ(props["canMapHostMemory"].second, 0);
  EXPECT_EQ(props["computeMode"].second, 0);
  EXPECT_EQ(props["clusterLaunch"].second, 0);
}

TEST(DeviceAttrsDoc, RuntimeApiMdCarriesTheTable) {
  std::string doc = rc::test::readFile(std::string(RC_SOURCE_DIR) +
                                       "/docs/device-attributes.md");
  ASSERT_FALSE(doc.empty());
  std::string table = rc::rt::remoteAttributesMarkdown();
  EXPECT_NE(doc.find(table), std::string::npos)
      << "docs/device-attributes.md must hold exactly:\n"
      << table;
  // And no row of its own beyond it.
  size_t rows = 0;
  for (size_t at = doc.find("| `CU_DEVICE_ATTRIBUTE_"); at != std::string::npos;
       at = doc.find("| `CU_DEVICE_ATTRIBUTE_", at + 1))
    ++rows;
  EXPECT_EQ(rows, rc::rt::remoteAttributes().size());
}

} // namespace
