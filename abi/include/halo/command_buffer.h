/* Command buffers: recorded fill, update, copy, dispatch and barrier commands
 * that halo_device_queue_execute runs. Declared at ABI 1.0; a device without
 * them (no HALO_DEVICE_FEATURE_COMMAND_BUFFERS) leaves the device vtable's
 * create_command_buffer NULL and halo_command_buffer_create returns
 * UNIMPLEMENTED.
 *
 * Ordering. The commands of one command buffer take effect in recording
 * order, as if each ran alone after the one before it had completed. A device
 * may overlap two commands that do not conflict (no byte that one writes is
 * read or written by the other) and orders the others itself. A dispatch
 * counts as reading and writing every range it binds: halo cannot know what
 * its kernel does with a binding. halo_command_buffer_barrier remains valid
 * and is a full barrier, but under this rule it is only a hint. The command
 * buffers of one submission take effect in list order, as if recorded into
 * one; submissions are ordered only by semaphores (DESIGN.md §5).
 *
 * Recording. A command buffer is recorded once: halo_command_buffer_begin,
 * the commands, halo_command_buffer_end. A second begin, and an end or a
 * command while not recording, are FAILED_PRECONDITION and change nothing. A
 * command refused with any status records nothing, and recording goes on.
 * There is no reset: record new commands into a new command buffer.
 *
 * Submission. halo_device_queue_execute takes only ended command buffers,
 * and a ONE_SHOT one at most once (and once in one submission); anything
 * else is FAILED_PRECONDITION. A REUSABLE one may be submitted any number of
 * times, also while earlier submissions of it still run. A submission
 * refused with an error uses up no ONE_SHOT command buffer.
 *
 * Threads. A command buffer is not thread-safe while recording: one thread at
 * a time calls begin, end and the commands of one command buffer. Different
 * command buffers may be recorded on different threads at once, and an ended
 * one may be submitted from several threads at once.
 *
 * Lifetime. A command buffer retains its device, and every buffer and
 * executable that its recorded commands name, until it is destroyed: the
 * caller may release them once the command is recorded. A submission retains
 * its command buffers until it completes. What a command reads from host
 * memory (a fill pattern, update bytes, dispatch constants) is copied when
 * it is recorded.
 *
 * Arguments. Buffers and executables that a command names must belong to the
 * command buffer's device: one of another device or plugin is
 * INVALID_ARGUMENT, except an EXPORTABLE buffer that libhalo imports into
 * the command buffer's device (external.h, "Buffers named by another
 * device's commands"). Ranges follow buffer.h: a |length| of HALO_WHOLE_BUFFER
 * means "to the end" where allowed, and a range not within its buffer is
 * OUT_OF_RANGE. A fill, update or copy of length 0 is valid and does nothing
 * (its offsets must still lie within their buffers). Every function below
 * that returns a status returns INVALID_ARGUMENT for a NULL or wrong-type
 * handle, and may return RESOURCE_EXHAUSTED when memory runs out. */
#ifndef HALO_COMMAND_BUFFER_H_
#define HALO_COMMAND_BUFFER_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/buffer.h"
#include "halo/object.h"
#include "halo/status.h"

/* How often a command buffer may be submitted: exactly one of these. */
typedef uint32_t halo_command_buffer_mode_t;
/* Submitted at most once. */
#define HALO_COMMAND_BUFFER_MODE_ONE_SHOT ((halo_command_buffer_mode_t)1u << 0)
/* Submitted any number of times once ended, also while it runs. */
#define HALO_COMMAND_BUFFER_MODE_REUSABLE ((halo_command_buffer_mode_t)1u << 1)

/* One dispatch (halo_command_buffer_dispatch). */
typedef struct halo_dispatch_params_t {
  uint32_t struct_size;
  /* Ordinal of the entry point in |executable|, below its entry point count
   * (halo_executable_lookup_entry_point finds it by name). */
  uint32_t entry_point;
  /* Of the command buffer's device; retained by the command buffer. */
  halo_executable_t* executable;
  /* Workgroups in x, y and z; 0 in any of them runs nothing. */
  uint32_t workgroup_count[3];
  /* Bytes at |constants|: the entry point's constant_size. */
  uint32_t constant_size;
  /* Borrowed for the call; copied at record time. May be NULL when
   * |constant_size| is 0. */
  const void* constants;
  /* Number of |bindings|: the entry point's binding_count. */
  size_t binding_count;
  /* Borrowed array, binding i for the entry point's binding i; the buffers
   * are retained by the command buffer. May be NULL when |binding_count| is
   * 0. */
  const halo_buffer_binding_t* bindings;
  /* --- ABI 1.0 ends here. --- */
} halo_dispatch_params_t;

/* The command buffer vtable a plugin implements. Every entry is required.
 * Each implements the public function of its name below, with its rules and
 * codes; libhalo has already checked the handles, NULL pointers, struct
 * sizes and the fill pattern length (DESIGN.md §6). */
typedef struct halo_command_buffer_vtable_t {
  halo_object_vtable_t object;
  halo_status_t (*begin)(halo_command_buffer_t* command_buffer);
  halo_status_t (*end)(halo_command_buffer_t* command_buffer);
  /* A full barrier: see halo_command_buffer_barrier. */
  halo_status_t (*barrier)(halo_command_buffer_t* command_buffer);
  /* Repeats a 1-, 2- or 4-byte |pattern| over [offset, offset + length). */
  halo_status_t (*fill)(halo_command_buffer_t* command_buffer,
                        halo_buffer_t* target, uint64_t offset,
                        uint64_t length, const void* pattern,
                        size_t pattern_length);
  /* Copies |length| bytes of host |source| (copied at record time). */
  halo_status_t (*update)(halo_command_buffer_t* command_buffer,
                          const void* source, halo_buffer_t* target,
                          uint64_t offset, uint64_t length);
  halo_status_t (*copy)(halo_command_buffer_t* command_buffer,
                        halo_buffer_t* source, uint64_t source_offset,
                        halo_buffer_t* target, uint64_t target_offset,
                        uint64_t length);
  halo_status_t (*dispatch)(halo_command_buffer_t* command_buffer,
                            const halo_dispatch_params_t* params);
  /* --- ABI 1.0 ends here. --- */
} halo_command_buffer_vtable_t;

/* Creates an empty command buffer on |device| (borrowed) that is submitted as
 * |mode| says; a new reference in |out_command_buffer| (NULL on failure).
 * Thread-safe. Returns INVALID_ARGUMENT for a bad |device|, a NULL
 * |out_command_buffer| or a |mode| that is not exactly one of ONE_SHOT and
 * REUSABLE; UNIMPLEMENTED when the device lacks
 * HALO_DEVICE_FEATURE_COMMAND_BUFFERS; INTERNAL naming the plugin if it
 * hands over a command buffer that breaks the ABI (see object.h). */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_create(
    halo_device_t* device, halo_command_buffer_mode_t mode,
    halo_command_buffer_t** out_command_buffer);
/* Adds a reference to |command_buffer|. Accepts NULL. Thread-safe. */
HALO_API void halo_command_buffer_retain(halo_command_buffer_t* command_buffer);
/* Drops a reference to |command_buffer|; the last one destroys it and
 * releases what it retains. Accepts NULL. Thread-safe. Submissions in flight
 * keep their own references. */
HALO_API void halo_command_buffer_release(
    halo_command_buffer_t* command_buffer);

/* Starts recording. Borrows |command_buffer|; not thread-safe (see Threads).
 * Returns FAILED_PRECONDITION if it was begun before: a command buffer is
 * recorded once. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_begin(
    halo_command_buffer_t* command_buffer);
/* Ends recording: the command buffer records nothing more and can be
 * submitted. Borrows |command_buffer|; not thread-safe. Returns
 * FAILED_PRECONDITION unless it is recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_end(
    halo_command_buffer_t* command_buffer);

/* Records a full barrier: every later command starts after every earlier one
 * has completed and its writes are visible. Never needed for correctness
 * within one command buffer (see Ordering); a device may take it as a hint.
 * Borrows |command_buffer|; not thread-safe. Returns FAILED_PRECONDITION
 * unless it is recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_barrier(
    halo_command_buffer_t* command_buffer);

/* Records writing the |pattern_length| bytes at |pattern| (copied now) over
 * [|offset|, |offset| + |length|) of |target|, again and again, the
 * pattern's first byte at |offset|. |length| may be HALO_WHOLE_BUFFER.
 * Borrows every argument; retains |target|. Not thread-safe. Returns
 * INVALID_ARGUMENT for a NULL |pattern|, a |pattern_length| other than 1, 2
 * or 4, an |offset| or (resolved) |length| that is not a multiple of
 * |pattern_length|, or a |target| without HALO_BUFFER_USAGE_TRANSFER_TARGET
 * or of another device; OUT_OF_RANGE when the range is not within |target|;
 * FAILED_PRECONDITION unless recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_fill(
    halo_command_buffer_t* command_buffer, halo_buffer_t* target, uint64_t
    offset, uint64_t length, const void* pattern, size_t pattern_length);

/* Records writing the |length| bytes at host |source| to [|offset|, |offset|
 * + |length|) of |target|. The bytes are copied now: the caller may reuse
 * |source| on return. |source| may be NULL when |length| is 0. Borrows every
 * argument; retains |target|. Not thread-safe. Returns INVALID_ARGUMENT for
 * a NULL |source| with a non-zero |length|, a |length| of HALO_WHOLE_BUFFER
 * (the length is that of |source|), or a |target| without
 * HALO_BUFFER_USAGE_TRANSFER_TARGET or of another device; OUT_OF_RANGE when
 * the range is not within |target|; FAILED_PRECONDITION unless recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_update(
    halo_command_buffer_t* command_buffer, const void* source, halo_buffer_t*
    target, uint64_t offset, uint64_t length);

/* Records copying [|source_offset|, |source_offset| + |length|) of |source|
 * to [|target_offset|, |target_offset| + |length|) of |target|. |source| and
 * |target| may be one buffer when the two ranges do not overlap. Borrows
 * every argument; retains |source| and |target|. Not thread-safe. Returns
 * INVALID_ARGUMENT for a |length| of HALO_WHOLE_BUFFER, a |source| without
 * HALO_BUFFER_USAGE_TRANSFER_SOURCE, a |target| without
 * HALO_BUFFER_USAGE_TRANSFER_TARGET, a buffer of another device, or
 * overlapping ranges of one buffer; OUT_OF_RANGE when either range is not
 * within its buffer; FAILED_PRECONDITION unless recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_copy(
    halo_command_buffer_t* command_buffer, halo_buffer_t* source, uint64_t
    source_offset, halo_buffer_t* target, uint64_t target_offset, uint64_t
    length);

/* Records running entry point |params->entry_point| of |params->executable|
 * over |params->workgroup_count| workgroups with |params->bindings| and a
 * copy of |params->constants|. Borrows |params| and its arrays; retains the
 * executable and every bound buffer. Not thread-safe. Returns
 * INVALID_ARGUMENT for a NULL |params|, a struct_size below ABI 1.0's, NULL
 * |constants| or |bindings| with a non-zero size or count, an executable or
 * bound buffer of another device, an |entry_point| not below the
 * executable's entry point count, a |binding_count| or |constant_size| other
 * than the entry point's, a binding without
 * HALO_BUFFER_USAGE_DISPATCH_STORAGE, at an offset that is not a multiple of
 * the device's min_buffer_alignment, or empty, and for a |workgroup_count|
 * beyond what the device runs in one dispatch; OUT_OF_RANGE when a binding
 * is not within its buffer; FAILED_PRECONDITION unless recording. */
HALO_API HALO_MUST_USE halo_status_t halo_command_buffer_dispatch(
    halo_command_buffer_t* command_buffer, const halo_dispatch_params_t*
    params);

#endif /* HALO_COMMAND_BUFFER_H_ */
