/* Buffers: device memory that command buffers fill, update, copy and bind to
 * dispatches, and that the host reads and writes through mappings. Declared
 * at ABI 1.0; a device without them (no HALO_DEVICE_FEATURE_BUFFERS) leaves
 * the device vtable's allocate_buffer NULL and halo_buffer_allocate returns
 * UNIMPLEMENTED.
 *
 * Ranges. A function taking an |offset| and a |length| of a buffer means the
 * bytes [offset, offset + length). A |length| of HALO_WHOLE_BUFFER means
 * "from |offset| to the end" (empty when |offset| is the size), except where
 * a function says otherwise. A range that does not lie within the buffer, an
 * |offset| past the end included, is OUT_OF_RANGE; the check cannot
 * overflow.
 *
 * Host access. The host reads and writes a HOST_VISIBLE buffer through a
 * mapping (halo_buffer_map_range). halo does not order host access against
 * device work; the application must. Where the host and a submission access
 * one range and either of them writes it, the host access comes after the
 * submission's signal has been reached (halo_semaphore_wait), or ends before
 * the submission's last wait is reached (before the host signals what the
 * submission waits for). On memory without HOST_COHERENT a mapping must not
 * be held across such device work: host writes reach the device once flushed
 * (halo_buffer_flush_range) and unmapped, and device writes are read through
 * a mapping made after the work completed and invalidated first
 * (halo_buffer_invalidate_range). A violation is not detected and leaves the
 * bytes read or written undefined; a validation mode will report it. */
#ifndef HALO_BUFFER_H_
#define HALO_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/external_handle.h"
#include "halo/object.h"
#include "halo/status.h"

/* Memory types; a device reports which it offers in its capabilities, as the
 * union of its memory types' bits. Every bit it reports allocates alone; a
 * combination allocates when one of its memory types has every bit of it,
 * and is INVALID_ARGUMENT otherwise (DEVICE_LOCAL|HOST_CACHED on most GPUs). */
typedef uint32_t halo_memory_type_t;
/* Memory the device reaches fastest. */
#define HALO_MEMORY_TYPE_DEVICE_LOCAL ((halo_memory_type_t)1u << 0)
/* Memory the host can map (halo_buffer_map_range). */
#define HALO_MEMORY_TYPE_HOST_VISIBLE ((halo_memory_type_t)1u << 1)
/* Mapped memory that needs no flush or invalidate. */
#define HALO_MEMORY_TYPE_HOST_COHERENT ((halo_memory_type_t)1u << 2)
/* Mapped memory that the host caches: fast host reads. */
#define HALO_MEMORY_TYPE_HOST_CACHED ((halo_memory_type_t)1u << 3)

/* How a buffer will be used: a command refuses a buffer allocated without
 * the bit it needs, with INVALID_ARGUMENT. */
typedef uint32_t halo_buffer_usage_t;
/* The source of halo_command_buffer_copy. */
#define HALO_BUFFER_USAGE_TRANSFER_SOURCE ((halo_buffer_usage_t)1u << 0)
/* The target of halo_command_buffer_fill, _update and _copy. */
#define HALO_BUFFER_USAGE_TRANSFER_TARGET ((halo_buffer_usage_t)1u << 1)
/* Bound to dispatches (halo_dispatch_params_t.bindings). */
#define HALO_BUFFER_USAGE_DISPATCH_STORAGE ((halo_buffer_usage_t)1u << 2)
/* Mapped by the host. halo_buffer_map_range checks the memory type
 * (HOST_VISIBLE), not this bit. */
#define HALO_BUFFER_USAGE_MAPPING ((halo_buffer_usage_t)1u << 3)

/* Buffer flags (ABI 1.3; the member was reserved and zero before). */
typedef uint32_t halo_buffer_flags_t;
/* Allocated so that halo_buffer_export (external.h) can export it as every
 * type of the device's buffer_export_types; refused with UNIMPLEMENTED by a
 * device that exports none. */
#define HALO_BUFFER_FLAG_EXPORTABLE ((halo_buffer_flags_t)1u << 0)
/* Every flag bit defined; any other is INVALID_ARGUMENT. */
#define HALO_BUFFER_FLAGS_KNOWN ((halo_buffer_flags_t)0x1u)

/* What halo_buffer_allocate allocates. */
typedef struct halo_buffer_params_t {
  uint32_t struct_size;
  /* A non-zero combination of the device's memory types (see above). */
  halo_memory_type_t memory_type;
  /* A non-zero set of HALO_BUFFER_USAGE_* bits: every use the buffer sees. */
  halo_buffer_usage_t usage;
  /* HALO_BUFFER_FLAG_* bits (ABI 1.3; zero, as the reserved member it
   * replaced, for older callers). */
  halo_buffer_flags_t flags;
  /* Bytes: 1 to the device's max_buffer_size. */
  uint64_t size;
  /* 0 for the device's min_buffer_alignment, else a power of two. The buffer
   * starts at a multiple of the larger of the two, as a mapping at offset 0
   * shows. */
  uint64_t alignment;
  /* --- ABI 1.0 ends here. --- */
} halo_buffer_params_t;

/* A range of a buffer bound to a dispatch. */
typedef struct halo_buffer_binding_t {
  /* Of the dispatch's device (or shared with it: command_buffer.h,
   * Arguments), with HALO_BUFFER_USAGE_DISPATCH_STORAGE. */
  halo_buffer_t* buffer;
  /* A multiple of the device's min_buffer_alignment. */
  uint64_t offset;
  /* Not 0; HALO_WHOLE_BUFFER for "to the end", which must not be empty. */
  uint64_t length;
} halo_buffer_binding_t;

/* As a length: from the offset to the end of the buffer (see Ranges). */
#define HALO_WHOLE_BUFFER (~(uint64_t)0)

/* The buffer vtable a plugin implements. Every ABI 1.0 entry is required;
 * later ones may be NULL (libhalo then returns UNIMPLEMENTED). Each
 * implements the public function of its name below, with its rules and
 * codes; libhalo has already checked the handle and NULL pointers
 * (DESIGN.md §6). */
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
  /* halo_buffer_export: |type| is one known bit, |out_handle| is libhalo's
   * own full-size struct. */
  halo_status_t (*export_handle)(halo_buffer_t* buffer,
                                 halo_external_handle_type_t type,
                                 halo_external_handle_t* out_handle);
  /* --- ABI 1.3 ends here. --- */
} halo_buffer_vtable_t;

/* Allocates a buffer of |params->size| bytes on |device| (borrowed), with
 * contents undefined until written; a new reference in |out_buffer| (NULL on
 * failure). The buffer retains |device|. Thread-safe. Returns
 * INVALID_ARGUMENT for a bad |device|, a NULL |params| or |out_buffer|, a
 * struct_size below ABI 1.0's, an |alignment| that is neither 0 nor a power
 * of two, a |memory_type| that is 0, has a bit the device does not offer or
 * is a combination no one memory type of the device has, a |usage| that is 0
 * or has an unknown bit, or a |size| of 0; RESOURCE_EXHAUSTED for a |size|
 * above the device's max_buffer_size, an |alignment| the device cannot
 * provide, or when memory runs out; UNIMPLEMENTED when the device lacks
 * HALO_DEVICE_FEATURE_BUFFERS; INTERNAL naming the plugin if it hands over a
 * buffer that breaks the ABI (see object.h). */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_allocate(
    halo_device_t* device, const halo_buffer_params_t* params, halo_buffer_t**
    out_buffer);
/* Adds a reference to |buffer|. Accepts NULL. Thread-safe. */
HALO_API void halo_buffer_retain(halo_buffer_t* buffer);
/* Drops a reference to |buffer|; the last one frees it and ends its
 * mappings. Accepts NULL. Thread-safe. Command buffers that name it keep
 * their own references. */
HALO_API void halo_buffer_release(halo_buffer_t* buffer);
/* Returns the size of |buffer| in bytes, or 0 for a NULL or wrong-type
 * handle. Borrows |buffer|. Thread-safe. */
HALO_API uint64_t halo_buffer_size(halo_buffer_t* buffer);

/* Maps [|offset|, |offset| + |length|) of |buffer| for host reads and writes
 * and stores its address in |out_pointer| (NULL on failure; a mapping of
 * length 0 may be NULL too). The address is valid until the matching
 * halo_buffer_unmap_range or the buffer's destruction. A buffer may have
 * several mappings of disjoint ranges at once. See "Host access" for when
 * the host may touch the bytes. Borrows |buffer|. Thread-safe. Returns
 * INVALID_ARGUMENT for a bad handle or a NULL |out_pointer|;
 * FAILED_PRECONDITION if the buffer's memory is not HOST_VISIBLE;
 * OUT_OF_RANGE when the range is not within the buffer. */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_map_range(
    halo_buffer_t* buffer, uint64_t offset, uint64_t length, void**
    out_pointer);
/* Ends the mapping that halo_buffer_map_range made with the same |offset|
 * and |length| (HALO_WHOLE_BUFFER resolved alike): each map is ended by one
 * unmap, and its address is invalid afterwards. On memory without
 * HOST_COHERENT, flush host writes before. Borrows |buffer|. Thread-safe.
 * Returns INVALID_ARGUMENT for a bad handle; FAILED_PRECONDITION if the
 * memory is not HOST_VISIBLE or the range is not a mapping of |buffer|;
 * OUT_OF_RANGE when the range is not within the buffer. */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_unmap_range(
    halo_buffer_t* buffer, uint64_t offset, uint64_t length);
/* Makes host writes to [|offset|, |offset| + |length|), made through a
 * mapping, visible to device work that starts afterwards (see "Host
 * access"). Needed on memory without HOST_COHERENT; on coherent memory it
 * only checks its arguments. The range may be part of a mapping. Borrows
 * |buffer|. Thread-safe. Returns INVALID_ARGUMENT for a bad handle;
 * FAILED_PRECONDITION if the memory is not HOST_VISIBLE; OUT_OF_RANGE when
 * the range is not within the buffer. */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_flush_range(
    halo_buffer_t* buffer, uint64_t offset, uint64_t length);
/* Makes device writes to [|offset|, |offset| + |length|), by work whose
 * signal has been reached, visible to host reads through a mapping made
 * after that work completed (see "Host access"). Needed on memory without
 * HOST_COHERENT; on coherent memory it only checks its arguments. The range
 * may be part of a mapping. Borrows |buffer|. Thread-safe. Returns
 * INVALID_ARGUMENT for a bad handle; FAILED_PRECONDITION if the memory is
 * not HOST_VISIBLE; OUT_OF_RANGE when the range is not within the buffer. */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_invalidate_range(
    halo_buffer_t* buffer, uint64_t offset, uint64_t length);

#endif /* HALO_BUFFER_H_ */
