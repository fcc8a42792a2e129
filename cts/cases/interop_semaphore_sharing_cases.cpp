// interop.external.semaphore_shared: a semaphore one plugin's device
// exports and the other plugin's device imports (external.h) is one
// timeline on both sides: signals of either, from the host or a queue, are
// seen by the other at once, a queue of either waits on it, and a failure
// crosses as a failure. It runs in each direction where one device exports
// a type the other imports (host timelines between host plugins; OPAQUE_FD
// only within one GPU) and skips, naming both devices' types, where none.
#include <unistd.h>

#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

// One direction: |exporter|'s EXPORTABLE semaphore imported by |importer|
// as |type|.
void share_one_way(Context& ctx, halo_device_t* exporter, halo_device_t* importer,
                   halo_external_handle_type_t type, const std::string& names) {
  const std::string where = std::string(handle_type_text(type)) + ", " + names + ": ";
  SemaphoreRef original = create_semaphore(exporter, 0, HALO_SEMAPHORE_FLAG_EXPORTABLE);
  halo_external_handle_t handle = export_semaphore(original.get(), type);
  Fd fd(handle.fd);
  SemaphoreRef imported;
  halo_status_t status = halo_semaphore_import(importer, &handle, imported.out());
  if (status == nullptr) fd.taken();
  CTS_ASSERT_MSG(status == nullptr,
                 where + "halo_semaphore_import returned " + take_status_text(status));

  // Host signals, seen at once by the other side's query.
  CTS_ASSERT_OK(halo_semaphore_signal(original.get(), 1));
  CTS_ASSERT_MSG(value_of(imported.get()) == 1, where + "the import does not read 1 after the "
                                                        "original's host signal");
  CTS_ASSERT_OK(halo_semaphore_signal(imported.get(), 2));
  CTS_ASSERT_MSG(value_of(original.get()) == 2, where + "the original does not read 2 after the "
                                                        "import's host signal");

  // The importer's queue waits on the import for the exporter's queue.
  halo_semaphore_t* gate = ctx.semaphore(0, exporter);
  halo_semaphore_t* done = ctx.semaphore(0, importer);
  CTS_ASSERT_OK(submit(importer, {}, {imported.get()}, {3}, {done}, {1}));
  CTS_ASSERT_OK(submit(exporter, {}, {gate}, {1}, {original.get()}, {3}));
  CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));

  // The exporter's queue waits on the original for the importer's queue.
  CTS_ASSERT_OK(submit(exporter, {}, {original.get()}, {4}, {gate}, {2}));
  CTS_ASSERT_OK(submit(importer, {}, {}, {}, {imported.get()}, {4}));
  CTS_ASSERT_OK(halo_semaphore_wait(gate, 2, deadline_in_ms(kGenerousMs)));

  // A failure of the original fails what waits on the import.
  CTS_ASSERT_OK(submit(importer, {}, {imported.get()}, {5}, {done}, {2}));
  CTS_ASSERT_OK(halo_semaphore_fail(original.get(),
                                    make_status(HALO_STATUS_ABORTED, "cts: shared failure 51d7")));
  for (halo_semaphore_t* semaphore : {imported.get(), done}) {
    const uint64_t value = semaphore == done ? 2 : 5;
    status = halo_semaphore_wait(semaphore, value, deadline_in_ms(kGenerousMs));
    const halo_status_code_t code = halo_status_code(status);
    const std::string text = take_status_text(status);
    CTS_ASSERT_MSG(code != HALO_STATUS_OK && code != HALO_STATUS_DEADLINE_EXCEEDED,
                   where + "after the original failed, a wait on " +
                       (semaphore == done ? "the signal of a submission waiting on the import"
                                          : "the import") +
                       " returned " + text + ", expected a failure");
  }
  CTS_ASSERT_OK(halo_device_wait_idle(importer, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_OK(halo_device_wait_idle(exporter, deadline_in_ms(kGenerousMs)));
}

// The fd types |exporter| exports semaphores as and |importer| imports,
// the lowest first; OPAQUE_FD only when both are one GPU.
std::vector<halo_external_handle_type_t> shared_types(const halo_device_capabilities_t& exporter,
                                                      const halo_device_capabilities_t& importer,
                                                      bool one_gpu) {
  std::vector<halo_external_handle_type_t> types;
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((exporter.semaphore_export_types & importer.semaphore_import_types & type) == 0) continue;
    if (type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD && !one_gpu) continue;
    types.push_back(type);
  }
  return types;
}

HALO_CTS_CASE("interop.external.semaphore_shared",
              kNeedSemaphores | kNeedQueues | kNeedSecondPlugin,
              "a semaphore exported by one plugin's device and imported by the other's, for each type one exports and the other imports as a whole semaphore (OPAQUE_FD within one GPU), each direction: host signals of either side are read at once by the other, each device's queue waits on its side for the other device's queued signal, and failing the original fails a host wait on the import and a submission waiting on it") {
  const auto [own, foreign, own_caps, foreign_caps, peer, one_gpu] = peer_pair_of(ctx);
  const auto outward = shared_types(own_caps, foreign_caps, one_gpu);
  const auto inward = shared_types(foreign_caps, own_caps, one_gpu);
  if (outward.empty() && inward.empty()) {
    skip("neither device exports semaphores as a type the other imports (the device: export " +
         handle_types_text(own_caps.semaphore_export_types) + ", import " +
         handle_types_text(own_caps.semaphore_import_types) + "; " + peer + ": export " +
         handle_types_text(foreign_caps.semaphore_export_types) + ", import " +
         handle_types_text(foreign_caps.semaphore_import_types) +
         (one_gpu ? "" : "; OPAQUE_FD only within one GPU") + ")");
  }
  for (halo_external_handle_type_t type : outward) {
    share_one_way(ctx, own, foreign, type, "exported here, imported by " + peer);
  }
  for (halo_external_handle_type_t type : inward) {
    share_one_way(ctx, foreign, own, type, "exported by " + peer + ", imported here");
  }
}

}  // namespace
