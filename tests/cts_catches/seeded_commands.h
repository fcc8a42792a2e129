/* seeded_commands.h: host buffers, command buffers and cpu-so executables for the
 * seeded-bug plugin (seeded_bug_plugin.c), built into the variants that define
 * TEMPLATE_COMMAND_BUFFERS, so that halo-cts can be shown to catch bugs in how
 * commands run. The queue's worker runs the recorded commands itself, through
 * seeded_command_run, so that every seeded bug of the queue stays in
 * seeded_bug_plugin.c. */
#ifndef HALO_SEEDED_COMMANDS_H_
#define HALO_SEEDED_COMMANDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/command_buffer.h"
#include "halo/device.h"
#include "halo/executable.h"
#include "halo/plugin.h"

/* What the device reports in its capabilities. */
#define SEEDED_MEMORY_TYPES (HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT)
#define SEEDED_MAX_BUFFER_SIZE ((uint64_t)1 << 32)
#define SEEDED_MIN_BUFFER_ALIGNMENT 64u
/* Host memory is imported as it is (ABI 1.3), at the buffers' own alignment. */
#define SEEDED_HOST_ALLOCATION_ALIGNMENT 64u
#define SEEDED_EXECUTABLE_FORMATS "cpu-so"
/* Dispatch limits (ABI 1.2): per dimension, and in all, below what the
 * dimensions allow together, so that a CTS case can exceed each alone. */
#define SEEDED_MAX_WORKGROUP_COUNT 65535u
#define SEEDED_MAX_WORKGROUP_COUNT_TOTAL ((uint64_t)1 << 30)
/* Parameters of a cpu-so entry point (halo/cpu_kernel.h), each at most 8 bytes. */
#define SEEDED_MAX_PARAMETERS 64u

/* The device vtable's allocate_buffer, create_command_buffer and create_executable
 * for |device| (retained by what they create), whose host interface is |host|.
 * Buffers are host memory (HOST_VISIBLE|HOST_COHERENT); executables are "cpu-so"
 * (plugins/cpu/include/halo/cpu_kernel.h), called through libffi. */
halo_status_t seeded_buffer_allocate(const halo_host_interface_t* host, halo_device_t* device,
                                     const halo_buffer_params_t* params,
                                     halo_buffer_t** out_buffer);
#if HALO_ABI_VERSION_MINOR >= 3
/* The device vtable's import_buffer (ABI 1.3): a HOST_ALLOCATION, which libhalo has
 * checked against SEEDED_HOST_ALLOCATION_ALIGNMENT, becomes a buffer over that
 * memory, never freed by the plugin. */
halo_status_t seeded_buffer_import(const halo_host_interface_t* host, halo_device_t* device,
                                   const halo_buffer_params_t* params,
                                   const halo_external_handle_t* handle,
                                   halo_buffer_t** out_buffer);
#endif
halo_status_t seeded_command_buffer_create(const halo_host_interface_t* host,
                                           halo_device_t* device,
                                           halo_command_buffer_mode_t mode,
                                           halo_command_buffer_t** out_command_buffer);
halo_status_t seeded_executable_create(const halo_host_interface_t* host, halo_device_t* device,
                                       const halo_executable_params_t* params,
                                       halo_executable_t** out_executable);

/* Accepts the command buffers of a submission to |device|, all or none: each must be
 * one of |device|'s and ended, and a ONE_SHOT one never submitted before (it is then
 * marked submitted). Returns FAILED_PRECONDITION or INVALID_ARGUMENT naming the
 * command buffer otherwise. */
halo_status_t seeded_command_buffers_claim(const halo_host_interface_t* host,
                                           halo_device_t* device,
                                           const halo_queue_execute_info_t* info);
/* Undoes a claim whose submission failed after it. */
void seeded_command_buffers_unclaim(const halo_queue_execute_info_t* info);

/* The recorded commands, for the queue's worker: how many |command_buffer| holds
 * (barriers included), whether command |index| is a barrier, and running command
 * |index| to completion on the calling thread (a barrier does nothing). */
size_t seeded_command_count(halo_command_buffer_t* command_buffer);
bool seeded_command_is_barrier(halo_command_buffer_t* command_buffer, size_t index);
void seeded_command_run(halo_command_buffer_t* command_buffer, size_t index);

#endif /* HALO_SEEDED_COMMANDS_H_ */
