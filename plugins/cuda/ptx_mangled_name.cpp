// Demangling of kernel names (ptx_mangled_name.hpp), after the Itanium C++
// ABI's <mangled-name> grammar, cut down to what a kernel's name holds.
#include "ptx_mangled_name.hpp"

#include <utility>

namespace halo::cuda {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// What a mangled type is, as far as halo cares.
enum class TypeKind {
  kBuiltin,    // int, float, …: a scalar of |size| bytes (0 for void)
  kPointer,    // a pointer to anything
  kQualified,  // a const, volatile or restrict type (only ever pointed to)
  kClass,      // a class, struct, union or enum, by name
  kArray,      // an array type (only ever pointed to)
  kPrefix,     // a namespace, as the prefix of a nested name
};

struct MangledType {
  TypeKind kind = TypeKind::kBuiltin;
  uint32_t size = 0;
  bool is_void = false;
};

// How deep types may nest (pointer to pointer to …), so that a hostile name
// cannot exhaust the stack.
constexpr int kMaxTypeDepth = 32;

class Demangler {
 public:
  explicit Demangler(std::string_view name) : s_(name) {}

  // Reads the whole name into |out| (demangle_kernel_name).
  std::string demangle(DemangledKernelName* out);

 private:
  bool fail(const char* why) {
    if (why_.empty()) why_ = why;
    return false;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0';
  }
  bool read_source_name(std::string_view* out);
  bool read_function_name(std::string* display);
  bool read_nested_name(std::string* display, bool is_type);
  bool read_type(MangledType* out, int depth);
  bool read_builtin(MangledType* out);
  bool read_substitution(MangledType* out);
  bool refuse_type(char code);

  std::string_view s_;
  size_t pos_ = 0;
  // The substitution candidates, in the order the ABI numbers them.
  std::vector<MangledType> candidates_;
  std::string why_;
};

// <source-name> ::= <positive length number> <identifier>
bool Demangler::read_source_name(std::string_view* out) {
  if (!is_digit(peek()) || peek() == '0') {
    return fail("a name is not a length and an identifier");
  }
  size_t length = 0;
  while (is_digit(peek())) {
    length = length * 10 + static_cast<size_t>(peek() - '0');
    ++pos_;
    if (length > s_.size()) return fail("a name's length runs past its end");
  }
  if (length > s_.size() - pos_) return fail("a name's length runs past its end");
  *out = s_.substr(pos_, length);
  pos_ += length;
  return true;
}

// Why a name component starting with |c| is refused: only plain names
// (<source-name>) are read.
const char* unreadable_component(char c) {
  if (c == 'I') return "it has template arguments";
  if (c == 'C' || c == 'D') return "it is a constructor or destructor";
  if (c >= 'a' && c <= 'z') return "it is an operator";
  if (c == 'U') return "it names a lambda or unnamed type";
  if (c == 'B') return "it has an ABI tag";
  return "its name holds more than namespaces and plain names";
}

// A name's component as c++filt prints it.
std::string_view display_component(std::string_view source_name) {
  constexpr std::string_view kAnonymous = "_GLOBAL__N";
  return source_name.substr(0, kAnonymous.size()) == kAnonymous
             ? std::string_view("(anonymous namespace)")
             : source_name;
}

// <nested-name> ::= N <prefix>... <unqualified-name> E, for namespaces and
// classes only. Every prefix is a substitution candidate; the whole name
// is one too when it names a type, not when it names the function.
bool Demangler::read_nested_name(std::string* display, bool is_type) {
  ++pos_;  // N
  const char first = peek();
  if (first == 'K' || first == 'V' || first == 'r' || first == 'R' ||
      first == 'O') {
    return fail("it is a member function");
  }
  bool first_component = true;
  // Whether the components read so far are a prefix no candidate names yet
  // (a leading substitution is one already).
  bool new_prefix = false;
  while (true) {
    if (at_end()) return fail("a nested name has no end");
    if (peek() == 'E') break;
    if (new_prefix) candidates_.push_back({TypeKind::kPrefix, 0, false});
    new_prefix = true;
    if (first_component && peek() == 'S') {
      if (!is_type) return fail("it names a std:: function");
      MangledType prefix;
      if (!read_substitution(&prefix)) return false;
      new_prefix = false;
    } else {
      if (!is_type && peek() == 'L') ++pos_;
      if (!is_digit(peek())) return fail(unreadable_component(peek()));
      std::string_view component;
      if (!read_source_name(&component)) return false;
      if (!is_type) {
        if (!display->empty()) *display += "::";
        *display += display_component(component);
      }
    }
    first_component = false;
  }
  ++pos_;  // E
  if (first_component) return fail("a nested name is empty");
  if (!new_prefix) return fail("a nested name is a lone substitution");
  if (is_type) candidates_.push_back({TypeKind::kClass, 0, false});
  if (!is_type && display->find("::") == std::string::npos) {
    return fail("a nested name has one component");
  }
  return true;
}

// <name> of the function: unscoped (with L for internal linkage) or nested.
bool Demangler::read_function_name(std::string* display) {
  const char c = peek();
  if (c == 'N') return read_nested_name(display, false);
  if (c == 'Z') return fail("it is a function local to another");
  if (c == 'S') return fail("it names a std:: function");
  if (c == 'L') ++pos_;
  if (!is_digit(peek())) return fail(unreadable_component(peek()));
  std::string_view name;
  if (!read_source_name(&name)) return false;
  *display = display_component(name);
  return true;
}

// <builtin-type>: the ones with a size a kernel parameter may have, and
// void for pointees.
bool Demangler::read_builtin(MangledType* out) {
  struct Builtin {
    char code;
    uint32_t size;
  };
  static constexpr Builtin kBuiltins[] = {
      {'b', 1}, {'c', 1}, {'a', 1},  {'h', 1},  {'s', 2}, {'t', 2},
      {'i', 4}, {'j', 4}, {'l', 8},  {'m', 8},  {'x', 8}, {'y', 8},
      {'n', 16}, {'o', 16}, {'f', 4}, {'d', 8}, {'e', 16}, {'g', 16},
      {'w', 4}};
  const char c = peek();
  if (c == 'v') {
    ++pos_;
    *out = {TypeKind::kBuiltin, 0, true};
    return true;
  }
  for (const Builtin& builtin : kBuiltins) {
    if (builtin.code == c) {
      ++pos_;
      *out = {TypeKind::kBuiltin, builtin.size, false};
      return true;
    }
  }
  if (c != 'D') return fail("it has a type code halo does not know");
  // D-prefixed: half (Dh), char32_t, char16_t, char8_t, _FloatN (DF<N>_).
  const char d = peek(1);
  uint32_t size = d == 'h' ? 2 : d == 'i' ? 4 : d == 's' ? 2 : d == 'u' ? 1 : 0;
  if (size != 0) {
    pos_ += 2;
  } else if (d == 'F') {
    const std::string_view rest = s_.substr(pos_ + 2);
    for (const auto& [text, bytes] :
         {std::pair<std::string_view, uint32_t>{"16_", 2}, {"32_", 4},
          {"64_", 8}, {"16b", 2}}) {
      if (rest.substr(0, text.size()) == text) {
        size = bytes;
        pos_ += 2 + text.size();
        break;
      }
    }
  }
  if (size == 0) return fail("it has a type halo does not know (D...)");
  *out = {TypeKind::kBuiltin, size, false};
  return true;
}

// <substitution> ::= S_ | S <base-36 seq-id> _ : a candidate seen before.
bool Demangler::read_substitution(MangledType* out) {
  ++pos_;  // S
  size_t index = 0;
  if (peek() != '_') {
    size_t seq = 0;
    while (true) {
      const char c = peek();
      if (c >= '0' && c <= '9') {
        seq = seq * 36 + static_cast<size_t>(c - '0');
      } else if (c >= 'A' && c <= 'Z') {
        seq = seq * 36 + static_cast<size_t>(c - 'A' + 10);
      } else {
        break;
      }
      ++pos_;
      if (seq >= candidates_.size()) {
        return fail("a substitution refers to nothing seen before");
      }
    }
    if (peek() != '_') {
      return fail("it uses a std:: substitution (St, Sa, Ss, ...)");
    }
    index = seq + 1;
  }
  ++pos_;  // _
  if (index >= candidates_.size()) {
    return fail("a substitution refers to nothing seen before");
  }
  *out = candidates_[index];
  if (peek() == 'I') return fail("it has template arguments");
  return true;
}

// Says why a type code outside read_type's set is refused.
bool Demangler::refuse_type(char code) {
  switch (code) {
    case 'R':
    case 'O':
      return fail("it takes a reference");
    case 'F':
      return fail("it takes a function pointer");
    case 'M':
      return fail("it takes a pointer to member");
    case 'T':
    case 'I':
      return fail("it has template arguments");
    case 'u':
    case 'U':
      return fail("it has a vendor-extended type or qualifier");
    case 'z':
      return fail("it takes variadic arguments");
    default:
      return fail("it has a type code halo does not know");
  }
}

// <type>, for the types kernel parameters have; every type but a builtin
// and a substitution is a new substitution candidate.
bool Demangler::read_type(MangledType* out, int depth) {
  if (depth > kMaxTypeDepth) return fail("its types nest too deeply");
  const char c = peek();
  if (c == 'P') {
    ++pos_;
    MangledType pointee;
    if (!read_type(&pointee, depth + 1)) return false;
    *out = {TypeKind::kPointer, 8, false};
  } else if (c == 'r' || c == 'V' || c == 'K') {
    // The qualifiers come as one group; the qualified type is one candidate.
    bool seen[3] = {false, false, false};
    while (peek() == 'r' || peek() == 'V' || peek() == 'K') {
      const int which = peek() == 'r' ? 0 : peek() == 'V' ? 1 : 2;
      if (seen[which]) return fail("a qualifier is repeated");
      seen[which] = true;
      ++pos_;
    }
    MangledType qualified;
    if (!read_type(&qualified, depth + 1)) return false;
    *out = {TypeKind::kQualified, qualified.size, false};
  } else if (c == 'A') {
    ++pos_;
    while (is_digit(peek())) ++pos_;
    if (peek() != '_') return fail("an array type has no _");
    ++pos_;
    MangledType element;
    if (!read_type(&element, depth + 1)) return false;
    *out = {TypeKind::kArray, 0, false};
  } else if (c == 'S') {
    return read_substitution(out);
  } else if (c == 'N') {
    std::string unused;
    if (!read_nested_name(&unused, true)) return false;
    if (peek() == 'I') return fail("it has template arguments");
    *out = {TypeKind::kClass, 0, false};
    return true;  // read_nested_name added the candidate
  } else if (is_digit(c)) {
    std::string_view name;
    if (!read_source_name(&name)) return false;
    if (peek() == 'I') return fail("it has template arguments");
    *out = {TypeKind::kClass, 0, false};
  } else if ((c >= 'a' && c <= 'z' && c != 'u' && c != 'z') || c == 'D') {
    return read_builtin(out);
  } else {
    return refuse_type(c);
  }
  candidates_.push_back(*out);
  return true;
}

// The kind a parameter of type |type| has.
CxxParameterType parameter_type(const MangledType& type) {
  switch (type.kind) {
    case TypeKind::kPointer:
      return {CxxParameterType::Kind::kPointer, 8};
    case TypeKind::kBuiltin:
      if (type.is_void) break;
      return {CxxParameterType::Kind::kBuiltin, type.size};
    case TypeKind::kClass:
      return {CxxParameterType::Kind::kClass, 0};
    default:
      break;
  }
  return {CxxParameterType::Kind::kOther, 0};
}

std::string Demangler::demangle(DemangledKernelName* out) {
  if (s_.substr(0, 2) != "_Z") return "it is not a mangled name";
  pos_ = 2;
  if (!read_function_name(&out->display_name)) return why_;
  if (peek() == 'I') return "it has template arguments";
  if (at_end()) return "it has no parameter types";
  std::vector<MangledType> types;
  while (!at_end()) {
    MangledType type;
    if (!read_type(&type, 0)) return why_;
    types.push_back(type);
  }
  // (void) is a function of no parameters.
  if (types.size() == 1 && types[0].kind == TypeKind::kBuiltin &&
      types[0].is_void) {
    types.clear();
  }
  for (const MangledType& type : types) {
    out->parameters.push_back(parameter_type(type));
  }
  return std::string();
}

}  // namespace

std::string demangle_kernel_name(std::string_view name,
                                 DemangledKernelName* out) {
  *out = DemangledKernelName();
  return Demangler(name).demangle(out);
}

}  // namespace halo::cuda
