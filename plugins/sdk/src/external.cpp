#include "halo/sdk/external.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace halo::sdk {

const char *handle_type_name(halo_external_handle_type_t type) noexcept {
  switch (type) {
    case HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD: return "OPAQUE_FD";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION: return "HOST_ALLOCATION";
    case HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF: return "DMA_BUF";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD: return "HOST_TIMELINE_FD";
    default: return "an unknown type";
  }
}

halo_status_t check_export(Host host, const char *function, const char *noun,
                           bool exportable,
                           halo_external_handle_type_t offered,
                           halo_external_handle_type_t type) noexcept {
  if ((offered & type) == 0) {
    return host.make_status(HALO_STATUS_UNIMPLEMENTED,
                            "%s: the device cannot export %ss as %s", function,
                            noun, handle_type_name(type));
  }
  if (!exportable) {
    return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                            "%s: the %s was created without EXPORTABLE",
                            function, noun);
  }
  return HALO_OK;
}

halo_status_t fill_fd_handle(Host host, const char *function,
                             const char *native_call,
                             halo_external_handle_type_t type, int fd,
                             uint64_t size,
                             halo_external_handle_t *out) noexcept {
  if (fd < 0) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: %s succeeded but gave no file descriptor "
                            "(fd %d; the process may have run out of them)",
                            function, native_call, fd);
  }
  out->type = type;
  out->fd = fd;
  out->flags = 0;
  out->host_pointer = nullptr;
  out->size = size;
  return HALO_OK;
}

void fill_host_handle(void *pointer, uint64_t size,
                      halo_external_handle_t *out) noexcept {
  out->type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  out->fd = -1;
  out->flags = 0;
  out->host_pointer = pointer;
  out->size = size;
}

OwnedFd &OwnedFd::operator=(OwnedFd &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) close(fd_);
}

halo_status_t duplicate_fd(Host host, const char *function, int fd,
                           OwnedFd *out) noexcept {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy >= 0) {
    *out = OwnedFd(copy);
    return HALO_OK;
  }
  const int error = errno;
  return host.make_status(error == EBADF ? HALO_STATUS_INVALID_ARGUMENT
                                         : HALO_STATUS_RESOURCE_EXHAUSTED,
                          "%s: handle->fd %d cannot be duplicated: %s",
                          function, fd, std::strerror(error));
}

}  // namespace halo::sdk
