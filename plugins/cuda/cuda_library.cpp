// Loading libcuda with dlopen (see cuda_library.hpp).
#include "cuda_library.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace halo::cuda {
namespace {

constexpr char kDefaultLibrary[] = "libcuda.so.1";

struct Loaded {
  Api api;
  bool ok = false;
  // Why loading failed; static storage so it outlives every caller.
  char reason[320] = {};
};

// The symbol name after cuda.h's renaming macros (cuMemAlloc_v2, ...).
#define HALO_CUDA_SYMBOL_(name) HALO_CUDA_SYMBOL_TEXT_(name)
#define HALO_CUDA_SYMBOL_TEXT_(name) #name

bool resolve(void* library, const char* name, Loaded* loaded) {
#define HALO_CUDA_RESOLVE_(function)                                        \
  loaded->api.function = reinterpret_cast<decltype(&::function)>(           \
      dlsym(library, HALO_CUDA_SYMBOL_(function)));                         \
  if (loaded->api.function == nullptr) {                                    \
    std::snprintf(loaded->reason, sizeof(loaded->reason),                   \
                  "%s lacks the CUDA driver function %s", name,             \
                  HALO_CUDA_SYMBOL_(function));                             \
    return false;                                                           \
  }
  HALO_CUDA_FUNCTIONS(HALO_CUDA_RESOLVE_)
#undef HALO_CUDA_RESOLVE_
  return true;
}

void load(Loaded* loaded) {
  const char* name = secure_getenv("HALO_CUDA_LIBRARY");
  if (name == nullptr || name[0] == '\0') name = kDefaultLibrary;
  void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    std::snprintf(loaded->reason, sizeof(loaded->reason),
                  "the CUDA driver library %s could not be opened (is the "
                  "NVIDIA driver installed?): %s",
                  name, error != nullptr ? error : "unknown error");
    return;
  }
  // Never closed, even on failure: see load_api.
  if (!resolve(library, name, loaded)) return;
  const CUresult result = loaded->api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    const char* error_name = nullptr;
    if (loaded->api.cuGetErrorName(result, &error_name) != CUDA_SUCCESS) {
      error_name = "an unknown CUresult";
    }
    std::snprintf(loaded->reason, sizeof(loaded->reason),
                  "cuInit failed: %s (%d)%s", error_name,
                  static_cast<int>(result),
                  result == CUDA_ERROR_NO_DEVICE
                      ? "; the driver sees no CUDA device (check "
                        "CUDA_VISIBLE_DEVICES and /dev/nvidia*)"
                      : "");
    return;
  }
  loaded->ok = true;
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

}  // namespace halo::cuda
