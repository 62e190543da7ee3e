// RC_DEV_SERVER_RECORD_DIR: a session writes every message it receives, in
// order and byte for byte, plus a copy of each manifest its Hello named;
// forEachRecordedMessage reads the messages back (the session fuzzer's
// input format).
#include "host_session_fixture.h"
#include "rc/server/session_recording.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace rc::server;
using namespace rc::server::test;

namespace {

std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

std::vector<Bytes> messagesOf(const Bytes &recording) {
  std::vector<Bytes> out;
  forEachRecordedMessage(recording.data(), recording.size(),
                         [&](const uint8_t *m, size_t n) {
                           out.emplace_back(m, m + n);
                           return true;
                         });
  return out;
}

class SessionRecordingTest : public HostSessionTest {
protected:
  void SetUp() override {
    char dir[] = "/tmp/rc-recording-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    recordDir = dir;
    HostSessionTest::SetUp();
    env->settings.recordDir = recordDir;
    session = std::make_unique<Session>(*env, 7); // this one records
  }
  std::string recordDir;
};

TEST_F(SessionRecordingTest, EveryReceivedMessageAndTheManifestAreKept) {
  std::vector<Bytes> sent = {hello({m.hash}), batch(1, {cMalloc(64)}),
                             Bytes{1, 2, 3}, batch(2, {cGoodbye()})};
  for (const Bytes &msg : sent)
    send(msg);
  session.reset(); // closes the recording

  std::vector<std::string> files = filesIn(recordDir);
  ASSERT_EQ(files.size(), 2u) << "one recording and one manifest";
  char manifestName[32];
  std::snprintf(manifestName, sizeof manifestName, "%016llx.rcm",
                (unsigned long long)m.hash);
  std::string recording;
  for (const std::string &f : files)
    if (f != manifestName)
      recording = f;
  EXPECT_EQ(recording.rfind("session-", 0), 0u) << recording;
  EXPECT_NE(recording.find("-7.rcrec"), std::string::npos) << recording;

  Bytes bytes, manifest, original;
  std::string error;
  ASSERT_TRUE(rc::readFile(recordDir + "/" + recording, bytes, &error));
  EXPECT_EQ(messagesOf(bytes), sent);
  ASSERT_TRUE(rc::readFile(recordDir + "/" + manifestName, manifest, &error))
      << error;
  ASSERT_TRUE(rc::readFile(m.path, original, &error));
  EXPECT_EQ(manifest, original);
}

TEST_F(SessionRecordingTest, SessionsOfTheSameIdGetFilesOfTheirOwn) {
  send(hello({m.hash}));
  session = std::make_unique<Session>(*env, 7); // the fixture's id again
  send(batch(3, {cMalloc(8)}));
  session.reset();
  std::vector<std::string> recordings;
  for (const std::string &f : filesIn(recordDir))
    if (f.size() > 6 && f.compare(f.size() - 6, 6, ".rcrec") == 0)
      recordings.push_back(f);
  ASSERT_EQ(recordings.size(), 2u);
  std::sort(recordings.begin(), recordings.end());
  EXPECT_NE(recordings[0].find("-7-2.rcrec"), std::string::npos);
  EXPECT_NE(recordings[1].find("-7.rcrec"), std::string::npos);
  Bytes first, second;
  std::string error;
  ASSERT_TRUE(rc::readFile(recordDir + "/" + recordings[1], first, &error));
  ASSERT_TRUE(rc::readFile(recordDir + "/" + recordings[0], second, &error));
  EXPECT_EQ(messagesOf(first), std::vector<Bytes>{hello({m.hash})});
  EXPECT_EQ(messagesOf(second), std::vector<Bytes>{batch(3, {cMalloc(8)})});
}

TEST(SessionRecording, TruncatedLastRecordIsIgnored) {
  Bytes recording = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, // "abc", ""
                     9, 0, 0, 0, 'x'};                      // 1 of 9 bytes
  std::vector<Bytes> got = messagesOf(recording);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (Bytes{'a', 'b', 'c'}));
  EXPECT_TRUE(got[1].empty());
}

TEST(SessionRecording, UnwritableDirectoryIsReportedNotFatal) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(SessionRecorder::into("/nonexistent/rc-recordings", 3), nullptr);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("RC_DEV_SERVER_RECORD_DIR: cannot create "
                     "/nonexistent/rc-recordings/session-"),
            std::string::npos)
      << err;
  EXPECT_EQ(SessionRecorder::into("", 3), nullptr) << "none: none";
}

} // namespace
