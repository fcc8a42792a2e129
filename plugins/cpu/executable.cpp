// The cpu executable's vtable: creation from "cpu-so" bytes, kernel table
// validation and entry point queries.
#include "executable.hpp"

#include <cstring>
#include <limits>
#include <new>

#include "halo/sdk/commands.hpp"
#include "halo/sdk/versioned.hpp"

namespace halo::cpu {
namespace {

constexpr char kCreate[] = "halo_executable_create";

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
    return self->host.make_status(
        HALO_STATUS_OUT_OF_RANGE,
        "halo_executable_query_entry_point: ordinal %u is not below the "
        "executable's %u entry points",
        ordinal, self->entry_point_count);
  }
  return sdk::copy_versioned(self->host,
                             self->entry_points[ordinal].describe(), out_info,
                             "halo_executable_query_entry_point", "out_info");
}

halo_status_t lookup_entry_point(halo_executable_t* executable,
                                 const char* name, uint32_t* out_ordinal) {
  Executable* self = Executable::cast(executable);
  for (uint32_t i = 0; i < self->entry_point_count; ++i) {
    if (std::strcmp(self->entry_points[i].name(), name) == 0) {
      *out_ordinal = i;
      return HALO_OK;
    }
  }
  return self->host.make_status(HALO_STATUS_NOT_FOUND,
                                "halo_executable_lookup_entry_point: name "
                                "'%.128s' is no entry point of the executable",
                                name);
}

// Returns INVALID_ARGUMENT when two entry points share a name or a
// function: a name must select one entry point, and one function cannot
// have two parameter lists.
halo_status_t check_unique(sdk::Host host, const EntryPoint* entry_points,
                           uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t j = i + 1; j < count; ++j) {
      if (std::strcmp(entry_points[i].name(), entry_points[j].name()) == 0) {
        return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: params->data has cpu-so kernel table "
                                "entries %u and %u both named '%s'",
                                kCreate, i, j, entry_points[i].name());
      }
      if (entry_points[i].function() == entry_points[j].function()) {
        return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: params->data has cpu-so kernel table "
                                "entries %u ('%s') and %u ('%s') that name "
                                "the same function",
                                kCreate, i, entry_points[i].name(), j,
                                entry_points[j].name());
      }
    }
  }
  return HALO_OK;
}

}  // namespace

const halo_executable_vtable_t Executable::kVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = &destroy_executable},
    .entry_point_count = &cpu::entry_point_count,
    .query_entry_point = &query_entry_point,
    .lookup_entry_point = &lookup_entry_point,
};

Executable::Executable(sdk::Host host, halo_device_t* device) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      device(device) {
  host.retain(sdk::as_object(device));
}

Executable::~Executable() {
  for (uint32_t i = 0; i < entry_point_count; ++i) {
    entry_points[i].~EntryPoint();
  }
  host.deallocate(entry_points);
  // After the entry points: they point into the library.
  library.unload();
  host.release(sdk::as_object(device));
}

halo_status_t Executable::load_table(const halo_executable_params_t& params) {
  HALO_SDK_RETURN_IF_ERROR(
      KernelLibrary::load(host, params.data, params.data_size, &library));
  const auto* table = static_cast<const halo_cpu_kernel_table_t*>(
      library.symbol(HALO_CPU_KERNEL_TABLE_SYMBOL));
  if (table == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data (a cpu-so shared object) does "
                            "not export '%s' (define it with "
                            "HALO_CPU_KERNEL_TABLE)",
                            kCreate, HALO_CPU_KERNEL_TABLE_SYMBOL);
  }
  if (table->abi_version != HALO_CPU_KERNEL_ABI_VERSION) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data has a cpu-so kernel table of "
                            "abi_version %u; the cpu device reads version %u",
                            kCreate, table->abi_version,
                            HALO_CPU_KERNEL_ABI_VERSION);
  }
  if (table->entry_point_count == 0 || table->entry_points == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data has a cpu-so kernel table with "
                            "no entry points",
                            kCreate);
  }
  uint32_t count = table->entry_point_count;
  if (count > std::numeric_limits<size_t>::max() / sizeof(EntryPoint)) {
    throw std::bad_alloc();
  }
  void* memory = host.allocate(count * sizeof(EntryPoint), alignof(EntryPoint));
  if (memory == nullptr) throw std::bad_alloc();
  entry_points = static_cast<EntryPoint*>(memory);
  for (; entry_point_count < count; ++entry_point_count) {
    ::new (&entry_points[entry_point_count]) EntryPoint();
  }
  for (uint32_t i = 0; i < count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(
        entry_points[i].prepare(host, i, table->entry_points[i]));
  }
  return check_unique(host, entry_points, count);
}

halo_status_t Executable::create(sdk::Host host, halo_device_t* device,
                                 const halo_executable_params_t& params,
                                 halo_executable_t** out_executable) noexcept {
  if (std::strcmp(params.format, kExecutableFormat) != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->format '%.64s' is not supported; the "
                            "cpu device supports: %s",
                            kCreate, params.format, kExecutableFormat);
  }
  if (params.data_size == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data_size is 0; a cpu-so executable "
                            "is a shared object's bytes",
                            kCreate);
  }
  return HALO_SDK_TRY(host, {
    Executable* executable = host.make<Executable>(host, device);
    halo_status_t status = sdk::guard(
        host, [&] { return executable->load_table(params); });
    if (status != HALO_OK) {
      host.destroy(executable);
      return status;
    }
    *out_executable = executable->handle();
    return HALO_OK;
  });
}

halo_status_t Executable::resolve(sdk::Host host,
                                  halo_executable_t* executable,
                                  halo_device_t* device, const char* function,
                                  const char* argument,
                                  Executable** out) noexcept {
  Executable* self = from(executable);
  if (self == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s is an executable of another plugin; the "
                            "cpu device only runs its own executables",
                            function, argument);
  }
  if (self->device != device) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s belongs to another device", function,
                            argument);
  }
  *out = self;
  return HALO_OK;
}

}  // namespace halo::cpu
