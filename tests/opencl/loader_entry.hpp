// The ICD loader's own entry points, for the OpenCL libraries of the tests
// (in_order_opencl.cpp, held_callback_opencl.cpp, held_status_opencl.cpp)
// that stand in for the loader: each defines a few calls itself and links
// the real loader for every other one.
#ifndef HALO_TESTS_OPENCL_LOADER_ENTRY_HPP_
#define HALO_TESTS_OPENCL_LOADER_ENTRY_HPP_

#include <dlfcn.h>

namespace halo_opencl_test {

// Returns the ICD loader's |name|, or NULL: the loader is the library's own
// dependency, so it is loaded already.
template <class Function>
Function loader_entry(const char* name) {
  void* loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
  return loader != nullptr ? reinterpret_cast<Function>(dlsym(loader, name))
                           : nullptr;
}

}  // namespace halo_opencl_test

#endif  // HALO_TESTS_OPENCL_LOADER_ENTRY_HPP_
