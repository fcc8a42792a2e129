// Text from the plugin under test made safe for the reports.
//
// A case's reason and a worker's output hold whatever bytes the plugin
// printed, yet the JUnit file must stay well-formed XML 1.0 in UTF-8, and
// a report that quotes only part of a text must not cut a character in
// two. Header-only, so that the report fuzzer and the unit tests compile
// exactly what halo-cts runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace halo::cts {

// U+FFFD REPLACEMENT CHARACTER: what stands for each byte that is not part
// of a well-formed character, and for each character XML 1.0 forbids.
inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The length of the well-formed UTF-8 character at |at|, or 0 when the
// bytes there are not one (a stray continuation byte, a truncated, overlong
// or surrogate sequence, a value above U+10FFFF). The noncharacters U+FFFE
// and U+FFFF count as not well-formed too: XML 1.0 forbids them.
inline size_t utf8_length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(at);
  const size_t length = first < 0x80 ? 1 : (first >> 5) == 0x6 ? 2
                        : (first >> 4) == 0xE ? 3 : (first >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  uint32_t value = length == 1 ? first : first & (0x7Fu >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    value = (value << 6) | (byte(at + i) & 0x3F);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kSmallest[length] || value > 0x10FFFF ||
      (value >= 0xD800 && value <= 0xDFFF) || value == 0xFFFE || value == 0xFFFF) {
    return 0;
  }
  return length;
}

// True for a byte that continues a UTF-8 character (10xxxxxx).
inline bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The last |limit| bytes of |text| or fewer, starting on a character
// boundary: at most three continuation bytes (the rest of a character cut
// in two) are left out, so that bytes which were never part of a character
// still show.
inline std::string_view utf8_suffix(std::string_view text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t start = text.size() - limit;
  for (int skipped = 0; skipped < 3 && start < text.size() &&
                        is_continuation_byte(text[start]);
       ++skipped) {
    ++start;
  }
  return text.substr(start);
}

// The first |limit| bytes of |text| or fewer, ending on a character
// boundary: a character that the limit would cut is left out whole.
inline std::string_view utf8_prefix(std::string_view text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  // The last character that starts before |end|, within a character's
  // length of it, is kept only if it ends by |end|.
  for (size_t back = 1; back <= 3 && back <= end; ++back) {
    const size_t start = end - back;
    if (is_continuation_byte(text[start])) continue;
    const size_t length = utf8_length(text, start);
    if (length > back) end = start;
    break;
  }
  return text.substr(0, end);
}

// The tail of a log quoted in a report: the last |limit| bytes (its end
// says most), from a character boundary, marked with "…" when cut.
inline std::string quoted_tail(std::string_view text, size_t limit) {
  const std::string_view kept = utf8_suffix(text, limit);
  if (kept.size() == text.size()) return std::string(text);
  return "…" + std::string(kept);
}

// Where an XML text is put: character data, or an attribute value, in
// which a parser turns a raw tab or line break into a space.
enum class XmlContext { kText, kAttribute };

// |text| as XML 1.0 in UTF-8, whatever its bytes: markup characters
// escaped; each byte that is not part of a well-formed UTF-8 character,
// and each control character XML 1.0 forbids even as a reference (all
// below U+0020 but tab, line feed and carriage return), replaced by
// U+FFFD. A carriage return, and in an attribute a tab or line feed, is
// written as a character reference so that it reads back unchanged.
inline std::string xml_escape(std::string_view text,
                              XmlContext context = XmlContext::kText) {
  std::string escaped;
  escaped.reserve(text.size());
  const bool attribute = context == XmlContext::kAttribute;
  for (size_t at = 0; at < text.size();) {
    const size_t length = utf8_length(text, at);
    if (length == 0) {
      escaped += kReplacement;
      ++at;
      continue;
    }
    const char c = text[at];
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\r': escaped += "&#13;"; break;
      case '\n': escaped += attribute ? "&#10;" : "\n"; break;
      case '\t': escaped += attribute ? "&#9;" : "\t"; break;
      default:
        if (length == 1 && static_cast<unsigned char>(c) < 0x20) {
          escaped += kReplacement;
        } else {
          escaped.append(text, at, length);
        }
    }
    at += length;
  }
  return escaped;
}

}  // namespace halo::cts
