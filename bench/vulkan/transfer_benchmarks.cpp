// Fill and copy of 64 MiB device-local buffers: a command buffer recorded
// once, then submitted and waited on per iteration, so the figure is the
// device's bandwidth plus one submit round trip.
//
// The raw command buffer holds exactly the one vkCmdFillBuffer (or
// vkCmdCopyBuffer) an application would record. The halo command buffer is
// what the plugin records for the same halo call: the same command, plus the
// closing memory barrier that makes device writes visible to the host and
// the simultaneous-use flag of a reusable command buffer. Those are costs
// of halo's contract, so they belong in the halo figure.
#include "halo_objects.hpp"
#include "raw_objects.hpp"
#include "vulkan_benchmarks.hpp"

namespace halo::bench {
namespace {

constexpr uint32_t kFillWord = 0x5a5a5a5au;

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(kTransferBytes));
}

void run_native(benchmark::State& state, const RawCommands& commands) {
  const RawDevice& raw = raw_device();
  RawSemaphore done;
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    raw_submit(raw, VK_NULL_HANDLE, 0, done.get(), value, commands.get());
    raw_wait(raw, done.get(), value);
  });
  raw_finish_run(raw);
  set_bytes(state);
}

void run_halo(benchmark::State& state, halo_device_t* device,
              const HaloCommands& commands) {
  HaloSemaphore done(device);
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    halo_submit(device, nullptr, 0, done.get(), value, commands.get());
    halo_wait(done.get(), value);
  });
  set_bytes(state);
}

}  // namespace

void fill_native(benchmark::State& state) {
  PinTimedThread pin;
  RawBuffer target(kTransferBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  RawCommands commands;
  raw_device().vk.vkCmdFillBuffer(commands.get(), target.get(), 0,
                                  kTransferBytes, kFillWord);
  commands.end();
  run_native(state, commands);
}

void fill_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloBuffer target(device.get(), kTransferBytes,
                    HALO_BUFFER_USAGE_TRANSFER_TARGET);
  HaloCommands commands(device.get());
  check_halo(halo_command_buffer_fill(commands.get(), target.get(), 0,
                                      kTransferBytes, &kFillWord,
                                      sizeof(kFillWord)),
             "halo_command_buffer_fill");
  commands.end();
  run_halo(state, device.get(), commands);
}

void copy_native(benchmark::State& state) {
  PinTimedThread pin;
  RawBuffer source(kTransferBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  RawBuffer target(kTransferBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  RawCommands commands;
  const VkBufferCopy region = {0, 0, kTransferBytes};
  raw_device().vk.vkCmdCopyBuffer(commands.get(), source.get(), target.get(),
                                  1, &region);
  commands.end();
  run_native(state, commands);
}

void copy_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloBuffer source(device.get(), kTransferBytes,
                    HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  HaloBuffer target(device.get(), kTransferBytes,
                    HALO_BUFFER_USAGE_TRANSFER_TARGET);
  HaloCommands commands(device.get());
  check_halo(halo_command_buffer_copy(commands.get(), source.get(), 0,
                                      target.get(), 0, kTransferBytes),
             "halo_command_buffer_copy");
  commands.end();
  run_halo(state, device.get(), commands);
}

}  // namespace halo::bench
