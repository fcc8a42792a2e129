// What every plugin's export and import of external handles (external.h,
// ABI 1.3) shares: the checks only a plugin can make, answered with one
// code and message by every plugin, handles filled alike, and a file
// descriptor that closes itself unless an import takes it.
#ifndef HALO_SDK_EXTERNAL_HPP_
#define HALO_SDK_EXTERNAL_HPP_

#include <cstdint>

#include "halo/external_handle.h"
#include "halo/sdk/host.hpp"

namespace halo::sdk {

// The readable name of one handle type ("OPAQUE_FD").
const char *handle_type_name(halo_external_handle_type_t type) noexcept;

// Checks an export of an object that was created |exportable| (with its
// EXPORTABLE flag) as |type|, which its device exports as |offered|
// (its capabilities' buffer_ or semaphore_export_types). Returns
// FAILED_PRECONDITION "|function|: the |noun| was created without
// EXPORTABLE", or UNIMPLEMENTED "|function|: the device cannot export
// |noun|s as |type|". |noun| is "buffer" or "semaphore".
halo_status_t check_export(Host host, const char *function, const char *noun,
                           bool exportable,
                           halo_external_handle_type_t offered,
                           halo_external_handle_type_t type) noexcept;

// Fills |out| with an fd handle of |type| (OPAQUE_FD or DMA_BUF) naming
// |size| bytes (0 for a semaphore). Ownership of |fd| passes with it.
// |fd| is what |native_call| gave |function|: a negative one (a driver
// that reports success when the process has no descriptor left, as Mesa's
// lavapipe does) is RESOURCE_EXHAUSTED naming both, so that the caller may
// try again once descriptors are free.
halo_status_t fill_fd_handle(Host host, const char *function,
                             const char *native_call,
                             halo_external_handle_type_t type, int fd,
                             uint64_t size,
                             halo_external_handle_t *out) noexcept;

// Fills |out| with a HOST_ALLOCATION handle of |size| bytes at |pointer|.
void fill_host_handle(void *pointer, uint64_t size,
                      halo_external_handle_t *out) noexcept;

// A file descriptor owned until released: a plugin dups the fd an import
// hands it only where the native API consumes it on success alone, and
// holds what it owns in one of these so that every failure path closes it.
class OwnedFd {
 public:
  OwnedFd() noexcept = default;
  explicit OwnedFd(int fd) noexcept : fd_(fd) {}
  OwnedFd(OwnedFd &&other) noexcept : fd_(other.release()) {}
  OwnedFd &operator=(OwnedFd &&other) noexcept;
  OwnedFd(const OwnedFd &) = delete;
  OwnedFd &operator=(const OwnedFd &) = delete;
  ~OwnedFd();

  int get() const noexcept { return fd_; }
  // Gives up ownership and returns the fd (-1 when none).
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Duplicates |fd| (close-on-exec) into |out|. Returns RESOURCE_EXHAUSTED
// naming |function| when file descriptors run out, INVALID_ARGUMENT when
// |fd| is not open.
halo_status_t duplicate_fd(Host host, const char *function, int fd,
                           OwnedFd *out) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_EXTERNAL_HPP_
