// external.buffer.opaque_fd.*: a buffer exported as an OPAQUE_FD and
// imported again on the same device (external.h). Both buffers name one
// allocation, so what is written through one is read through the other,
// and the allocation lives while either does. The fd belongs to the caller
// until an import returns OK; one that fails leaves it open.
#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kQueuedNeeds = kNeedBuffers | kNeedCommandBuffers | kNeedQueues;
constexpr uint64_t kSize = 65536;
constexpr uint32_t kFillWord = 0xC0FFEE01u;

// Skips the case unless the device both exports and imports OPAQUE_FD
// buffers.
void require_opaque_fd_round_trip(Context& ctx) {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  require_type(caps.buffer_export_types, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD,
               "buffer_export_types");
  require_type(caps.buffer_import_types, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD,
               "buffer_import_types");
}

// An EXPORTABLE buffer of the device under test and its import on the same
// device, both kSize bytes of host-visible memory.
struct SharedPair {
  explicit SharedPair(Context& ctx) {
    const halo_memory_type_t memory_type = host_memory_type(ctx);
    original = allocate_exportable(ctx.device(), kSize, memory_type);
    const halo_external_handle_t handle =
        export_buffer(original.get(), HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD);
    Fd fd(handle.fd);
    const halo_buffer_params_t params = buffer_params(kSize, memory_type);
    halo_status_t status = halo_buffer_import(ctx.device(), &params, &handle, imported.out());
    if (status == nullptr) fd.taken();
    CTS_ASSERT_MSG(status == nullptr, "halo_buffer_import of the buffer's own OPAQUE_FD (size " +
                                          std::to_string(handle.size) + ") returned " +
                                          take_status_text(status) + ", expected OK");
    CTS_ASSERT_EQ(halo_buffer_size(imported.get()), kSize);
  }

  BufferRef original, imported;
};

HALO_CTS_CASE("external.buffer.opaque_fd.round_trip", kQueuedNeeds,
              "a buffer exported as OPAQUE_FD (handle size >= the buffer's) and imported on the same device: host writes to the original are read by a device copy of the import, and a fill of the import is read through the original's mapping") {
  require_opaque_fd_round_trip(ctx);
  SharedPair pair(ctx);
  const size_t words = kSize / 4;
  const std::vector<uint32_t> written = ramp(0x50000000u, words);
  write_values(pair.original.get(), written);
  const std::vector<uint8_t> bytes = read_through_copy(ctx, pair.imported.get(), 0, kSize);
  std::vector<uint32_t> through_import(words);
  std::memcpy(through_import.data(), bytes.data(), bytes.size());
  CTS_ASSERT_VALUES(through_import, written);

  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), pair.imported.get(), 0, kSize / 2,
                                         &kFillWord, 4));
  end_and_execute(ctx, commands.get());
  std::vector<uint32_t> expected(words / 2, kFillWord);
  expected.insert(expected.end(), written.begin() + words / 2, written.end());
  CTS_ASSERT_VALUES(read_values<uint32_t>(pair.original.get(), words), expected);
}

HALO_CTS_CASE("external.buffer.opaque_fd.aliases_in_order", kQueuedNeeds,
              "with no barrier, a fill of the original, a copy out of its import and a fill of the import take effect in recording order (the two name one allocation)") {
  require_opaque_fd_round_trip(ctx);
  SharedPair pair(ctx);
  constexpr uint32_t kSecondWord = 0xC0FFEE02u;
  BufferRef readback = host_buffer(ctx, kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), pair.original.get(), 0, kSize,
                                         &kFillWord, 4));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), pair.imported.get(), 0, readback.get(), 0,
                                         kSize));
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), pair.imported.get(), 0, kSize,
                                         &kSecondWord, 4));
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), kSize / 4),
                    std::vector<uint32_t>(kSize / 4, kFillWord));
  CTS_ASSERT_VALUES(read_values<uint32_t>(pair.original.get(), kSize / 4),
                    std::vector<uint32_t>(kSize / 4, kSecondWord));
}

HALO_CTS_CASE("external.buffer.opaque_fd.release_original_while_import_in_flight", kQueuedNeeds,
              "the original buffer, its import and the command buffer all released while gated work fills the import and copies it out: the work runs and the copy holds the fill") {
  require_opaque_fd_round_trip(ctx);
  SharedPair pair(ctx);
  BufferRef readback = host_buffer(ctx, kSize);
  write_values(readback.get(), std::vector<uint32_t>(kSize / 4, 0));
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), pair.imported.get(), 0, kSize,
                                         &kFillWord, 4));
  CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), pair.imported.get(), 0, readback.get(), 0,
                                         kSize));
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));

  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {commands.get()}, {gate.get()}, {1}, {done}, {1}));
  pair.original.reset();
  pair.imported.reset();
  commands.reset();
  CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), kSize / 4),
                    std::vector<uint32_t>(kSize / 4, kFillWord));
}

HALO_CTS_CASE("external.buffer.opaque_fd.failed_import_keeps_fd", kNeedBuffers,
              "importing /dev/null as an OPAQUE_FD buffer fails (any code but OK) and leaves the fd open, the caller's to close") {
  require_type(ctx.capabilities().buffer_import_types, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD,
               "buffer_import_types");
  Fd fd(open_dev_null());
  halo_external_handle_t handle = empty_handle();
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  handle.fd = fd.get();
  handle.size = 4096;
  const halo_buffer_params_t params = buffer_params(4096, host_memory_type(ctx));
  BufferRef buffer;
  halo_status_t status = halo_buffer_import(ctx.device(), &params, &handle, buffer.out());
  if (status == nullptr) fd.taken();
  CTS_ASSERT_MSG(status != nullptr,
                 "halo_buffer_import of /dev/null as an OPAQUE_FD returned OK, expected a failure");
  const std::string text = take_status_text(status);
  CTS_ASSERT_MSG(buffer.get() == nullptr,
                 "halo_buffer_import returned " + text + " but left out_buffer non-NULL");
  CTS_ASSERT_MSG(fd_is_open(fd.get()), "halo_buffer_import returned " + text +
                                           " and closed the caller's fd, expected it left open");
}

}  // namespace
