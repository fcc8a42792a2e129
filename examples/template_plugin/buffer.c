/* buffer.c: the template's buffers (halo/buffer.h), not offered yet.
 *
 * template_buffer_allocate is the device's allocate_buffer. Its native half,
 * buffer_allocate_native, answers UNIMPLEMENTED, so no buffer exists yet; the
 * object around native memory and its vtable are here in full, each entry a stub
 * saying what it does once the memory is real. When buffers work, claim
 * HALO_DEVICE_FEATURE_BUFFERS (device.c) and the CTS's buffer.* cases run. */
#include "template_plugin.h"

typedef struct template_buffer_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  halo_device_t* device; /* Retained: a buffer keeps its device alive. */
  uint64_t size;
  halo_memory_type_t memory_type;
  /* VENDOR: your native memory (a VkBuffer and its VkDeviceMemory, a cl_mem). */
  void* native;
} template_buffer_t;

/* ---- Native memory ------------------------------------------------------------ */

/* VENDOR: allocate |params->size| bytes aligned to |params->alignment| (0: the
 * device's min_buffer_alignment; libhalo has checked it is a power of two) of a
 * memory type with every bit of |params->memory_type|, for |params->usage|.
 * Refuse what cannot be with a reason: INVALID_ARGUMENT "halo_buffer_allocate:
 * params->memory_type 0x… is no memory type of this device" for a combination no
 * memory type has, RESOURCE_EXHAUSTED "halo_buffer_allocate: params->size … is
 * above max_buffer_size …" when too large or out of memory. */
static halo_status_t buffer_allocate_native(template_device_t* device,
                                            const halo_buffer_params_t* params,
                                            void** out_native) {
  (void)params;
  *out_native = NULL;
  return template_unimplemented(device->host,
                                "halo_buffer_allocate: the template device has no buffers yet");
}

/* VENDOR: free what buffer_allocate_native allocated. */
static void buffer_free_native(template_buffer_t* buffer) { (void)buffer; }

/* ---- Vtable ------------------------------------------------------------------- */

/* Runs when the last reference goes: no command buffer or submission uses the
 * buffer any more (each holds a reference while it does). */
static void buffer_destroy(halo_object_t* object) {
  template_buffer_t* buffer = (template_buffer_t*)object;
  const halo_host_interface_t* host = buffer->host;
  halo_device_t* device = buffer->device;
  buffer_free_native(buffer);
  template_free(host, buffer);
  host->object_release((halo_object_t*)device);
}

static uint64_t buffer_size(halo_buffer_t* base) {
  return ((template_buffer_t*)base)->size;
}

/* VENDOR: map [offset, offset + length) (HALO_WHOLE_BUFFER: to the end) of a
 * HOST_VISIBLE buffer and store the address of |offset| in |out_pointer|.
 * OUT_OF_RANGE "halo_buffer_map_range: offset … + length … exceeds the buffer's …
 * bytes" for a range past the end; FAILED_PRECONDITION when the buffer is not
 * HOST_VISIBLE. */
static halo_status_t buffer_map_range(halo_buffer_t* base, uint64_t offset, uint64_t length,
                                      void** out_pointer) {
  template_buffer_t* buffer = (template_buffer_t*)base;
  (void)offset;
  (void)length;
  *out_pointer = NULL;
  return template_unimplemented(buffer->host,
                                "halo_buffer_map_range: the template device cannot map yet");
}

/* VENDOR: end a mapping made by map_range with the same range. */
static halo_status_t buffer_unmap_range(halo_buffer_t* base, uint64_t offset,
                                        uint64_t length) {
  template_buffer_t* buffer = (template_buffer_t*)base;
  (void)offset;
  (void)length;
  return template_unimplemented(buffer->host,
                                "halo_buffer_unmap_range: the template device cannot map yet");
}

/* VENDOR: make host writes to a mapped range visible to the device
 * (vkFlushMappedMemoryRanges); nothing to do for HOST_COHERENT memory. */
static halo_status_t buffer_flush_range(halo_buffer_t* base, uint64_t offset,
                                        uint64_t length) {
  template_buffer_t* buffer = (template_buffer_t*)base;
  (void)offset;
  (void)length;
  return template_unimplemented(buffer->host,
                                "halo_buffer_flush_range: the template device cannot map yet");
}

/* VENDOR: make device writes visible to host reads of a mapped range
 * (vkInvalidateMappedMemoryRanges); nothing to do for HOST_COHERENT memory. */
static halo_status_t buffer_invalidate_range(halo_buffer_t* base, uint64_t offset,
                                             uint64_t length) {
  template_buffer_t* buffer = (template_buffer_t*)base;
  (void)offset;
  (void)length;
  return template_unimplemented(
      buffer->host, "halo_buffer_invalidate_range: the template device cannot map yet");
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

/* ---- Creation ----------------------------------------------------------------- */

/* libhalo has checked |params| (struct_size, alignment) and |out_buffer|. Reads
 * only ABI 1.0 members of |params|; a newer one only where struct_size covers it. */
halo_status_t template_buffer_allocate(halo_device_t* base, const halo_buffer_params_t* params,
                                       halo_buffer_t** out_buffer) {
  template_device_t* device = (template_device_t*)base;
  const halo_host_interface_t* host = device->host;
  *out_buffer = NULL;
  template_buffer_t* buffer = template_allocate(host, sizeof(*buffer));
  if (buffer == NULL) return template_out_of_memory(host, "halo_buffer_allocate");
  memset(buffer, 0, sizeof(*buffer));
  halo_status_t status = buffer_allocate_native(device, params, &buffer->native);
  if (status != HALO_OK) {
    template_free(host, buffer);
    return status;
  }
  template_object_init(&buffer->object, &kBufferVtable);
  buffer->host = host;
  buffer->device = base;
  buffer->size = params->size;
  buffer->memory_type = params->memory_type;
  host->object_retain((halo_object_t*)base);
  *out_buffer = (halo_buffer_t*)buffer;
  return HALO_OK;
}
