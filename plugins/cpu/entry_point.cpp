// Entry point validation, constant layout and the libffi call interface.
#include "entry_point.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

constexpr size_t kMaxNameLength = sizeof(halo_entry_point_info_t::name) - 1;

// The libffi type of a parameter kind, or NULL for an unknown kind.
ffi_type* ffi_type_of(uint8_t kind) noexcept {
  switch (kind) {
    case HALO_CPU_PARAM_BUFFER: return &ffi_type_pointer;
    case HALO_CPU_PARAM_INT32: return &ffi_type_sint32;
    case HALO_CPU_PARAM_UINT32: return &ffi_type_uint32;
    case HALO_CPU_PARAM_INT64: return &ffi_type_sint64;
    case HALO_CPU_PARAM_UINT64: return &ffi_type_uint64;
    case HALO_CPU_PARAM_FLOAT32: return &ffi_type_float;
    case HALO_CPU_PARAM_FLOAT64: return &ffi_type_double;
    default: return nullptr;
  }
}

}  // namespace

halo_status_t EntryPoint::fail(sdk::Host host, uint32_t ordinal,
                               const char* format, ...) const noexcept {
  char reason[512];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(reason, sizeof(reason), format, arguments);
  va_end(arguments);
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "halo_executable_create: cpu-so kernel table entry "
                          "%u ('%s'): %s",
                          ordinal, name_, reason);
}

halo_status_t EntryPoint::prepare(sdk::Host host, uint32_t ordinal,
                                  const halo_cpu_entry_point_t& entry) noexcept {
  if (entry.name == nullptr) return fail(host, ordinal, "name is NULL");
  size_t length = strnlen(entry.name, kMaxNameLength + 1);
  if (length == 0) return fail(host, ordinal, "name is empty");
  if (length > kMaxNameLength) {
    std::snprintf(name_, sizeof(name_), "%.32s...", entry.name);
    return fail(host, ordinal, "name is longer than %zu bytes",
                kMaxNameLength);
  }
  std::memcpy(name_, entry.name, length);
  name_[length] = '\0';
  if (entry.function == nullptr) return fail(host, ordinal, "function is NULL");
  function_ = entry.function;
  HALO_SDK_RETURN_IF_ERROR(read_parameters(host, ordinal, entry));
  ffi_status prepared =
      ffi_prep_cif(&cif_, FFI_DEFAULT_ABI, entry.parameter_count + 1,
                   &ffi_type_void, types_);
  if (prepared != FFI_OK) {
    return host.make_status(HALO_STATUS_INTERNAL,
                            "halo_executable_create: libffi could not prepare "
                            "a call to entry point '%s' (ffi_status %d)",
                            name_, static_cast<int>(prepared));
  }
  return HALO_OK;
}

halo_status_t EntryPoint::read_parameters(
    sdk::Host host, uint32_t ordinal,
    const halo_cpu_entry_point_t& entry) noexcept {
  if (entry.parameter_count > HALO_CPU_MAX_PARAMETERS) {
    return fail(host, ordinal, "%u parameters; at most %u are allowed",
                entry.parameter_count, HALO_CPU_MAX_PARAMETERS);
  }
  if (entry.parameter_count > 0 && entry.parameters == nullptr) {
    return fail(host, ordinal, "parameters is NULL with parameter_count %u",
                entry.parameter_count);
  }
  types_[0] = &ffi_type_pointer;  // const halo_cpu_workgroup_t*
  uint32_t offset = 0;
  for (uint32_t i = 0; i < entry.parameter_count; ++i) {
    uint8_t kind = entry.parameters[i];
    ffi_type* type = ffi_type_of(kind);
    if (type == nullptr) {
      return fail(host, ordinal, "parameter %u has unknown kind %u", i,
                  static_cast<unsigned>(kind));
    }
    types_[i + 1] = type;
    if (kind == HALO_CPU_PARAM_BUFFER) {
      if (constant_count_ > 0) {
        return fail(host, ordinal,
                    "parameter %u is a buffer after a scalar (buffers come "
                    "first)",
                    i);
      }
      ++binding_count_;
      continue;
    }
    // Each constant sits at the next offset aligned to its own size: the
    // layout of a C struct and of a std430 push-constant block.
    uint32_t size = static_cast<uint32_t>(type->size);
    offset = (offset + size - 1) / size * size;
    constant_offsets_[constant_count_++] = offset;
    offset += size;
  }
  constant_size_ = offset;
  return HALO_OK;
}

halo_entry_point_info_t EntryPoint::describe() const noexcept {
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  std::memcpy(info.name, name_, sizeof(info.name));
  info.binding_count = binding_count_;
  info.constant_size = constant_size_;
  // workgroup_size stays {0, 0, 0}: a workgroup is one call of the function,
  // which alone decides how much work the call does (cpu_kernel.h).
  return info;
}

void EntryPoint::bind(void** values,
                      const halo_cpu_workgroup_t* const* workgroup,
                      void* const* bindings,
                      const uint8_t* constants) const noexcept {
  values[0] = const_cast<const halo_cpu_workgroup_t**>(workgroup);
  for (uint32_t i = 0; i < binding_count_; ++i) {
    values[1 + i] = const_cast<void**>(&bindings[i]);
  }
  for (uint32_t i = 0; i < constant_count_; ++i) {
    values[1 + binding_count_ + i] =
        const_cast<uint8_t*>(constants + constant_offsets_[i]);
  }
}

}  // namespace halo::cpu
