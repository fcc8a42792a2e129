// The verdict line between worker and runner: whatever a worker (or the
// plugin inside it) prints after the marker, parsing never throws, and a
// verdict whose reason holds invalid UTF-8 can still be written.
#include <string>

#include <gtest/gtest.h>

#include "verdict.hpp"

namespace halo::cts {
namespace {

// Expects |line| to be refused with an error containing |what|.
void expect_malformed(const std::string& line, const std::string& what) {
  Verdict verdict;
  std::string error;
  EXPECT_FALSE(parse_verdict(line, &verdict, &error)) << line;
  EXPECT_NE(error.find(what), std::string::npos) << line << " gave: " << error;
}

TEST(VerdictTest, ReadsWhatTheWorkerWrites) {
  for (const char* status : {"PASS", "FAIL", "SKIP"}) {
    Verdict verdict;
    std::string error;
    ASSERT_TRUE(parse_verdict(format_verdict(status, "why"), &verdict, &error)) << error;
    EXPECT_EQ(verdict.status, status);
    EXPECT_EQ(verdict.reason, "why");
  }
}

TEST(VerdictTest, ReasonMayBeAbsent) {
  Verdict verdict;
  std::string error;
  ASSERT_TRUE(parse_verdict(R"({"status":"PASS"})", &verdict, &error)) << error;
  EXPECT_EQ(verdict.reason, "");
}

TEST(VerdictTest, RefusesWhatIsNotAVerdict) {
  expect_malformed("", "not JSON");
  expect_malformed("{\"status\":", "not JSON");
  expect_malformed("PASS", "not JSON");
  expect_malformed("[1,2]", "array, not an object");
  expect_malformed("\"PASS\"", "string, not an object");
  expect_malformed("null", "null, not an object");
  expect_malformed("42", "number, not an object");
  expect_malformed("{}", "no string \"status\"");
  expect_malformed(R"({"status":1,"reason":"x"})", "no string \"status\"");
  expect_malformed(R"({"status":"MAYBE","reason":"x"})", "unknown status \"MAYBE\"");
  expect_malformed(R"({"status":"FAIL","reason":["x"]})", "\"reason\" is not a string");
  expect_malformed("{\"status\":\"PASS\",\"reason\":\"\xff\"}", "not JSON");
}

TEST(VerdictTest, InvalidUtf8InTheReasonIsReplacedNotThrown) {
  const std::string reason = "device \xff\xfe is gone";
  std::string line;
  ASSERT_NO_THROW(line = format_verdict("FAIL", reason));
  Verdict verdict;
  std::string error;
  ASSERT_TRUE(parse_verdict(line, &verdict, &error)) << error;
  EXPECT_EQ(verdict.status, "FAIL");
  EXPECT_NE(verdict.reason.find("device \xef\xbf\xbd"), std::string::npos) << verdict.reason;
  EXPECT_NE(verdict.reason.find("is gone"), std::string::npos) << verdict.reason;
}

TEST(VerdictTest, CarriesThePeerTheCasePairedWith) {
  Verdict verdict;
  std::string error;
  ASSERT_TRUE(parse_verdict(format_verdict("PASS", "", "cts_peer"), &verdict, &error)) << error;
  EXPECT_EQ(verdict.peer, "cts_peer");
  ASSERT_TRUE(parse_verdict(format_verdict("PASS", ""), &verdict, &error)) << error;
  EXPECT_EQ(verdict.peer, "");
  expect_malformed(R"({"status":"PASS","peer":7})", "\"peer\" is not a string");
}

}  // namespace
}  // namespace halo::cts
