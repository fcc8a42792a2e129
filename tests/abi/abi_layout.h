/* ABI 1.0 layout facts, asserted at compile time in C and in C++.
 *
 * These freeze the ABI: a plugin built today must keep working with every
 * later libhalo 1.x, so no size, offset or constant below may change. Growth
 * appends members, which changes sizes: update the size here then, in the
 * same change that adds the "ABI 1.M ends here" marker, and keep the 1.0
 * offsets. Sizes are for x86-64 (LP64); other targets check only constants. */
#ifndef HALO_TESTS_ABI_ABI_LAYOUT_H_
#define HALO_TESTS_ABI_ABI_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/halo.h"
#include "halo/plugin.h"

#ifdef __cplusplus
#define HALO_LAYOUT_ASSERT(expression) static_assert(expression, #expression)
#else
#define HALO_LAYOUT_ASSERT(expression) _Static_assert(expression, #expression)
#endif

/* Version packing. */
HALO_LAYOUT_ASSERT(HALO_ABI_VERSION_MAJOR == 1);
HALO_LAYOUT_ASSERT(HALO_ABI_VERSION == 0x00010006u);
HALO_LAYOUT_ASSERT(HALO_MAKE_VERSION(2, 3) == 0x00020003u);
HALO_LAYOUT_ASSERT(HALO_VERSION_MAJOR(HALO_MAKE_VERSION(7, 9)) == 7);
HALO_LAYOUT_ASSERT(HALO_VERSION_MINOR(HALO_MAKE_VERSION(7, 9)) == 9);

/* Status codes are gRPC's values, plus DEFERRED. */
HALO_LAYOUT_ASSERT(HALO_STATUS_OK == 0);
HALO_LAYOUT_ASSERT(HALO_STATUS_CANCELLED == 1);
HALO_LAYOUT_ASSERT(HALO_STATUS_INVALID_ARGUMENT == 3);
HALO_LAYOUT_ASSERT(HALO_STATUS_DEADLINE_EXCEEDED == 4);
HALO_LAYOUT_ASSERT(HALO_STATUS_FAILED_PRECONDITION == 9);
HALO_LAYOUT_ASSERT(HALO_STATUS_UNIMPLEMENTED == 12);
HALO_LAYOUT_ASSERT(HALO_STATUS_UNAVAILABLE == 14);
HALO_LAYOUT_ASSERT(HALO_STATUS_DATA_LOSS == 15);
HALO_LAYOUT_ASSERT(HALO_STATUS_DEFERRED == 16);
HALO_LAYOUT_ASSERT(HALO_STATUS_CODE_COUNT_ == 17);
HALO_LAYOUT_ASSERT(sizeof(halo_status_code_t) == 4);

/* Object type tags and enum values never change. */
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_DRIVER == 0x48440001);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_DEVICE == 0x48440002);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_SEMAPHORE == 0x48440003);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_BUFFER == 0x48440004);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_COMMAND_BUFFER == 0x48440005);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_EXECUTABLE == 0x48440006);
HALO_LAYOUT_ASSERT(HALO_OBJECT_TYPE_FENCE == 0x48440007);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_OTHER == 0);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_GPU_DISCRETE == 1);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_GPU_INTEGRATED == 2);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_ACCELERATOR == 3);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_CPU == 4);
HALO_LAYOUT_ASSERT(HALO_DEVICE_TYPE_GPU_VIRTUAL == 5);
HALO_LAYOUT_ASSERT(HALO_PLUGIN_STATE_LOADED == 0);
HALO_LAYOUT_ASSERT(HALO_PLUGIN_STATE_SKIPPED == 1);
HALO_LAYOUT_ASSERT(HALO_WAIT_MODE_ALL == 0);
HALO_LAYOUT_ASSERT(HALO_WAIT_MODE_ANY == 1);
HALO_LAYOUT_ASSERT(HALO_LOG_LEVEL_ERROR == 1);
HALO_LAYOUT_ASSERT(HALO_LOG_LEVEL_DEBUG == 4);
HALO_LAYOUT_ASSERT(HALO_SEMAPHORE_COMPATIBILITY_ALL == 0xF);

/* Semaphore values and deadlines (DESIGN.md §4). */
HALO_LAYOUT_ASSERT(HALO_SEMAPHORE_MAX_VALUE == 0x7FFFFFFFFFFFFFFFull);
HALO_LAYOUT_ASSERT(HALO_SEMAPHORE_FAILURE_VALUE == 0x8000000000000000ull);
HALO_LAYOUT_ASSERT(HALO_DEADLINE_INFINITE_FUTURE == INT64_MAX);
HALO_LAYOUT_ASSERT(HALO_DEADLINE_INFINITE_PAST == INT64_MIN);
HALO_LAYOUT_ASSERT(HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT == 1u);
HALO_LAYOUT_ASSERT(HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS == 2u);

#if defined(__x86_64__) && defined(__LP64__)

/* The common headers. */
HALO_LAYOUT_ASSERT(sizeof(halo_object_t) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_object_t, ref_count) == 0);
HALO_LAYOUT_ASSERT(offsetof(halo_object_t, vtable) == 8);
HALO_LAYOUT_ASSERT(sizeof(halo_object_vtable_t) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_object_vtable_t, struct_size) == 0);
HALO_LAYOUT_ASSERT(offsetof(halo_object_vtable_t, type) == 4);
HALO_LAYOUT_ASSERT(offsetof(halo_object_vtable_t, destroy) == 8);

/* Vtables: the 1.0 entries, in order. */
HALO_LAYOUT_ASSERT(sizeof(halo_driver_vtable_t) == 40);
HALO_LAYOUT_ASSERT(offsetof(halo_driver_vtable_t, create_device) == 32);
HALO_LAYOUT_ASSERT(sizeof(halo_device_vtable_t) == 120);
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, query_info) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, queue_execute) == 48);
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, allocate_buffer) == 80);
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, create_executable) == 96);
/* ABI 1.3 appended the imports where 1.0's 104 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, import_buffer) == 104);
HALO_LAYOUT_ASSERT(offsetof(halo_device_vtable_t, import_semaphore) == 112);
HALO_LAYOUT_ASSERT(sizeof(halo_semaphore_vtable_t) == 88);
HALO_LAYOUT_ASSERT(offsetof(halo_semaphore_vtable_t, query) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_semaphore_vtable_t, acquire_timepoint) == 48);
HALO_LAYOUT_ASSERT(offsetof(halo_semaphore_vtable_t, device) == 64);
HALO_LAYOUT_ASSERT(offsetof(halo_semaphore_vtable_t, export_handle) == 72);
/* ABI 1.5 appended this where 1.3's 80 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_semaphore_vtable_t, signal_committed) == 80);
HALO_LAYOUT_ASSERT(sizeof(halo_buffer_vtable_t) == 64);
HALO_LAYOUT_ASSERT(offsetof(halo_buffer_vtable_t, export_handle) == 56);
HALO_LAYOUT_ASSERT(sizeof(halo_command_buffer_vtable_t) == 72);
HALO_LAYOUT_ASSERT(offsetof(halo_command_buffer_vtable_t, dispatch) == 64);
HALO_LAYOUT_ASSERT(sizeof(halo_executable_vtable_t) == 40);

/* The plugin boundary. */
HALO_LAYOUT_ASSERT(sizeof(halo_allocator_t) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_allocator_t, allocate) == 16);
HALO_LAYOUT_ASSERT(sizeof(halo_host_interface_t) == 144);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, abi_version) == 4);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, allocator) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, status_create) == 48);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, status_annotate) == 96);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, log) == 104);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, object_retain) == 112);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, time_now_ns) == 128);
HALO_LAYOUT_ASSERT(offsetof(halo_host_interface_t, status_from_code) == 136);
HALO_LAYOUT_ASSERT(sizeof(halo_plugin_query_params_t) == 24);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_query_params_t, host) == 16);
HALO_LAYOUT_ASSERT(sizeof(halo_plugin_descriptor_t) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_descriptor_t, name) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_descriptor_t, create_driver) == 24);

/* Info and argument structs. */
HALO_LAYOUT_ASSERT(sizeof(halo_driver_info_t) == 392);
HALO_LAYOUT_ASSERT(offsetof(halo_driver_info_t, name) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_driver_info_t, description) == 136);
HALO_LAYOUT_ASSERT(sizeof(halo_device_params_t) == 16);
HALO_LAYOUT_ASSERT(sizeof(halo_device_info_t) == 560);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, device_id) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, name) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, vendor) == 272);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, driver_version) == 400);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, vendor_id) == 464);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, uuid) == 472);
/* ABI 1.2 appended these where 1.0's 488 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, native_api) == 488);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, compute_units) == 552);
HALO_LAYOUT_ASSERT(offsetof(halo_device_info_t, reserved1) == 556);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, features) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_semaphore_value_difference) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, memory_types) == 40);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, executable_formats) == 48);
/* ABI 1.2 appended these where 1.0's 176 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, device_memory_size) == 176);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_workgroup_count_total) == 184);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_workgroup_size) == 192);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_workgroup_invocations) == 204);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_workgroup_count) == 208);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_binding_count) == 220);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, max_constant_size) == 224);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, reserved1) == 228);
/* ABI 1.3 appended these where 1.2's 232 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, buffer_export_types) == 232);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, semaphore_import_types) == 244);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, host_allocation_alignment) == 248);
/* ABI 1.5 appended these where 1.3's 256 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, semaphore_wait_import_types) == 256);
HALO_LAYOUT_ASSERT(offsetof(halo_device_capabilities_t, reserved2) == 260);
HALO_LAYOUT_ASSERT(sizeof(halo_device_capabilities_t) == 264);
HALO_LAYOUT_ASSERT(sizeof(halo_queue_execute_info_t) == 80);
HALO_LAYOUT_ASSERT(offsetof(halo_queue_execute_info_t, affinity) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_queue_execute_info_t, wait_count) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_queue_execute_info_t, signal_count) == 40);
HALO_LAYOUT_ASSERT(offsetof(halo_queue_execute_info_t, command_buffers) == 72);
HALO_LAYOUT_ASSERT(sizeof(halo_timepoint_t) == 96);
HALO_LAYOUT_ASSERT(offsetof(halo_timepoint_t, value) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_timepoint_t, callback) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_timepoint_t, implementation) == 32);
HALO_LAYOUT_ASSERT(sizeof(halo_buffer_params_t) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_buffer_params_t, size) == 16);
/* ABI 1.3 named reserved0 flags. */
HALO_LAYOUT_ASSERT(offsetof(halo_buffer_params_t, flags) == 12);
HALO_LAYOUT_ASSERT(sizeof(halo_external_handle_t) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_external_handle_t, fd) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_external_handle_t, flags) == 12);
HALO_LAYOUT_ASSERT(offsetof(halo_external_handle_t, host_pointer) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_external_handle_t, size) == 24);
/* ABI 1.6: the shared page of a HOST_TIMELINE_FD, read by other processes
 * and plugins built apart. */
HALO_LAYOUT_ASSERT(HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD == 8u);
HALO_LAYOUT_ASSERT(HALO_HOST_TIMELINE_MAGIC == 0x6c74686cu);
HALO_LAYOUT_ASSERT(HALO_HOST_TIMELINE_VERSION == 1u);
HALO_LAYOUT_ASSERT(sizeof(halo_host_timeline_t) == 24);
HALO_LAYOUT_ASSERT(offsetof(halo_host_timeline_t, payload) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_host_timeline_t, epoch) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_host_timeline_t, waiters) == 20);
HALO_LAYOUT_ASSERT(sizeof(halo_buffer_binding_t) == 24);
HALO_LAYOUT_ASSERT(sizeof(halo_dispatch_params_t) == 56);
HALO_LAYOUT_ASSERT(offsetof(halo_dispatch_params_t, executable) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_dispatch_params_t, workgroup_count) == 16);
HALO_LAYOUT_ASSERT(offsetof(halo_dispatch_params_t, constants) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_dispatch_params_t, bindings) == 48);
HALO_LAYOUT_ASSERT(sizeof(halo_executable_params_t) == 32);
HALO_LAYOUT_ASSERT(sizeof(halo_entry_point_info_t) == 156);
HALO_LAYOUT_ASSERT(offsetof(halo_entry_point_info_t, binding_count) == 136);
/* ABI 1.1 appended workgroup_size where 1.0's 144 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_entry_point_info_t, workgroup_size) == 144);
HALO_LAYOUT_ASSERT(offsetof(halo_registry_options_t, plugin_path_count) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_registry_options_t, plugin_paths) == 16);
/* ABI 1.2 appended allocator where 1.0's 24 bytes ended. */
HALO_LAYOUT_ASSERT(offsetof(halo_registry_options_t, allocator) == 24);
HALO_LAYOUT_ASSERT(sizeof(halo_registry_options_t) == 32);
HALO_LAYOUT_ASSERT(sizeof(halo_plugin_record_t) == 64);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, name) == 8);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, source) == 32);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, abi_version) == 40);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, priority) == 44);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, skip_code) == 48);
HALO_LAYOUT_ASSERT(offsetof(halo_plugin_record_t, skip_reason) == 56);

#endif /* x86-64 */

#endif /* HALO_TESTS_ABI_ABI_LAYOUT_H_ */
