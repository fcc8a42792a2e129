/* Sharing buffers and semaphores across devices, plugins and processes
 * (ABI 1.3).
 *
 * A buffer or a semaphore of one device is exported as an external handle,
 * and another device (of the same plugin or another, in this process or
 * another) imports that handle as a buffer or semaphore of its own. Both
 * then name the same memory or the same timeline: no copy is made, and a
 * device that imported a semaphore signals it natively and waits on it as
 * on any semaphore of its own: natively where its plugin knows the value
 * is on its way (already reached, or signalled by work it queued),
 * otherwise through a timepoint that releases the work when the value
 * arrives.
 *
 * Handle types. A device reports in its capabilities (device.h, ABI 1.3)
 * which types it can export and import, for buffers and for semaphores
 * apart:
 *   OPAQUE_FD        a file descriptor only the same driver family reads
 *                    (Vulkan's and CUDA's opaque fds on one GPU): timeline
 *                    semaphores and device memory.
 *   HOST_ALLOCATION  host memory that the application, or another plugin's
 *                    buffer, owns: a pointer and a size, each a multiple of
 *                    the importing device's host_allocation_alignment.
 *   DMA_BUF          a Linux dma-buf file descriptor, where a driver offers
 *                    one.
 *   HOST_TIMELINE_FD (ABI 1.6) a file descriptor of shared memory holding a
 *                    halo_host_timeline_t (external_handle.h): a timeline
 *                    semaphore kept on the host, which semaphores of any
 *                    plugin, in any process, share by following the page's
 *                    protocol (the SDK's host semaphores do). Semaphores
 *                    only.
 *
 * Ownership. An exported file descriptor belongs to the caller, who closes
 * it or hands it to an import. An import that returns OK owns the file
 * descriptor it was given (it is closed when the imported object is
 * destroyed, or earlier); one that fails, for any reason, leaves it open
 * with the caller. An exported host pointer is borrowed: valid while the
 * exporting buffer lives, so the application keeps that buffer until every
 * import of it is destroyed. An imported host allocation is borrowed too:
 * the caller keeps it valid, and does not free it, until the imported
 * buffer is destroyed, which happens only after the last submission naming
 * it completed (halo_device_wait_idle on the importing device, then the
 * release, is one way to know).
 *
 * Aliases. Several buffers may name the same memory (the exporter and its
 * imports, or two imports of one allocation). Within a submission, commands
 * on them take effect in recording order wherever they may touch the same
 * bytes, as on one buffer (command_buffer.h): a plugin that cannot tell
 * which bytes two aliases share orders their commands as if they shared
 * all. A copy between overlapping bytes of two aliases is undefined, as
 * Vulkan and OpenCL leave it; a plugin that sees the overlap (host
 * allocations share addresses) may refuse it with INVALID_ARGUMENT.
 *
 * Exporting needs a buffer allocated with HALO_BUFFER_FLAG_EXPORTABLE, or a
 * semaphore created with HALO_SEMAPHORE_FLAG_EXPORTABLE; a device that
 * exports nothing refuses those flags with UNIMPLEMENTED. An export of a
 * type the device does not export is UNIMPLEMENTED whether or not the
 * object is exportable; FAILED_PRECONDITION is for an object made without
 * the flag on a device that exports the type.
 *
 * Failure across an import. A failed semaphore carries its status in its
 * process and plugin; the shared timeline carries only a failure value
 * (>= HALO_SEMAPHORE_FAILURE_VALUE), so an importer that sees one reports
 * DATA_LOSS "failed where the semaphore was exported" unless it failed the
 * semaphore itself. Either way every host waiter and timepoint wakes with
 * a failure. The failure value lies above every payload: work a device
 * already waits for natively (behind a signal its own queue will make) may
 * still run when another side publishes a failure first.
 *
 * Semaphores for device waits only (ABI 1.5). Some APIs wait on an
 * imported timeline on the device but cannot read its payload on the host
 * (CUDA's cuWaitExternalSemaphoresAsync). An import whose handle carries
 * HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY, by a device whose
 * semaphore_wait_import_types names the type, may give such a semaphore:
 * its device's queues wait on it natively, and that is all. Query, signal,
 * fail, host waits, timepoints (so fences and waits mixing devices) and
 * export return FAILED_PRECONDITION naming the call; its device's
 * halo_device_queue_execute refuses it in a signal list with
 * FAILED_PRECONDITION, and another device's submission that waits on it
 * fails as on a failed semaphore, with that status (its work does not run);
 * halo_device_semaphore_compatibility says DEVICE_WAIT for its own device,
 * NONE for others. Nothing on the host sees the
 * timeline through it, so a queue waiting on it for a value nobody signals
 * waits for ever (wait_idle then returns DEADLINE_EXCEEDED at its
 * deadline): as with Vulkan's and CUDA's own waits, the application makes
 * sure the value comes, or lets libhalo decide (below).
 *
 * Device-side waits across plugins (ABI 1.5). A submission of device D that
 * waits on (S, v), where S is another plugin's semaphore that D cannot wait
 * on natively, is normally released by the host: a timepoint on S hands the
 * work to D when v is reached. libhalo replaces that hand-off with a wait
 * on the device, on its own, when all of these hold at submission:
 *   - D reports HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS: its plugin
 *     found its device's waits on imports no slower than a host hand-off
 *     (CUDA's wait on a Vulkan timeline is not, on NVIDIA's driver 580:
 *     bench/README.md, so the cuda plugin reports it only when asked; nor
 *     is a cpu device's wait on a host timeline within one process, which
 *     a watcher thread releases one wake-up after the signal, so the cpu
 *     plugin reports it only with HALO_CPU_AUTOMATIC_DEVICE_WAITS=1);
 *   - S was created with HALO_SEMAPHORE_FLAG_EXPORTABLE, and its device
 *     exports a type that D imports for device waits
 *     (semaphore_wait_import_types);
 *   - S's plugin reports the signal committed (signal_committed: v is
 *     reached, or work that signals v or more is already on S's device with
 *     every wait of its own reached), and S has not failed.
 * libhalo then exports S once, imports it into D (for device waits only)
 * once, keeps the import while both live, and names the import instead of S
 * in the submission; halo_device_semaphore_compatibility(D, S) reports
 * DEVICE_WAIT for such a pair. Otherwise the host hand-off stays: in
 * particular a signal still held behind a wait on the host (a host
 * semaphore, or another hand-off) is never waited for on the device, so
 * when that wait fails, S fails and the waiting work never runs (DESIGN.md
 * §5). Once a signal is committed, S reaches v unless the application
 * fails S with halo_semaphore_fail, or S's device is lost (or its
 * submission is refused by the driver). A failure that S's plugin writes on
 * the shared timeline releases the waiting device, and its work runs, as
 * work that a device already waits for natively does (above). A lost device
 * may write nothing: D's queue then waits on the device for ever, its
 * wait_idle ends at its deadline and its teardown blocks, as CUDA's or
 * Vulkan's own waits on a timeline that never moves do. That is the risk
 * an application takes with device-side waits, and one reason they are the
 * feature bit's choice. An import libhalo made holds D; it is let go when
 * S is destroyed, and before every public release of D
 * (halo_device_release, halo_object_release), so that an application's
 * last release still tears D down (a release that is not the last costs
 * the next such wait a new import).
 *
 * Buffers named by another device's commands. A command (fill, update,
 * copy, a dispatch binding) of a command buffer of device D may name a
 * buffer B of another device, of the same plugin or another, when B was
 * allocated with HALO_BUFFER_FLAG_EXPORTABLE, B's device exports a type
 * that D imports for buffers, and D's import succeeds: libhalo then
 * exports B and imports it into D, once per (B, D) pair, and records the
 * import in B's place. The import is B's memory, not a copy: the commands
 * read and write B's bytes. It has B's size and usage, B's memory type for
 * an fd, and HOST_VISIBLE (with HOST_COHERENT where D offers it) for a
 * HOST_ALLOCATION, whose pointer and size must meet D's
 * host_allocation_alignment (allocate B with that alignment). Otherwise
 * the command is refused as before: INVALID_ARGUMENT for a buffer of
 * another device (HALO_LOADER_DEBUG=debug says why no import was made).
 * A pair that cannot share is not tried again, unless the export or
 * import failed with RESOURCE_EXHAUSTED (file descriptors or memory ran
 * out), or failed in any way while the process had no file descriptor to
 * spare: the next command naming it tries again. The same holds for the
 * device-side waits above.
 * The command buffer keeps B alive, besides the import, until it is
 * destroyed, so B may be released once the command is recorded, as any
 * buffer a command names. The import holds D; libhalo lets it go when B is
 * destroyed and before every public release of D, as above. What orders
 * the two devices' work on B is the application's semaphores, as for any
 * import; with validation on, libhalo records the commands' accesses as
 * accesses of B.
 *
 * Ordering of host access to shared memory follows buffer.h ("Host
 * access") on each side; semaphores order the devices. */
#ifndef HALO_EXTERNAL_H_
#define HALO_EXTERNAL_H_

#include <stdint.h>

#include "halo/abi.h"
#include "halo/buffer.h"
#include "halo/external_handle.h"
#include "halo/object.h"
#include "halo/semaphore.h"
#include "halo/status.h"

/* Exports |buffer| as a handle of |type| into |out_handle| (whose
 * struct_size the caller sets). Borrows |buffer|. Thread-safe. An OPAQUE_FD
 * or DMA_BUF is a new file descriptor owned by the caller; a
 * HOST_ALLOCATION's pointer is valid while |buffer| lives.
 * Returns INVALID_ARGUMENT for a bad handle, a NULL |out_handle|, a
 * struct_size below ABI 1.3's or a |type| that is not exactly one known
 * bit; FAILED_PRECONDITION for a buffer allocated without
 * HALO_BUFFER_FLAG_EXPORTABLE; UNIMPLEMENTED when the buffer's device cannot
 * export |type| (or its plugin predates ABI 1.3); RESOURCE_EXHAUSTED when
 * file descriptors run out. */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_export(
    halo_buffer_t* buffer, halo_external_handle_type_t type,
    halo_external_handle_t* out_handle);

/* Makes a buffer of |device| (borrowed; retained by the buffer) over the
 * memory |handle| names, as |params| describes it: its usage and size (at
 * most |handle->size|); its memory_type is one the device offers, and for a
 * HOST_ALLOCATION it must be HOST_VISIBLE (the host memory is also
 * coherent), and for an OPAQUE_FD it must be the memory_type the exporting
 * buffer was allocated with (the native API requires the same kind of
 * memory; a driver that needs dedicated allocations also requires the same
 * size, and refuses another with INVALID_ARGUMENT); |params->alignment|
 * must be 0 and |params->flags| must not ask for EXPORTABLE. A new reference in |out_buffer| (NULL on failure).
 * Thread-safe. See the top of this file for who owns the handle.
 * Returns INVALID_ARGUMENT for a bad |device|, NULL arguments, struct sizes
 * below ABI 1.0's (|params|) or 1.3's (|handle|), a handle type that is not
 * exactly one known bit, a negative fd for an fd type, a NULL host pointer,
 * a host pointer or size not a multiple of the device's
 * host_allocation_alignment, a |params->size| of 0 or above |handle->size|,
 * or bad |params| as for halo_buffer_allocate; UNIMPLEMENTED when the device
 * cannot import that type (or its plugin predates ABI 1.3); the plugin's
 * code naming the native call when the native API refuses the handle (an
 * fd from another driver or GPU, a closed fd). */
HALO_API HALO_MUST_USE halo_status_t halo_buffer_import(
    halo_device_t* device, const halo_buffer_params_t* params,
    const halo_external_handle_t* handle, halo_buffer_t** out_buffer);

/* Exports |semaphore| as a handle of |type| into |out_handle| (whose
 * struct_size the caller sets): a new file descriptor owned by the caller
 * that names the same timeline. Borrows |semaphore|. Thread-safe.
 * Returns INVALID_ARGUMENT for a bad handle, a NULL |out_handle|, a
 * struct_size below ABI 1.3's or a |type| that is not exactly one known
 * bit; FAILED_PRECONDITION for a semaphore created without
 * HALO_SEMAPHORE_FLAG_EXPORTABLE; UNIMPLEMENTED when its device cannot
 * export |type|; RESOURCE_EXHAUSTED when file descriptors run out. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_export(
    halo_semaphore_t* semaphore, halo_external_handle_type_t type,
    halo_external_handle_t* out_handle);

/* Makes a semaphore of |device| (borrowed) over the timeline |handle| names:
 * its payload is the exporter's, and a signal on either side is seen by
 * both. With HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY in |handle->flags|
 * the device may instead make a semaphore for its queues' waits only (see
 * the top of this file). A new reference in |out_semaphore| (NULL on
 * failure). Thread-safe. See the top of this file for who owns the file
 * descriptor.
 * Returns INVALID_ARGUMENT for a bad |device|, NULL arguments, a struct_size
 * below ABI 1.3's, a |handle->type| that is not exactly one known bit, a
 * negative fd or |handle->flags| other than 0 or DEVICE_WAITS_ONLY;
 * UNIMPLEMENTED when the device cannot import that type (in
 * semaphore_import_types, or with DEVICE_WAITS_ONLY in either that or
 * semaphore_wait_import_types); the
 * plugin's code naming the native call when the native API refuses the
 * handle. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_import(
    halo_device_t* device, const halo_external_handle_t* handle,
    halo_semaphore_t** out_semaphore);

#endif /* HALO_EXTERNAL_H_ */
