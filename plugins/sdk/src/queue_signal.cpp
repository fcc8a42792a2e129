// How a queue submission signals a semaphore (see queue_signal.hpp).
#include "halo/sdk/queue_signal.hpp"

#include <cstdio>

namespace halo::sdk {
namespace {

using ull = unsigned long long;

}  // namespace

void signal_from_queue(Host host, halo_semaphore_t* semaphore, uint64_t value,
                       size_t index) noexcept {
  const halo_semaphore_vtable_t* vtable = semaphore_vtable(semaphore);
  halo_status_t refusal = vtable->signal(semaphore, value);
  if (refusal == HALO_OK) [[likely]] return;
  uint64_t payload = 0;
  halo_status_t state = vtable->query(semaphore, &payload);
  if (state != HALO_OK) {
    // Failed already: the first failure stands, as it does for host signals.
    host.free(state);
    host.free(refusal);
    return;
  }
  halo_status_t failure;
  if (payload >= value) {
    host.free(refusal);
    failure = host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "queue signal %zu: value %llu is not above the semaphore's payload "
        "%llu (another signal passed it first)",
        index, static_cast<ull>(value), static_cast<ull>(payload));
  } else {
    char prefix[64];
    std::snprintf(prefix, sizeof(prefix), "queue signal %zu (value %llu)",
                  index, static_cast<ull>(value));
    failure = host.annotate(refusal, prefix);
  }
  vtable->fail(semaphore, failure);
}

}  // namespace halo::sdk
