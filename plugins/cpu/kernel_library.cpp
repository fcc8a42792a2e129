// Loading a kernel library from memory: memfd, seals, dlopen, and the
// unload rules that keep a reused fd number from aliasing a loaded kernel.
#include "kernel_library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "elf_image.hpp"

namespace halo::cpu {
namespace {

constexpr char kFunction[] = "halo_executable_create";

halo_status_t system_failure(sdk::Host host, const char* call, int error) {
  bool exhausted = error == EMFILE || error == ENFILE || error == ENOMEM ||
                   error == ENOSPC;
  return host.make_status(
      exhausted ? HALO_STATUS_RESOURCE_EXHAUSTED : HALO_STATUS_INTERNAL,
      "%s: %s failed while loading a cpu-so kernel: %s", kFunction, call,
      std::strerror(error));
}

// Writes all |size| bytes of |data| to |fd|; returns 0 or an errno value.
int write_all(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return 0;
}

void fd_path(int fd, char (&path)[32]) {
  std::snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
}

// HALO_DISABLE_UNLOAD=1 keeps plugins mapped so that sanitizer reports can
// name their frames; kernels follow the same switch.
bool unload_disabled() {
  static const bool disabled = [] {
    const char* value = secure_getenv("HALO_DISABLE_UNLOAD");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return disabled;
}

}  // namespace

halo_status_t KernelLibrary::load(sdk::Host host, const void* data,
                                  size_t size, KernelLibrary* out) noexcept {
  // Truncated or garbage bytes must fail here: dlopen could fault on them.
  halo_status_t malformed = check_elf_image(host, data, size);
  if (malformed != HALO_OK) return malformed;
  int fd = memfd_create("halo-cpu-kernel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return system_failure(host, "memfd_create", errno);
  int error = write_all(fd, data, size);
  if (error != 0) {
    ::close(fd);
    return system_failure(host, "write to the kernel memfd", error);
  }
  // Sealed, the bytes dlopen maps can no longer change under it.
  if (fcntl(fd, F_ADD_SEALS,
            F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    error = errno;
    ::close(fd);
    return system_failure(host, "sealing the kernel memfd", error);
  }
  char path[32];
  fd_path(fd, path);
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    halo_status_t status = host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->data (%zu bytes) is not a loadable cpu-so shared "
        "object for this host: %s",
        kFunction, size, reason != nullptr ? reason : "dlopen failed");
    ::close(fd);
    return status;
  }
  out->handle = handle;
  out->fd = fd;
  out->keep_mapped = unload_disabled();
  return HALO_OK;
}

void* KernelLibrary::symbol(const char* name) const noexcept {
  return dlsym(handle, name);
}

void KernelLibrary::unload() noexcept {
  if (handle == nullptr) return;
  bool unloaded = false;
  if (!keep_mapped) {
    dlclose(handle);
    // Ask by name whether the library is still mapped (RTLD_NOLOAD loads
    // nothing); only then is its fd number safe to reuse.
    char path[32];
    fd_path(fd, path);
    void* still_loaded = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (still_loaded != nullptr) {
      dlclose(still_loaded);
    } else {
      dlerror();  // Clear the probe's message.
      unloaded = true;
    }
  }
  // Kept open otherwise, for as long as the process lives (see the header).
  if (unloaded) ::close(fd);
  handle = nullptr;
  fd = -1;
}

}  // namespace halo::cpu
