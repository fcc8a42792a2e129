/* Buffers: device memory that command buffers fill, copy and dispatch over.
 * Declared at ABI 1.0; plugins without buffers leave the device vtable's
 * allocate_buffer NULL and libhalo returns UNIMPLEMENTED. */
#ifndef HALO_BUFFER_H_
#define HALO_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/object.h"
#include "halo/status.h"

/* Memory types; a device reports which it offers in its capabilities, as the
 * union of its memory types' bits. Every bit it reports allocates alone; a
 * combination allocates when one of its memory types has every bit of it,
 * and is INVALID_ARGUMENT otherwise (DEVICE_LOCAL|HOST_CACHED on most GPUs). */
typedef uint32_t halo_memory_type_t;
#define HALO_MEMORY_TYPE_DEVICE_LOCAL ((halo_memory_type_t)1u << 0)
#define HALO_MEMORY_TYPE_HOST_VISIBLE ((halo_memory_type_t)1u << 1)
#define HALO_MEMORY_TYPE_HOST_COHERENT ((halo_memory_type_t)1u << 2)
#define HALO_MEMORY_TYPE_HOST_CACHED ((halo_memory_type_t)1u << 3)

/* How a buffer will be used. */
typedef uint32_t halo_buffer_usage_t;
#define HALO_BUFFER_USAGE_TRANSFER_SOURCE ((halo_buffer_usage_t)1u << 0)
#define HALO_BUFFER_USAGE_TRANSFER_TARGET ((halo_buffer_usage_t)1u << 1)
#define HALO_BUFFER_USAGE_DISPATCH_STORAGE ((halo_buffer_usage_t)1u << 2)
#define HALO_BUFFER_USAGE_MAPPING ((halo_buffer_usage_t)1u << 3)

typedef struct halo_buffer_params_t {
  uint32_t struct_size;
  halo_memory_type_t memory_type;
  halo_buffer_usage_t usage;
  uint32_t reserved0;
  uint64_t size;
  /* 0 for the device's minimum alignment, else a power of two. */
  uint64_t alignment;
  /* --- ABI 1.0 ends here. --- */
} halo_buffer_params_t;

/* A range of a buffer bound to a dispatch. */
typedef struct halo_buffer_binding_t {
  halo_buffer_t* buffer;
  uint64_t offset;
  /* HALO_WHOLE_BUFFER for "to the end". */
  uint64_t length;
} halo_buffer_binding_t;

#define HALO_WHOLE_BUFFER (~(uint64_t)0)

typedef struct halo_buffer_vtable_t {
  halo_object_vtable_t object;
  uint64_t (*size)(halo_buffer_t* buffer);
  halo_status_t (*map_range)(halo_buffer_t* buffer, uint64_t offset,
                             uint64_t length, void** out_pointer);
  halo_status_t (*unmap_range)(halo_buffer_t* buffer, uint64_t offset,
                               uint64_t length);
  halo_status_t (*flush_range)(halo_buffer_t* buffer, uint64_t offset,
                               uint64_t length);
  halo_status_t (*invalidate_range)(halo_buffer_t* buffer, uint64_t offset,
                                    uint64_t length);
  /* --- ABI 1.0 ends here. --- */
} halo_buffer_vtable_t;

/* Allocates a buffer on |device| (borrowed); a new reference in |out_buffer|.
 * Returns INVALID_ARGUMENT for bad arguments, RESOURCE_EXHAUSTED when memory
 * runs out, UNIMPLEMENTED when the device has no buffers. Thread-safe. */
HALO_API halo_status_t halo_buffer_allocate(halo_device_t* device,
                                            const halo_buffer_params_t* params,
                                            halo_buffer_t** out_buffer);
HALO_API void halo_buffer_retain(halo_buffer_t* buffer);
HALO_API void halo_buffer_release(halo_buffer_t* buffer);
/* Returns the size of |buffer| in bytes, or 0 for a bad handle. */
HALO_API uint64_t halo_buffer_size(halo_buffer_t* buffer);
/* Maps [offset, offset + length) of a host-visible buffer. Returns
 * OUT_OF_RANGE when the range exceeds the buffer. */
HALO_API halo_status_t halo_buffer_map_range(halo_buffer_t* buffer,
                                             uint64_t offset, uint64_t length,
                                             void** out_pointer);
HALO_API halo_status_t halo_buffer_unmap_range(halo_buffer_t* buffer,
                                               uint64_t offset,
                                               uint64_t length);
/* Makes host writes to a non-coherent mapping visible to the device. */
HALO_API halo_status_t halo_buffer_flush_range(halo_buffer_t* buffer,
                                               uint64_t offset,
                                               uint64_t length);
/* Makes device writes visible to host reads of a non-coherent mapping. */
HALO_API halo_status_t halo_buffer_invalidate_range(halo_buffer_t* buffer,
                                                    uint64_t offset,
                                                    uint64_t length);

#endif /* HALO_BUFFER_H_ */
