// The cuda executable: PTX reflection, module loading and the executable
// vtable.
#include "executable.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_status.hpp"
#include "device.hpp"
#include "driver.hpp"
#include "halo/sdk/versioned.hpp"
#include "ptx_reflection.hpp"

namespace halo::cuda {
namespace {

constexpr char kFunction[] = "halo_executable_create";
// The most of a JIT log a status carries.
constexpr size_t kJitLogSize = 4096;

void destroy_executable(halo_object_t* object) {
  Executable* executable = sdk::object_cast<Executable>(object);
  sdk::Host host = executable->host;
  host.destroy(executable);
}

uint32_t count_entry_points(halo_executable_t* executable) {
  return Executable::cast(executable)->entry_point_count;
}

halo_status_t query_entry_point(halo_executable_t* executable,
                                uint32_t ordinal,
                                halo_entry_point_info_t* out_info) {
  Executable* self = Executable::cast(executable);
  if (ordinal >= self->entry_point_count) {
    return self->host.make_status(HALO_STATUS_OUT_OF_RANGE,
                                  "halo_executable_query_entry_point: ordinal "
                                  "%u is not below the %u entry points",
                                  ordinal, self->entry_point_count);
  }
  return sdk::copy_versioned(self->host, self->entry_points[ordinal].info,
                             out_info, "halo_executable_query_entry_point",
                             "out_info");
}

halo_status_t lookup_entry_point(halo_executable_t* executable,
                                 const char* name, uint32_t* out_ordinal) {
  Executable* self = Executable::cast(executable);
  for (uint32_t i = 0; i < self->entry_point_count; ++i) {
    if (std::strcmp(self->entry_points[i].info.name, name) == 0) {
      *out_ordinal = i;
      return HALO_OK;
    }
  }
  return self->host.make_status(HALO_STATUS_NOT_FOUND,
                                "halo_executable_lookup_entry_point: name "
                                "'%s' is no entry point of the executable",
                                name);
}

// Fills |out| from a reflected entry point whose layout reflection checked
// (bindings first, then 4- or 8-byte scalars).
halo_status_t describe_entry(sdk::Host host, const PtxEntry& entry,
                             EntryPoint* out) {
  if (entry.workgroup_size[0] == 0) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: entry point '%s' declares no block size: give the kernel "
        "__launch_bounds__(N) (.maxntid) or .reqntid",
        kFunction, entry.display_name.c_str());
  }
  // The launch arguments live in arrays of kMaxKernelParameters
  // (max_binding_count in the capabilities).
  if (entry.parameters.size() > kMaxKernelParameters) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: entry point '%s' takes %zu parameters, above the %u the cuda "
        "plugin takes (the device's max_binding_count)",
        kFunction, entry.display_name.c_str(), entry.parameters.size(),
        kMaxKernelParameters);
  }
  halo_entry_point_info_t& info = out->info;
  info.struct_size = sizeof(info);
  std::snprintf(info.name, sizeof(info.name), "%s",
                entry.display_name.c_str());
  uint32_t offset = 0;
  for (const PtxParameter& parameter : entry.parameters) {
    if (parameter.kind == PtxParameter::Kind::kPointer) {
      ++info.binding_count;
      continue;
    }
    offset = (offset + parameter.size - 1) / parameter.size * parameter.size;
    out->constant_offsets[out->constant_count] = offset;
    out->constant_sizes[out->constant_count] =
        static_cast<uint8_t>(parameter.size);
    ++out->constant_count;
    offset += parameter.size;
  }
  info.constant_size = offset;
  for (int d = 0; d < 3; ++d) info.workgroup_size[d] = entry.workgroup_size[d];
  return HALO_OK;
}

}  // namespace

const halo_executable_vtable_t Executable::kVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = &destroy_executable},
    .entry_point_count = &count_entry_points,
    .query_entry_point = &query_entry_point,
    .lookup_entry_point = &lookup_entry_point,
};

Executable::Executable(Device* device) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(device->host),
      api(device->api),
      device(device) {
  host.retain(sdk::as_object(device->handle()));
}

Executable::~Executable() {
  if (module != nullptr) {
    ContextScope scope(*api, device->context);
    api->cuModuleUnload(module);
  }
  host.deallocate(entry_points);
  host.release(sdk::as_object(device->handle()));
}

halo_status_t Executable::load(const halo_executable_params_t& params) {
  const PtxReflection reflection = reflect_ptx(params.data, params.data_size);
  if (!reflection.error.empty()) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT, "%s: %s", kFunction,
                            reflection.error.c_str());
  }
  if (reflection.entries.empty()) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: the PTX declares no .entry", kFunction);
  }
  std::vector<const PtxEntry*> sorted;
  for (const PtxEntry& entry : reflection.entries) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const PtxEntry* a, const PtxEntry* b) {
              return a->display_name < b->display_name;
            });
  const size_t count = sorted.size();
  entry_points = static_cast<EntryPoint*>(
      host.allocate(count * sizeof(EntryPoint), alignof(EntryPoint)));
  if (entry_points == nullptr) throw std::bad_alloc();
  for (size_t i = 0; i < count; ++i) new (&entry_points[i]) EntryPoint();
  entry_point_count = static_cast<uint32_t>(count);
  for (size_t i = 0; i < count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(describe_entry(host, *sorted[i], &entry_points[i]));
  }

  // The driver wants NUL-terminated text.
  std::string text(static_cast<const char*>(params.data), params.data_size);
  std::vector<char> log(kJitLogSize, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
  ContextScope scope(*api, device->context);
  const CUresult result =
      api->cuModuleLoadDataEx(&module, text.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS) {
    module = nullptr;
    halo_status_t status = cuda_failure(host, *api, "cuModuleLoadDataEx", result);
    halo_status_t described = host.make_status(
        host.code(status), "%s: %s%s%s", kFunction, host.message(status),
        log[0] != '\0' ? "; JIT log: " : "", log.data());
    host.free(status);
    return described;
  }
  for (size_t i = 0; i < count; ++i) {
    HALO_CUDA_RETURN_IF_ERROR(
        host, *api, "cuModuleGetFunction",
        api->cuModuleGetFunction(&entry_points[i].function, module,
                                 sorted[i]->name.c_str()));
  }
  return HALO_OK;
}

halo_status_t Executable::create(Device* device,
                                 const halo_executable_params_t& params,
                                 halo_executable_t** out_executable) noexcept {
  sdk::Host host = device->host;
  if (std::strcmp(params.format, kFormatPtx) != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->format '%s' is not one the cuda "
                            "device takes (%s)",
                            kFunction, params.format, kFormatPtx);
  }
  if (params.data_size == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data_size is 0", kFunction);
  }
  return HALO_SDK_TRY(host, {
    Executable* executable = host.make<Executable>(device);
    halo_status_t status =
        sdk::guard(host, [&] { return executable->load(params); });
    if (status != HALO_OK) {
      host.destroy(executable);
      return status;
    }
    *out_executable = executable->handle();
    return HALO_OK;
  });
}

}  // namespace halo::cuda
