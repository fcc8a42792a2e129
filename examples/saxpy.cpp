// halo-saxpy-cpp: halo-saxpy (saxpy.c) written with the C++ layer,
// halo/halo.hpp: y = a * x + y over 2^20 floats on the first device that can
// run the saxpy kernel.
//
//   halo-saxpy-cpp [KERNEL_FOLDER]
//
// KERNEL_FOLDER holds saxpy.<format> for the executable formats a device
// lists (saxpy.cpu-so, saxpy.spirv, saxpy.opencl-c); by default the CTS's
// kernels beside this program, <dir of halo-saxpy-cpp>/../share/halo/cts/
// testdata/kernels, both in a build tree and installed. The program takes
// the first device that offers dispatch and has a kernel file in one of its
// formats, runs one dispatch, checks every element and prints one line.
// Exit status: 0 when every element is right, 1 otherwise.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "halo/halo.hpp"

namespace {

constexpr std::uint32_t kCount = 1u << 20;
constexpr std::uint32_t kWorkgroupSize = 64;
constexpr float kA = 2.0f;

// The saxpy kernel's constants (cts/testdata/README.md).
struct SaxpyConstants {
  float a;
  std::uint32_t n;
};

// Small integers, so that a * x + y is exact in float on every device.
float x_of(std::uint32_t i) { return static_cast<float>(i % 1024); }
float y_of(std::uint32_t i) { return static_cast<float>(i % 7); }

// What the run needs: the device, its memory type for the buffers, and the
// kernel's format and bytes.
struct Target {
  halo::Device device;
  halo_memory_type_t memory_type;
  std::string format;
  std::vector<std::byte> kernel;
};

// <dir of this program>/../share/halo/cts/testdata/kernels: without the
// "..", where the folder exists; as composed where not.
std::filesystem::path default_kernel_folder() {
  const std::filesystem::path folder =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() /
      "../share/halo/cts/testdata/kernels";
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(folder, error);
  return error ? folder : resolved;
}

// Opens the first device with dispatch, HOST_VISIBLE memory and a kernel
// file in |folder|; std::nullopt when there is none.
std::optional<Target> open_target(const halo::Registry& registry,
                                  const std::filesystem::path& folder) {
  for (std::size_t i = 0; i < registry.device_count(); ++i) {
    try {
      halo::Device device = registry.create_device(i);
      const halo_device_capabilities_t caps = device.capabilities();
      const halo_device_features_t needed =
          HALO_DEVICE_FEATURE_DISPATCH | HALO_DEVICE_FEATURE_QUEUES;
      if ((caps.features & needed) != needed || halo::mappable_memory_type(caps) == 0) continue;
      for (const std::string& format : halo::executable_formats(caps)) {
        const std::filesystem::path path = folder / ("saxpy." + format);
        std::error_code error;
        if (!std::filesystem::is_regular_file(path, error)) continue;
        std::printf("halo-saxpy-cpp: using device '%s' with %s\n",
                    halo::to_string(device.info().name).c_str(), path.c_str());
        // Coherent memory where offered; the run flushes and invalidates anyway.
        return Target{device, halo::mappable_memory_type(caps), format,
                      halo::read_file(path)};
      }
    } catch (const halo::Error& error) {
      std::fprintf(stderr, "halo-saxpy-cpp: device %zu: %s\n", i, error.what());
    }
  }
  return std::nullopt;
}

// Allocates a buffer of kCount floats, each |value(i)|.
halo::Buffer make_buffer(const Target& target, float (*value)(std::uint32_t)) {
  halo::Buffer buffer = target.device.allocate_buffer(
      std::uint64_t{kCount} * sizeof(float),
      HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING, target.memory_type);
  const halo::Mapping<float> floats = buffer.map<float>();
  for (std::uint32_t i = 0; i < kCount; ++i) floats[i] = value(i);
  floats.flush();
  return buffer;
}

// Records saxpy over |y| and |x| into a command buffer, submits it, and
// waits for it.
void dispatch(const Target& target, const halo::Executable& executable, const halo::Buffer& y,
              const halo::Buffer& x) {
  const halo::CommandBuffer commands = target.device.create_command_buffer();
  commands.begin()
      .dispatch(executable, 0, {kCount / kWorkgroupSize}, {halo::bind(y), halo::bind(x)},
                SaxpyConstants{kA, kCount})
      .end();
  const halo::Semaphore done = target.device.create_semaphore();
  halo::Submission().commands(commands).signal(done, 1).submit(target.device);
  if (!done.wait(1, halo::deadline_after(std::chrono::seconds(60)))) {
    throw halo::Error(HALO_STATUS_DEADLINE_EXCEEDED, "the dispatch did not finish in 60 s");
  }
}

// Counts the elements of |y| that are not a * x + y.
std::size_t count_wrong(const halo::Buffer& y) {
  const halo::Mapping<const float> result = y.map<const float>();
  result.invalidate();
  std::size_t wrong = 0;
  for (std::uint32_t i = 0; i < kCount; ++i) {
    const float expected = kA * x_of(i) + y_of(i);
    if (result[i] != expected && wrong++ == 0) {
      std::fprintf(stderr, "halo-saxpy-cpp: y[%u] is %g, expected %g\n", i,
                   static_cast<double>(result[i]), static_cast<double>(expected));
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    std::fprintf(stderr, "usage: halo-saxpy-cpp [KERNEL_FOLDER]\n");
    return EXIT_FAILURE;
  }
  try {
    const std::filesystem::path folder = argc == 2 ? argv[1] : default_kernel_folder();
    const halo::Registry registry = halo::Registry::create();
    const std::optional<Target> target = open_target(registry, folder);
    if (!target) {
      std::fprintf(stderr,
                   "halo-saxpy-cpp: no device offers dispatch with a saxpy kernel in %s; run "
                   "halo-info\n",
                   folder.c_str());
      return EXIT_FAILURE;
    }
    const halo::Executable executable =
        target->device.create_executable(target->format, target->kernel);
    const halo::Buffer x = make_buffer(*target, x_of);
    const halo::Buffer y = make_buffer(*target, y_of);
    dispatch(*target, executable, y, x);
    const std::size_t wrong = count_wrong(y);
    std::printf("halo-saxpy-cpp: %s: %u elements, y = %g * x + y, %zu wrong\n",
                wrong == 0 ? "OK" : "MISMATCH", kCount, static_cast<double>(kA), wrong);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "halo-saxpy-cpp: %s\n", error.what());
    return EXIT_FAILURE;
  }
}
