// A file holding the current fuzz input, for readers that take a path
// (the manifest and expectations readers). It lives in a private folder
// made once per process and removed at exit.
#ifndef HALO_TESTS_FUZZ_FUZZ_INPUT_FILE_HPP_
#define HALO_TESTS_FUZZ_FUZZ_INPUT_FILE_HPP_

#include <cstddef>
#include <cstdint>
#include <string>

namespace halo_fuzz {

class FuzzInputFile {
 public:
  // |name| is the file's name inside the private folder.
  explicit FuzzInputFile(const char* name);
  ~FuzzInputFile();
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  // Replaces the file's contents with |size| bytes at |data|; aborts when
  // it cannot (a harness that silently read stale input would test
  // nothing).
  void write(const uint8_t* data, size_t size) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_;
};

}  // namespace halo_fuzz

#endif  // HALO_TESTS_FUZZ_FUZZ_INPUT_FILE_HPP_
