// The one status-return macro of plugin code. host.hpp includes this
// header, so every file that talks to the host has it.
#ifndef HALO_SDK_STATUS_HPP_
#define HALO_SDK_STATUS_HPP_

#include "halo/status.h"

// Returns the status of |expression| from the enclosing function unless OK.
// |expression| is evaluated exactly once.
#define HALO_SDK_RETURN_IF_ERROR(expression)                                   \
  do {                                                                         \
    halo_status_t halo_sdk_status_ = (expression);                             \
    if (halo_sdk_status_ != nullptr)                                           \
      return halo_sdk_status_;                                                 \
  } while (0)

#endif  // HALO_SDK_STATUS_HPP_
