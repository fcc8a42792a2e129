#include "regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace halo::loader {
namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a plain file";
}

halo_status_t check_type(const struct stat& info, const std::string& path,
                         const char* what) {
  if (S_ISREG(info.st_mode)) return nullptr;
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s %s is %s, not a regular file", what,
                            path.c_str(), file_type_name(info.st_mode));
}

halo_status_t errno_status(int error, const std::string& path, const char* what,
                           const char* action) {
  if (error == ENOENT || error == ENOTDIR) {
    return halo_status_format(HALO_STATUS_NOT_FOUND, "%s %s does not exist",
                              what, path.c_str());
  }
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s %s cannot be %s: %s", what, path.c_str(),
                            action, std::strerror(error));
}

// Closes the descriptor it holds.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

halo_status_t require_regular_file(const std::string& path, const char* what) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return errno_status(errno, path, what, "examined");
  }
  return check_type(info, path, what);
}

halo_status_t read_regular_file(const std::string& path, const char* what,
                                std::string* out_text) {
  if (halo_status_t status = require_regular_file(path, what)) return status;
  // O_NONBLOCK: should the path have become a FIFO since, open returns at
  // once instead of waiting for a writer; the fstat below then refuses it.
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) return errno_status(errno, path, what, "opened");
  struct stat info;
  if (fstat(file.get(), &info) != 0) {
    return errno_status(errno, path, what, "examined");
  }
  if (halo_status_t status = check_type(info, path, what)) return status;
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t count = read(file.get(), buffer, sizeof(buffer));
    if (count == 0) break;
    if (count < 0) {
      if (errno == EINTR) continue;
      return errno_status(errno, path, what, "read");
    }
    text.append(buffer, static_cast<size_t>(count));
  }
  *out_text = std::move(text);
  return nullptr;
}

}  // namespace halo::loader
