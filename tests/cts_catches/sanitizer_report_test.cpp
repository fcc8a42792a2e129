// The runner's reading of sanitizer reports in a worker's output
// (halo-cts --sanitize): each sanitizer's first line and its summary are
// quoted; output without a report quotes nothing.
#include <string>

#include <gtest/gtest.h>

#include "sanitizer_report.hpp"

namespace halo::cts {
namespace {

TEST(SanitizerReportTest, QuotesAddressSanitizersHeadlineAndSummary) {
  const std::string output =
      "case output\n"
      "=================================================================\n"
      "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x6040 at pc 0x7f\n"
      "READ of size 1 at 0x6040 thread T0\n"
      "    #0 0x7f in read_after_free test_plugin.c:219\n"
      "SUMMARY: AddressSanitizer: heap-use-after-free test_plugin.c:219 in read_after_free\n"
      "==4242==ABORTING\n";
  EXPECT_EQ(sanitizer_report(output),
            "AddressSanitizer: heap-use-after-free on address 0x6040 at pc 0x7f "
            "(SUMMARY: AddressSanitizer: heap-use-after-free test_plugin.c:219 in "
            "read_after_free)");
}

TEST(SanitizerReportTest, QuotesEachSanitizer) {
  EXPECT_EQ(sanitizer_report("==1==ERROR: LeakSanitizer: detected memory leaks\n"),
            "LeakSanitizer: detected memory leaks");
  EXPECT_EQ(sanitizer_report("WARNING: ThreadSanitizer: data race (pid=7)\n  Write\n"
                             "SUMMARY: ThreadSanitizer: data race a.c:3 in f\n"),
            "ThreadSanitizer: data race (pid=7) (SUMMARY: ThreadSanitizer: data race a.c:3 in f)");
  EXPECT_EQ(sanitizer_report("x\nplugin.c:12:7: runtime error: signed integer overflow\n"),
            "plugin.c:12:7: runtime error: signed integer overflow");
}

TEST(SanitizerReportTest, TheFirstReportIsQuoted) {
  EXPECT_EQ(sanitizer_report("a.c:1:1: runtime error: first\n"
                             "==1==ERROR: AddressSanitizer: SEGV on unknown address\n"),
            "a.c:1:1: runtime error: first");
}

TEST(SanitizerReportTest, OutputWithoutAReportQuotesNothing) {
  EXPECT_EQ(sanitizer_report(""), "");
  EXPECT_EQ(sanitizer_report("PASS\nSUMMARY: all good\nERROR: plugin said so\n"), "");
}

}  // namespace
}  // namespace halo::cts
