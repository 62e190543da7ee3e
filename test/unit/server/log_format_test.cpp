// rc-server's log lines (docs/metrics.md, "Logs"): the key=value and JSON
// formats of one event, and a live server's whole log parsed line by line,
// every line carrying time, level, proc, pid, event and msg.
#include "process_util.h"
#include "rc/server/log.h"
#include "server_test_util.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

using namespace rc::server;
using namespace rc::server::test;

namespace {

using Fields = std::map<std::string, std::string>;

// key=value key="quoted \" value" ...: false unless the whole line parses.
bool parseKeyValues(const std::string &line, Fields *out) {
  out->clear();
  size_t at = 0;
  while (at < line.size()) {
    size_t eq = line.find('=', at);
    if (eq == std::string::npos || eq == at)
      return false;
    std::string key = line.substr(at, eq - at), value;
    if (key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") !=
        std::string::npos)
      return false;
    at = eq + 1;
    if (at < line.size() && line[at] == '"') {
      for (++at; at < line.size() && line[at] != '"'; ++at) {
        if (line[at] == '\\' && at + 1 < line.size())
          ++at;
        value += line[at];
      }
      if (at >= line.size())
        return false; // unterminated
      ++at;
    } else {
      size_t end = line.find(' ', at);
      value = line.substr(at, end == std::string::npos ? end : end - at);
      at = end == std::string::npos ? line.size() : end;
    }
    if (out->count(key))
      return false;
    (*out)[key] = value;
    if (at < line.size() && line[at++] != ' ')
      return false;
  }
  return true;
}

// {"k":"v","n":12,...} with string and integer values only (what the
// JSON format writes): false unless the whole line parses.
bool parseFlatJson(const std::string &line, Fields *out) {
  out->clear();
  size_t at = 0;
  auto string = [&](std::string *s) {
    if (at >= line.size() || line[at] != '"')
      return false;
    for (++at; at < line.size() && line[at] != '"'; ++at) {
      if (line[at] == '\\') {
        if (++at >= line.size())
          return false;
        if (line[at] == 'u') {
          *s += char(std::stoi(line.substr(at + 1, 4), nullptr, 16));
          at += 4;
          continue;
        }
      }
      *s += line[at];
    }
    return at++ < line.size();
  };
  if (line.empty() || line[at++] != '{')
    return false;
  while (true) {
    std::string key, value;
    if (!string(&key) || at >= line.size() || line[at++] != ':')
      return false;
    if (at < line.size() && line[at] == '"') {
      if (!string(&value))
        return false;
    } else {
      size_t end = line.find_first_not_of("0123456789", at);
      if (end == at || end == std::string::npos)
        return false;
      value = line.substr(at, end - at);
      at = end;
    }
    (*out)[key] = value;
    if (at >= line.size())
      return false;
    char c = line[at++];
    if (c == '}')
      return at == line.size();
    if (c != ',')
      return false;
  }
}

const std::regex kTime(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");

TEST(LogFormat, KeyValueLineHasEveryFieldAndQuotesWhatNeedsIt) {
  LogEvent e{"session_closed", 7, "alice"};
  std::string line =
      formatLogLine(LogFormat::KeyValue, LogLevel::Info, e,
                    "closed: \"x\" 3 commands", 1767323045678ull);
  Fields f;
  ASSERT_TRUE(parseKeyValues(line, &f)) << line;
  EXPECT_EQ(f["time"], "2026-01-02T03:04:05.678Z");
  EXPECT_EQ(f["level"], "info");
  EXPECT_EQ(f["proc"], "rc-server");
  EXPECT_EQ(f["event"], "session_closed");
  EXPECT_EQ(f["session"], "7");
  EXPECT_EQ(f["tenant"], "alice");
  EXPECT_EQ(f["msg"], "closed: \"x\" 3 commands");
  EXPECT_FALSE(f["pid"].empty());
  // No session, no tenant: the fields are left out.
  line = formatLogLine(LogFormat::KeyValue, LogLevel::Quiet, LogEvent{}, "a\nb",
                       0);
  ASSERT_TRUE(parseKeyValues(line, &f)) << line;
  EXPECT_EQ(f.count("session"), 0u);
  EXPECT_EQ(f.count("tenant"), 0u);
  EXPECT_EQ(f["level"], "error");
  EXPECT_EQ(f["event"], "note");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(LogFormat, JsonLineIsOneObject) {
  LogEvent e{"auth_failed", 3, "bob"};
  std::string line = formatLogLine(LogFormat::Json, LogLevel::Debug, e,
                                   "bad \"proof\"\tfrom x", 1767323045678ull);
  Fields f;
  ASSERT_TRUE(parseFlatJson(line, &f)) << line;
  EXPECT_EQ(f["time"], "2026-01-02T03:04:05.678Z");
  EXPECT_EQ(f["level"], "debug");
  EXPECT_EQ(f["event"], "auth_failed");
  EXPECT_EQ(f["session"], "3");
  EXPECT_EQ(f["tenant"], "bob");
  EXPECT_EQ(f["msg"], "bad \"proof\"\tfrom x");
}

#if RC_TEST_HAVE_TRANSPORT
// Every line a live server writes, in each format, parses with the
// fields every line has; the session's open and close are events of
// their own with its number.
TEST(LogFormat, AServersWholeLogParsesLineByLine) {
  for (std::string format : {"text", "json"}) {
    SCOPED_TRACE(format);
    TestManifest m = writeTestManifest();
    std::string url = "tcp://127.0.0.1:" + std::to_string(freePort());
    Child server({"--listen", url, "--manifest", m.path, "--test-device",
                  "--log-format", format, "--log-level", "debug"});
    ASSERT_TRUE(server.waitFor("listening on", 10000)) << server.text;
    {
      std::string err;
      auto c = rc::transport::connect(url, 5000, &err);
      ASSERT_NE(c, nullptr) << err;
      Bytes reply = roundTrip(*c, hello({m.hash}), 5000);
      ASSERT_TRUE(asHelloReply(reply) && asHelloReply(reply)->ok());
      Bytes b = batch(1, {cMalloc(64), cGoodbye()}, false);
      ASSERT_EQ(c->send(b.data(), b.size()), rc::transport::Status::Ok);
      ASSERT_TRUE(server.waitFor("session_closed", 10000)) << server.text;
    }
    kill(server.pid, SIGTERM);
    EXPECT_EQ(server.wait(), 0) << server.text;
    std::istringstream lines(server.text);
    std::map<std::string, std::string> sessionOf;
    int parsed = 0;
    for (std::string line; std::getline(lines, line);) {
      Fields f;
      bool ok =
          format == "json" ? parseFlatJson(line, &f) : parseKeyValues(line, &f);
      ASSERT_TRUE(ok) << line;
      for (const char *key : {"time", "level", "proc", "pid", "event", "msg"})
        EXPECT_EQ(f.count(key), 1u) << key << " missing: " << line;
      EXPECT_TRUE(std::regex_match(f["time"], kTime)) << line;
      if (f.count("session"))
        sessionOf[f["event"]] = f["session"];
      ++parsed;
    }
    EXPECT_GE(parsed, 4);
    EXPECT_EQ(sessionOf["session_opened"], "1") << server.text;
    EXPECT_EQ(sessionOf["session_closed"], "1") << server.text;
    EXPECT_EQ(sessionOf.count("session_started"), 1u) << server.text;
  }
}
#endif

TEST(LogFormat, UnknownFormatIsRefusedAtStart) {
  Child c({"--log-format", "xml"});
  EXPECT_EQ(c.wait(), 2) << c.text;
  EXPECT_NE(c.text.find("--log-format must be text or json"),
            std::string::npos);
}

} // namespace
