// Finding and loading the test kernels (see kernels.hpp).
#include "kernels.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace halo::cts {

std::vector<std::string> executable_formats(
    const halo_device_capabilities_t& capabilities) {
  // The field is fixed-size; never read past it even without a terminator.
  const std::string list(capabilities.executable_formats,
                         strnlen(capabilities.executable_formats,
                                 sizeof(capabilities.executable_formats)));
  std::vector<std::string> formats;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string format = list.substr(start, end - start);
    const size_t first = format.find_first_not_of(" \t");
    const size_t last = format.find_last_not_of(" \t");
    if (first != std::string::npos) {
      formats.push_back(format.substr(first, last - first + 1));
    }
    start = end + 1;
  }
  return formats;
}

KernelFile find_kernel(Context& context, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(context.testdata_dir()) / "kernels";
  const std::vector<std::string> formats = executable_formats(context.capabilities());
  std::string tried;
  for (const std::string& format : formats) {
    const fs::path path = folder / (name + "." + format);
    tried += (tried.empty() ? "" : ", ") + format;
    std::ifstream stream(path, std::ios::binary);
    if (!stream) continue;
    KernelFile file{format, path.string(),
                    std::vector<uint8_t>(std::istreambuf_iterator<char>(stream),
                                         std::istreambuf_iterator<char>())};
    if (stream.bad()) fail(__FILE__, __LINE__, "cannot read " + file.path);
    return file;
  }
  fail(__FILE__, __LINE__,
       "no test kernel '" + name + "' in " + folder.string() +
           " for the device's executable formats [" + tried +
           "]; build the CTS kernels or point --testdata at a folder with kernels/" +
           name + ".<format>");
}

ExecutableRef create_executable(halo_device_t* device, const KernelFile& file) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = file.format.c_str();
  params.data = file.bytes.data();
  params.data_size = file.bytes.size();
  ExecutableRef executable;
  halo_status_t status = halo_executable_create(device, &params, executable.out());
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_executable_create(" + file.path + ") returned " + take_status_text(status));
  }
  return executable;
}

ExecutableRef load_kernel(Context& context, const std::string& name,
                          halo_device_t* device) {
  return create_executable(device != nullptr ? device : context.device(),
                           find_kernel(context, name));
}

halo_dispatch_params_t dispatch_params(
    halo_executable_t* executable, uint32_t workgroups,
    const std::vector<halo_buffer_binding_t>& bindings, const void* constants,
    uint32_t constant_size) {
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = 0;
  params.executable = executable;
  params.workgroup_count[0] = workgroups;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  params.constant_size = constant_size;
  params.constants = constants;
  params.binding_count = bindings.size();
  params.bindings = bindings.data();
  return params;
}

void record_dispatch(halo_command_buffer_t* command_buffer,
                     halo_executable_t* executable, uint32_t workgroups,
                     const std::vector<halo_buffer_t*>& buffers,
                     const void* constants, uint32_t constant_size) {
  std::vector<halo_buffer_binding_t> bindings;
  for (halo_buffer_t* buffer : buffers) {
    bindings.push_back({buffer, 0, HALO_WHOLE_BUFFER});
  }
  const halo_dispatch_params_t params =
      dispatch_params(executable, workgroups, bindings, constants, constant_size);
  CTS_ASSERT_OK(halo_command_buffer_dispatch(command_buffer, &params));
}

}  // namespace halo::cts
