// Loading the OpenCL ICD loader with dlopen (see cl_library.hpp).
#include "cl_library.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace halo::cl {
namespace {

constexpr char kDefaultLibrary[] = "libOpenCL.so.1";

struct Loaded {
  Api api;
  bool ok = false;
  // Why loading failed; static storage so it outlives every caller.
  char reason[320] = {};
};

// Reads every function of the table from |library|; false (with the reason)
// when a required one is missing.
bool resolve(void* library, const char* name, Loaded* loaded) {
#define HALO_CL_RESOLVE_REQUIRED_(function)                                   \
  loaded->api.function =                                                      \
      reinterpret_cast<decltype(&::function)>(dlsym(library, #function));     \
  if (loaded->api.function == nullptr) {                                      \
    std::snprintf(loaded->reason, sizeof(loaded->reason),                     \
                  "%s lacks the OpenCL 1.2 function %s", name, #function);    \
    return false;                                                             \
  }
#define HALO_CL_RESOLVE_OPTIONAL_(function) \
  loaded->api.function =                    \
      reinterpret_cast<decltype(&::function)>(dlsym(library, #function));
  HALO_CL_REQUIRED_FUNCTIONS(HALO_CL_RESOLVE_REQUIRED_)
  HALO_CL_OPTIONAL_FUNCTIONS(HALO_CL_RESOLVE_OPTIONAL_)
#undef HALO_CL_RESOLVE_REQUIRED_
#undef HALO_CL_RESOLVE_OPTIONAL_
  return true;
}

void load(Loaded* loaded) {
  const char* name = secure_getenv("HALO_OPENCL_LIBRARY");
  if (name == nullptr || name[0] == '\0') name = kDefaultLibrary;
  void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    std::snprintf(loaded->reason, sizeof(loaded->reason),
                  "the OpenCL loader %s could not be opened: %s", name,
                  error != nullptr ? error : "unknown error");
    return;
  }
  // Never closed, even on failure: see load_api.
  loaded->ok = resolve(library, name, loaded);
}

}  // namespace

const Api* load_api(const char** out_reason) noexcept {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] { load(&loaded); });
  if (loaded.ok) return &loaded.api;
  if (out_reason != nullptr) *out_reason = loaded.reason;
  return nullptr;
}

}  // namespace halo::cl
