/* External handle types and the handle struct (ABI 1.3), and the shared
 * page of a host timeline (ABI 1.6); external.h says what they are for and
 * declares the functions that use them. Apart so that the vtables of
 * buffer.h, semaphore.h and device.h can name them. */
#ifndef HALO_EXTERNAL_HANDLE_H_
#define HALO_EXTERNAL_HANDLE_H_

#include <stdint.h>

typedef uint32_t halo_external_handle_type_t;
#define HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD ((halo_external_handle_type_t)1u << 0)
#define HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION \
  ((halo_external_handle_type_t)1u << 1)
#define HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF ((halo_external_handle_type_t)1u << 2)
/* ABI 1.6: a file descriptor of shared memory (a memfd) whose first bytes
 * are a halo_host_timeline_t (below): a timeline kept on the host, which
 * any plugin of any process can share without a driver. */
#define HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD \
  ((halo_external_handle_type_t)1u << 3)
/* Every type defined; a handle names exactly one of them. */
#define HALO_EXTERNAL_HANDLE_TYPES_KNOWN ((halo_external_handle_type_t)0xFu)

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

/* The shared page of a HOST_TIMELINE_FD (ABI 1.6), at offset 0 of the file
 * (which is at least this size), mapped MAP_SHARED by every sharer. Its
 * layout and the protocol below are the whole contract, so that a plugin
 * written without halo's SDK shares timelines with the SDK's semaphores.
 *
 * |payload| is the timeline's value, or >= HALO_SEMAPHORE_FAILURE_VALUE
 * once a sharer failed it; it only rises. |epoch| and |waiters| are for
 * sleeping (a Linux futex on |epoch|, shared, not FUTEX_PRIVATE). All three
 * are read and written only with sequentially consistent atomic operations:
 *   change: raise |payload| with a compare-and-swap (never lower it; a
 *           failure stores HALO_SEMAPHORE_FAILURE_VALUE if |payload| is
 *           below it); when the swap raised it, add 1 to |epoch|, then, if
 *           |waiters| is not 0, FUTEX_WAKE every sleeper on |epoch|.
 *   sleep:  add 1 to |waiters|, read |epoch|, read |payload|; unless the
 *           payload answers the wait, FUTEX_WAIT on |epoch| for the epoch
 *           read; subtract 1 from |waiters|, and read again.
 * A change that sees |waiters| at 0 is then seen by the sleeper's read of
 * |payload|, so no wake-up is lost and a change with nobody asleep makes
 * no system call. A sharer may wake sleepers at any time (to end its own
 * sleeps): sleepers re-read the payload after every wake-up. */
#define HALO_HOST_TIMELINE_MAGIC 0x6c74686cu /* "lhtl" in memory order */
#define HALO_HOST_TIMELINE_VERSION 1u
typedef struct halo_host_timeline_t {
  /* HALO_HOST_TIMELINE_MAGIC and HALO_HOST_TIMELINE_VERSION, written by the
   * creator before it hands the fd out; an importer refuses a file without
   * them. */
  uint32_t magic;
  uint32_t version;
  uint64_t payload;
  uint32_t epoch;
  uint32_t waiters;
} halo_host_timeline_t;

#endif /* HALO_EXTERNAL_HANDLE_H_ */
