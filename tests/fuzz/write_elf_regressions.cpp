// Writes every corruption of tests/cpu/elf_corruptions.cpp, each applied
// to a fresh copy of a kernel library, as one file in a folder: the
// regression inputs of the cpu ELF harness.
//   halo_fuzz_write_elf_regressions KERNEL.cpu-so FOLDER
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "elf_corruptions.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s KERNEL.cpu-so FOLDER\n", argv[0]);
    return 2;
  }
  std::ifstream input(argv[1], std::ios::binary);
  std::vector<uint8_t> kernel((std::istreambuf_iterator<char>(input)),
                              std::istreambuf_iterator<char>());
  if (!input.good() && !input.eof()) {
    std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 1;
  }
  std::filesystem::create_directories(argv[2]);
  int failures = 0;
  for (const halo_cpu_test::ElfCorruption& corruption :
       halo_cpu_test::elf_corruptions()) {
    halo_cpu_test::ElfEditor editor(kernel);
    if (!corruption.apply(editor)) {
      // The cpu tests fail for this too; here it only costs an input.
      std::fprintf(stderr, "%s: %s does not apply to %s\n", argv[0],
                   corruption.name, argv[1]);
      continue;
    }
    std::string path = std::string(argv[2]) + "/" + corruption.name + ".cpu-so";
    std::ofstream output(path, std::ios::binary | std::ios::trunc);
    output.write(reinterpret_cast<const char*>(editor.bytes().data()),
                 static_cast<std::streamsize>(editor.bytes().size()));
    if (!output) {
      std::fprintf(stderr, "%s: cannot write %s\n", argv[0], path.c_str());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
