/* The common header of every halo object and of every vtable.
 *
 * Every object (driver, device, semaphore, buffer, command buffer, executable)
 * begins with a halo_object_t: an atomic reference count and a pointer to its
 * vtable. Every vtable begins with a halo_object_vtable_t: its size, a type tag
 * and destroy. The public API checks the type tag, so passing a buffer where a
 * semaphore is expected returns INVALID_ARGUMENT instead of crashing.
 *
 * libhalo checks each object a plugin creates once, when it is handed over: a
 * vtable, the expected type tag, a struct_size of at least ABI 1.0's vtable,
 * and every entry not marked "may be NULL". A driver that fails skips its
 * plugin; any other object is refused with INTERNAL naming the plugin and
 * what is wrong (and released, when its destroy can be called).
 *
 * Plugins allocate their objects, initialise the header with a reference count
 * of 1, and release references through the host interface so that libhalo sees
 * every destruction (it unloads a plugin only once all its objects are gone). */
#ifndef HALO_OBJECT_H_
#define HALO_OBJECT_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"

/* Type tags. Values are part of the ABI and never reused. */
typedef enum halo_object_type_e {
  HALO_OBJECT_TYPE_NONE = 0,
  HALO_OBJECT_TYPE_DRIVER = 0x48440001,
  HALO_OBJECT_TYPE_DEVICE = 0x48440002,
  HALO_OBJECT_TYPE_SEMAPHORE = 0x48440003,
  HALO_OBJECT_TYPE_BUFFER = 0x48440004,
  HALO_OBJECT_TYPE_COMMAND_BUFFER = 0x48440005,
  HALO_OBJECT_TYPE_EXECUTABLE = 0x48440006,
  HALO_OBJECT_TYPE_FENCE = 0x48440007
} halo_object_type_t;

typedef struct halo_object_t halo_object_t;

/* Handles. Each is an object whose first member is a halo_object_t; the
 * structs are defined only inside the plugin that implements them. */
typedef struct halo_driver_t halo_driver_t;
typedef struct halo_device_t halo_device_t;
typedef struct halo_semaphore_t halo_semaphore_t;
typedef struct halo_buffer_t halo_buffer_t;
typedef struct halo_command_buffer_t halo_command_buffer_t;
typedef struct halo_executable_t halo_executable_t;

/* First member of every vtable. */
typedef struct halo_object_vtable_t {
  /* sizeof the whole vtable (not of this header) as compiled by the plugin. A
   * caller checks it before using an entry appended after ABI 1.0. */
  uint32_t struct_size;
  /* One of halo_object_type_t. */
  uint32_t type;
  /* Frees |object|. Called exactly once, when the last reference is released.
   * Must not fail; must release every reference |object| holds. */
  void (*destroy)(halo_object_t* object);
} halo_object_vtable_t;

/* First member of every object. */
struct halo_object_t {
  /* Reference count, accessed only atomically (halo_object_retain/release, or
   * the host interface's object_retain/object_release in plugins). */
  uint32_t ref_count;
  uint32_t reserved0;
  /* The object's vtable; its first member is a halo_object_vtable_t. */
  const halo_object_vtable_t* vtable;
};

/* Initialiser for a fresh object header: one reference owned by the creator. */
#define HALO_OBJECT_HEADER_INIT(vtable_pointer) \
  { 1u, 0u, (const halo_object_vtable_t*)(vtable_pointer) }

/* Returns true when |vtable| (may be NULL) is at least large enough to hold
 * |member| of |vtable_type|; use before calling entries newer than 1.0. */
#define HALO_VTABLE_HAS(vtable, vtable_type, member)                  \
  ((vtable) != NULL &&                                                \
   ((const halo_object_vtable_t*)(vtable))->struct_size >=            \
       offsetof(vtable_type, member) + sizeof(((vtable_type*)0)->member) && \
   (vtable)->member != NULL)

/* Adds a reference to |object|. Accepts NULL. Thread-safe. */
HALO_API void halo_object_retain(halo_object_t* object);
/* Drops a reference to |object|, destroying it at zero. Accepts NULL.
 * Thread-safe. */
HALO_API void halo_object_release(halo_object_t* object);
/* Returns the type tag of |object|, or HALO_OBJECT_TYPE_NONE for NULL. */
HALO_API halo_object_type_t halo_object_type(const halo_object_t* object);

#endif /* HALO_OBJECT_H_ */
