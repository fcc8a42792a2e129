/* seeded_commands.c: host buffers, command buffers and cpu-so executables for the
 * seeded-bug plugin (see seeded_commands.h). Kept small: it checks what keeps the
 * process sound (ranges, ownership, recording state, binding and constant counts)
 * and leaves the finer argument rules to the real plugins, whose CTS groups test
 * them. */
#define _GNU_SOURCE

#include "seeded_commands.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "halo/cpu_kernel.h"

#ifndef TEMPLATE_PLUGIN_NAME
#define TEMPLATE_PLUGIN_NAME "template"
#endif

/* ---- Helpers ----------------------------------------------------------------------- */

static void* allocate(const halo_host_interface_t* host, size_t size) {
  return host->allocator.allocate(host->allocator.self, size, 16);
}

static void deallocate(const halo_host_interface_t* host, void* pointer) {
  host->allocator.free(host->allocator.self, pointer);
}

static halo_status_t out_of_memory(const halo_host_interface_t* host, const char* function) {
  return host->status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                             "%s: " TEMPLATE_PLUGIN_NAME " is out of memory", function);
}

static void object_init(halo_object_t* object, const void* vtable) {
  object->ref_count = 1;
  object->reserved0 = 0;
  object->vtable = (const halo_object_vtable_t*)vtable;
}

/* OUT_OF_RANGE unless [offset, offset + length) lies within |size| bytes. */
static halo_status_t check_range(const halo_host_interface_t* host, const char* function,
                                 const char* what, uint64_t offset, uint64_t length,
                                 uint64_t size) {
  if (offset <= size && length <= size - offset) return HALO_OK;
  return host->status_format(HALO_STATUS_OUT_OF_RANGE,
                             "%s: %s offset %llu + length %llu exceeds its %llu bytes", function,
                             what, (unsigned long long)offset, (unsigned long long)length,
                             (unsigned long long)size);
}

/* ---- Buffers ----------------------------------------------------------------------- */

typedef struct seeded_buffer_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  halo_device_t* device; /* Retained. */
  uint64_t size;
  uint8_t* data;
  bool owns_data; /* False for an imported host allocation: the application's. */
} seeded_buffer_t;

static void buffer_destroy(halo_object_t* object) {
  seeded_buffer_t* buffer = (seeded_buffer_t*)object;
  const halo_host_interface_t* host = buffer->host;
  halo_device_t* device = buffer->device;
  if (buffer->owns_data) deallocate(host, buffer->data);
  deallocate(host, buffer);
  host->object_release((halo_object_t*)device);
}

static uint64_t buffer_size(halo_buffer_t* base) { return ((seeded_buffer_t*)base)->size; }

/* Resolves HALO_WHOLE_BUFFER and checks the range; the memory is coherent, so the
 * mapping functions have nothing else to do. */
static halo_status_t buffer_check_range(halo_buffer_t* base, const char* function,
                                        uint64_t offset, uint64_t* length) {
  seeded_buffer_t* buffer = (seeded_buffer_t*)base;
  if (*length == HALO_WHOLE_BUFFER) *length = offset <= buffer->size ? buffer->size - offset : 0;
  return check_range(buffer->host, function, "buffer", offset, *length, buffer->size);
}

static halo_status_t buffer_map_range(halo_buffer_t* base, uint64_t offset, uint64_t length,
                                      void** out_pointer) {
  *out_pointer = NULL;
  halo_status_t status = buffer_check_range(base, "halo_buffer_map_range", offset, &length);
  if (status == HALO_OK) *out_pointer = ((seeded_buffer_t*)base)->data + offset;
  return status;
}

static halo_status_t buffer_unmap_range(halo_buffer_t* base, uint64_t offset, uint64_t length) {
  return buffer_check_range(base, "halo_buffer_unmap_range", offset, &length);
}

static halo_status_t buffer_flush_range(halo_buffer_t* base, uint64_t offset, uint64_t length) {
  return buffer_check_range(base, "halo_buffer_flush_range", offset, &length);
}

static halo_status_t buffer_invalidate_range(halo_buffer_t* base, uint64_t offset,
                                             uint64_t length) {
  return buffer_check_range(base, "halo_buffer_invalidate_range", offset, &length);
}

static const halo_buffer_vtable_t kBufferVtable = {
    .object = {.struct_size = sizeof(halo_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = buffer_destroy},
    .size = buffer_size,
    .map_range = buffer_map_range,
    .unmap_range = buffer_unmap_range,
    .flush_range = buffer_flush_range,
    .invalidate_range = buffer_invalidate_range,
};

/* |base| as this plugin's buffer, or NULL when it is another plugin's. */
static seeded_buffer_t* own_buffer(halo_buffer_t* base) {
  return ((halo_object_t*)base)->vtable == &kBufferVtable.object ? (seeded_buffer_t*)base
                                                                  : NULL;
}

halo_status_t seeded_buffer_allocate(const halo_host_interface_t* host, halo_device_t* device,
                                     const halo_buffer_params_t* params,
                                     halo_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (params->memory_type == 0 || (params->memory_type & ~SEEDED_MEMORY_TYPES) != 0 ||
      params->usage == 0 || params->size == 0) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_buffer_allocate: memory_type 0x%x, usage 0x%x and size %llu "
                               "are not a buffer this device makes",
                               (unsigned)params->memory_type, (unsigned)params->usage,
                               (unsigned long long)params->size);
  }
  if (params->size > SEEDED_MAX_BUFFER_SIZE) {
    return host->status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                               "halo_buffer_allocate: size %llu exceeds max_buffer_size %llu",
                               (unsigned long long)params->size,
                               (unsigned long long)SEEDED_MAX_BUFFER_SIZE);
  }
  seeded_buffer_t* buffer = allocate(host, sizeof(*buffer));
  const size_t alignment = params->alignment > SEEDED_MIN_BUFFER_ALIGNMENT
                               ? params->alignment
                               : SEEDED_MIN_BUFFER_ALIGNMENT;
  uint8_t* data = buffer == NULL ? NULL
                                 : host->allocator.allocate(host->allocator.self, params->size,
                                                            alignment);
  if (data == NULL) {
    deallocate(host, buffer);
    return out_of_memory(host, "halo_buffer_allocate");
  }
  memset(data, 0, params->size);
  object_init(&buffer->object, &kBufferVtable);
  buffer->host = host;
  buffer->device = device;
  buffer->size = params->size;
  buffer->data = data;
  buffer->owns_data = true;
  host->object_retain((halo_object_t*)device);
  *out_buffer = (halo_buffer_t*)buffer;
  return HALO_OK;
}

#if HALO_ABI_VERSION_MINOR >= 3
halo_status_t seeded_buffer_import(const halo_host_interface_t* host, halo_device_t* device,
                                   const halo_buffer_params_t* params,
                                   const halo_external_handle_t* handle,
                                   halo_buffer_t** out_buffer) {
#if defined(TEMPLATE_BREAK_IMPORT_COPIES)
  /* TEST HOOK: the "import" is a buffer of its own holding a copy of the memory, so
   * device writes never reach the application's memory, nor later host writes the
   * device. */
  halo_status_t status = seeded_buffer_allocate(host, device, params, out_buffer);
  if (status == HALO_OK) {
    memcpy(((seeded_buffer_t*)*out_buffer)->data, handle->host_pointer, params->size);
  }
  return status;
#else
  *out_buffer = NULL;
  if (params->memory_type == 0 || (params->memory_type & ~SEEDED_MEMORY_TYPES) != 0 ||
      params->usage == 0) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_buffer_import: memory_type 0x%x and usage 0x%x are not a "
                               "buffer this device makes",
                               (unsigned)params->memory_type, (unsigned)params->usage);
  }
  seeded_buffer_t* buffer = allocate(host, sizeof(*buffer));
  if (buffer == NULL) return out_of_memory(host, "halo_buffer_import");
  object_init(&buffer->object, &kBufferVtable);
  buffer->host = host;
  buffer->device = device;
  buffer->size = params->size;
  buffer->data = handle->host_pointer;
  buffer->owns_data = false;
  host->object_retain((halo_object_t*)device);
  *out_buffer = (halo_buffer_t*)buffer;
  return HALO_OK;
#endif
}
#endif

/* ---- Executables ------------------------------------------------------------------- */

typedef struct seeded_entry_point_t {
  const halo_cpu_entry_point_t* table_entry;
  uint32_t binding_count;
  uint32_t constant_size;
  /* Where each scalar parameter sits in the constants (cpu_kernel.h's layout). */
  uint32_t constant_offsets[HALO_CPU_MAX_PARAMETERS];
  /* The workgroup pointer, then the table's parameters. */
  ffi_type* types[HALO_CPU_MAX_PARAMETERS + 1];
  ffi_cif cif;
} seeded_entry_point_t;

typedef struct seeded_executable_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  halo_device_t* device; /* Retained. */
  /* The memfd the library was loaded from, open while it is loaded: glibc finds an
   * already loaded library by its path, so a second executable must not reuse the
   * same /proc/self/fd/N. */
  int fd;
  void* library;
  uint32_t entry_point_count;
  seeded_entry_point_t* entry_points;
} seeded_executable_t;

static void executable_destroy(halo_object_t* object) {
  seeded_executable_t* executable = (seeded_executable_t*)object;
  const halo_host_interface_t* host = executable->host;
  halo_device_t* device = executable->device;
  if (executable->library != NULL) dlclose(executable->library);
  if (executable->fd >= 0) close(executable->fd);
  deallocate(host, executable->entry_points);
  deallocate(host, executable);
  host->object_release((halo_object_t*)device);
}

static uint32_t executable_entry_point_count(halo_executable_t* base) {
  return ((seeded_executable_t*)base)->entry_point_count;
}

static halo_status_t executable_query_entry_point(halo_executable_t* base, uint32_t ordinal,
                                                  halo_entry_point_info_t* out_info) {
  seeded_executable_t* executable = (seeded_executable_t*)base;
  if (ordinal >= executable->entry_point_count) {
    return executable->host->status_format(
        HALO_STATUS_OUT_OF_RANGE,
        "halo_executable_query_entry_point: ordinal %u is not below the %u entry points",
        (unsigned)ordinal, (unsigned)executable->entry_point_count);
  }
  const seeded_entry_point_t* entry = &executable->entry_points[ordinal];
  snprintf(out_info->name, sizeof(out_info->name), "%s", entry->table_entry->name);
  out_info->binding_count = entry->binding_count;
  out_info->constant_size = entry->constant_size;
  return HALO_OK;
}

static halo_status_t executable_lookup_entry_point(halo_executable_t* base, const char* name,
                                                   uint32_t* out_ordinal) {
  seeded_executable_t* executable = (seeded_executable_t*)base;
  for (uint32_t i = 0; i < executable->entry_point_count; ++i) {
    if (strcmp(executable->entry_points[i].table_entry->name, name) == 0) {
      *out_ordinal = i;
      return HALO_OK;
    }
  }
  return executable->host->status_format(
      HALO_STATUS_NOT_FOUND, "halo_executable_lookup_entry_point: name \"%s\" names no entry point",
      name);
}

static const halo_executable_vtable_t kExecutableVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = executable_destroy},
    .entry_point_count = executable_entry_point_count,
    .query_entry_point = executable_query_entry_point,
    .lookup_entry_point = executable_lookup_entry_point,
};

/* The libffi type of a cpu_kernel.h parameter kind, or NULL for an unknown one. */
static ffi_type* parameter_type(uint8_t kind) {
  switch (kind) {
    case HALO_CPU_PARAM_BUFFER: return &ffi_type_pointer;
    case HALO_CPU_PARAM_INT32: return &ffi_type_sint32;
    case HALO_CPU_PARAM_UINT32: return &ffi_type_uint32;
    case HALO_CPU_PARAM_INT64: return &ffi_type_sint64;
    case HALO_CPU_PARAM_UINT64: return &ffi_type_uint64;
    case HALO_CPU_PARAM_FLOAT32: return &ffi_type_float;
    case HALO_CPU_PARAM_FLOAT64: return &ffi_type_double;
    default: return NULL;
  }
}

/* Lays out |entry|'s parameters and prepares its call. Returns false for a parameter
 * list this file cannot call. */
static bool prepare_entry_point(const halo_cpu_entry_point_t* table_entry,
                                seeded_entry_point_t* entry) {
  memset(entry, 0, sizeof(*entry));
  entry->table_entry = table_entry;
  if (table_entry->function == NULL || table_entry->name == NULL ||
      table_entry->parameter_count > HALO_CPU_MAX_PARAMETERS) {
    return false;
  }
  entry->types[0] = &ffi_type_pointer;
  for (uint32_t i = 0; i < table_entry->parameter_count; ++i) {
    ffi_type* type = parameter_type(table_entry->parameters[i]);
    if (type == NULL) return false;
    entry->types[i + 1] = type;
    if (table_entry->parameters[i] == HALO_CPU_PARAM_BUFFER) {
      ++entry->binding_count;
      continue;
    }
    const uint32_t size = (uint32_t)type->size;
    entry->constant_offsets[i] = (entry->constant_size + size - 1) / size * size;
    entry->constant_size = entry->constant_offsets[i] + size;
  }
  return ffi_prep_cif(&entry->cif, FFI_DEFAULT_ABI, table_entry->parameter_count + 1,
                      &ffi_type_void, entry->types) == FFI_OK;
}

/* Loads |params|' bytes as a library from an anonymous memfd into |executable|. */
static halo_status_t load_library(const halo_host_interface_t* host,
                                  const halo_executable_params_t* params,
                                  seeded_executable_t* executable) {
  executable->fd = memfd_create("halo-seeded-kernel", MFD_CLOEXEC);
  if (executable->fd < 0) {
    return host->status_create(HALO_STATUS_INTERNAL, "halo_executable_create: memfd_create failed");
  }
  const uint8_t* bytes = params->data;
  for (size_t done = 0; done < params->data_size;) {
    const ssize_t written = write(executable->fd, bytes + done, params->data_size - done);
    if (written <= 0) {
      return host->status_create(HALO_STATUS_INTERNAL,
                                 "halo_executable_create: memfd write failed");
    }
    done += (size_t)written;
  }
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", executable->fd);
  executable->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (executable->library == NULL) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_executable_create: cannot load the cpu-so bytes: %s",
                               dlerror());
  }
  const halo_cpu_kernel_table_t* table =
      dlsym(executable->library, HALO_CPU_KERNEL_TABLE_SYMBOL);
  if (table == NULL || table->abi_version != HALO_CPU_KERNEL_ABI_VERSION ||
      table->entry_point_count == 0) {
    return host->status_create(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_executable_create: no usable " HALO_CPU_KERNEL_TABLE_SYMBOL);
  }
  executable->entry_points =
      allocate(host, table->entry_point_count * sizeof(seeded_entry_point_t));
  if (executable->entry_points == NULL) return out_of_memory(host, "halo_executable_create");
  for (uint32_t i = 0; i < table->entry_point_count; ++i) {
    if (!prepare_entry_point(&table->entry_points[i], &executable->entry_points[i])) {
      return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_executable_create: entry point %u cannot be called",
                                 (unsigned)i);
    }
  }
  executable->entry_point_count = table->entry_point_count;
  return HALO_OK;
}

halo_status_t seeded_executable_create(const halo_host_interface_t* host, halo_device_t* device,
                                       const halo_executable_params_t* params,
                                       halo_executable_t** out_executable) {
  *out_executable = NULL;
  if (strcmp(params->format, "cpu-so") != 0) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_executable_create: params->format \"%s\" is not one this "
                               "device takes (cpu-so)",
                               params->format);
  }
  seeded_executable_t* executable = allocate(host, sizeof(*executable));
  if (executable == NULL) return out_of_memory(host, "halo_executable_create");
  memset(executable, 0, sizeof(*executable));
  object_init(&executable->object, &kExecutableVtable);
  executable->host = host;
  executable->device = device;
  host->object_retain((halo_object_t*)device);
  halo_status_t status = load_library(host, params, executable);
  if (status != HALO_OK) {
    executable_destroy(&executable->object);
    return status;
  }
  *out_executable = (halo_executable_t*)executable;
  return HALO_OK;
}

/* ---- Command buffers --------------------------------------------------------------- */

typedef enum command_kind_t {
  COMMAND_BARRIER,
  COMMAND_FILL,
  COMMAND_UPDATE,
  COMMAND_COPY,
  COMMAND_DISPATCH
} command_kind_t;

typedef struct command_t {
  command_kind_t kind;
  seeded_buffer_t* target; /* Retained: a fill's, update's or copy's. */
  seeded_buffer_t* source; /* Retained: a copy's. */
  uint64_t offset, source_offset, length;
  uint8_t pattern[4];
  uint32_t pattern_length;
  /* Owned: an update's bytes; a dispatch's bindings (retained buffers), their
   * offsets and its constants, in one block. */
  void* block;
  seeded_executable_t* executable; /* Retained: a dispatch's. */
  const seeded_entry_point_t* entry_point;
  uint32_t workgroup_count[3];
  size_t binding_count;
  seeded_buffer_t** bindings;
  uint64_t* binding_offsets;
  uint8_t* constants;
} command_t;

enum { STATE_INITIAL, STATE_RECORDING, STATE_ENDED };

typedef struct seeded_command_buffer_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  halo_device_t* device; /* Retained. */
  halo_command_buffer_mode_t mode;
  int state;
  atomic_bool submitted; /* ONE_SHOT: claimed by a submission. */
  command_t* commands;
  size_t count, capacity;
} seeded_command_buffer_t;

static void release_object(const halo_host_interface_t* host, void* object) {
  if (object != NULL) host->object_release((halo_object_t*)object);
}

static void command_buffer_destroy(halo_object_t* object) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)object;
  const halo_host_interface_t* host = command_buffer->host;
  for (size_t i = 0; i < command_buffer->count; ++i) {
    command_t* command = &command_buffer->commands[i];
    release_object(host, command->target);
    release_object(host, command->source);
    for (size_t b = 0; b < command->binding_count; ++b) {
      release_object(host, command->bindings[b]);
    }
    release_object(host, command->executable);
    deallocate(host, command->block);
  }
  deallocate(host, command_buffer->commands);
  halo_device_t* device = command_buffer->device;
  deallocate(host, command_buffer);
  host->object_release((halo_object_t*)device);
}

static halo_status_t not_recording(seeded_command_buffer_t* command_buffer,
                                   const char* function) {
  return command_buffer->host->status_format(HALO_STATUS_FAILED_PRECONDITION,
                                             "%s: command_buffer is not recording", function);
}

/* Appends a zeroed command (checked by the caller first) to a recording buffer. */
static halo_status_t append(seeded_command_buffer_t* command_buffer, const char* function,
                            command_kind_t kind, command_t** out_command) {
  if (command_buffer->state != STATE_RECORDING) return not_recording(command_buffer, function);
  if (command_buffer->count == command_buffer->capacity) {
    const size_t capacity = command_buffer->capacity == 0 ? 16 : 2 * command_buffer->capacity;
    command_t* commands = allocate(command_buffer->host, capacity * sizeof(command_t));
    if (commands == NULL) return out_of_memory(command_buffer->host, function);
    if (command_buffer->count != 0) {
      memcpy(commands, command_buffer->commands, command_buffer->count * sizeof(command_t));
    }
    deallocate(command_buffer->host, command_buffer->commands);
    command_buffer->commands = commands;
    command_buffer->capacity = capacity;
  }
  command_t* command = &command_buffer->commands[command_buffer->count++];
  memset(command, 0, sizeof(*command));
  command->kind = kind;
  *out_command = command;
  return HALO_OK;
}

static halo_status_t command_buffer_begin(halo_command_buffer_t* base) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  if (command_buffer->state != STATE_INITIAL) {
    return command_buffer->host->status_create(
        HALO_STATUS_FAILED_PRECONDITION,
        "halo_command_buffer_begin: command_buffer has begun before");
  }
  command_buffer->state = STATE_RECORDING;
  return HALO_OK;
}

static halo_status_t command_buffer_end(halo_command_buffer_t* base) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  if (command_buffer->state != STATE_RECORDING) {
    return not_recording(command_buffer, "halo_command_buffer_end");
  }
  command_buffer->state = STATE_ENDED;
  return HALO_OK;
}

static halo_status_t command_buffer_barrier(halo_command_buffer_t* base) {
  command_t* command = NULL;
  return append((seeded_command_buffer_t*)base, "halo_command_buffer_barrier", COMMAND_BARRIER,
                &command);
}

/* |base| as this plugin's buffer with [offset, offset + *length) inside it
 * (HALO_WHOLE_BUFFER resolved), in |out_buffer|. */
static halo_status_t check_buffer(seeded_command_buffer_t* command_buffer, const char* function,
                                  const char* what, halo_buffer_t* base, uint64_t offset,
                                  uint64_t* length, seeded_buffer_t** out_buffer) {
  seeded_buffer_t* buffer = own_buffer(base);
  if (buffer == NULL) {
    return command_buffer->host->status_format(
        HALO_STATUS_INVALID_ARGUMENT, "%s: %s is not a buffer of this device", function, what);
  }
  if (*length == HALO_WHOLE_BUFFER) *length = offset <= buffer->size ? buffer->size - offset : 0;
  *out_buffer = buffer;
  return check_range(command_buffer->host, function, what, offset, *length, buffer->size);
}

static halo_status_t command_buffer_fill(halo_command_buffer_t* base, halo_buffer_t* target,
                                         uint64_t offset, uint64_t length, const void* pattern,
                                         size_t pattern_length) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  const char* function = "halo_command_buffer_fill";
  seeded_buffer_t* buffer = NULL;
  command_t* command = NULL;
  halo_status_t status =
      check_buffer(command_buffer, function, "target", target, offset, &length, &buffer);
  if (status == HALO_OK) status = append(command_buffer, function, COMMAND_FILL, &command);
  if (status != HALO_OK) return status;
  command->target = buffer;
  command->offset = offset;
  command->length = length;
  memcpy(command->pattern, pattern, pattern_length);
  command->pattern_length = (uint32_t)pattern_length;
  command_buffer->host->object_retain(&buffer->object);
  return HALO_OK;
}

static halo_status_t command_buffer_update(halo_command_buffer_t* base, const void* source,
                                           halo_buffer_t* target, uint64_t offset,
                                           uint64_t length) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  const char* function = "halo_command_buffer_update";
  seeded_buffer_t* buffer = NULL;
  command_t* command = NULL;
  halo_status_t status =
      check_buffer(command_buffer, function, "target", target, offset, &length, &buffer);
  void* bytes = status == HALO_OK && length != 0 ? allocate(command_buffer->host, length) : NULL;
  if (status == HALO_OK && length != 0 && bytes == NULL) {
    status = out_of_memory(command_buffer->host, function);
  }
  if (status == HALO_OK) status = append(command_buffer, function, COMMAND_UPDATE, &command);
  if (status != HALO_OK) {
    deallocate(command_buffer->host, bytes);
    return status;
  }
  if (length != 0) memcpy(bytes, source, length); /* The caller keeps |source| only for the call. */
  command->target = buffer;
  command->offset = offset;
  command->length = length;
  command->block = bytes;
  command_buffer->host->object_retain(&buffer->object);
  return HALO_OK;
}

static halo_status_t command_buffer_copy(halo_command_buffer_t* base, halo_buffer_t* source,
                                         uint64_t source_offset, halo_buffer_t* target,
                                         uint64_t target_offset, uint64_t length) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  const char* function = "halo_command_buffer_copy";
  seeded_buffer_t *from = NULL, *to = NULL;
  command_t* command = NULL;
  uint64_t source_length = length;
  halo_status_t status = check_buffer(command_buffer, function, "source", source, source_offset,
                                      &source_length, &from);
  if (status == HALO_OK) {
    status = check_buffer(command_buffer, function, "target", target, target_offset, &length, &to);
  }
  if (status == HALO_OK) status = append(command_buffer, function, COMMAND_COPY, &command);
  if (status != HALO_OK) return status;
  command->source = from;
  command->source_offset = source_offset;
  command->target = to;
  command->offset = target_offset;
  command->length = length;
  command_buffer->host->object_retain(&from->object);
  command_buffer->host->object_retain(&to->object);
  return HALO_OK;
}

/* Checks |params| against its entry point and returns the entry point, or NULL with
 * the reason in |out_status|. */
static const seeded_entry_point_t* check_dispatch(seeded_command_buffer_t* command_buffer,
                                                  const halo_dispatch_params_t* params,
                                                  halo_status_t* out_status) {
  const halo_host_interface_t* host = command_buffer->host;
  seeded_executable_t* executable = (seeded_executable_t*)params->executable;
  const char* reason = NULL;
  if (((halo_object_t*)executable)->vtable != &kExecutableVtable.object) {
    reason = "params->executable is not an executable of this device";
  } else if (params->entry_point >= executable->entry_point_count) {
    reason = "params->entry_point is past the executable's entry points";
  } else if (params->binding_count !=
                 executable->entry_points[params->entry_point].binding_count ||
             params->constant_size !=
                 executable->entry_points[params->entry_point].constant_size) {
    reason = "params->binding_count or constant_size does not fit the entry point";
  }
#if !defined(TEMPLATE_BREAK_WORKGROUP_LIMITS_IGNORED) /* TEST HOOK: else any count. */
  const uint32_t* count = params->workgroup_count;
  for (int d = 0; reason == NULL && d < 3; ++d) {
    if (count[d] > SEEDED_MAX_WORKGROUP_COUNT) {
      *out_status = host->status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "halo_command_buffer_dispatch: params->workgroup_count[%d] %u is above the "
          "device's max_workgroup_count[%d] %u",
          d, count[d], d, SEEDED_MAX_WORKGROUP_COUNT);
      return NULL;
    }
  }
  if (reason == NULL &&
      (uint64_t)count[0] * count[1] * count[2] > SEEDED_MAX_WORKGROUP_COUNT_TOTAL) {
    *out_status = host->status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "halo_command_buffer_dispatch: params->workgroup_count %u x %u x %u is more "
        "workgroups than the device's max_workgroup_count_total %llu",
        count[0], count[1], count[2], (unsigned long long)SEEDED_MAX_WORKGROUP_COUNT_TOTAL);
    return NULL;
  }
#endif
  for (size_t i = 0; reason == NULL && i < params->binding_count; ++i) {
    const halo_buffer_binding_t* binding = &params->bindings[i];
    seeded_buffer_t* buffer = NULL;
    uint64_t length = binding->length;
    if (binding->offset % SEEDED_MIN_BUFFER_ALIGNMENT != 0) {
      reason = "a binding's offset is not a multiple of min_buffer_alignment";
    } else if ((*out_status = check_buffer(command_buffer, "halo_command_buffer_dispatch",
                                           "a binding", binding->buffer, binding->offset,
                                           &length, &buffer)) != HALO_OK) {
      return NULL;
    }
  }
  if (reason != NULL) {
    *out_status = host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                                      "halo_command_buffer_dispatch: %s", reason);
    return NULL;
  }
  *out_status = HALO_OK;
  return &executable->entry_points[params->entry_point];
}

static halo_status_t command_buffer_dispatch(halo_command_buffer_t* base,
                                             const halo_dispatch_params_t* params) {
  seeded_command_buffer_t* command_buffer = (seeded_command_buffer_t*)base;
  const halo_host_interface_t* host = command_buffer->host;
  const char* function = "halo_command_buffer_dispatch";
  halo_status_t status = HALO_OK;
  const seeded_entry_point_t* entry = check_dispatch(command_buffer, params, &status);
  if (entry == NULL) return status;
  const size_t bindings = params->binding_count;
  void* block = allocate(host, bindings * (sizeof(void*) + sizeof(uint64_t)) +
                                   params->constant_size + 1);
  if (block == NULL) return out_of_memory(host, function);
  command_t* command = NULL;
  status = append(command_buffer, function, COMMAND_DISPATCH, &command);
  if (status != HALO_OK) {
    deallocate(host, block);
    return status;
  }
  command->block = block;
  command->binding_count = bindings;
  command->bindings = block;
  command->binding_offsets = (uint64_t*)(command->bindings + bindings);
  command->constants = (uint8_t*)(command->binding_offsets + bindings);
  if (params->constant_size != 0) {
    memcpy(command->constants, params->constants, params->constant_size);
  }
  for (size_t i = 0; i < bindings; ++i) {
    command->bindings[i] = (seeded_buffer_t*)params->bindings[i].buffer;
    command->binding_offsets[i] = params->bindings[i].offset;
    host->object_retain((halo_object_t*)params->bindings[i].buffer);
  }
  command->executable = (seeded_executable_t*)params->executable;
  host->object_retain((halo_object_t*)params->executable);
  command->entry_point = entry;
  memcpy(command->workgroup_count, params->workgroup_count, sizeof(command->workgroup_count));
  return HALO_OK;
}

static const halo_command_buffer_vtable_t kCommandBufferVtable = {
    .object = {.struct_size = sizeof(halo_command_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_COMMAND_BUFFER,
               .destroy = command_buffer_destroy},
    .begin = command_buffer_begin,
    .end = command_buffer_end,
    .barrier = command_buffer_barrier,
    .fill = command_buffer_fill,
    .update = command_buffer_update,
    .copy = command_buffer_copy,
    .dispatch = command_buffer_dispatch,
};

halo_status_t seeded_command_buffer_create(const halo_host_interface_t* host,
                                           halo_device_t* device,
                                           halo_command_buffer_mode_t mode,
                                           halo_command_buffer_t** out_command_buffer) {
  *out_command_buffer = NULL;
  if (mode != HALO_COMMAND_BUFFER_MODE_ONE_SHOT && mode != HALO_COMMAND_BUFFER_MODE_REUSABLE) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_command_buffer_create: mode 0x%x is neither ONE_SHOT nor "
                               "REUSABLE",
                               (unsigned)mode);
  }
  seeded_command_buffer_t* command_buffer = allocate(host, sizeof(*command_buffer));
  if (command_buffer == NULL) return out_of_memory(host, "halo_command_buffer_create");
  memset(command_buffer, 0, sizeof(*command_buffer));
  object_init(&command_buffer->object, &kCommandBufferVtable);
  command_buffer->host = host;
  command_buffer->device = device;
  command_buffer->mode = mode;
  atomic_init(&command_buffer->submitted, false);
  host->object_retain((halo_object_t*)device);
  *out_command_buffer = (halo_command_buffer_t*)command_buffer;
  return HALO_OK;
}

/* ---- The queue's side -------------------------------------------------------------- */

static seeded_command_buffer_t* listed(const halo_queue_execute_info_t* info, size_t i) {
  return (seeded_command_buffer_t*)info->command_buffers[i];
}

static void unclaim_first(const halo_queue_execute_info_t* info, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (listed(info, i)->mode == HALO_COMMAND_BUFFER_MODE_ONE_SHOT) {
      atomic_store(&listed(info, i)->submitted, false);
    }
  }
}

halo_status_t seeded_command_buffers_claim(const halo_host_interface_t* host,
                                           halo_device_t* device,
                                           const halo_queue_execute_info_t* info) {
  for (size_t i = 0; i < info->command_buffer_count; ++i) {
    const seeded_command_buffer_t* command_buffer = listed(info, i);
    if (command_buffer->object.vtable != &kCommandBufferVtable.object ||
        command_buffer->device != device) {
      return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_device_queue_execute: info->command_buffers[%zu] is not "
                                 "a command buffer of this device",
                                 i);
    }
    if (command_buffer->state != STATE_ENDED) {
      return host->status_format(HALO_STATUS_FAILED_PRECONDITION,
                                 "halo_device_queue_execute: info->command_buffers[%zu] has not "
                                 "ended",
                                 i);
    }
  }
  for (size_t i = 0; i < info->command_buffer_count; ++i) {
    seeded_command_buffer_t* command_buffer = listed(info, i);
    if (command_buffer->mode == HALO_COMMAND_BUFFER_MODE_ONE_SHOT &&
        atomic_exchange(&command_buffer->submitted, true)) {
      unclaim_first(info, i);
      return host->status_format(HALO_STATUS_FAILED_PRECONDITION,
                                 "halo_device_queue_execute: info->command_buffers[%zu] is "
                                 "ONE_SHOT and was submitted before",
                                 i);
    }
  }
  return HALO_OK;
}

void seeded_command_buffers_unclaim(const halo_queue_execute_info_t* info) {
  unclaim_first(info, info->command_buffer_count);
}

size_t seeded_command_count(halo_command_buffer_t* command_buffer) {
  return ((seeded_command_buffer_t*)command_buffer)->count;
}

bool seeded_command_is_barrier(halo_command_buffer_t* command_buffer, size_t index) {
  return ((seeded_command_buffer_t*)command_buffer)->commands[index].kind == COMMAND_BARRIER;
}

/* Calls the entry point once per workgroup, one after another. */
static void run_dispatch(const command_t* command) {
  const seeded_entry_point_t* entry = command->entry_point;
  const halo_cpu_entry_point_t* table_entry = entry->table_entry;
  halo_cpu_workgroup_t workgroup;
  memset(&workgroup, 0, sizeof(workgroup));
  memcpy(workgroup.count, command->workgroup_count, sizeof(workgroup.count));
  const halo_cpu_workgroup_t* workgroup_pointer = &workgroup;
  void* pointers[HALO_CPU_MAX_PARAMETERS];
  void* values[HALO_CPU_MAX_PARAMETERS + 1];
  values[0] = &workgroup_pointer;
  uint32_t binding = 0;
  for (uint32_t i = 0; i < table_entry->parameter_count; ++i) {
    if (table_entry->parameters[i] == HALO_CPU_PARAM_BUFFER) {
      pointers[i] = command->bindings[binding]->data + command->binding_offsets[binding];
      values[i + 1] = &pointers[i];
      ++binding;
    } else {
      values[i + 1] = command->constants + entry->constant_offsets[i];
    }
  }
  for (uint32_t z = 0; z < workgroup.count[2]; ++z) {
    for (uint32_t y = 0; y < workgroup.count[1]; ++y) {
      for (uint32_t x = 0; x < workgroup.count[0]; ++x) {
        workgroup.id[0] = x;
#if defined(TEMPLATE_BREAK_DISPATCH_SWAPS_YZ)
        /* TEST HOOK: the ids in y and z trade places; grids flat in both still
         * look right. */
        workgroup.id[1] = z;
        workgroup.id[2] = y;
#else
        workgroup.id[1] = y;
        workgroup.id[2] = z;
#endif
        ffi_call((ffi_cif*)&entry->cif, FFI_FN(table_entry->function), NULL, values);
      }
    }
  }
}

void seeded_command_run(halo_command_buffer_t* command_buffer, size_t index) {
  const command_t* command = &((seeded_command_buffer_t*)command_buffer)->commands[index];
  switch (command->kind) {
    case COMMAND_BARRIER:
      break;
    case COMMAND_FILL:
      for (uint64_t i = 0; i < command->length; ++i) {
        command->target->data[command->offset + i] = command->pattern[i % command->pattern_length];
      }
      break;
    case COMMAND_UPDATE:
      if (command->length != 0) {
        memcpy(command->target->data + command->offset, command->block, command->length);
      }
      break;
    case COMMAND_COPY:
      memmove(command->target->data + command->offset,
              command->source->data + command->source_offset, command->length);
      break;
    case COMMAND_DISPATCH:
      run_dispatch(command);
      break;
  }
}
