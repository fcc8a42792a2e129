// The opencl executable: building the program, its entry points and the
// executable vtable.
#include "executable.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

#include "cl_status.hpp"
#include "device.hpp"
#include "halo/sdk/versioned.hpp"
#include "kernel_layout.hpp"

namespace halo::cl {
namespace {

// Options for every build: parameter info is how the layout is read.
constexpr char kBuildOptions[] = "-cl-kernel-arg-info";
// The most of a build log a status carries.
constexpr size_t kMaxLogInStatus = 3072;
// The most kernels one program may hold.
constexpr size_t kMaxKernels = 256;

void destroy_executable(halo_object_t* object) {
  Executable* executable = sdk::object_cast<Executable>(object);
  sdk::Host host = executable->host;
  host.destroy(executable);
}

uint32_t entry_point_count(halo_executable_t* executable) {
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

}  // namespace

// entry_point_count is named cl:: because Executable's member of that name
// would hide it here.
const halo_executable_vtable_t Executable::kVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = &destroy_executable},
    .entry_point_count = &cl::entry_point_count,
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
  for (uint32_t i = 0; i < entry_point_count; ++i) {
    if (entry_points[i].kernel != nullptr) {
      api->clReleaseKernel(entry_points[i].kernel);
    }
    entry_points[i].~EntryPoint();
  }
  host.deallocate(entry_points);
  host.free(arg_info_refusal_);
  if (program != nullptr) api->clReleaseProgram(program);
  host.release(sdk::as_object(device->handle()));
}

halo_status_t Executable::build_failure(cl_int code) noexcept {
  const cl_device_id id = device->description->device;
  size_t size = 0;
  api->clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                             &size);
  char* log = size > 0 ? static_cast<char*>(host.allocate(size + 1, 1))
                       : nullptr;
  if (log != nullptr) {
    log[0] = '\0';
    api->clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, size, log,
                               nullptr);
    log[size] = '\0';
  }
  char message[kMaxLogInStatus + 256];
  std::snprintf(message, sizeof(message),
                "halo_executable_create: clBuildProgram failed: %s (%d); "
                "build log:\n%.*s",
                error_name(code), static_cast<int>(code),
                static_cast<int>(kMaxLogInStatus),
                log != nullptr ? log : "(none)");
  host.deallocate(log);
  halo_status_code_t status_code = status_code_for(code);
  if (status_code == HALO_STATUS_INTERNAL) {
    status_code = HALO_STATUS_INVALID_ARGUMENT;
  }
  return host.make_status_text(status_code, message);
}

halo_status_t Executable::build(const halo_executable_params_t& params) noexcept {
  const DeviceDescription& description = *device->description;
  const char* format = params.format;
  cl_int code = CL_SUCCESS;
  if (std::strcmp(format, kFormatOpenClC) == 0 && description.compiler) {
    const char* source = static_cast<const char*>(params.data);
    size_t length = params.data_size;
    program = api->clCreateProgramWithSource(device->context(), 1, &source,
                                             &length, &code);
  } else if (std::strcmp(format, kFormatSpirvKernel) == 0 &&
             description.spirv_il) {
    program = api->clCreateProgramWithIL(device->context(), params.data,
                                         params.data_size, &code);
  } else {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: params->format '%s' is "
                            "not one of this device's executable formats "
                            "('%s')",
                            format, device->capabilities().executable_formats);
  }
  if (code != CL_SUCCESS) {
    return host.annotate(cl_status(host, "clCreateProgram", code),
                         "halo_executable_create");
  }
  code = api->clBuildProgram(program, 1, &description.device, kBuildOptions,
                             nullptr, nullptr);
  if (code == CL_SUCCESS) return HALO_OK;
  halo_status_t refusal = build_failure(code);
  // NVIDIA's compiler (driver 580) emits PTX that its own assembler rejects
  // for a program whose kernels take no parameters when asked to keep
  // argument info. Such kernels need none: build again without it, and keep
  // the first failure for a kernel that turns out to have parameters.
  code = api->clBuildProgram(program, 1, &description.device, "", nullptr,
                             nullptr);
  if (code != CL_SUCCESS) return refusal;
  arg_info_refusal_ = refusal;
  return HALO_OK;
}

halo_status_t Executable::check_parameterless(const cl_kernel* kernels,
                                              cl_uint count) noexcept {
  for (cl_uint i = 0; i < count; ++i) {
    cl_uint parameters = 0;
    cl_int code = api->clGetKernelInfo(kernels[i], CL_KERNEL_NUM_ARGS,
                                       sizeof(parameters), &parameters,
                                       nullptr);
    HALO_CL_RETURN_IF_ERROR(host, "clGetKernelInfo(CL_KERNEL_NUM_ARGS)", code);
    if (parameters == 0) continue;
    halo_status_t refusal = arg_info_refusal_;
    arg_info_refusal_ = nullptr;
    return host.annotate(refusal,
                         "the program builds only without "
                         "-cl-kernel-arg-info, which halo needs to read "
                         "kernel parameters");
  }
  return HALO_OK;
}

halo_status_t Executable::load_entry_points() {
  cl_uint count = 0;
  cl_int code = api->clCreateKernelsInProgram(program, 0, nullptr, &count);
  HALO_CL_RETURN_IF_ERROR(host, "clCreateKernelsInProgram", code);
  if (count == 0) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_executable_create: params->data is a "
                                 "program with no kernels");
  }
  cl_kernel kernels[kMaxKernels];
  if (count > kMaxKernels) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: params->data is a "
                            "program of %u kernels; at most %zu are "
                            "supported",
                            count, kMaxKernels);
  }
  entry_points = static_cast<EntryPoint*>(
      host.allocate(count * sizeof(EntryPoint), alignof(EntryPoint)));
  if (entry_points == nullptr) throw std::bad_alloc();
  for (cl_uint i = 0; i < count; ++i) ::new (&entry_points[i]) EntryPoint();
  entry_point_count = count;
  code = api->clCreateKernelsInProgram(program, count, kernels, nullptr);
  HALO_CL_RETURN_IF_ERROR(host, "clCreateKernelsInProgram", code);
  for (cl_uint i = 0; i < count; ++i) entry_points[i].kernel = kernels[i];
  if (arg_info_refusal_ != nullptr) {
    HALO_SDK_RETURN_IF_ERROR(check_parameterless(kernels, count));
  }
  for (cl_uint i = 0; i < count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(describe_kernel(
        host, *api, device->description->device, &entry_points[i]));
  }
  std::sort(entry_points, entry_points + count,
            [](const EntryPoint& a, const EntryPoint& b) {
              return std::strcmp(a.info.name, b.info.name) < 0;
            });
  return HALO_OK;
}

halo_status_t Executable::create(Device* device,
                                 const halo_executable_params_t& params,
                                 halo_executable_t** out_executable) noexcept {
  sdk::Host host = device->host;
  if (params.data_size == 0) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_executable_create: params->data_size "
                                 "is 0");
  }
  return HALO_SDK_TRY(host, {
    Executable* executable = host.make<Executable>(device);
    halo_status_t status = executable->build(params);
    if (status == HALO_OK) {
      status = sdk::guard(host, [&] { return executable->load_entry_points(); });
    }
    if (status != HALO_OK) {
      host.destroy(executable);
      return status;
    }
    *out_executable = executable->handle();
    return HALO_OK;
  });
}

halo_status_t Executable::make_dispatch_kernel(uint32_t ordinal,
                                               cl_kernel* out) const noexcept {
  const EntryPoint& entry = entry_points[ordinal];
  cl_int code = CL_SUCCESS;
  if (device->description->at_least(2, 1) && api->clCloneKernel != nullptr) {
    *out = api->clCloneKernel(entry.kernel, &code);
    return cl_status(host, "clCloneKernel", code);
  }
  *out = api->clCreateKernel(program, entry.info.name, &code);
  return cl_status(host, "clCreateKernel", code);
}

}  // namespace halo::cl
