// The checks libhalo makes, once for every plugin, on the calls that export
// and import external handles (external.h), and on the EXPORTABLE flags of
// buffer and semaphore creation: a malformed handle or a type the device
// does not report is refused before any plugin sees it.
#pragma once

#include "halo/device.h"
#include "halo/external_handle.h"
#include "halo/status.h"

namespace halo::loader {

// Which list of a device's capabilities a check reads.
enum class ExternalUse {
  kBufferExport,
  kBufferImport,
  kSemaphoreExport,
  kSemaphoreImport,
  // An import with HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY: either
  // import list serves it.
  kSemaphoreWaitImport,
};

// Fills |out| with |device|'s capabilities at their full size (zero past
// what an older plugin writes). Returns the plugin's status naming
// |function|.
halo_status_t query_capabilities(halo_device_t* device, const char* function,
                                 halo_device_capabilities_t* out);

// Returns NULL when |type| is exactly one known handle type; else
// INVALID_ARGUMENT naming |function| and |argument|.
halo_status_t check_handle_type(halo_external_handle_type_t type,
                                const char* function, const char* argument);

// Returns NULL when |caps| lists |type| for |use|; else UNIMPLEMENTED naming
// |function|, the type and what the device offers.
halo_status_t check_device_offers(const halo_device_capabilities_t& caps,
                                  ExternalUse use,
                                  halo_external_handle_type_t type,
                                  const char* function);

// For a creation asking for EXPORTABLE: NULL when |device| exports at least
// one type for |use|; else UNIMPLEMENTED naming |function| and |argument|.
halo_status_t check_exportable(halo_device_t* device, ExternalUse use,
                               const char* function, const char* argument);

// Checks an import's |handle| (non-NULL, ABI 1.3's size, one known type, an
// fd or host pointer as the type needs) and that |device| can import its
// type for |use|; fills |out_caps| for further checks. Returns
// INVALID_ARGUMENT or UNIMPLEMENTED naming |function|.
halo_status_t check_import_handle(halo_device_t* device,
                                  const halo_external_handle_t* handle,
                                  ExternalUse use, const char* function,
                                  halo_device_capabilities_t* out_caps);

// Checks an export's |type| and |out_handle| (non-NULL, at least ABI 1.3's
// size). Returns INVALID_ARGUMENT naming |function|.
halo_status_t check_export_arguments(halo_external_handle_type_t type,
                                     const halo_external_handle_t* out_handle,
                                     const char* function);

// The readable name of one handle type ("OPAQUE_FD"); "none" for 0.
const char* handle_type_name(halo_external_handle_type_t type);

}  // namespace halo::loader
