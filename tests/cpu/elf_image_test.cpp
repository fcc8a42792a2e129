// Kernel libraries whose dynamic segment is corrupted: each is refused by
// halo_executable_create with the reason, where glibc's dlopen would fault
// or abort the process.
#include "elf_corruptions.hpp"
#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using ElfImageTest = WorkTest;

Status create_from_bytes(halo_device_t* device,
                         const std::vector<uint8_t>& bytes) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "cpu-so";
  params.data = bytes.data();
  params.data_size = bytes.size();
  halo_executable_t* executable = nullptr;
  Status status(halo_executable_create(device, &params, &executable));
  EXPECT_EQ(executable == nullptr, !status.ok());
  halo_executable_release(executable);
  return status;
}

TEST_F(ElfImageTest, TheUncorruptedLibraryLoads) {
  HALO_EXPECT_STATUS_OK(
      create_from_bytes(device(), kernel_bytes("test_kernels")));
}

TEST_F(ElfImageTest, EveryCorruptedDynamicSegmentIsRefusedWithTheReason) {
  const std::vector<uint8_t> good = kernel_bytes("test_kernels");
  for (const ElfCorruption& corruption : elf_corruptions()) {
    SCOPED_TRACE(corruption.name);
    ElfEditor editor(good);
    ASSERT_TRUE(corruption.apply(editor))
        << "the test kernel lacks what this corruption edits";
    Status status = create_from_bytes(device(), editor.bytes());
    EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT)
        << status.describe();
    EXPECT_NE(status.message().find("halo_executable_create: params->data"),
              std::string::npos)
        << status.describe();
    EXPECT_NE(status.message().find(corruption.reason), std::string::npos)
        << status.describe();
  }
}

}  // namespace
}  // namespace halo_cpu_test
