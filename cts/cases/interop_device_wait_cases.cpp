// interop.external.semaphore_for_device_waits and device_side_wait_*: a
// device waiting on another plugin's semaphore on the device (external.h,
// ABI 1.5, "Device-side waits across plugins" and
// "Semaphores for device waits only"). They need a pair of devices where
// one exports semaphores in a type the other imports for device waits (a
// Vulkan timeline and CUDA on one GPU; host timelines between host plugins,
// such as the cpu plugin and the reference peer); otherwise they skip,
// naming both devices' types. Each runs in every direction the pair
// allows.
#include <unistd.h>

#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kNeeds = kNeedSemaphores | kNeedQueues | kNeedSecondPlugin;

// An exporter and a device that waits on its semaphores on the device.
struct Pair {
  halo_device_t* exporter;
  halo_device_t* waiter;
  halo_external_handle_type_t type;  // One type both sides take.
  std::string names;                 // "exported by …, waited on by …".
};

// The directions between the device and the peer's where one exports
// semaphores as a type the other imports for device waits, within one GPU
// unless the type is a host timeline (and,
// with |automatic|, where the waiter lets libhalo choose such waits: the
// feature bit); skips saying why when there is none.
std::vector<Pair> device_wait_pairs(Context& ctx, bool automatic = false) {
  const auto [own, foreign, own_caps, foreign_caps, peer, one_gpu] = peer_pair_of(ctx);
  std::vector<Pair> pairs;
  auto add = [&](halo_device_t* exporter, const halo_device_capabilities_t& exporter_caps,
                 halo_device_t* waiter, const halo_device_capabilities_t& waiter_caps,
                 const std::string& names) {
    halo_external_handle_type_t types =
        exporter_caps.semaphore_export_types & waiter_caps.semaphore_wait_import_types;
    // A host timeline is shared by any two devices; a driver's fd within
    // one GPU only.
    if (!one_gpu) types &= HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;
    if (types == 0) return;
    if (automatic &&
        (waiter_caps.features & HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS) == 0) {
      return;
    }
    pairs.push_back({exporter, waiter, types & (~types + 1), names});
  };
  add(own, own_caps, foreign, foreign_caps, "exported here, waited on by " + peer);
  add(foreign, foreign_caps, own, own_caps, "exported by " + peer + ", waited on here");
  if (pairs.empty()) {
    skip(std::string(automatic ? "no device that lets libhalo choose device-side waits "
                                 "(HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS) waits on the "
                                 "other's semaphores: "
                               : "") +
         "neither device exports semaphores as a type the other imports for device waits "
         "(the device: export " + handle_types_text(own_caps.semaphore_export_types) +
         ", wait import " + handle_types_text(own_caps.semaphore_wait_import_types) + "; " +
         peer + ": export " + handle_types_text(foreign_caps.semaphore_export_types) +
         ", wait import " + handle_types_text(foreign_caps.semaphore_wait_import_types) + ")" +
         (one_gpu ? "" : "; they are not one GPU (their uuids differ or are zero), and a "
                         "timeline other than a HOST_TIMELINE_FD is shared only within one"));
  }
  return pairs;
}

// Imports |semaphore| into |device| for device waits only.
SemaphoreRef import_for_device_waits(halo_device_t* device, halo_semaphore_t* semaphore,
                                     halo_external_handle_type_t type) {
  halo_external_handle_t handle = export_semaphore(semaphore, type);
  handle.flags |= HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY;
  SemaphoreRef import;
  halo_status_t status = halo_semaphore_import(device, &handle, import.out());
  if (status != nullptr) close(handle.fd);
  CTS_ASSERT_MSG(status == nullptr, "halo_semaphore_import(DEVICE_WAITS_ONLY) returned " +
                                        take_status_text(status) + ", expected OK");
  return import;
}

// Signals |semaphore| to |value| from the host when the scope ends below
// it, so that a device still waiting on an import of it (a case that
// failed half-way) is released instead of blocking the teardown for ever.
class SignalOnExit {
 public:
  SignalOnExit(halo_semaphore_t* semaphore, uint64_t value) : semaphore_(semaphore), value_(value) {}
  SignalOnExit(const SignalOnExit&) = delete;
  SignalOnExit& operator=(const SignalOnExit&) = delete;
  ~SignalOnExit() {
    uint64_t current = 0;
    halo_status_t status = halo_semaphore_query(semaphore_, &current);
    if (status == nullptr && current < value_) status = halo_semaphore_signal(semaphore_, value_);
    halo_status_free(status);
  }

 private:
  halo_semaphore_t* semaphore_;
  uint64_t value_;
};

void ignore_timepoint(void*, halo_timepoint_t*, halo_status_t status) { halo_status_free(status); }

// Checks that every host call on |import|, an import of |pair.waiter| for
// device waits only, is refused, and so is a queue signal of it;
// |waiter_own| is another semaphore of the waiter, for a mixed wait.
void check_host_refuses(const Pair& pair, halo_semaphore_t* import, halo_semaphore_t* waiter_own) {
  CTS_ASSERT_STATUS(halo_semaphore_signal(import, 1), HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_semaphore_fail(import, make_status(HALO_STATUS_ABORTED, "cts: no")),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_semaphore_wait(import, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_FAILED_PRECONDITION);
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 1;
  timepoint.callback = ignore_timepoint;
  CTS_ASSERT_STATUS(halo_semaphore_acquire_timepoint(import, &timepoint),
                    HALO_STATUS_FAILED_PRECONDITION);
  halo_semaphore_t* both[] = {waiter_own, import};
  const uint64_t values[] = {1, 1};
  CTS_ASSERT_STATUS(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, both, values,
                                         HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_FAILED_PRECONDITION);
  halo_external_handle_t handle = empty_handle();
  CTS_ASSERT_STATUS(halo_semaphore_export(import, pair.type, &handle),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(submit(pair.waiter, {}, {}, {}, {import}, {1}),
                    HALO_STATUS_FAILED_PRECONDITION);
}

HALO_CTS_CASE("interop.external.semaphore_for_device_waits", kNeeds,
              "a semaphore imported for device waits only: a queue of its device waits on it until the exporter's signal, then its own signal lands; if the import is not a whole semaphore, its compatibility is DEVICE_WAIT for its device and NONE for the other, the host's calls on it (query, signal, fail, wait, timepoint, mixed wait, export) and a queue signal of it are FAILED_PRECONDITION, and the other device's submission waiting on it fails") {
  for (const Pair& pair : device_wait_pairs(ctx)) {
    SemaphoreRef original = create_semaphore(pair.exporter, 0, HALO_SEMAPHORE_FLAG_EXPORTABLE);
    // Declared after |original|, so it runs first: the waiter is never
    // left blocked on the device when the case fails.
    SignalOnExit release_waiter(original.get(), 1000);
    SemaphoreRef import = import_for_device_waits(pair.waiter, original.get(), pair.type);
    halo_semaphore_t* done = ctx.semaphore(0, pair.waiter);
    halo_semaphore_compatibility_t own = 0;
    CTS_ASSERT_OK(halo_device_semaphore_compatibility(pair.waiter, import.get(), &own));
    uint64_t value = 0;
    halo_status_t query = halo_semaphore_query(import.get(), &value);
    if (query != nullptr) {
      // Not a whole semaphore: only its device's queues may use it.
      CTS_ASSERT_STATUS(query, HALO_STATUS_FAILED_PRECONDITION);
      CTS_ASSERT_MSG(own == HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT,
                     pair.names + ": compatibility " + std::to_string(own) +
                         " for its own device, expected DEVICE_WAIT alone");
      halo_semaphore_compatibility_t other = 0;
      CTS_ASSERT_OK(halo_device_semaphore_compatibility(pair.exporter, import.get(), &other));
      CTS_ASSERT_MSG(other == HALO_SEMAPHORE_COMPATIBILITY_NONE,
                     pair.names + ": compatibility " + std::to_string(other) +
                         " for the other device, expected NONE");
      check_host_refuses(pair, import.get(), done);
      halo_semaphore_t* refused = ctx.semaphore(0, pair.exporter);
      CTS_ASSERT_OK(submit(pair.exporter, {}, {import.get()}, {1}, {refused}, {1}));
      CTS_ASSERT_STATUS(halo_semaphore_wait(refused, 1, deadline_in_ms(kGenerousMs)),
                        HALO_STATUS_FAILED_PRECONDITION);
    }
    CTS_ASSERT_OK(submit(pair.waiter, {}, {import.get()}, {1}, {done}, {1}));
    // Held on the device until the exporter signals.
    CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, deadline_in_ms(50)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(submit(pair.exporter, {}, {}, {}, {original.get()}, {1}));
    CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_OK(halo_device_wait_idle(pair.waiter, deadline_in_ms(kGenerousMs)));
  }
}

HALO_CTS_CASE("interop.external.device_side_wait_committed", kNeeds,
              "a waiting device with AUTOMATIC_DEVICE_WAITS reports DEVICE_WAIT for an EXPORTABLE semaphore of the other; 64 links, each an exporter's signal (ordered on its own queue, so committed at once) and then a waiter's submission that waits for it and for the waiter's previous link, and signals its own semaphore: the waiter's semaphore reaches the last value, every value in order") {
  for (const Pair& pair : device_wait_pairs(ctx, /*automatic=*/true)) {
    SemaphoreRef shared = create_semaphore(pair.exporter, 0, HALO_SEMAPHORE_FLAG_EXPORTABLE);
    halo_semaphore_compatibility_t compatibility = 0;
    CTS_ASSERT_OK(halo_device_semaphore_compatibility(pair.waiter, shared.get(), &compatibility));
    CTS_ASSERT_MSG((compatibility & HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT) != 0,
                   pair.names + ": compatibility " + std::to_string(compatibility) +
                       " lacks DEVICE_WAIT for an EXPORTABLE semaphore of the exporter");
    halo_semaphore_t* reached = ctx.semaphore(0, pair.waiter);
    constexpr uint64_t kLinks = 64;
    for (uint64_t i = 1; i <= kLinks; ++i) {
      // Waiting only on its own semaphore, the exporter's signal is on its
      // device when the waiter's submission names it: a device-side wait.
      if (i == 1) {
        CTS_ASSERT_OK(submit(pair.exporter, {}, {}, {}, {shared.get()}, {i}));
      } else {
        CTS_ASSERT_OK(submit(pair.exporter, {}, {shared.get()}, {i - 1}, {shared.get()}, {i}));
      }
      // Ordered after the previous link by its semaphore, as the queue
      // contract orders submissions (DESIGN.md §5).
      CTS_ASSERT_OK(submit(pair.waiter, {}, {shared.get(), reached}, {i, i - 1}, {reached}, {i}));
    }
    CTS_ASSERT_OK(halo_semaphore_wait(reached, kLinks, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_EQ(value_of(shared.get()), kLinks);
    CTS_ASSERT_OK(halo_device_wait_idle(pair.waiter, deadline_in_ms(kGenerousMs)));
  }
}

HALO_CTS_CASE("interop.external.device_side_wait_uncommitted_fails", kNeeds | kNeedBuffers | kNeedCommandBuffers,
              "an EXPORTABLE semaphore whose signal waits behind a host semaphore, awaited by the other device's fill: failing the host semaphore fails the waiter's signal with its status, and the fill never runs (no device-side wait is taken for a signal not yet committed)") {
  constexpr halo_device_features_t kBufferWork =
      HALO_DEVICE_FEATURE_BUFFERS | HALO_DEVICE_FEATURE_COMMAND_BUFFERS;
  std::string without_buffers;
  size_t tested = 0;
  for (const Pair& pair : device_wait_pairs(ctx, /*automatic=*/true)) {
    const halo_device_capabilities_t waiter_caps = capabilities_of(pair.waiter);
    if ((waiter_caps.features & kBufferWork) != kBufferWork) {
      without_buffers += (without_buffers.empty() ? "" : "; ") + pair.names;
      continue;
    }
    SemaphoreRef shared = create_semaphore(pair.exporter, 0, HALO_SEMAPHORE_FLAG_EXPORTABLE);
    halo_semaphore_t* gate = ctx.semaphore(0, pair.exporter);
    halo_semaphore_t* done = ctx.semaphore(0, pair.waiter);
    CTS_ASSERT_OK(submit(pair.exporter, {}, {gate}, {1}, {shared.get()}, {1}));
    BufferRef target = allocate_buffer(pair.waiter, 4096, host_memory_type_of(waiter_caps));
    write_values(target.get(), std::vector<uint32_t>(1024, 0u));
    CommandBufferRef fill = begin_commands(pair.waiter);
    const uint32_t pattern = 0xFA11FA11u;
    CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), target.get(), 0, 4096, &pattern, 4));
    CTS_ASSERT_OK(halo_command_buffer_end(fill.get()));
    CTS_ASSERT_OK(submit(pair.waiter, {fill.get()}, {shared.get()}, {1}, {done}, {1}));
    CTS_ASSERT_OK(halo_semaphore_fail(gate, make_status(HALO_STATUS_ABORTED, "cts: the gate failed")));
    CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)),
                      HALO_STATUS_ABORTED);
    CTS_ASSERT_OK(halo_device_wait_idle(pair.waiter, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_VALUES(read_values<uint32_t>(target.get(), 1024), std::vector<uint32_t>(1024, 0u));
    ++tested;
  }
  if (tested == 0) {
    skip(without_buffers + ": the waiting device has no buffers or command buffers");
  }
}

}  // namespace
