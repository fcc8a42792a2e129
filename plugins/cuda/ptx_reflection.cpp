// Reflection of PTX text (ptx_reflection.hpp): a lexer that skips comments
// and strings, and a reader of .entry declarations. Mangled names are read
// by ptx_mangled_name.cpp.
#include "ptx_reflection.hpp"

#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "ptx_mangled_name.hpp"

namespace halo::cuda {
namespace {

// ---------------------------------------------------------------------------
// Messages.

// The most bytes of input a message quotes: enough for any accepted name.
constexpr size_t kQuoteLimit = kPtxMaxNameLength + 1;

// |text| for a message: printable ASCII as it is, any other byte (and the
// quote and backslash) as \xNN, cut after kQuoteLimit bytes, so that a
// message stays printable ASCII whatever the input holds.
std::string escape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < kQuoteLimit; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    }
  }
  if (text.size() > kQuoteLimit) out += "...";
  return out;
}

std::string quote(std::string_view text) {
  return "'" + escape(text) + "'";
}

// ---------------------------------------------------------------------------
// Lexer.

bool is_letter(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
// What may follow the first character of a PTX identifier.
bool is_follow(unsigned char c) {
  return is_letter(c) || is_digit(c) || c == '_' || c == '$';
}

enum class TokenType {
  kEnd,
  kDirective,   // .entry, .u32, …
  kIdentifier,  // names, registers
  kNumber,      // 64, 0x40, 0f3F800000, …
  kString,
  kPunctuation,  // one byte: ( ) { } [ ] , ; …
  kOther,        // one byte that is no part of PTX's syntax
};

struct Token {
  TokenType type = TokenType::kEnd;
  std::string_view text;
  size_t offset = 0;

  bool is(char c) const {
    return type == TokenType::kPunctuation && text[0] == c;
  }
  bool is_directive(std::string_view name) const {
    return type == TokenType::kDirective && text == name;
  }
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // Reads the next token into |out| (kEnd at the end of the text). Returns
  // false, with |error| set, for a comment or string left open.
  bool next(Token* out, std::string* error);

  // The 1-based line of |offset|, for messages.
  size_t line_of(size_t offset) const {
    size_t line = 1;
    for (size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') ++line;
    }
    return line;
  }

 private:
  bool skip_space_and_comments(std::string* error);
  size_t skip_while_follow(size_t from) const {
    while (from < text_.size() &&
           is_follow(static_cast<unsigned char>(text_[from]))) {
      ++from;
    }
    return from;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool Lexer::skip_space_and_comments(std::string* error) {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos_;
    } else if (text_.compare(pos_, 2, "//") == 0) {
      const size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    } else if (text_.compare(pos_, 2, "/*") == 0) {
      const size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) {
        *error = "a /* comment opened at line " +
                 std::to_string(line_of(pos_)) + " is never closed";
        return false;
      }
      pos_ = end + 2;
    } else {
      return true;
    }
  }
  return true;
}

bool Lexer::next(Token* out, std::string* error) {
  if (!skip_space_and_comments(error)) return false;
  const size_t begin = pos_;
  out->offset = begin;
  if (begin == text_.size()) {
    out->type = TokenType::kEnd;
    out->text = {};
    return true;
  }
  const unsigned char c = static_cast<unsigned char>(text_[begin]);
  size_t end = begin + 1;
  if (c == '.' && end < text_.size() &&
      is_follow(static_cast<unsigned char>(text_[end]))) {
    out->type = TokenType::kDirective;
    end = skip_while_follow(end);
  } else if (is_letter(c) || c == '_' || c == '$' || c == '%') {
    out->type = TokenType::kIdentifier;
    end = skip_while_follow(end);
  } else if (is_digit(c)) {
    out->type = TokenType::kNumber;
    while (end < text_.size() &&
           (is_follow(static_cast<unsigned char>(text_[end])) ||
            text_[end] == '.')) {
      ++end;
    }
  } else if (c == '"') {
    out->type = TokenType::kString;
    while (end < text_.size() && text_[end] != '"') {
      end += text_[end] == '\\' ? 2 : 1;
    }
    if (end >= text_.size()) {
      *error = "a string opened at line " + std::to_string(line_of(begin)) +
               " is never closed";
      return false;
    }
    ++end;
  } else if (c >= 0x21 && c < 0x7f) {
    out->type = TokenType::kPunctuation;
  } else {
    out->type = TokenType::kOther;
  }
  out->text = text_.substr(begin, end - begin);
  pos_ = end;
  return true;
}

// Reads a PTX integer literal (decimal, 0x hexadecimal, 0b binary or 0
// octal, with an optional U suffix) of at most 32 bits. Returns false for
// anything else, a float literal included.
bool parse_u32(std::string_view text, uint32_t* out) {
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) {
    text.remove_suffix(1);
  }
  uint32_t base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' &&
             (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  uint64_t value = 0;
  for (const char c : text) {
    uint32_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    if (digit >= base) return false;
    value = value * base + digit;
    if (value > UINT32_MAX) return false;
  }
  *out = static_cast<uint32_t>(value);
  return true;
}

// ---------------------------------------------------------------------------
// Reader of the .entry declarations.

// A parameter as the PTX declares it.
struct PtxDeclaredParameter {
  std::string name;
  uint32_t size = 0;
  bool pointer_qualified = false;  // .ptr
};

// An entry as it is being read.
struct EntryInProgress {
  PtxEntry entry;
  std::vector<PtxDeclaredParameter> declared;
  // Filled when the name is mangled and the demangler read it.
  DemangledKernelName mangled;
  bool is_mangled = false;
  // Why the mangled name cannot be read, and the first parameter the plugin
  // cannot take: reported only if the entry has a body, because a
  // declaration of a function defined elsewhere is no entry point of this
  // module.
  std::string demangle_error;
  std::string parameter_error;
  // Parameters read, also past kPtxMaxParameters (which are not kept).
  size_t parameter_count = 0;
  bool has_reqntid = false;
  bool has_maxntid = false;
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t maxntid[3] = {0, 0, 0};
};

// "entry point 'saxpy' (_Z5saxpyPfPKffj)", or "entry point 'name'".
std::string describe_entry(const EntryInProgress& e) {
  std::string text = "entry point " + quote(e.entry.display_name);
  if (e.entry.display_name != e.entry.name) {
    text += " (" + escape(e.entry.name) + ")";
  }
  return text;
}

std::string describe_parameter(const EntryInProgress& e, size_t index,
                               const std::string& name) {
  return describe_entry(e) + ", parameter " + std::to_string(index) + " (" +
         quote(name) + ")";
}

// Why the plugin cannot take parameter |index|, |p|, declared with the
// type directive |unsupported| (if any); empty if it can.
std::string why_unsupported(const EntryInProgress& e, size_t index,
                            const PtxDeclaredParameter& p, bool is_array,
                            const std::string& unsupported) {
  const auto what = [&] { return describe_parameter(e, index, p.name); };
  if (is_array) {
    return what() + " is an array (a struct or array passed by value): pass "
                    "a pointer to it instead";
  }
  if (!unsupported.empty()) {
    return what() + " is declared " + quote(unsupported) +
           ": parameters must be 32- or 64-bit scalars (.u32, .s32, .f32, "
           ".b32, .u64, .s64, .f64, .b64) or pointers";
  }
  if (p.size == 0) return what() + " has no type";
  if (p.pointer_qualified && p.size != 8) {
    return what() + " is a 32-bit pointer: pointers must be 64 bits";
  }
  return std::string();
}

class Reader {
 public:
  explicit Reader(std::string_view text) : lexer_(text) {}

  // Reads every entry into |out|; on failure, leaves |out| with no entries
  // and the reason in |out->error|.
  void read(PtxReflection* out) {
    if (!read_all(out)) {
      out->entries.clear();
      out->error = std::move(error_);
    }
  }

 private:
  bool read_all(PtxReflection* out);
  bool next() { return lexer_.next(&token_, &error_); }
  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  std::string at_line(size_t offset) const {
    return " at line " + std::to_string(lexer_.line_of(offset));
  }
  std::string at_line() const { return at_line(token_.offset); }
  bool read_entry(PtxReflection* out, bool* has_body);
  bool read_parameters(EntryInProgress* e);
  bool read_parameter(EntryInProgress* e);
  bool read_type_qualifiers(EntryInProgress* e, PtxDeclaredParameter* p,
                            std::string* unsupported);
  bool read_directives(EntryInProgress* e, bool* has_body);
  bool read_dimensions(EntryInProgress* e, uint32_t (*out)[3],
                       bool* seen);
  bool classify(EntryInProgress* e);
  bool classify_mangled(EntryInProgress* e);
  void classify_unmangled(EntryInProgress* e);
  bool check_entry(EntryInProgress* e);

  Lexer lexer_;
  Token token_;
  std::string error_;
  std::unordered_set<std::string> names_;
  std::unordered_set<std::string> display_names_;
};

bool Reader::read_all(PtxReflection* out) {
  size_t depth = 0;
  size_t outer_brace = 0;
  if (!next()) return false;
  while (token_.type != TokenType::kEnd) {
    if (token_.is('{')) {
      if (depth++ == 0) outer_brace = token_.offset;
    } else if (token_.is('}')) {
      if (depth == 0) return fail("an unmatched '}'" + at_line());
      --depth;
    } else if (depth == 0 && token_.is_directive(".entry")) {
      bool has_body = false;
      if (!read_entry(out, &has_body)) return false;
      // read_entry stops on the body's '{'.
      if (has_body) {
        depth = 1;
        outer_brace = token_.offset;
      }
    }
    if (!next()) return false;
  }
  if (depth != 0) {
    return fail("a '{' opened at line " +
                std::to_string(lexer_.line_of(outer_brace)) +
                " is never closed");
  }
  return true;
}

bool Reader::read_entry(PtxReflection* out, bool* has_body) {
  const size_t entry_offset = token_.offset;
  if (!next()) return false;
  if (token_.type != TokenType::kIdentifier) {
    return fail("the .entry" + at_line(entry_offset) + " has no name");
  }
  EntryInProgress e;
  e.entry.name = std::string(token_.text);
  e.entry.display_name = e.entry.name;
  if (e.entry.name.compare(0, 2, "_Z") == 0) {
    e.is_mangled = true;
    e.demangle_error = demangle_kernel_name(e.entry.name, &e.mangled);
    if (e.demangle_error.empty()) e.entry.display_name = e.mangled.display_name;
  }
  if (!next()) return false;
  if (token_.is('(')) {
    if (!read_parameters(&e)) return false;
    if (!next()) return false;
  }
  if (!read_directives(&e, has_body)) return false;
  if (!*has_body) return true;  // a declaration
  if (!e.demangle_error.empty()) {
    return fail("entry point " + quote(e.entry.name) +
                ": its C++ name cannot be read: " + e.demangle_error +
                "; halo reads C++ names of functions outside classes "
                "and templates, and names of C linkage");
  }
  if (!e.parameter_error.empty()) return fail(std::move(e.parameter_error));
  if (!classify(&e) || !check_entry(&e)) return false;
  if (out->entries.size() == kPtxMaxEntries) {
    return fail("the PTX defines more than " +
                std::to_string(kPtxMaxEntries) + " entry points");
  }
  out->entries.push_back(std::move(e.entry));
  return true;
}

bool Reader::read_parameters(EntryInProgress* e) {
  if (!next()) return false;
  if (token_.is(')')) return true;
  while (true) {
    if (!read_parameter(e)) return false;
    ++e->parameter_count;
    if (token_.is(')')) return true;
    if (!token_.is(',')) {
      return fail(describe_entry(*e) + ": expected ',' or ')' after parameter " +
                  std::to_string(e->parameter_count - 1) + ", found " +
                  quote(token_.text) + at_line());
    }
    if (!next()) return false;
  }
}

// Reads the directives between .param and the parameter's name. Types other
// than the 32- and 64-bit ones land in |unsupported|, so that the message
// can name the parameter.
bool Reader::read_type_qualifiers(EntryInProgress* e, PtxDeclaredParameter* p,
                                  std::string* unsupported) {
  static constexpr std::string_view k32[] = {".u32", ".s32", ".f32", ".b32"};
  static constexpr std::string_view k64[] = {".u64", ".s64", ".f64", ".b64"};
  static constexpr std::string_view kSpaces[] = {".global", ".const",
                                                 ".local", ".shared"};
  const size_t index = e->parameter_count;
  while (token_.type == TokenType::kDirective) {
    const std::string_view d = token_.text;
    uint32_t size = 0;
    for (const std::string_view t : k32) size = d == t ? 4 : size;
    for (const std::string_view t : k64) size = d == t ? 8 : size;
    bool is_space = false;
    for (const std::string_view s : kSpaces) is_space = is_space || d == s;
    if (d == ".ptr") {
      p->pointer_qualified = true;
    } else if (is_space && p->pointer_qualified) {
      // The state space a pointer points into: any is a pointer.
    } else if (d == ".align") {
      if (!next()) return false;
      uint32_t align = 0;
      if (token_.type != TokenType::kNumber || !parse_u32(token_.text, &align) ||
          align == 0 || (align & (align - 1)) != 0) {
        return fail(describe_entry(*e) + ", parameter " + std::to_string(index) +
                    ": .align takes a power of two" + at_line());
      }
    } else if (size != 0 && p->size == 0) {
      p->size = size;
    } else if (size != 0) {
      return fail(describe_entry(*e) + ", parameter " + std::to_string(index) +
                  " has two types" + at_line());
    } else if (unsupported->empty()) {
      *unsupported = std::string(d);
    }
    if (!next()) return false;
  }
  return true;
}

// Reads one parameter. Malformed PTX fails at once; a well-formed
// parameter the plugin cannot take sets e->parameter_error.
bool Reader::read_parameter(EntryInProgress* e) {
  const size_t index = e->parameter_count;
  if (!token_.is_directive(".param")) {
    return fail(describe_entry(*e) + ", parameter " + std::to_string(index) +
                ": expected .param, found " + quote(token_.text) + at_line());
  }
  if (!next()) return false;
  PtxDeclaredParameter p;
  std::string unsupported;
  if (!read_type_qualifiers(e, &p, &unsupported)) return false;
  if (token_.type != TokenType::kIdentifier) {
    return fail(describe_entry(*e) + ", parameter " + std::to_string(index) +
                ": expected a name, found " + quote(token_.text) + at_line());
  }
  p.name = std::string(token_.text);
  if (!next()) return false;
  const bool is_array = token_.is('[');
  if (is_array) {
    if (!next()) return false;
    if (token_.type == TokenType::kNumber && !next()) return false;
    if (!token_.is(']')) {
      return fail(describe_parameter(*e, index, p.name) +
                  ": its array size is not closed by ']'" + at_line());
    }
    if (!next()) return false;
  }
  if (e->parameter_error.empty()) {
    e->parameter_error = why_unsupported(*e, index, p, is_array, unsupported);
  }
  if (e->declared.size() < kPtxMaxParameters) {
    e->declared.push_back(std::move(p));
  } else if (e->parameter_error.empty()) {
    e->parameter_error = describe_entry(*e) + " has more than " +
                         std::to_string(kPtxMaxParameters) + " parameters";
  }
  return true;
}

// Reads .maxntid or .reqntid's one to three dimensions into |out|.
bool Reader::read_dimensions(EntryInProgress* e, uint32_t (*out)[3],
                             bool* seen) {
  const std::string directive(token_.text);
  if (*seen) {
    return fail(describe_entry(*e) + " declares " + directive + " twice");
  }
  *seen = true;
  uint32_t dims[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    if (!next()) return false;
    if (token_.type != TokenType::kNumber || !parse_u32(token_.text, &dims[d]) ||
        dims[d] == 0) {
      return fail(describe_entry(*e) + ": " + directive +
                  " takes one to three integers from 1 to 4294967295, found " +
                  quote(token_.text) + at_line());
    }
    if (!next()) return false;
    if (!token_.is(',')) break;
    if (d == 2) {
      return fail(describe_entry(*e) + ": " + directive +
                  " has more than three dimensions" + at_line());
    }
  }
  for (int d = 0; d < 3; ++d) (*out)[d] = dims[d];
  return true;
}

// Reads the directives between the parameter list and the body (or the ';'
// of a declaration), leaving token_ on the '{' or ';'.
bool Reader::read_directives(EntryInProgress* e, bool* has_body) {
  while (true) {
    if (token_.is('{')) {
      *has_body = true;
      break;
    }
    if (token_.is(';')) break;
    if (token_.is_directive(".reqntid")) {
      if (!read_dimensions(e, &e->reqntid, &e->has_reqntid)) return false;
      continue;  // read_dimensions read the next token
    }
    if (token_.is_directive(".maxntid")) {
      if (!read_dimensions(e, &e->maxntid, &e->has_maxntid)) return false;
      continue;
    }
    if (token_.is_directive(".pragma")) {
      // `.pragma "..."[, "..."];` ends with a ';' of its own.
      do {
        if (!next()) return false;
      } while (token_.type == TokenType::kString || token_.is(','));
      if (!token_.is(';')) {
        return fail(describe_entry(*e) + ": a .pragma does not end with ';'" +
                    at_line());
      }
    } else if (token_.type == TokenType::kEnd) {
      return fail(describe_entry(*e) + " has neither a body nor a ';'");
    } else if (token_.type != TokenType::kDirective &&
               token_.type != TokenType::kNumber && !token_.is(',')) {
      // Performance directives (.maxnreg 32, .minnctapersm 2, …) are
      // directives and numbers; anything else is not PTX.
      return fail(describe_entry(*e) + ": unexpected " + quote(token_.text) +
                  " before its body" + at_line());
    }
    if (!next()) return false;
  }
  const uint32_t* size = e->has_reqntid   ? e->reqntid
                         : e->has_maxntid ? e->maxntid
                                          : nullptr;
  for (int d = 0; d < 3; ++d) e->entry.workgroup_size[d] = size ? size[d] : 0;
  return true;
}

// Tells pointers from scalars by the C++ parameter types.
bool Reader::classify_mangled(EntryInProgress* e) {
  const std::vector<CxxParameterType>& types = e->mangled.parameters;
  if (types.size() != e->declared.size()) {
    return fail(describe_entry(*e) + ": its C++ name has " +
                std::to_string(types.size()) + " parameters, its PTX " +
                std::to_string(e->declared.size()));
  }
  for (size_t i = 0; i < types.size(); ++i) {
    const PtxDeclaredParameter& p = e->declared[i];
    const auto what = [&] { return describe_parameter(*e, i, p.name); };
    PtxParameter& out = e->entry.parameters[i];
    switch (types[i].kind) {
      case CxxParameterType::Kind::kPointer:
        if (p.size != 8) {
          return fail(what() + " is a pointer of 4 bytes in the PTX");
        }
        out.kind = PtxParameter::Kind::kPointer;
        break;
      case CxxParameterType::Kind::kBuiltin:
        if (p.pointer_qualified) {
          return fail(what() + " is .ptr in the PTX but a scalar in C++");
        }
        if (types[i].size != p.size) {
          return fail(what() + " is " + std::to_string(types[i].size) +
                      " bytes in C++ but " + std::to_string(p.size) +
                      " in the PTX");
        }
        out.kind = PtxParameter::Kind::kScalar;
        break;
      case CxxParameterType::Kind::kClass:
        return fail(what() + " is a class, struct or enum passed by value, "
                    "which halo cannot tell from a pointer or bind: pass a "
                    "builtin type or a pointer");
      case CxxParameterType::Kind::kOther:
        return fail(what() + " has a C++ type no parameter can have");
    }
  }
  return true;
}

// The rule for names that are not mangled (ptx_reflection.hpp).
void Reader::classify_unmangled(EntryInProgress* e) {
  bool leading = true;
  for (size_t i = 0; i < e->declared.size(); ++i) {
    const PtxDeclaredParameter& p = e->declared[i];
    if (p.size != 8) leading = false;
    const bool pointer = p.pointer_qualified || (leading && p.size == 8);
    e->entry.parameters[i].kind =
        pointer ? PtxParameter::Kind::kPointer : PtxParameter::Kind::kScalar;
  }
}

bool Reader::classify(EntryInProgress* e) {
  e->entry.parameters.resize(e->declared.size());
  for (size_t i = 0; i < e->declared.size(); ++i) {
    e->entry.parameters[i].size = e->declared[i].size;
    e->entry.parameters[i].ptx_name = e->declared[i].name;
  }
  if (e->is_mangled) {
    if (!classify_mangled(e)) return false;
  } else {
    classify_unmangled(e);
  }
  bool seen_scalar = false;
  for (size_t i = 0; i < e->entry.parameters.size(); ++i) {
    const PtxParameter& p = e->entry.parameters[i];
    if (p.kind == PtxParameter::Kind::kScalar) {
      seen_scalar = true;
    } else if (seen_scalar) {
      return fail(describe_parameter(*e, i, p.ptx_name) +
                  " is a pointer after a scalar: halo binds buffers to the "
                  "leading pointer parameters only, so pointers must come "
                  "first");
    }
  }
  return true;
}

// The limits on names, and their uniqueness.
bool Reader::check_entry(EntryInProgress* e) {
  const std::string& display = e->entry.display_name;
  if (display.size() > kPtxMaxNameLength) {
    return fail(describe_entry(*e) + ": its name is " +
                std::to_string(display.size()) + " bytes long, more than " +
                std::to_string(kPtxMaxNameLength));
  }
  if (!names_.insert(e->entry.name).second) {
    return fail(describe_entry(*e) + " is defined twice");
  }
  if (!display_names_.insert(display).second) {
    return fail(describe_entry(*e) + ": another entry point is named " +
                quote(display) + " too (C++ overloads cannot both be entry "
                "points)");
  }
  return true;
}

PtxReflection out_of_memory() noexcept {
  PtxReflection result;
  try {
    result.error = "out of memory while reading the PTX text";
  } catch (...) {
    result.error.assign("out of memory");  // fits the string's own storage
  }
  return result;
}

}  // namespace

PtxReflection reflect_ptx(const void* data, size_t size) noexcept {
  try {
    PtxReflection result;
    if (size == 0) return result;
    if (data == nullptr) {
      result.error = "the PTX text is NULL but its size is " +
                     std::to_string(size);
      return result;
    }
    if (size > kPtxMaxSize) {
      result.error = "the PTX text is " + std::to_string(size) +
                     " bytes, more than the " + std::to_string(kPtxMaxSize) +
                     " halo reads";
      return result;
    }
    const char* text = static_cast<const char*>(data);
    // The driver reads the text up to its first NUL; so does reflection.
    const void* nul = std::memchr(text, '\0', size);
    if (nul != nullptr) size = static_cast<size_t>(static_cast<const char*>(nul) - text);
    Reader(std::string_view(text, size)).read(&result);
    return result;
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  } catch (...) {
    PtxReflection result = out_of_memory();
    result.error.assign("internal error");
    return result;
  }
}

}  // namespace halo::cuda
