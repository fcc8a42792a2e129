/* Host memory allocator.
 *
 * All host memory a plugin uses for its objects comes from the allocator in the
 * host interface, so applications can account for or redirect it. */
#ifndef HALO_ALLOCATOR_H_
#define HALO_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

typedef struct halo_allocator_t {
  /* sizeof(halo_allocator_t) as compiled by the provider. */
  uint32_t struct_size;
  uint32_t reserved0;
  /* Passed back to every function below. */
  void* self;
  /* Returns |size| bytes aligned to |alignment| (a power of two, at least
   * sizeof(void*)), or NULL when memory is exhausted. Thread-safe. */
  void* (*allocate)(void* self, size_t size, size_t alignment);
  /* Frees memory from |allocate|. Accepts NULL. Thread-safe. */
  void (*free)(void* self, void* pointer);
  /* --- ABI 1.0 ends here. --- */
} halo_allocator_t;

#endif /* HALO_ALLOCATOR_H_ */
