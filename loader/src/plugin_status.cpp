#include "plugin_status.hpp"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "plugin_module.hpp"

namespace halo::loader {

halo_status_t plugin_fault(const void* code, const char* function,
                           const char* format, ...) noexcept {
  try {
    // Two passes, so that no va_list is open while the string allocates.
    va_list args;
    va_start(args, format);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(length > 0 ? static_cast<size_t>(length) : 0, '\0');
    va_start(args, format);
    std::vsnprintf(text.data(), text.size() + 1, format, args);
    va_end(args);
    return halo_status_format(HALO_STATUS_INTERNAL, "%s: plugin '%s' %s",
                              function, plugin_name_at(code).c_str(),
                              text.c_str());
  } catch (...) {
    // Out of memory for the name or the text: the call alone still says
    // where it happened.
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "%s: a plugin broke the ABI", function);
  }
}

halo_status_t foreign_status(const void* code, const char* function) noexcept {
  return plugin_fault(code, function,
                      "returned a status it did not create through the host "
                      "interface");
}

}  // namespace halo::loader
