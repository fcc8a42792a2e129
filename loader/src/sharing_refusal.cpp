#include "sharing_refusal.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

namespace halo::loader {
namespace {

// Whether the process can open one more file descriptor now (an eventfd
// needs no file system).
bool descriptors_run_out() noexcept {
  const int fd = eventfd(0, EFD_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return false;
  }
  return errno == EMFILE || errno == ENFILE;
}

}  // namespace

bool refusal_may_pass(halo_status_t status) noexcept {
  return halo_status_code(status) == HALO_STATUS_RESOURCE_EXHAUSTED ||
         descriptors_run_out();
}

}  // namespace halo::loader
