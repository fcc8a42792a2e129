// Plugin text in the reports (cts/runner/report_text.hpp): whatever bytes
// a plugin prints, the JUnit text is XML 1.0 in UTF-8, and a quote of part
// of a text never cuts a character in two.
#include <string>

#include <gtest/gtest.h>

#include "report_text.hpp"

namespace halo::cts {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";
const std::string kEuro = "\xE2\x82\xAC";      // 3 bytes.
const std::string kEmoji = "\xF0\x9F\x98\x80";  // 4 bytes.

TEST(ReportTextTest, MarkupIsEscaped) {
  EXPECT_EQ(xml_escape("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
}

TEST(ReportTextTest, WellFormedUtf8IsKept) {
  const std::string text = "caf\xC3\xA9 " + kEuro + kEmoji;
  EXPECT_EQ(xml_escape(text), text);
}

TEST(ReportTextTest, EachInvalidByteBecomesOneReplacement) {
  // A stray continuation byte, a lead byte without its continuation, an
  // overlong '/', a surrogate, a value above U+10FFFF, and U+FFFF.
  EXPECT_EQ(xml_escape("a\x80z"), "a" + kFffd + "z");
  EXPECT_EQ(xml_escape("a\xC3z"), "a" + kFffd + "z");
  EXPECT_EQ(xml_escape("\xC0\xAF"), kFffd + kFffd);
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(xml_escape("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(xml_escape("\xEF\xBF\xBF"), kFffd + kFffd + kFffd);
  EXPECT_EQ(xml_escape("\xFF\xFE"), kFffd + kFffd);
  // A character cut at the end of the text.
  EXPECT_EQ(xml_escape("x" + kEuro.substr(0, 2)), "x" + kFffd + kFffd);
}

TEST(ReportTextTest, ControlCharactersXmlForbidsAreReplaced) {
  EXPECT_EQ(xml_escape(std::string("a\0b", 3)), "a" + kFffd + "b");
  EXPECT_EQ(xml_escape("\x1B[31mred"), kFffd + "[31mred");
  EXPECT_EQ(xml_escape("\x01\x1F\x7F"), kFffd + kFffd + "\x7F");
}

TEST(ReportTextTest, LineBreaksAndTabsReadBackUnchanged) {
  EXPECT_EQ(xml_escape("a\tb\nc\r\n"), "a\tb\nc&#13;\n");
  EXPECT_EQ(xml_escape("a\tb\nc\r", XmlContext::kAttribute), "a&#9;b&#10;c&#13;");
}

TEST(ReportTextTest, SuffixStartsOnACharacterBoundary) {
  const std::string text = "ab" + kEuro + kEuro;  // 8 bytes.
  EXPECT_EQ(utf8_suffix(text, 100), text);
  EXPECT_EQ(utf8_suffix(text, 6), kEuro + kEuro);
  EXPECT_EQ(utf8_suffix(text, 5), kEuro) << "the cut euro sign is left out";
  EXPECT_EQ(utf8_suffix(text, 4), kEuro);
  EXPECT_EQ(utf8_suffix(text, 2), "");
  EXPECT_EQ(utf8_suffix(kEmoji + kEmoji, 7), kEmoji);
}

TEST(ReportTextTest, SuffixOfBytesThatAreNoCharacterKeepsThem) {
  // Only the rest of one character is ever left out.
  const std::string text(20, '\x80');
  EXPECT_EQ(utf8_suffix(text, 10).size(), 7u);
}

TEST(ReportTextTest, PrefixEndsOnACharacterBoundary) {
  const std::string text = kEuro + kEuro + "ab";
  EXPECT_EQ(utf8_prefix(text, 100), text);
  EXPECT_EQ(utf8_prefix(text, 6), kEuro + kEuro);
  EXPECT_EQ(utf8_prefix(text, 5), kEuro);
  EXPECT_EQ(utf8_prefix(text, 4), kEuro);
  EXPECT_EQ(utf8_prefix(text, 3), kEuro);
  EXPECT_EQ(utf8_prefix(text, 2), "");
  EXPECT_EQ(utf8_prefix(kEmoji + "a", 3), "");
  // Bytes that are no character are cut like any other.
  EXPECT_EQ(utf8_prefix("\xFF\xFF\xFF\xFF", 2), "\xFF\xFF");
}

TEST(ReportTextTest, QuotedTailIsMarkedOnlyWhenCut) {
  EXPECT_EQ(quoted_tail("short", 10), "short");
  EXPECT_EQ(quoted_tail("a" + kEuro + "b", 3), "…b");
  EXPECT_EQ(quoted_tail("a" + kEuro + "b", 4), "…" + kEuro + "b");
}

}  // namespace
}  // namespace halo::cts
