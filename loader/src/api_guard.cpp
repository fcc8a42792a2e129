#include "api_guard.hpp"

#include <exception>
#include <new>

namespace halo::loader {

halo_status_t status_from_current_exception(const char* function) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return halo_status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "%s: out of memory", function);
  } catch (const std::exception& error) {
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "%s: unexpected exception: %s", function,
                              error.what());
  } catch (...) {
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "%s: unexpected exception of an unknown type",
                              function);
  }
}

}  // namespace halo::loader
