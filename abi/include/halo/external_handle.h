/* External handle types and the handle struct (ABI 1.3); external.h says
 * what they are for and declares the functions that use them. Apart so
 * that the vtables of buffer.h, semaphore.h and device.h can name them. */
#ifndef HALO_EXTERNAL_HANDLE_H_
#define HALO_EXTERNAL_HANDLE_H_

#include <stdint.h>

typedef uint32_t halo_external_handle_type_t;
#define HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD ((halo_external_handle_type_t)1u << 0)
#define HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION \
  ((halo_external_handle_type_t)1u << 1)
#define HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF ((halo_external_handle_type_t)1u << 2)
/* Every type defined; a handle names exactly one of them. */
#define HALO_EXTERNAL_HANDLE_TYPES_KNOWN ((halo_external_handle_type_t)0x7u)

/* OPAQUE_FD buffers: the memory is a dedicated allocation, made for the
 * one exported buffer (Vulkan's VkMemoryDedicatedAllocateInfo); CUDA must
 * be told so when it imports the memory (CUDA_EXTERNAL_MEMORY_DEDICATED). */
#define HALO_EXTERNAL_HANDLE_FLAG_DEDICATED ((uint32_t)1u << 0)
/* Semaphore imports (ABI 1.5), set by the importer: the semaphore is for
 * the importing device's queues to wait on, and nothing else. A device
 * whose semaphore_wait_import_types names the type may then make a
 * semaphore whose payload the host cannot read (CUDA waits on an imported
 * Vulkan timeline but cannot query it); one whose semaphore_import_types
 * names it makes a whole semaphore, as without the flag. external.h says
 * what such a semaphore can do. */
#define HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY ((uint32_t)1u << 1)

/* One external handle: what an export fills and an import reads. */
typedef struct halo_external_handle_t {
  uint32_t struct_size;
  /* Exactly one HALO_EXTERNAL_HANDLE_TYPE_* bit. */
  halo_external_handle_type_t type;
  /* OPAQUE_FD and DMA_BUF: the file descriptor (>= 0); -1 otherwise. */
  int32_t fd;
  /* HALO_EXTERNAL_HANDLE_FLAG_* bits an export sets; 0 from an older
   * exporter. An importer needs them where the native API does. */
  uint32_t flags;
  /* HOST_ALLOCATION: the first byte; NULL otherwise. */
  void* host_pointer;
  /* Buffers: the bytes behind the handle, at least the buffer's size (for
   * an OPAQUE_FD, the size of the exported allocation, which may be
   * larger); an import's halo_buffer_params_t.size may be smaller.
   * Semaphores: 0. */
  uint64_t size;
  /* --- ABI 1.3 ends here. --- */
} halo_external_handle_t;

#endif /* HALO_EXTERNAL_HANDLE_H_ */
