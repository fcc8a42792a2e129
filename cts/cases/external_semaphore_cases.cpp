// external.semaphore.*: semaphores exported as external handles and imported
// again (external.h). HALO_SEMAPHORE_FLAG_EXPORTABLE needs a device that
// exports semaphores, and only such a semaphore exports. An OPAQUE_FD or a
// HOST_TIMELINE_FD names the timeline itself, so an import on the same
// device sees every signal of the original and the original every signal of
// the import, host or queue; a failure crosses as a failure (the importer
// may report DATA_LOSS), never as a hang; and the timeline lives while
// either side does. Each such case runs once per fd type.
#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

// A type bit the ABI does not define.
constexpr halo_external_handle_type_t kUnknownType = kUnknownHandleType;

// A semaphore to export: EXPORTABLE where the device exports any type, else
// a plain one (no semaphore of such a device can be EXPORTABLE).
SemaphoreRef semaphore_to_export(Context& ctx) {
  const bool exports = ctx.capabilities().semaphore_export_types != 0;
  return create_semaphore(ctx.device(), 0,
                          exports ? HALO_SEMAPHORE_FLAG_EXPORTABLE : HALO_SEMAPHORE_FLAG_NONE);
}

HALO_CTS_CASE("external.semaphore.exportable_needs_support", kNeedSemaphores,
              "with no semaphore_export_types, creating a semaphore with EXPORTABLE is UNIMPLEMENTED; with some, it succeeds and the semaphore exports as each listed type") {
  const halo_external_handle_type_t types = ctx.capabilities().semaphore_export_types;
  if (types == 0) {
    SemaphoreRef semaphore;
    CTS_ASSERT_STATUS(halo_semaphore_create(ctx.device(), 0, HALO_SEMAPHORE_FLAG_EXPORTABLE,
                                            semaphore.out()),
                      HALO_STATUS_UNIMPLEMENTED);
    CTS_ASSERT(semaphore.get() == nullptr);
    return;
  }
  SemaphoreRef semaphore = create_semaphore(ctx.device(), 7, HALO_SEMAPHORE_FLAG_EXPORTABLE);
  CTS_ASSERT_EQ(value_of(semaphore.get()), uint64_t{7});
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) continue;
    close(export_semaphore(semaphore.get(), type).fd);
  }
}

HALO_CTS_CASE("external.semaphore.export_without_flag", kNeedSemaphores,
              "exporting a semaphore created without EXPORTABLE is FAILED_PRECONDITION, for each type in semaphore_export_types") {
  const halo_external_handle_type_t types = ctx.capabilities().semaphore_export_types;
  if (types == 0) skip("the device's semaphore_export_types are none");
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) continue;
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_STATUS(halo_semaphore_export(semaphore, type, &handle),
                      HALO_STATUS_FAILED_PRECONDITION);
  }
}

HALO_CTS_CASE("external.semaphore.export_unsupported_type", kNeedSemaphores,
              "exporting a semaphore as a known type missing from semaphore_export_types is UNIMPLEMENTED (an EXPORTABLE semaphore where the device exports any type)") {
  const auto lacking = types_lacking(ctx.capabilities().semaphore_export_types);
  if (lacking.empty()) skip("the device's semaphore_export_types list every known type");
  SemaphoreRef semaphore = semaphore_to_export(ctx);
  for (halo_external_handle_type_t type : lacking) {
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_STATUS(halo_semaphore_export(semaphore.get(), type, &handle),
                      HALO_STATUS_UNIMPLEMENTED);
  }
}

HALO_CTS_CASE("external.semaphore.export_bad_arguments", kNeedSemaphores,
              "halo_semaphore_export with a type of 0, two bits or an unknown bit, a NULL out_handle, a struct_size below ABI 1.3's, or a NULL handle is INVALID_ARGUMENT") {
  SemaphoreRef semaphore = semaphore_to_export(ctx);
  const halo_external_handle_type_t good = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  const halo_external_handle_type_t bad_types[] = {
      0, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD | HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF, kUnknownType};
  for (halo_external_handle_type_t type : bad_types) {
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_INVALID(halo_semaphore_export(semaphore.get(), type, &handle),
                       "halo_semaphore_export");
  }
  CTS_ASSERT_INVALID(halo_semaphore_export(semaphore.get(), good, nullptr),
                     "halo_semaphore_export");
  halo_external_handle_t handle = empty_handle();
  handle.struct_size = sizeof(halo_external_handle_t) - 1;
  CTS_ASSERT_INVALID(halo_semaphore_export(semaphore.get(), good, &handle),
                     "halo_semaphore_export");
  handle = empty_handle();
  CTS_ASSERT_INVALID(halo_semaphore_export(nullptr, good, &handle), "halo_semaphore_export");
}

// Skips the case unless the device both exports and imports |type|
// semaphores.
void require_round_trip(Context& ctx, halo_external_handle_type_t type) {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  require_type(caps.semaphore_export_types, type, "semaphore_export_types");
  require_type(caps.semaphore_import_types, type, "semaphore_import_types");
}

// An EXPORTABLE semaphore of the device under test and its import, as
// |type|, on the same device.
struct SemaphorePair {
  SemaphorePair(Context& ctx, halo_external_handle_type_t type) {
    original = create_semaphore(ctx.device(), 0, HALO_SEMAPHORE_FLAG_EXPORTABLE);
    const halo_external_handle_t handle = export_semaphore(original.get(), type);
    Fd fd(handle.fd);
    halo_status_t status = halo_semaphore_import(ctx.device(), &handle, imported.out());
    if (status == nullptr) fd.taken();
    CTS_ASSERT_MSG(status == nullptr, std::string("halo_semaphore_import of the semaphore's own ") +
                                          handle_type_text(type) + " returned " +
                                          take_status_text(status) + ", expected OK");
  }

  SemaphoreRef original, imported;
};

void round_trip(Context& ctx, halo_external_handle_type_t type) {
  require_round_trip(ctx, type);
  SemaphorePair pair(ctx, type);
  halo_semaphore_t* original = pair.original.get();
  halo_semaphore_t* imported = pair.imported.get();
  CTS_ASSERT_EQ(value_of(imported), uint64_t{0});
  CTS_ASSERT_OK(halo_semaphore_signal(original, 1));
  CTS_ASSERT_EQ(value_of(imported), uint64_t{1});
  CTS_ASSERT_OK(halo_semaphore_wait(imported, 1, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_OK(halo_semaphore_signal(imported, 2));
  CTS_ASSERT_EQ(value_of(original), uint64_t{2});
  CTS_ASSERT_OK(halo_semaphore_wait(original, 2, deadline_in_ms(kGenerousMs)));

  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {imported}, {3}, {out}, {1}));
  CTS_ASSERT_STATUS(halo_semaphore_wait(out, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(original, 3));
  CTS_ASSERT_OK(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)));

  halo_semaphore_t* gate = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate}, {1}, {imported}, {4}));
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  CTS_ASSERT_OK(halo_semaphore_wait(original, 4, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(imported), uint64_t{4});
}

// Fails |failed|, then checks that a host wait on |other| (the other side of
// the same timeline) and the signal of a submission that waited on it end
// in a failure: any code but OK and DEADLINE_EXCEEDED.
void check_failure_crosses(Context& ctx, halo_semaphore_t* failed, halo_semaphore_t* other,
                           const char* direction) {
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {other}, {1}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_fail(failed, make_status(HALO_STATUS_ABORTED,
                                                        "cts: external failure 3c1e")));
  for (halo_semaphore_t* semaphore : {other, out}) {
    halo_status_t status = halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs));
    const halo_status_code_t code = halo_status_code(status);
    const std::string text = take_status_text(status);
    CTS_ASSERT_MSG(code != HALO_STATUS_OK && code != HALO_STATUS_DEADLINE_EXCEEDED,
                   std::string(direction) + ": a wait on the " +
                       (semaphore == other ? "other side" : "signal of a submission waiting on it") +
                       " returned " + text + ", expected a failure");
  }
}

void failure_crosses(Context& ctx, halo_external_handle_type_t type) {
  require_round_trip(ctx, type);
  SemaphorePair first(ctx, type);
  check_failure_crosses(ctx, first.original.get(), first.imported.get(),
                        "original failed, import waited on");
  SemaphorePair second(ctx, type);
  check_failure_crosses(ctx, second.imported.get(), second.original.get(),
                        "import failed, original waited on");
}

void release_original_while_waiting(Context& ctx, halo_external_handle_type_t type) {
  require_round_trip(ctx, type);
  SemaphorePair pair(ctx, type);
  halo_semaphore_t* imported = pair.imported.get();
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {imported}, {1}, {out}, {1}));
  std::atomic<bool> started{false};
  halo_status_t result = nullptr;
  {
    ThreadGroup threads;
    threads.start([&] {
      started.store(true);
      result = halo_semaphore_wait(imported, 1, deadline_in_ms(kGenerousMs));
    });
    CTS_ASSERT(spin_until([&] { return started.load(); }));
    pair.original.reset();
    CTS_ASSERT_STATUS(halo_semaphore_wait(out, 1, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(halo_semaphore_signal(imported, 1));
  }
  CTS_ASSERT_OK(result);
  CTS_ASSERT_OK(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)));
}

void failed_import_keeps_fd(Context& ctx, halo_external_handle_type_t type) {
  require_type(ctx.capabilities().semaphore_import_types, type, "semaphore_import_types");
  Fd fd(open_dev_null());
  halo_external_handle_t handle = empty_handle();
  handle.type = type;
  handle.fd = fd.get();
  SemaphoreRef semaphore;
  halo_status_t status = halo_semaphore_import(ctx.device(), &handle, semaphore.out());
  if (status == nullptr) fd.taken();
  CTS_ASSERT_MSG(status != nullptr, std::string("halo_semaphore_import of /dev/null as an ") +
                                        handle_type_text(type) +
                                        " returned OK, expected a failure");
  const std::string text = take_status_text(status);
  CTS_ASSERT_MSG(semaphore.get() == nullptr,
                 "halo_semaphore_import returned " + text + " but left out_semaphore non-NULL");
  CTS_ASSERT_MSG(fd_is_open(fd.get()), "halo_semaphore_import returned " + text +
                                           " and closed the caller's fd, expected it left open");
}

constexpr halo_external_handle_type_t kOpaqueFd = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
constexpr halo_external_handle_type_t kHostTimelineFd = HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;

#define ROUND_TRIP_TEXT(type)                                                                  \
  "a semaphore exported as " type " and imported on the same device: host signals on either " \
  "are seen by query and wait on the other, a queue wait on the import is released by a "     \
  "signal of the original, and a queue signal of the import reaches the original"
#define FAILURE_CROSSES_TEXT(type)                                                               \
  "failing the original (" type ") fails host waits on the import and submissions waiting on " \
  "it, and failing an import fails waits on the original: a failure code, never OK or a hang"
#define RELEASE_ORIGINAL_TEXT(type)                                                        \
  "the original (" type ") released while a host thread and a submission wait on the "   \
  "import: a signal of the import releases both"
#define FAILED_IMPORT_TEXT(type)                                                           \
  "importing /dev/null as a semaphore of type " type " fails (any code but OK) and leaves the " \
  "fd open, the caller's to close"

HALO_CTS_CASE("external.semaphore.opaque_fd.round_trip", kNeedSemaphores | kNeedQueues,
              ROUND_TRIP_TEXT("OPAQUE_FD")) {
  round_trip(ctx, kOpaqueFd);
}
HALO_CTS_CASE("external.semaphore.opaque_fd.failure_crosses", kNeedSemaphores | kNeedQueues,
              FAILURE_CROSSES_TEXT("OPAQUE_FD")) {
  failure_crosses(ctx, kOpaqueFd);
}
HALO_CTS_CASE("external.semaphore.opaque_fd.release_original_while_waiting",
              kNeedSemaphores | kNeedQueues, RELEASE_ORIGINAL_TEXT("OPAQUE_FD")) {
  release_original_while_waiting(ctx, kOpaqueFd);
}
HALO_CTS_CASE("external.semaphore.opaque_fd.failed_import_keeps_fd", kNeedSemaphores,
              FAILED_IMPORT_TEXT("OPAQUE_FD")) {
  failed_import_keeps_fd(ctx, kOpaqueFd);
}

HALO_CTS_CASE("external.semaphore.host_timeline_fd.round_trip", kNeedSemaphores | kNeedQueues,
              ROUND_TRIP_TEXT("HOST_TIMELINE_FD")) {
  round_trip(ctx, kHostTimelineFd);
}
HALO_CTS_CASE("external.semaphore.host_timeline_fd.failure_crosses",
              kNeedSemaphores | kNeedQueues, FAILURE_CROSSES_TEXT("HOST_TIMELINE_FD")) {
  failure_crosses(ctx, kHostTimelineFd);
}
HALO_CTS_CASE("external.semaphore.host_timeline_fd.release_original_while_waiting",
              kNeedSemaphores | kNeedQueues, RELEASE_ORIGINAL_TEXT("HOST_TIMELINE_FD")) {
  release_original_while_waiting(ctx, kHostTimelineFd);
}
HALO_CTS_CASE("external.semaphore.host_timeline_fd.failed_import_keeps_fd", kNeedSemaphores,
              FAILED_IMPORT_TEXT("HOST_TIMELINE_FD")) {
  failed_import_keeps_fd(ctx, kHostTimelineFd);
}

}  // namespace
