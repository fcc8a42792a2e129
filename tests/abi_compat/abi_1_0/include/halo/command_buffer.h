/* Command buffers: recorded fill, update, copy, dispatch and barrier commands
 * that queue_execute runs. Declared at ABI 1.0; devices without them leave the
 * device vtable's create_command_buffer NULL. */
#ifndef HALO_COMMAND_BUFFER_H_
#define HALO_COMMAND_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/buffer.h"
#include "halo/object.h"
#include "halo/status.h"

typedef uint32_t halo_command_buffer_mode_t;
/* Submitted once, then released. */
#define HALO_COMMAND_BUFFER_MODE_ONE_SHOT ((halo_command_buffer_mode_t)1u << 0)
/* May be submitted many times after end. */
#define HALO_COMMAND_BUFFER_MODE_REUSABLE ((halo_command_buffer_mode_t)1u << 1)

typedef struct halo_dispatch_params_t {
  uint32_t struct_size;
  /* Ordinal of the entry point in |executable|. */
  uint32_t entry_point;
  halo_executable_t* executable;
  uint32_t workgroup_count[3];
  uint32_t constant_size;
  /* Borrowed for the call; copied at record time. */
  const void* constants;
  size_t binding_count;
  /* Borrowed array; the buffers are retained by the command buffer. */
  const halo_buffer_binding_t* bindings;
  /* --- ABI 1.0 ends here. --- */
} halo_dispatch_params_t;

typedef struct halo_command_buffer_vtable_t {
  halo_object_vtable_t object;
  halo_status_t (*begin)(halo_command_buffer_t* command_buffer);
  halo_status_t (*end)(halo_command_buffer_t* command_buffer);
  /* Orders every earlier command before every later one. */
  halo_status_t (*barrier)(halo_command_buffer_t* command_buffer);
  /* Repeats a 1-, 2- or 4-byte |pattern| over [offset, offset + length). */
  halo_status_t (*fill)(halo_command_buffer_t* command_buffer,
                        halo_buffer_t* target, uint64_t offset,
                        uint64_t length, const void* pattern,
                        size_t pattern_length);
  /* Copies |length| bytes of host |source| (copied at record time). */
  halo_status_t (*update)(halo_command_buffer_t* command_buffer,
                          const void* source, halo_buffer_t* target,
                          uint64_t offset, uint64_t length);
  halo_status_t (*copy)(halo_command_buffer_t* command_buffer,
                        halo_buffer_t* source, uint64_t source_offset,
                        halo_buffer_t* target, uint64_t target_offset,
                        uint64_t length);
  halo_status_t (*dispatch)(halo_command_buffer_t* command_buffer,
                            const halo_dispatch_params_t* params);
  /* --- ABI 1.0 ends here. --- */
} halo_command_buffer_vtable_t;

/* Creates a command buffer on |device|; a new reference in
 * |out_command_buffer|. Returns UNIMPLEMENTED when the device has none. */
HALO_API halo_status_t halo_command_buffer_create(
    halo_device_t* device, halo_command_buffer_mode_t mode,
    halo_command_buffer_t** out_command_buffer);
HALO_API void halo_command_buffer_retain(halo_command_buffer_t* command_buffer);
HALO_API void halo_command_buffer_release(
    halo_command_buffer_t* command_buffer);
HALO_API halo_status_t halo_command_buffer_begin(
    halo_command_buffer_t* command_buffer);
HALO_API halo_status_t halo_command_buffer_end(
    halo_command_buffer_t* command_buffer);
HALO_API halo_status_t halo_command_buffer_barrier(
    halo_command_buffer_t* command_buffer);
HALO_API halo_status_t halo_command_buffer_fill(
    halo_command_buffer_t* command_buffer, halo_buffer_t* target,
    uint64_t offset, uint64_t length, const void* pattern,
    size_t pattern_length);
HALO_API halo_status_t halo_command_buffer_update(
    halo_command_buffer_t* command_buffer, const void* source,
    halo_buffer_t* target, uint64_t offset, uint64_t length);
HALO_API halo_status_t halo_command_buffer_copy(
    halo_command_buffer_t* command_buffer, halo_buffer_t* source,
    uint64_t source_offset, halo_buffer_t* target, uint64_t target_offset,
    uint64_t length);
HALO_API halo_status_t halo_command_buffer_dispatch(
    halo_command_buffer_t* command_buffer,
    const halo_dispatch_params_t* params);

#endif /* HALO_COMMAND_BUFFER_H_ */
