// The part of the Itanium C++ ABI's name mangling that CUDA kernel names
// use: enough of a kernel's mangled name to tell its pointer parameters
// from its scalar ones, and its name without them. ptx_reflection.hpp lists
// what is read and what is refused. Needs nothing but the standard library.
#ifndef HALO_CUDA_PTX_MANGLED_NAME_HPP_
#define HALO_CUDA_PTX_MANGLED_NAME_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace halo::cuda {

// A C++ parameter type, as far as binding it goes.
struct CxxParameterType {
  enum class Kind {
    kPointer,  // a pointer to anything
    kBuiltin,  // int, float, …: a scalar of `size` bytes
    kClass,    // a class, struct, union or enum, passed by value
    kOther,    // what no parameter is (void, a qualified or array type)
  };
  Kind kind = Kind::kOther;
  uint32_t size = 0;
};

struct DemangledKernelName {
  // As c++filt prints it, without parameters: "saxpy", "ns::saxpy",
  // "(anonymous namespace)::saxpy".
  std::string display_name;
  // Empty for a function of no parameters ("v").
  std::vector<CxxParameterType> parameters;
};

// Reads the whole of |name|, a mangled function name (beginning with _Z),
// into |out|. Borrows |name| for the call; thread-safe. Returns an empty
// string on success, else why the name cannot be read, as a clause ("it has
// template arguments"). Reads no byte outside |name| and recurses a bounded
// depth, whatever it holds. Throws only std::bad_alloc.
std::string demangle_kernel_name(std::string_view name,
                                 DemangledKernelName* out);

}  // namespace halo::cuda

#endif  // HALO_CUDA_PTX_MANGLED_NAME_HPP_
