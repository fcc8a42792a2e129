// external.buffer.host_allocation.*: application memory imported as a
// buffer (HOST_ALLOCATION, external.h), and a buffer exported as its host
// memory. No copy is made, so what queued work writes is in the
// application's memory once its signal is reached, read there directly and
// never through a mapping, and what the host writes there is what the device
// reads. The memory is borrowed until the imported buffer is destroyed,
// which a submission in flight delays. libhalo refuses memory that is not
// aligned as the device reports, and params that do not fit the handle.
#include "external_helpers.hpp"
#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kQueuedNeeds = kNeedBuffers | kNeedCommandBuffers | kNeedQueues;
constexpr uint32_t kFillWord = 0x5A5A0001u;
constexpr uint8_t kUntouchedByte = 0xEE;
constexpr uint32_t kUntouchedWord = 0xEEEEEEEEu;

// Records, into |imported|'s four quarters of |quarter| bytes: a fill of
// kFillWord, an update of ramp(0x10000000), a copy of |source| (which holds
// ramp(0x20000000)); the last quarter is left alone.
void record_fill_update_copy(halo_command_buffer_t* commands, halo_buffer_t* imported,
                             halo_buffer_t* source, uint64_t quarter) {
  const std::vector<uint32_t> update = ramp(0x10000000u, quarter / 4);
  CTS_ASSERT_OK(halo_command_buffer_fill(commands, imported, 0, quarter, &kFillWord, 4));
  CTS_ASSERT_OK(halo_command_buffer_update(commands, update.data(), imported, quarter, quarter));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands, source, 0, imported, 2 * quarter, quarter));
}

// Checks the application's memory after record_fill_update_copy's work.
void check_fill_update_copy(const HostAllocation& memory, uint64_t quarter) {
  const size_t words = quarter / 4;
  CTS_ASSERT_VALUES(memory.words(0, words), std::vector<uint32_t>(words, kFillWord));
  CTS_ASSERT_VALUES(memory.words(quarter, words), ramp(0x10000000u, words));
  CTS_ASSERT_VALUES(memory.words(2 * quarter, words), ramp(0x20000000u, words));
  CTS_ASSERT_VALUES(memory.words(3 * quarter, words), std::vector<uint32_t>(words, kUntouchedWord));
}

HALO_CTS_CASE("external.buffer.host_allocation.zero_copy", kQueuedNeeds,
              "application memory imported as HOST_ALLOCATION: a queued fill, update and copy into it are in the memory itself after the signal, and host writes to the memory are what a device copy out of it reads") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  HostAllocation memory(few_pages(alignment), alignment);
  std::memset(memory.bytes(), kUntouchedByte, memory.size());
  const uint64_t quarter = memory.size() / 4;
  BufferRef imported = memory.import_into(ctx.device());
  BufferRef source = host_buffer(ctx, quarter);
  write_values(source.get(), ramp(0x20000000u, quarter / 4));

  CommandBufferRef commands = begin_commands(ctx.device());
  record_fill_update_copy(commands.get(), imported.get(), source.get(), quarter);
  end_and_execute(ctx, commands.get());
  check_fill_update_copy(memory, quarter);

  const std::vector<uint32_t> host_words = ramp(0x30000000u, quarter / 4);
  memory.write_words(3 * quarter, host_words);
  const std::vector<uint8_t> bytes = read_through_copy(ctx, imported.get(), 3 * quarter, quarter);
  std::vector<uint32_t> copied(quarter / 4);
  std::memcpy(copied.data(), bytes.data(), bytes.size());
  CTS_ASSERT_VALUES(copied, host_words);
}

HALO_CTS_CASE("external.buffer.host_allocation.aliases_in_order", kQueuedNeeds,
              "two imports of one application memory: with no barrier, a fill through one, a copy out through the other and a fill through the other take effect in recording order") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  HostAllocation memory(few_pages(alignment), alignment);
  constexpr uint32_t kSecondWord = 0x5A5A0002u;
  const uint64_t size = memory.size();
  BufferRef first = memory.import_into(ctx.device());
  BufferRef second = memory.import_into(ctx.device());
  BufferRef readback = host_buffer(ctx, size);
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), first.get(), 0, size, &kFillWord, 4));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), second.get(), 0, readback.get(), 0, size));
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), second.get(), 0, size, &kSecondWord, 4));
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), size / 4),
                    std::vector<uint32_t>(size / 4, kFillWord));
  CTS_ASSERT_VALUES(memory.words(0, size / 4), std::vector<uint32_t>(size / 4, kSecondWord));
}

HALO_CTS_CASE("external.buffer.host_allocation.dispatch", kQueuedNeeds | kNeedDispatch,
              "add_one dispatched over application memory imported as HOST_ALLOCATION reads what the host wrote there and leaves its result in the memory itself") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  HostAllocation memory(few_pages(alignment), alignment);
  const uint32_t count = static_cast<uint32_t>(memory.size() / 4);
  std::vector<uint32_t> initial(count), expected(count);
  for (uint32_t i = 0; i < count; ++i) {
    initial[i] = 3 * i;
    expected[i] = 3 * i + 1;
  }
  memory.write_words(0, initial);
  BufferRef imported = memory.import_into(ctx.device());
  ExecutableRef add_one = load_kernel(ctx, "add_one");
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), add_one.get(), workgroups_for(count), {imported.get()},
                  CountConstants{count});
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(memory.words(0, count), expected);
}

HALO_CTS_CASE("external.buffer.host_allocation.release_while_in_flight", kQueuedNeeds,
              "the imported buffer and its command buffer released while gated work into it is pending: once the gate opens the work runs and the application memory holds its result") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  // Declared first, so freed last: after the gate and every wait below.
  HostAllocation memory(few_pages(alignment), alignment);
  std::memset(memory.bytes(), kUntouchedByte, memory.size());
  const uint64_t quarter = memory.size() / 4;
  BufferRef imported = memory.import_into(ctx.device());
  BufferRef source = host_buffer(ctx, quarter);
  write_values(source.get(), ramp(0x20000000u, quarter / 4));
  CommandBufferRef commands = begin_commands(ctx.device());
  record_fill_update_copy(commands.get(), imported.get(), source.get(), quarter);
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));

  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {commands.get()}, {gate.get()}, {1}, {done}, {1}));
  imported.reset();
  commands.reset();
  source.reset();
  CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_VALUES(memory.words(0, 4), std::vector<uint32_t>(4, kUntouchedWord));
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
  check_fill_update_copy(memory, quarter);
}

HALO_CTS_CASE("external.buffer.host_allocation.misaligned", kNeedBuffers,
              "importing application memory whose pointer or size is not a multiple of host_allocation_alignment is INVALID_ARGUMENT") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  if (alignment == 1) skip("host_allocation_alignment is 1: every pointer and size is aligned");
  HostAllocation memory(few_pages(alignment) + alignment, alignment);
  const halo_buffer_params_t params =
      buffer_params(alignment, host_memory_type(ctx));
  halo_external_handle_t handle = host_handle(memory.bytes() + alignment / 2,
                                              memory.size() - alignment);
  check_buffer_import_invalid(ctx.device(), &params, &handle,
                              "a host pointer " + std::to_string(alignment / 2) +
                                  " bytes past a multiple of host_allocation_alignment " +
                                  std::to_string(alignment));
  handle = host_handle(memory.bytes(), memory.size() - alignment / 2);
  check_buffer_import_invalid(ctx.device(), &params, &handle,
                              "a handle size " + std::to_string(handle.size) +
                                  " that is not a multiple of host_allocation_alignment " +
                                  std::to_string(alignment));
}

HALO_CTS_CASE("external.buffer.host_allocation.size_above_handle", kNeedBuffers,
              "importing application memory with params->size 0 or above the handle's size is INVALID_ARGUMENT; a size below it imports a buffer of that size") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  HostAllocation memory(few_pages(alignment), alignment);
  const halo_external_handle_t handle = memory.handle();
  for (uint64_t size : {uint64_t{0}, memory.size() + 1, memory.size() + alignment}) {
    const halo_buffer_params_t params = buffer_params(size, host_memory_type(ctx));
    check_buffer_import_invalid(ctx.device(), &params, &handle,
                                "params->size " + std::to_string(size) + " and handle->size " +
                                    std::to_string(memory.size()));
  }
  const halo_buffer_params_t smaller = buffer_params(memory.size() / 2 + 4, host_memory_type(ctx));
  BufferRef buffer = import_buffer(ctx.device(), smaller, handle);
}

HALO_CTS_CASE("external.buffer.host_allocation.bad_params", kNeedBuffers,
              "importing application memory with a non-zero params->alignment, flags asking for EXPORTABLE or an unknown flag, a memory type without HOST_VISIBLE, or a usage of 0 is INVALID_ARGUMENT") {
  const uint64_t alignment = host_import_alignment(ctx.capabilities());
  HostAllocation memory(few_pages(alignment), alignment);
  const halo_external_handle_t handle = memory.handle();
  const halo_buffer_params_t good = buffer_params(memory.size(), host_memory_type(ctx));
  halo_buffer_params_t params = good;
  params.alignment = alignment;
  check_buffer_import_invalid(ctx.device(), &params, &handle,
                              "params->alignment " + std::to_string(alignment));
  params = good;
  params.flags = HALO_BUFFER_FLAG_EXPORTABLE;
  check_buffer_import_invalid(ctx.device(), &params, &handle, "params->flags EXPORTABLE");
  params.flags = 1u << 7;
  check_buffer_import_invalid(ctx.device(), &params, &handle, "params->flags 0x80");
  params = good;
  params.memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL;
  check_buffer_import_invalid(ctx.device(), &params, &handle, "params->memory_type DEVICE_LOCAL");
  params.memory_type = 0;
  check_buffer_import_invalid(ctx.device(), &params, &handle, "params->memory_type 0");
  params = good;
  params.usage = 0;
  check_buffer_import_invalid(ctx.device(), &params, &handle, "params->usage 0");
}

HALO_CTS_CASE("external.buffer.host_allocation.export", kQueuedNeeds,
              "an EXPORTABLE buffer exported as HOST_ALLOCATION names its memory: host writes at the pointer are what a device copy reads, and a queued fill is at the pointer after the signal") {
  require_type(ctx.capabilities().buffer_export_types, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION,
               "buffer_export_types");
  constexpr uint64_t kSize = 16384;
  constexpr size_t kWords = kSize / 8;
  BufferRef buffer = allocate_exportable(ctx.device(), kSize, host_memory_type(ctx));
  const halo_external_handle_t handle =
      export_buffer(buffer.get(), HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  CTS_ASSERT_MSG(handle.fd == -1, "a HOST_ALLOCATION handle has fd " +
                                      std::to_string(handle.fd) + ", expected -1");
  auto* bytes = static_cast<uint8_t*>(handle.host_pointer);

  const std::vector<uint32_t> host_words = ramp(0x40000000u, kWords);
  std::memcpy(bytes, host_words.data(), kSize / 2);
  const std::vector<uint8_t> read = read_through_copy(ctx, buffer.get(), 0, kSize / 2);
  std::vector<uint32_t> copied(kWords);
  std::memcpy(copied.data(), read.data(), read.size());
  CTS_ASSERT_VALUES(copied, host_words);

  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), kSize / 2, kSize / 2,
                                         &kFillWord, 4));
  end_and_execute(ctx, commands.get());
  std::vector<uint32_t> filled(kWords);
  std::memcpy(filled.data(), bytes + kSize / 2, kSize / 2);
  CTS_ASSERT_VALUES(filled, std::vector<uint32_t>(kWords, kFillWord));
}

}  // namespace
