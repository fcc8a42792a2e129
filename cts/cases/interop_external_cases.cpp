// interop.external.*: memory shared between devices of two plugins without
// a copy (external.h, HOST_ALLOCATION): one application allocation
// imported into both, and one plugin's buffer exported as its host memory
// and imported into the other, or named in the other's commands as it is
// (libhalo imports it). Each device's queue writes the shared bytes
// and hands over to the other through its semaphores, and the host checks
// the bytes themselves. The cases need a second loaded plugin
// (ctx.foreign_device()) whose device has buffers, command buffers and
// queues and the handle types each case moves; otherwise they skip, saying
// what is missing.
#include <algorithm>

#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kQueuedNeeds =
    kNeedBuffers | kNeedCommandBuffers | kNeedQueues | kNeedSecondPlugin;

// Skips the case unless the peer device reports what queued buffer work
// needs (the device under test is checked by the case's needs).
void require_queued_buffers(const halo_device_capabilities_t& caps, const std::string& who) {
  const halo_device_features_t needed = HALO_DEVICE_FEATURE_BUFFERS |
                                        HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                                        HALO_DEVICE_FEATURE_QUEUES;
  if ((caps.features & needed) != needed) {
    skip(who + " does not report HALO_DEVICE_FEATURE_BUFFERS, _COMMAND_BUFFERS and _QUEUES "
               "(features " + std::to_string(caps.features) + ")");
  }
}

// One side of a hand-over: a device, its import of the shared bytes and a
// semaphore of its own.
struct Side {
  halo_device_t* device;
  halo_buffer_t* shared;
  halo_semaphore_t* semaphore;
};

// |writer| fills the first half of the shared bytes with |pattern| and
// signals |value|; |reader|, waiting for that, copies the first half over
// the second and signals |value|. The reader's submission is made first, so
// it waits on a semaphore of the other plugin not yet signalled.
void hand_over(const Side& writer, const Side& reader, uint64_t half, uint32_t pattern,
               uint64_t value) {
  CommandBufferRef copy = begin_commands(reader.device);
  CTS_ASSERT_OK(halo_command_buffer_copy(copy.get(), reader.shared, 0, reader.shared, half, half));
  CTS_ASSERT_OK(halo_command_buffer_end(copy.get()));
  CTS_ASSERT_OK(submit(reader.device, {copy.get()}, {writer.semaphore}, {value},
                       {reader.semaphore}, {value}));
  CommandBufferRef fill = begin_commands(writer.device);
  CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), writer.shared, 0, half, &pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_end(fill.get()));
  CTS_ASSERT_OK(submit(writer.device, {fill.get()}, {}, {}, {writer.semaphore}, {value}));
  CTS_ASSERT_OK(halo_semaphore_wait(reader.semaphore, value, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("interop.external.host_allocation_shared", kQueuedNeeds,
              "one application allocation imported into both plugins' devices (at the larger host_allocation_alignment): each in turn fills half and the other, waiting on its semaphore, copies that half over the other; the memory holds each fill") {
  halo_device_t* foreign = ctx.foreign_device();
  const halo_device_capabilities_t foreign_caps = capabilities_of(foreign);
  const std::string peer = "the peer's device (" + ctx.foreign_plugin_name() + ")";
  require_queued_buffers(foreign_caps, peer);
  const uint64_t own_alignment = host_import_alignment(ctx.capabilities());
  const uint64_t foreign_alignment = host_import_alignment(foreign_caps, peer);
  const uint64_t alignment = std::max(own_alignment, foreign_alignment);
  // Declared first, so freed last, once both devices are idle.
  HostAllocation memory(few_pages(alignment), alignment);
  std::memset(memory.bytes(), 0xEE, memory.size());
  const uint64_t half = memory.size() / 2;
  BufferRef own_import = memory.import_into(ctx.device());
  BufferRef foreign_import = memory.import_into(foreign);
  const Side own{ctx.device(), own_import.get(), ctx.semaphore(0)};
  const Side other{foreign, foreign_import.get(), ctx.semaphore(0, foreign)};

  hand_over(own, other, half, 0xA1A1A1A1u, 1);
  CTS_ASSERT_VALUES(memory.words(0, memory.size() / 4),
                    std::vector<uint32_t>(memory.size() / 4, 0xA1A1A1A1u));
  hand_over(other, own, half, 0xB2B2B2B2u, 2);
  CTS_ASSERT_VALUES(memory.words(0, memory.size() / 4),
                    std::vector<uint32_t>(memory.size() / 4, 0xB2B2B2B2u));
}

// |original| (of |size| bytes) exported as |type| and imported into
// |importer|.
BufferRef export_and_import(halo_buffer_t* original, halo_device_t* importer,
                            const halo_device_capabilities_t& importer_caps,
                            halo_external_handle_type_t type, uint64_t size,
                            const std::string& names) {
  const bool host = type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  halo_external_handle_t handle = export_buffer(original, type);
  if (host) {
    const uint64_t alignment = importer_caps.host_allocation_alignment;
    CTS_ASSERT_MSG(reinterpret_cast<uintptr_t>(handle.host_pointer) % alignment == 0,
                   names + ": a buffer allocated with alignment " + std::to_string(alignment) +
                       " exported a host pointer that is not a multiple of it");
    // The buffer's own bytes, a multiple of the alignment; the handle may
    // name more (rounded to the exporter's pages), which need not be.
    handle.size = size;
  }
  return import_buffer(
      importer,
      buffer_params(size, host ? host_memory_type_of(importer_caps) : HALO_MEMORY_TYPE_DEVICE_LOCAL),
      handle);
}

// Runs the exported-memory exchange from |exporter| to |importer| through
// a handle of |type|: an EXPORTABLE buffer of the exporter (host memory,
// aligned as the importer needs, for a HOST_ALLOCATION; device memory for
// an OPAQUE_FD) exported and imported. The exporter fills the first half;
// the importer, waiting on that, copies it to a buffer of its own and fills
// the second half; the host then reads both results, each through a copy
// on its own device. |names| say which device is which, for messages.
// With |by_original| the importer's commands name the exporter's buffer
// itself and libhalo imports it (external.h, "Buffers named by another
// device's commands"); else the case exports and imports.
void exchange(Context& ctx, halo_device_t* exporter, halo_device_t* importer,
              halo_external_handle_type_t type, const std::string& names, bool by_original) {
  const halo_device_capabilities_t exporter_caps = capabilities_of(exporter);
  const halo_device_capabilities_t importer_caps = capabilities_of(importer);
  const bool host = type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  const uint64_t alignment = host ? host_import_alignment(importer_caps) : 0;
  const uint64_t size = host ? few_pages(alignment) : 64 * 1024;
  const uint64_t half = size / 2;
  const size_t half_words = half / 4;
  BufferRef original = allocate_exportable(
      exporter, size, host ? host_memory_type_of(exporter_caps) : HALO_MEMORY_TYPE_DEVICE_LOCAL,
      alignment);
  BufferRef imported;
  if (!by_original) {
    imported = export_and_import(original.get(), importer, importer_caps, type, size, names);
  }
  halo_buffer_t* named = by_original ? original.get() : imported.get();
  BufferRef readback = allocate_buffer(importer, half, host_memory_type_of(importer_caps));
  halo_semaphore_t* exported_done = ctx.semaphore(0, exporter);
  halo_semaphore_t* imported_done = ctx.semaphore(0, importer);

  CommandBufferRef second = begin_commands(importer);
  CTS_ASSERT_OK(halo_command_buffer_copy(second.get(), named, 0, readback.get(), 0, half));
  const uint32_t second_pattern = 0xD4D4D4D4u;
  CTS_ASSERT_OK(halo_command_buffer_fill(second.get(), named, half, half,
                                         &second_pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_end(second.get()));
  CTS_ASSERT_OK(submit(importer, {second.get()}, {exported_done}, {1}, {imported_done}, {1}));
  CommandBufferRef first = begin_commands(exporter);
  const uint32_t first_pattern = 0xC3C3C3C3u;
  CTS_ASSERT_OK(halo_command_buffer_fill(first.get(), original.get(), 0, half, &first_pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_end(first.get()));
  CTS_ASSERT_OK(submit(exporter, {first.get()}, {}, {}, {exported_done}, {1}));
  CTS_ASSERT_OK(halo_semaphore_wait(imported_done, 1, deadline_in_ms(kGenerousMs)));

  CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), half_words),
                    std::vector<uint32_t>(half_words, first_pattern));
  const std::vector<uint8_t> second_half = read_through_copy(ctx, original.get(), half, half, exporter);
  std::vector<uint32_t> second_words(half_words);
  std::memcpy(second_words.data(), second_half.data(), half);
  CTS_ASSERT_VALUES(second_words, std::vector<uint32_t>(half_words, second_pattern));
  // The exporter's memory must outlive the import, which the importer's
  // submission may still hold after its signal (external.h).
  CTS_ASSERT_OK(halo_device_wait_idle(importer, deadline_in_ms(kGenerousMs)));
  imported.reset();
}

// Runs exchange() in each direction where one device exports |type| and
// the other imports it; skips, naming both devices' types, where neither
// does. |same_gpu_only|: only between devices of one GPU (equal uuids), as
// OPAQUE_FD memory is; other pairs skip saying so.
void exchange_both_ways(Context& ctx, halo_external_handle_type_t type, bool same_gpu_only,
                        bool by_original = false) {
  const auto [own, foreign, own_caps, foreign_caps, peer, one_gpu] = peer_pair_of(ctx);
  require_queued_buffers(foreign_caps, peer);
  const bool to_foreign = (own_caps.buffer_export_types & type) != 0 &&
                          (foreign_caps.buffer_import_types & type) != 0;
  const bool from_foreign = (foreign_caps.buffer_export_types & type) != 0 &&
                            (own_caps.buffer_import_types & type) != 0;
  if (!to_foreign && !from_foreign) {
    skip(std::string("neither device exports ") + handle_type_text(type) +
         " buffers that the other imports (the device: export " +
         handle_types_text(own_caps.buffer_export_types) + ", import " +
         handle_types_text(own_caps.buffer_import_types) + "; " + peer + ": export " +
         handle_types_text(foreign_caps.buffer_export_types) + ", import " +
         handle_types_text(foreign_caps.buffer_import_types) + ")");
  }
  if (same_gpu_only && !one_gpu) {
    skip("the device and " + peer + " are not one GPU (their uuids differ or are zero), and " +
         handle_type_text(type) + " memory is shared only within one");
  }
  if (to_foreign) {
    exchange(ctx, own, foreign, type, "exported here, imported by " + peer, by_original);
  }
  if (from_foreign) {
    exchange(ctx, foreign, own, type, "exported by " + peer + ", imported here",
             by_original);
  }
}

HALO_CTS_CASE("interop.external.exported_host_allocation", kQueuedNeeds,
              "a buffer of a device that exports HOST_ALLOCATION imported into the other plugin's device (each direction that one exports and the other imports): each side's queued writes are seen by the other") {
  exchange_both_ways(ctx, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, /*same_gpu_only=*/false);
}

HALO_CTS_CASE("interop.external.opaque_fd_device_memory", kQueuedNeeds,
              "device memory of one GPU exported as an OPAQUE_FD by one plugin and imported by the other (each direction that one exports and the other imports; vulkan to cuda on NVIDIA): each side's queued writes are seen by the other") {
  exchange_both_ways(ctx, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, /*same_gpu_only=*/true);
}

HALO_CTS_CASE("interop.external.host_allocation_named_directly", kQueuedNeeds,
              "as exported_host_allocation, but the importing device's commands name the exporting plugin's EXPORTABLE buffer itself, and libhalo imports it (external.h): each side's queued writes are seen by the other") {
  exchange_both_ways(ctx, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, /*same_gpu_only=*/false,
                     /*by_original=*/true);
}

HALO_CTS_CASE("interop.external.opaque_fd_named_directly", kQueuedNeeds,
              "as opaque_fd_device_memory, but the importing device's commands name the exporting plugin's EXPORTABLE buffer itself, and libhalo imports it (external.h): each side's queued writes are seen by the other") {
  exchange_both_ways(ctx, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, /*same_gpu_only=*/true,
                     /*by_original=*/true);
}

}  // namespace
