// interop.*: semaphores of two plugins working together (DESIGN.md §4, §5):
// queue waits on and signals of another plugin's semaphores, mixed
// multi-waits, and failures crossing the boundary. Every case needs a second
// loaded plugin with semaphores (ctx.foreign_device()); with one plugin they
// skip, saying so.
#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr char kFailureMessage[] = "cts: foreign failure 77d0";

HALO_CTS_CASE("interop.compatibility.foreign", kNeedSemaphores | kNeedSecondPlugin,
              "each plugin's device offers at least HOST_WAIT|HOST_SIGNAL on the other plugin's semaphore") {
  const uint32_t host = HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
                        HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
  halo_device_t* foreign = ctx.foreign_device();
  halo_semaphore_compatibility_t compatibility = 0;
  CTS_ASSERT_OK(halo_device_semaphore_compatibility(
      ctx.device(), ctx.semaphore(0, foreign), &compatibility));
  CTS_ASSERT_EQ(compatibility & host, host);
  compatibility = 0;
  CTS_ASSERT_OK(halo_device_semaphore_compatibility(foreign, ctx.semaphore(0), &compatibility));
  CTS_ASSERT_EQ(compatibility & host, host);
}

HALO_CTS_CASE("interop.submission.wait_foreign", kNeedQueues | kNeedSecondPlugin,
              "a submission waits on a host-signalled semaphore of another plugin (wait before signal)") {
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {foreign}, {2}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_signal(foreign, 1));
  CTS_ASSERT_STATUS(halo_semaphore_wait(out, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(foreign, 2));
  CTS_ASSERT_OK(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("interop.submission.wait_mixed", kNeedQueues | kNeedSecondPlugin,
              "a submission waiting on one own and one foreign semaphore runs only after both are signalled") {
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {own, foreign}, {1, 1}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_signal(own, 1));
  CTS_ASSERT_STATUS(halo_semaphore_wait(out, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(foreign, 1));
  CTS_ASSERT_OK(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("interop.submission.signal_foreign", kNeedQueues | kNeedSecondPlugin,
              "a submission signals a semaphore of another plugin, which the host then waits on") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate}, {1}, {foreign}, {5}));
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  CTS_ASSERT_OK(halo_semaphore_wait(foreign, 5, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("interop.submission.signal_foreign_in_order", kNeedQueues | kNeedSecondPlugin,
              "64 submissions, each waiting on the one before through a semaphore of its own device (and filling 4 MiB where the device has buffers), signal one semaphore of another plugin to 1, 2, ..., 64: the values land in order, so it never fails and ends at 64") {
  constexpr uint64_t kLinks = 64;
  constexpr uint64_t kBytes = uint64_t{4} << 20;
  const halo_device_features_t buffers =
      HALO_DEVICE_FEATURE_BUFFERS | HALO_DEVICE_FEATURE_COMMAND_BUFFERS;
  const bool fills = (ctx.capabilities().features & buffers) == buffers;
  BufferRef buffer;
  if (fills) buffer = allocate_buffer(ctx.device(), kBytes, host_memory_type(ctx));
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  const uint32_t pattern = 0x5A5A5A5Au;
  // Submitted back to back, so that a link's wait is on work still queued
  // (a device-side chain where the plugin can make one), and each link's
  // fill takes long enough for completions to be seen in batches.
  for (uint64_t link = 1; link <= kLinks; ++link) {
    CommandBufferRef fill;
    if (fills) {
      fill = begin_commands(ctx.device());
      CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), buffer.get(), 0, kBytes, &pattern,
                                             sizeof(pattern)));
      CTS_ASSERT_OK(halo_command_buffer_end(fill.get()));
    }
    std::vector<halo_command_buffer_t*> commands;
    if (fills) commands = {fill.get()};
    std::vector<halo_semaphore_t*> waits;
    std::vector<uint64_t> wait_values;
    if (link > 1) {
      waits = {own};
      wait_values = {link - 1};
    }
    CTS_ASSERT_OK(submit(ctx.device(), commands, waits, wait_values, {own, foreign},
                         {link, link}));
  }
  CTS_ASSERT_OK(halo_semaphore_wait(foreign, kLinks, deadline_in_ms(kGenerousMs)));
  uint64_t value = 0;
  CTS_ASSERT_OK(halo_semaphore_query(foreign, &value));
  CTS_ASSERT_EQ(value, kLinks);
  CTS_ASSERT_OK(halo_semaphore_wait(own, kLinks, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("interop.submission.fail_foreign", kNeedQueues | kNeedSecondPlugin,
              "a failed foreign wait semaphore fails the submission's signal semaphores with the same code and message") {
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {foreign}, {1}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_fail(foreign, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT_FAILURE(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

HALO_CTS_CASE("interop.wait_many.mixed_plugins", kNeedSemaphores | kNeedSecondPlugin,
              "ALL and ANY host waits mixing semaphores of two plugins: DEADLINE_EXCEEDED until reached, then OK") {
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  halo_semaphore_t* list[] = {own, foreign};
  const uint64_t values[] = {1, 1};
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    CTS_ASSERT_STATUS(halo_semaphores_wait(mode, 2, list, values, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(halo_semaphores_wait(mode, 2, list, values, deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
  }
  CTS_ASSERT_OK(halo_semaphore_signal(foreign, 1));
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 2, list, values,
                                     HALO_DEADLINE_INFINITE_FUTURE));
  CTS_ASSERT_STATUS(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                         HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(own, 1));
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                     HALO_DEADLINE_INFINITE_FUTURE));
}

HALO_CTS_CASE("interop.wait_many.mixed_blocking", kNeedSemaphores | kNeedSecondPlugin,
              "a thread blocked in an ALL wait over both plugins' semaphores wakes when the last is signalled") {
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  std::atomic<bool> started{false};
  halo_status_t result = nullptr;
  {
    ThreadGroup threads;
    threads.start([&] {
      halo_semaphore_t* list[] = {own, foreign};
      const uint64_t values[] = {1, 1};
      started.store(true);
      result = halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                    deadline_in_ms(kGenerousMs));
    });
    CTS_ASSERT(spin_until([&] { return started.load(); }));
    CTS_ASSERT_OK(halo_semaphore_signal(own, 1));
    CTS_ASSERT_OK(halo_semaphore_signal(foreign, 1));
  }
  CTS_ASSERT_OK(result);
}

HALO_CTS_CASE("interop.wait_many.mixed_failed", kNeedSemaphores | kNeedSecondPlugin,
              "a failed foreign semaphore in a mixed ALL or ANY wait returns its failure") {
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  CTS_ASSERT_OK(halo_semaphore_fail(foreign, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  halo_semaphore_t* list[] = {own, foreign};
  const uint64_t values[] = {1, 1};
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    CTS_ASSERT_FAILURE(halo_semaphores_wait(mode, 2, list, values, deadline_in_ms(kGenerousMs)),
                       HALO_STATUS_DATA_LOSS, kFailureMessage);
  }
}

}  // namespace
