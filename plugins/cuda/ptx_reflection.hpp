// Reflection of PTX text: the .entry functions of a module, their parameters
// told apart into bindings (pointers) and constants (scalars), and their
// declared block size. It reads the text alone, before the driver compiles
// it, so that a module whose entry points break halo's layout is refused
// with a reason instead of failing at launch. It needs nothing of CUDA (and
// is fuzzed on its own: tests/fuzz/ptx_reflection_fuzzer.cpp).
//
// The text
// - ends at the first NUL byte, if any, as it does for cuModuleLoadData, and
//   is at most kPtxMaxSize bytes. It need not be UTF-8: bytes that are no
//   part of PTX's syntax are refused only inside an entry's declaration.
// - `//` and `/* */` comments and string literals are skipped; one left open
//   is an error, and so are braces that do not balance.
//
// Entry points
// - Every `.entry` at file scope with a body, whatever linkage directives
//   (`.visible`, `.weak`, `.extern`) come before it. An `.entry` ended by `;`
//   declares a function defined elsewhere and is skipped. `.func` functions
//   are never entry points.
// - `name` is the PTX symbol, which cuModuleGetFunction takes: the mangled
//   name of a C++ kernel. `display_name` is the function's name demangled,
//   without parameters (`saxpy` for `_Z5saxpyPfPKffj`, `ns::saxpy` for
//   `_ZN2ns5saxpyEPf`); for a name that is not mangled (extern "C") it is
//   `name`. halo names the entry point `display_name`, so it is at most
//   kPtxMaxNameLength bytes, and no two entries share a `name` or a
//   `display_name` (two C++ overloads would).
//
// Parameters (at most kPtxMaxParameters)
// - `.param .u32|.s32|.f32|.b32 NAME` is a 4-byte scalar;
//   `.param .u64|.s64|.f64|.b64 NAME` is 8 bytes, optionally qualified by
//   `.ptr`, a state space after `.ptr` (`.global`, `.const`, `.local`,
//   `.shared`) and `.align N` (`.param .u64 .ptr .global .align 4 NAME`).
//   Anything else is an error naming the entry and the parameter: 8- and
//   16-bit types, vectors, `.align N .b8 NAME[K]` (a struct passed by
//   value), a 32-bit `.ptr`.
// - Which 64-bit parameters are pointers, PTX does not say. For a mangled
//   name (it begins with `_Z`), the C++ parameter types say it (Itanium C++
//   ABI): a pointer (`P`, to any type, with `K`, `V`, `r` qualifiers in any
//   order) is a kPointer and must be 8 bytes in the PTX; a builtin type
//   (`i`, `j`, `f`, `l`, `m`, `x`, `y`, `d`, …) is a kScalar whose size must
//   be the PTX parameter's. Read are: names at global scope, in namespaces
//   (anonymous ones too) or with internal linkage (`_ZL`); pointees of
//   builtin, class, nested class and array type; substitutions (`S_`,
//   `S0_`, …). Refused, with the entry named, rather than guessed: templates,
//   member functions, `std::` names, references, function pointers,
//   classes or enums passed by value, vendor types, a count of types that
//   differs from the PTX's.
// - For a name that is not mangled (extern "C"): a `.ptr` parameter is a
//   pointer; otherwise the 64-bit parameters before the first 32-bit one are
//   pointers, and every parameter from the first 32-bit one on is a scalar.
//   So an extern "C" kernel must not have a 64-bit scalar before its first
//   32-bit one (it would be taken for a pointer): give such a kernel C++
//   linkage instead.
//
// Layout (cts/testdata/README.md, "Layout every form follows"): bindings
// first, then constants. A pointer after a scalar is an error naming the
// entry and the parameter, because the plugin could not bind it.
//
// Block size: `.reqntid X[, Y[, Z]]`, else `.maxntid X[, Y[, Z]]` (the form
// `__launch_bounds__(N)` writes), between the parameter list and the body;
// a missing dimension is 1, each given one is 1 … 2^32-1. `{0, 0, 0}` when
// the entry declares neither. Either directive given twice is an error.
#ifndef HALO_CUDA_PTX_REFLECTION_HPP_
#define HALO_CUDA_PTX_REFLECTION_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace halo::cuda {

// The largest PTX text reflect_ptx reads.
inline constexpr size_t kPtxMaxSize = size_t{64} << 20;
// The most parameters an entry may take.
inline constexpr size_t kPtxMaxParameters = 64;
// The longest `display_name`, in bytes: a halo entry point name holds it and
// a NUL.
inline constexpr size_t kPtxMaxNameLength = 127;
// The most entry points a module may define, so that memory stays bounded
// whatever the text.
inline constexpr size_t kPtxMaxEntries = 65536;

struct PtxParameter {
  enum class Kind { kPointer, kScalar };
  Kind kind = Kind::kScalar;
  // 4 or 8; a kPointer is always 8.
  uint32_t size = 0;
  // The parameter's name in the PTX, for messages.
  std::string ptx_name;
};

struct PtxEntry {
  // The symbol cuModuleGetFunction takes: mangled where the kernel's is.
  std::string name;
  // The demangled function name without parameters; `name` when not
  // mangled.
  std::string display_name;
  // In declaration order: every kPointer before every kScalar.
  std::vector<PtxParameter> parameters;
  // From .reqntid, else .maxntid, else {0, 0, 0}.
  uint32_t workgroup_size[3] = {0, 0, 0};
};

struct PtxReflection {
  // In the order the text defines them; empty when `error` is not.
  std::vector<PtxEntry> entries;
  // Empty when the text was read; else why not, in printable ASCII, naming
  // the entry (and parameter) at fault or the line.
  std::string error;
};

// Reads the entry points of the PTX text in the |size| bytes at |data|,
// following the rules above. Borrows |data| for the call only; |data| may be
// NULL when |size| is 0 (no entries, no error). Thread-safe: it keeps no
// state. Never throws: running out of memory is reported in `error` like
// any other failure. An empty `entries` with no `error` means the text
// defines no entry point, which the caller decides about.
PtxReflection reflect_ptx(const void* data, size_t size) noexcept;

}  // namespace halo::cuda

#endif  // HALO_CUDA_PTX_REFLECTION_HPP_
