#include "fuzz_input_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace halo_fuzz {
namespace {

// The process's private folder, made on first use and removed at exit.
const std::string& private_folder() {
  static const std::string folder = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "halo-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("halo fuzz: mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  static const bool removed_at_exit = [] {
    return std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }) == 0;
  }();
  (void)removed_at_exit;
  return folder;
}

}  // namespace

FuzzInputFile::FuzzInputFile(const char* name)
    : path_(private_folder() + "/" + name),
      fd_(::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
  if (fd_ < 0) {
    std::perror("halo fuzz: open");
    std::abort();
  }
}

FuzzInputFile::~FuzzInputFile() { ::close(fd_); }

// Overwrites in place and then cuts to size: truncating to zero first
// makes ext4 flush the file on every close, a thousand times slower.
void FuzzInputFile::write(const uint8_t* data, size_t size) const {
  for (size_t done = 0; done < size;) {
    ssize_t written = ::pwrite(fd_, data + done, size - done,
                               static_cast<off_t>(done));
    if (written <= 0) {
      std::perror("halo fuzz: write");
      std::abort();
    }
    done += static_cast<size_t>(written);
  }
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    std::perror("halo fuzz: ftruncate");
    std::abort();
  }
}

}  // namespace halo_fuzz
