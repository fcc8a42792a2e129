/* A minimal host-only plugin for the loader tests, in plain C11.
 *
 * One source builds every test plugin: compile definitions pick its name and
 * how it misbehaves, so each broken plugin differs from the good one in exactly
 * the one way its test is about.
 *
 *   TEST_PLUGIN_NAME           the descriptor's name (a string literal).
 *   TEST_PLUGIN_MODE           one of the TEST_MODE_* values below.
 *   TEST_PLUGIN_MULTI_DEVICE   defined: seven devices of every type, listed in
 *                              scrambled order so the tests see the loader
 *                              sort them; otherwise one device, "test device".
 *
 * The driver and its devices are real objects (reference counted through the
 * host interface) so the public API's argument checks can be tested on them;
 * every device operation beyond info and capabilities returns UNIMPLEMENTED.
 *
 * Modes that misbehave at run time rather than at load time:
 *   RECYCLE             the driver lives in one static slot, so a driver
 *                       created after another was destroyed has the same
 *                       address (as with a pooling allocator). When
 *                       HALO_TEST_PLUGIN_DESTROY_GATE is "W,R" (two file
 *                       descriptors), the driver's destroy frees the slot,
 *                       writes one byte to W and waits for one byte on R, so
 *                       a test can act while a destroy is in progress.
 *   CREATE_DEVICE_FAILS creating a device fails with a message that is not
 *                       valid UTF-8, as a native driver's text may be.
 *   EXIT_IN_DEVICE_DESTROY  destroying a device prints
 *                       $HALO_TEST_PLUGIN_EXIT_TEXT on stdout and ends the
 *                       process with exit code 0: output a runner cannot
 *                       trust, from a process that ended "cleanly".
 *   DEVICE_NO_VTABLE, DEVICE_WRONG_TYPE, DEVICE_SHORT_VTABLE,
 *   DEVICE_NO_QUERY_INFO  each created device breaks the ABI in that one way:
 *                       no vtable, a driver's type tag, an 8-byte vtable,
 *                       or a NULL query_info entry.
 *   SEMAPHORE_NO_QUERY  the device creates semaphores whose vtable has a
 *                       NULL query entry (every other entry is a stub).
 *   DEVICE_FORGED_STATUS  every device call that the plugin does not
 *                       implement returns a status the plugin made itself,
 *                       not through the host interface.
 *   DEVICE_COUNT_FROM_ENV  enumerate_devices reports
 *                       $HALO_TEST_PLUGIN_DEVICE_COUNT devices when it is
 *                       set, so a test can change the count after the scan.
 *   CREATE_DEVICE_FAILS_ONCE  creating a device fails (as CREATE_DEVICE_FAILS)
 *                       when it creates the file $HALO_TEST_PLUGIN_ONCE_FILE,
 *                       and succeeds once the file exists: a case that
 *                       fails its first run only, whatever the timing, for
 *                       halo-cts --rerun-failures.
 *   USE_AFTER_FREE      a device's query_info reads a heap block it has just
 *                       freed: a real heap-use-after-free that goes unseen
 *                       without a sanitizer (the byte read is past what the
 *                       allocator reuses, and nothing depends on it), for
 *                       halo-cts --sanitize.
 *
 * Modes that break the driver at load time, each skipping the plugin:
 * DRIVER_NO_VTABLE, DRIVER_WRONG_TYPE, DRIVER_SHORT_VTABLE and
 * DRIVER_NO_ENUMERATE (as their device counterparts), and FORGED_STATUS
 * (create_driver fails with a status the plugin made itself).
 *
 * An object without a usable vtable cannot be destroyed by libhalo, so the
 * modes that hand one over keep it in static storage instead of leaking. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halo/plugin.h"

#define TEST_MODE_GOOD 0
#define TEST_MODE_NO_ENTRY 1
#define TEST_MODE_QUERY_NULL 2
#define TEST_MODE_DESCRIPTOR_V2 3
#define TEST_MODE_CREATE_FAILS 4
#define TEST_MODE_ENUMERATE_FAILS 5
#define TEST_MODE_NAME_MISMATCH 6
#define TEST_MODE_RECYCLE 7
#define TEST_MODE_CREATE_DEVICE_FAILS 8
#define TEST_MODE_EXIT_IN_DEVICE_DESTROY 9
#define TEST_MODE_DRIVER_NO_VTABLE 10
#define TEST_MODE_DRIVER_WRONG_TYPE 11
#define TEST_MODE_DRIVER_SHORT_VTABLE 12
#define TEST_MODE_DRIVER_NO_ENUMERATE 13
#define TEST_MODE_FORGED_STATUS 14
#define TEST_MODE_DEVICE_NO_VTABLE 15
#define TEST_MODE_DEVICE_WRONG_TYPE 16
#define TEST_MODE_DEVICE_SHORT_VTABLE 17
#define TEST_MODE_DEVICE_NO_QUERY_INFO 18
#define TEST_MODE_SEMAPHORE_NO_QUERY 19
#define TEST_MODE_DEVICE_FORGED_STATUS 20
#define TEST_MODE_DEVICE_COUNT_FROM_ENV 21
#define TEST_MODE_CREATE_DEVICE_FAILS_ONCE 22
#define TEST_MODE_USE_AFTER_FREE 23

#ifndef TEST_PLUGIN_NAME
#error "TEST_PLUGIN_NAME must be defined"
#endif
#ifndef TEST_PLUGIN_MODE
#define TEST_PLUGIN_MODE TEST_MODE_GOOD
#endif

/* What the broken-object modes change; every other mode gets the good value. */
#define MODE_IS(mode) (TEST_PLUGIN_MODE == TEST_MODE_##mode)
#define DRIVER_VTABLE_TYPE \
  (MODE_IS(DRIVER_WRONG_TYPE) ? HALO_OBJECT_TYPE_DEVICE : HALO_OBJECT_TYPE_DRIVER)
/* 8 bytes: struct_size and type, not even destroy. */
#define DRIVER_VTABLE_SIZE \
  (MODE_IS(DRIVER_SHORT_VTABLE) ? 8u : (uint32_t)sizeof(halo_driver_vtable_t))
#define DRIVER_UNDESTROYABLE (MODE_IS(DRIVER_NO_VTABLE) || MODE_IS(DRIVER_SHORT_VTABLE))
#define DEVICE_VTABLE_TYPE \
  (MODE_IS(DEVICE_WRONG_TYPE) ? HALO_OBJECT_TYPE_DRIVER : HALO_OBJECT_TYPE_DEVICE)
#define DEVICE_VTABLE_SIZE \
  (MODE_IS(DEVICE_SHORT_VTABLE) ? 8u : (uint32_t)sizeof(halo_device_vtable_t))
#define DEVICE_UNDESTROYABLE (MODE_IS(DEVICE_NO_VTABLE) || MODE_IS(DEVICE_SHORT_VTABLE))

/* A status the plugin made itself instead of through the host interface: it
 * looks like one (a code, then a message), but libhalo never allocated it. */
static const struct {
  int code;
  const char* message;
} g_forged_status = {HALO_STATUS_INTERNAL, "a status of the plugin's own making"};
#define FORGED_STATUS ((halo_status_t)&g_forged_status)

typedef struct test_device_desc_t {
  const char* name;
  halo_device_type_t type;
} test_device_desc_t;

#if defined(TEST_PLUGIN_MULTI_DEVICE)
static const test_device_desc_t kDevices[] = {
    {"cpu b", HALO_DEVICE_TYPE_CPU},
    {"other", HALO_DEVICE_TYPE_OTHER},
    {"npu", HALO_DEVICE_TYPE_ACCELERATOR},
    {"cpu a", HALO_DEVICE_TYPE_CPU},
    {"vgpu", HALO_DEVICE_TYPE_GPU_VIRTUAL},
    {"igpu", HALO_DEVICE_TYPE_GPU_INTEGRATED},
    {"gpu", HALO_DEVICE_TYPE_GPU_DISCRETE},
};
#else
static const test_device_desc_t kDevices[] = {
    {"test device", HALO_DEVICE_TYPE_OTHER},
};
#endif
#define DEVICE_COUNT (sizeof(kDevices) / sizeof(kDevices[0]))

/* Device ids start at 1 so that 0 is never a valid id. */
static halo_device_id_t device_id_of(size_t index) { return (halo_device_id_t)index + 1; }

/* Copies |name| into a fixed-size field, always NUL-terminated. */
static void copy_string(char* target, size_t capacity, const char* name) {
  size_t length = strlen(name);
  if (length >= capacity) {
    length = capacity - 1;
  }
  memcpy(target, name, length);
  target[length] = '\0';
}

/* Fills the caller's struct up to min(|caller_size|, |full_size|) bytes and
 * sets its struct_size to what was filled, as the ABI asks (device.h). */
static void copy_out(void* target, uint32_t caller_size, void* full,
                     uint32_t full_size) {
  uint32_t size = caller_size < full_size ? caller_size : full_size;
  if (size < sizeof(uint32_t)) {
    return;
  }
  memcpy(full, &size, sizeof(size));
  memcpy(target, full, size);
}

static void fill_device_info(size_t index, halo_device_info_t* info) {
  memset(info, 0, sizeof(*info));
  info->struct_size = sizeof(*info);
  info->type = (uint32_t)kDevices[index].type;
  info->device_id = device_id_of(index);
  copy_string(info->name, sizeof(info->name), kDevices[index].name);
  copy_string(info->vendor, sizeof(info->vendor), "halo tests");
  copy_string(info->driver_version, sizeof(info->driver_version), "1.0");
  info->vendor_id = 0x1234u;
  info->native_device_id = (uint32_t)index;
  info->uuid[0] = (uint8_t)(index + 1);
#if HALO_ABI_VERSION_MINOR >= 2
  /* ABI 1.2: halo-info's tests read these. */
  copy_string(info->native_api, sizeof(info->native_api), "halo tests 1.0");
  info->compute_units = (uint32_t)index + 1;
#endif
}

/* ---- Objects ---------------------------------------------------------- */

typedef struct test_driver_t {
  halo_object_t object;
  const halo_host_interface_t* host;
} test_driver_t;

typedef struct test_device_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  /* Retained: the driver outlives its devices. */
  halo_driver_t* driver;
  size_t index;
} test_device_t;

static void* allocate(const halo_host_interface_t* host, size_t size) {
  return host->allocator.allocate(host->allocator.self, size, sizeof(void*));
}

static halo_status_t unimplemented(const test_device_t* device, const char* what) {
  if (MODE_IS(DEVICE_FORGED_STATUS)) {
    return FORGED_STATUS;
  }
  return device->host->status_format(HALO_STATUS_UNIMPLEMENTED,
                                     "test plugin: %s is not implemented", what);
}

/* ---- Device ------------------------------------------------------------ */

#if TEST_PLUGIN_MODE == TEST_MODE_EXIT_IN_DEVICE_DESTROY
/* Writes all of |text| to stdout, retrying short writes. */
static void write_all(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t written = write(STDOUT_FILENO, text, left);
    if (written <= 0) {
      return;
    }
    text += written;
    left -= (size_t)written;
  }
}
#endif

static void device_destroy(halo_object_t* object) {
  test_device_t* device = (test_device_t*)object;
  const halo_host_interface_t* host = device->host;
#if TEST_PLUGIN_MODE == TEST_MODE_EXIT_IN_DEVICE_DESTROY
  const char* text = getenv("HALO_TEST_PLUGIN_EXIT_TEXT");
  if (text != NULL) {
    fflush(stdout);
    write_all("\n");
    write_all(text);
    write_all("\n");
    _exit(0);
  }
#endif
  host->object_release((halo_object_t*)device->driver);
  host->allocator.free(host->allocator.self, device);
}

#if MODE_IS(USE_AFTER_FREE)
/* Reads byte 32 of a 64-byte block after freeing it. The volatile accesses
 * keep the compiler from dropping the read or seeing the free. */
static void read_after_free(void) {
  unsigned char* block = malloc(64);
  if (block == NULL) {
    return;
  }
  block[32] = 1;
  volatile unsigned char* volatile freed = block;
  free(block);
  (void)freed[32];
}
#endif

static halo_status_t device_query_info(halo_device_t* base,
                                       halo_device_info_t* out_info) {
  test_device_t* device = (test_device_t*)base;
  halo_device_info_t info;
#if MODE_IS(USE_AFTER_FREE)
  read_after_free();
#endif
  fill_device_info(device->index, &info);
  copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

static halo_status_t device_query_capabilities(
    halo_device_t* base, halo_device_capabilities_t* out_caps) {
  (void)base;
  halo_device_capabilities_t caps;
  memset(&caps, 0, sizeof(caps));
  caps.struct_size = sizeof(caps);
  caps.queue_count = 0;
  caps.features = 0;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  caps.min_buffer_alignment = 64;
  copy_string(caps.executable_formats, sizeof(caps.executable_formats), "");
  copy_out(out_caps, out_caps->struct_size, &caps, sizeof(caps));
  return HALO_OK;
}

#if MODE_IS(SEMAPHORE_NO_QUERY)
/* A semaphore that implements nothing: only its vtable matters here. */
typedef struct test_semaphore_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  /* Retained: the device outlives its semaphores. */
  halo_device_t* device;
} test_semaphore_t;

static void semaphore_destroy(halo_object_t* object) {
  test_semaphore_t* semaphore = (test_semaphore_t*)object;
  const halo_host_interface_t* host = semaphore->host;
  host->object_release((halo_object_t*)semaphore->device);
  host->allocator.free(host->allocator.self, semaphore);
}

static halo_status_t semaphore_unimplemented(halo_semaphore_t* base) {
  return ((test_semaphore_t*)base)->host->status_create(
      HALO_STATUS_UNIMPLEMENTED, "test plugin: semaphores do nothing");
}

static halo_status_t semaphore_signal(halo_semaphore_t* base, uint64_t value) {
  (void)value;
  return semaphore_unimplemented(base);
}

static void semaphore_fail(halo_semaphore_t* base, halo_status_t status) {
  ((test_semaphore_t*)base)->host->status_free(status);
}

static halo_status_t semaphore_wait(halo_semaphore_t* base, uint64_t value,
                                    halo_time_ns_t deadline) {
  (void)value;
  (void)deadline;
  return semaphore_unimplemented(base);
}

static halo_status_t semaphore_acquire_timepoint(halo_semaphore_t* base,
                                                 halo_timepoint_t* timepoint) {
  (void)timepoint;
  return semaphore_unimplemented(base);
}

static bool semaphore_cancel_timepoint(halo_semaphore_t* base,
                                       halo_timepoint_t* timepoint) {
  (void)base;
  (void)timepoint;
  return false;
}

static halo_device_t* semaphore_device(halo_semaphore_t* base) {
  return ((test_semaphore_t*)base)->device;
}

static const halo_semaphore_vtable_t kSemaphoreVtable = {
    .object = {.struct_size = sizeof(halo_semaphore_vtable_t),
               .type = HALO_OBJECT_TYPE_SEMAPHORE,
               .destroy = semaphore_destroy},
    .query = NULL, /* The one entry left out. */
    .signal = semaphore_signal,
    .fail = semaphore_fail,
    .wait = semaphore_wait,
    .acquire_timepoint = semaphore_acquire_timepoint,
    .cancel_timepoint = semaphore_cancel_timepoint,
    .device = semaphore_device,
};

static halo_status_t device_create_semaphore(halo_device_t* base, uint64_t initial,
                                             halo_semaphore_flags_t flags,
                                             halo_semaphore_t** out_semaphore) {
  test_device_t* device = (test_device_t*)base;
  (void)initial;
  (void)flags;
  test_semaphore_t* semaphore = allocate(device->host, sizeof(*semaphore));
  if (semaphore == NULL) {
    return device->host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                                       "test plugin: out of memory");
  }
  halo_object_t header = HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable);
  semaphore->object = header;
  semaphore->host = device->host;
  device->host->object_retain(&device->object);
  semaphore->device = base;
  *out_semaphore = (halo_semaphore_t*)semaphore;
  return HALO_OK;
}
#else
static halo_status_t device_create_semaphore(halo_device_t* base, uint64_t initial,
                                             halo_semaphore_flags_t flags,
                                             halo_semaphore_t** out_semaphore) {
  (void)initial;
  (void)flags;
  (void)out_semaphore;
  return unimplemented((test_device_t*)base, "create_semaphore");
}
#endif

static halo_semaphore_compatibility_t device_semaphore_compatibility(
    halo_device_t* base, halo_semaphore_t* semaphore) {
  (void)base;
  (void)semaphore;
  return HALO_SEMAPHORE_COMPATIBILITY_NONE;
}

static halo_status_t device_queue_execute(halo_device_t* base,
                                          const halo_queue_execute_info_t* info) {
  (void)info;
  return unimplemented((test_device_t*)base, "queue_execute");
}

static halo_status_t device_queue_flush(halo_device_t* base,
                                        halo_queue_affinity_t affinity) {
  (void)affinity;
  return unimplemented((test_device_t*)base, "queue_flush");
}

static halo_status_t device_wait_semaphores(halo_device_t* base, halo_wait_mode_t mode,
                                            size_t count,
                                            halo_semaphore_t* const* semaphores,
                                            const uint64_t* values,
                                            halo_time_ns_t deadline) {
  (void)mode;
  (void)count;
  (void)semaphores;
  (void)values;
  (void)deadline;
  return unimplemented((test_device_t*)base, "wait_semaphores");
}

static halo_status_t device_wait_idle(halo_device_t* base, halo_time_ns_t deadline) {
  (void)deadline;
  return unimplemented((test_device_t*)base, "wait_idle");
}

/* allocate_buffer, create_command_buffer and create_executable stay NULL:
 * device.h says libhalo then answers UNIMPLEMENTED itself. */
static const halo_device_vtable_t kDeviceVtable = {
    .object = {.struct_size = DEVICE_VTABLE_SIZE,
               .type = DEVICE_VTABLE_TYPE,
               .destroy = device_destroy},
    .query_info = MODE_IS(DEVICE_NO_QUERY_INFO) ? NULL : device_query_info,
    .query_capabilities = device_query_capabilities,
    .create_semaphore = device_create_semaphore,
    .semaphore_compatibility = device_semaphore_compatibility,
    .queue_execute = device_queue_execute,
    .queue_flush = device_queue_flush,
    .wait_semaphores = device_wait_semaphores,
    .wait_idle = device_wait_idle,
    .allocate_buffer = NULL,
    .create_command_buffer = NULL,
    .create_executable = NULL,
};

#if MODE_IS(DEVICE_NO_VTABLE)
#define DEVICE_VTABLE NULL
#else
#define DEVICE_VTABLE (&kDeviceVtable)
#endif

/* ---- Driver ------------------------------------------------------------ */

#if TEST_PLUGIN_MODE == TEST_MODE_RECYCLE
static test_driver_t g_driver_slot;
static int g_driver_slot_used = 0;

/* See RECYCLE above. Blocking reads and writes, not sleeps: the test decides
 * when the destroy may go on. */
static void pass_destroy_gate(void) {
  const char* gate = getenv("HALO_TEST_PLUGIN_DESTROY_GATE");
  int entered_fd = -1;
  int proceed_fd = -1;
  if (gate == NULL || sscanf(gate, "%d,%d", &entered_fd, &proceed_fd) != 2) {
    return;
  }
  char byte = 'd';
  if (write(entered_fd, &byte, 1) == 1) {
    (void)read(proceed_fd, &byte, 1);
  }
}
#endif

static void driver_destroy(halo_object_t* object) {
  test_driver_t* driver = (test_driver_t*)object;
#if TEST_PLUGIN_MODE == TEST_MODE_RECYCLE
  (void)driver;
  __atomic_store_n(&g_driver_slot_used, 0, __ATOMIC_RELEASE);
  pass_destroy_gate();
#else
  driver->host->allocator.free(driver->host->allocator.self, driver);
#endif
}

static halo_status_t driver_query_info(halo_driver_t* base,
                                       halo_driver_info_t* out_info) {
  (void)base;
  halo_driver_info_t info;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  copy_string(info.name, sizeof(info.name), TEST_PLUGIN_NAME);
  copy_string(info.version, sizeof(info.version), "1.2.3-test");
  copy_string(info.description, sizeof(info.description),
              "loader test plugin " TEST_PLUGIN_NAME);
  copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

static halo_status_t driver_enumerate_devices(halo_driver_t* base, size_t capacity,
                                              size_t info_stride,
                                              halo_device_info_t* out_infos,
                                              size_t* out_count) {
  test_driver_t* driver = (test_driver_t*)base;
#if TEST_PLUGIN_MODE == TEST_MODE_ENUMERATE_FAILS
  (void)capacity;
  (void)info_stride;
  (void)out_infos;
  (void)out_count;
  return driver->host->status_create(HALO_STATUS_DATA_LOSS,
                                     "test plugin: the device list was lost");
#else
  (void)driver;
  for (size_t i = 0; i < capacity && i < DEVICE_COUNT; ++i) {
    halo_device_info_t info;
    fill_device_info(i, &info);
    uint32_t stride = info_stride > UINT32_MAX ? UINT32_MAX : (uint32_t)info_stride;
    copy_out((char*)out_infos + i * info_stride, stride, &info, sizeof(info));
  }
  *out_count = DEVICE_COUNT;
#if MODE_IS(DEVICE_COUNT_FROM_ENV)
  const char* count = getenv("HALO_TEST_PLUGIN_DEVICE_COUNT");
  if (count != NULL) {
    *out_count = (size_t)strtoull(count, NULL, 10);
  }
#endif
  return HALO_OK;
#endif
}

static halo_status_t driver_create_device(halo_driver_t* base,
                                          halo_device_id_t device_id,
                                          const halo_device_params_t* params,
                                          halo_device_t** out_device) {
  test_driver_t* driver = (test_driver_t*)base;
  (void)params;
#if TEST_PLUGIN_MODE == TEST_MODE_CREATE_DEVICE_FAILS
  (void)device_id;
  (void)out_device;
  return driver->host->status_create(HALO_STATUS_UNAVAILABLE,
                                     "test plugin: device \xff\xfe is gone");
#endif
#if TEST_PLUGIN_MODE == TEST_MODE_CREATE_DEVICE_FAILS_ONCE
  /* O_EXCL: of all the processes that try, exactly one creates the file. */
  const char* once_file = getenv("HALO_TEST_PLUGIN_ONCE_FILE");
  if (once_file != NULL) {
    int fd = open(once_file, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd >= 0) {
      close(fd);
      return driver->host->status_create(HALO_STATUS_UNAVAILABLE,
                                         "test plugin: the first device fails");
    }
  }
#endif
  for (size_t i = 0; i < DEVICE_COUNT; ++i) {
    if (device_id_of(i) != device_id) {
      continue;
    }
#if DEVICE_UNDESTROYABLE
    /* Never destroyed, so it holds no reference to the driver; never
     * written, so concurrent creations share it without a race. */
    (void)kDeviceVtable;
    static test_device_t undestroyable = {HALO_OBJECT_HEADER_INIT(DEVICE_VTABLE), NULL,
                                          NULL, 0};
    *out_device = (halo_device_t*)&undestroyable;
    return HALO_OK;
#else
    test_device_t* device = allocate(driver->host, sizeof(*device));
    if (device == NULL) {
      return driver->host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                                         "test plugin: out of memory");
    }
    halo_object_t header = HALO_OBJECT_HEADER_INIT(DEVICE_VTABLE);
    device->object = header;
    device->host = driver->host;
    driver->host->object_retain(&driver->object);
    device->driver = base;
    device->index = i;
    *out_device = (halo_device_t*)device;
    return HALO_OK;
#endif
  }
  return driver->host->status_format(HALO_STATUS_NOT_FOUND,
                                     "test plugin: no device with id %llu",
                                     (unsigned long long)device_id);
}

static const halo_driver_vtable_t kDriverVtable = {
    .object = {.struct_size = DRIVER_VTABLE_SIZE,
               .type = DRIVER_VTABLE_TYPE,
               .destroy = driver_destroy},
    .query_info = driver_query_info,
    .enumerate_devices = MODE_IS(DRIVER_NO_ENUMERATE) ? NULL : driver_enumerate_devices,
    .create_device = driver_create_device,
};

#if MODE_IS(DRIVER_NO_VTABLE)
#define DRIVER_VTABLE NULL
#else
#define DRIVER_VTABLE (&kDriverVtable)
#endif

static halo_status_t create_driver(const halo_host_interface_t* host,
                                   halo_driver_t** out_driver) {
#if TEST_PLUGIN_MODE == TEST_MODE_CREATE_FAILS
  (void)out_driver;
  (void)kDriverVtable;
  return host->status_create(HALO_STATUS_PERMISSION_DENIED,
                             "test plugin: cannot open /dev/halo-test");
#elif MODE_IS(FORGED_STATUS)
  (void)host;
  (void)out_driver;
  (void)kDriverVtable;
  return FORGED_STATUS;
#elif DRIVER_UNDESTROYABLE
  /* Never written, so concurrent scans share it without a race. */
  (void)host;
  (void)kDriverVtable;
  static test_driver_t undestroyable = {HALO_OBJECT_HEADER_INIT(DRIVER_VTABLE), NULL};
  *out_driver = (halo_driver_t*)&undestroyable;
  return HALO_OK;
#else
#if TEST_PLUGIN_MODE == TEST_MODE_RECYCLE
  int expected = 0;
  test_driver_t* driver = NULL;
  if (__atomic_compare_exchange_n(&g_driver_slot_used, &expected, 1, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    driver = &g_driver_slot;
  }
#else
  test_driver_t* driver = allocate(host, sizeof(*driver));
#endif
  if (driver == NULL) {
    return host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                               "test plugin: out of memory");
  }
  halo_object_t header = HALO_OBJECT_HEADER_INIT(DRIVER_VTABLE);
  driver->object = header;
  driver->host = host;
  *out_driver = (halo_driver_t*)driver;
  return HALO_OK;
#endif
}

/* ---- Entry ------------------------------------------------------------- */

#if TEST_PLUGIN_MODE == TEST_MODE_DESCRIPTOR_V2
#define DESCRIPTOR_ABI_VERSION HALO_MAKE_VERSION(2, 0)
#else
#define DESCRIPTOR_ABI_VERSION HALO_ABI_VERSION
#endif

#if TEST_PLUGIN_MODE == TEST_MODE_NAME_MISMATCH
#define DESCRIPTOR_NAME "someone_else"
#else
#define DESCRIPTOR_NAME TEST_PLUGIN_NAME
#endif

static const halo_plugin_descriptor_t kDescriptor = {
    .struct_size = sizeof(halo_plugin_descriptor_t),
    .abi_version = DESCRIPTOR_ABI_VERSION,
    .name = DESCRIPTOR_NAME,
    .version = "1.2.3-test",
    .create_driver = create_driver,
};

#if TEST_PLUGIN_MODE == TEST_MODE_NO_ENTRY
/* Misspelt on purpose: the loader must find no halo_plugin_query. Exported
 * with default visibility so the library still has a dynamic symbol. */
HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_querry(
    const halo_plugin_query_params_t* params);
const halo_plugin_descriptor_t* halo_plugin_querry(
    const halo_plugin_query_params_t* params) {
  (void)params;
  return &kDescriptor;
}
#else
HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params);
const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params) {
#if TEST_PLUGIN_MODE == TEST_MODE_QUERY_NULL
  /* Says why first, as plugin.h asks, so the loader can quote it. */
  (void)kDescriptor;
  params->host->log(params->host->self, HALO_LOG_LEVEL_ERROR,
                    "test plugin: no supported hardware generation");
  return NULL;
#else
  (void)params;
  return &kDescriptor;
#endif
}
#endif
