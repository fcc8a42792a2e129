/* halo-saxpy: y = a * x + y over 2^20 floats on the first device that can
 * run the saxpy kernel.
 *
 *   halo-saxpy [KERNEL_FOLDER]
 *
 * KERNEL_FOLDER holds saxpy.<format> for the executable formats a device
 * lists (saxpy.cpu-so, saxpy.spirv, saxpy.opencl-c); by default the CTS's
 * kernels beside this program, <dir of halo-saxpy>/../share/halo/cts/
 * testdata/kernels, both in a build tree and installed. The program takes
 * the first device that offers dispatch and has a kernel file in one of its
 * formats, runs one dispatch, checks every element and prints one line.
 * Exit status: 0 when every element is right, 1 otherwise. */
/* readlink, realpath and PATH_MAX are POSIX (XSI), not C11. */
#define _XOPEN_SOURCE 700

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halo/halo.h"

enum { kCount = 1 << 20, kWorkgroupSize = 64 };

/* The saxpy kernel's constants (cts/testdata/README.md). */
typedef struct saxpy_constants_t {
  float a;
  uint32_t n;
} saxpy_constants_t;

/* What run() needs: the device, its memory type for the buffers, and the
 * kernel's format and bytes. */
typedef struct saxpy_target_t {
  halo_device_t* device;
  halo_memory_type_t memory_type;
  char format[64];
  void* kernel;
  size_t kernel_size;
} saxpy_target_t;

/* Prints |status| with |what| and frees it; returns true when it was an error. */
static bool report(halo_status_t status, const char* what) {
  if (status == NULL) return false;
  fprintf(stderr, "halo-saxpy: %s failed: %s: %s\n", what,
          halo_status_code_name(halo_status_code(status)),
          halo_status_message(status));
  halo_status_free(status);
  return true;
}

/* Writes <dir of this program>/../share/halo/cts/testdata/kernels to |out|. */
static bool default_kernel_folder(char* out, size_t size) {
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return false;
  self[length] = '\0';
  char* slash = strrchr(self, '/');
  if (slash == NULL) return false;
  *slash = '\0';
  char folder[PATH_MAX];
  int written = snprintf(folder, sizeof(folder), "%s/../share/halo/cts/testdata/kernels", self);
  if (written <= 0 || (size_t)written >= sizeof(folder)) return false;
  /* Without the "..", where the folder exists; as composed where not. */
  char resolved[PATH_MAX];
  snprintf(out, size, "%s", realpath(folder, resolved) != NULL ? resolved : folder);
  return true;
}

/* Reads the whole file at |path| into a new allocation; NULL if unreadable. */
static void* read_file(const char* path, size_t* out_size) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) return NULL;
  void* data = NULL;
  long size = -1;
  if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
  if (size > 0 && fseek(file, 0, SEEK_SET) == 0) data = malloc((size_t)size);
  if (data != NULL && fread(data, 1, (size_t)size, file) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  *out_size = data != NULL ? (size_t)size : 0;
  return data;
}

/* Loads saxpy.<format> from |folder| for the first of |caps|' formats that
 * has the file; fills |target|'s format and kernel. */
static bool find_kernel(const char* folder, const halo_device_capabilities_t* caps,
                        saxpy_target_t* target) {
  char formats[sizeof(caps->executable_formats) + 1];
  memcpy(formats, caps->executable_formats, sizeof(caps->executable_formats));
  formats[sizeof(caps->executable_formats)] = '\0';
  for (char* format = strtok(formats, ", "); format != NULL; format = strtok(NULL, ", ")) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/saxpy.%s", folder, format) >= (int)sizeof(path)) {
      continue;
    }
    target->kernel = read_file(path, &target->kernel_size);
    if (target->kernel != NULL) {
      snprintf(target->format, sizeof(target->format), "%s", format);
      return true;
    }
  }
  return false;
}

/* Opens the first device with dispatch, HOST_VISIBLE memory and a kernel
 * file in |folder|; false when there is none. */
static bool open_target(halo_registry_t* registry, const char* folder,
                        saxpy_target_t* target) {
  size_t count = 0;
  if (report(halo_registry_device_count(registry, &count), "device count")) return false;
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = NULL;
    if (report(halo_registry_create_device(registry, i, NULL, &device), "create device")) {
      continue;
    }
    halo_device_capabilities_t caps = {.struct_size = sizeof(caps)};
    halo_device_info_t info = {.struct_size = sizeof(info)};
    const halo_device_features_t needed = HALO_DEVICE_FEATURE_DISPATCH | HALO_DEVICE_FEATURE_QUEUES;
    if (!report(halo_device_query_capabilities(device, &caps), "capabilities") &&
        !report(halo_device_query_info(device, &info), "info") &&
        (caps.features & needed) == needed &&
        (caps.memory_types & HALO_MEMORY_TYPE_HOST_VISIBLE) != 0 &&
        find_kernel(folder, &caps, target)) {
      target->device = device;
      /* Coherent memory where offered; run() flushes and invalidates anyway. */
      target->memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE |
                            (caps.memory_types & HALO_MEMORY_TYPE_HOST_COHERENT);
      printf("halo-saxpy: using device '%s' with %s/saxpy.%s\n", info.name, folder,
             target->format);
      return true;
    }
    halo_device_release(device);
  }
  return false;
}

/* Allocates a buffer of |count| floats and fills it with |value(i)|. */
static bool make_buffer(const saxpy_target_t* target, float (*value)(uint32_t),
                        halo_buffer_t** out_buffer) {
  halo_buffer_params_t params = {
      .struct_size = sizeof(params),
      .memory_type = target->memory_type,
      .usage = HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING,
      .size = (uint64_t)kCount * sizeof(float),
  };
  if (report(halo_buffer_allocate(target->device, &params, out_buffer), "buffer allocate")) {
    return false;
  }
  void* pointer = NULL;
  if (report(halo_buffer_map_range(*out_buffer, 0, HALO_WHOLE_BUFFER, &pointer), "map")) {
    return false;
  }
  float* floats = pointer;
  for (uint32_t i = 0; i < kCount; ++i) floats[i] = value(i);
  return !report(halo_buffer_flush_range(*out_buffer, 0, HALO_WHOLE_BUFFER), "flush") &&
         !report(halo_buffer_unmap_range(*out_buffer, 0, HALO_WHOLE_BUFFER), "unmap");
}

/* Small integers, so that a * x + y is exact in float on every device. */
static float x_of(uint32_t i) { return (float)(i % 1024); }
static float y_of(uint32_t i) { return (float)(i % 7); }
static const float kA = 2.0f;

/* Records saxpy over |y| and |x| into a command buffer, submits it, and
 * waits for it. */
static bool dispatch(const saxpy_target_t* target, halo_executable_t* executable,
                     halo_buffer_t* y, halo_buffer_t* x) {
  halo_command_buffer_t* commands = NULL;
  halo_semaphore_t* done = NULL;
  const saxpy_constants_t constants = {kA, kCount};
  const halo_buffer_binding_t bindings[2] = {{y, 0, HALO_WHOLE_BUFFER},
                                             {x, 0, HALO_WHOLE_BUFFER}};
  const halo_dispatch_params_t params = {
      .struct_size = sizeof(params),
      .entry_point = 0,
      .executable = executable,
      .workgroup_count = {kCount / kWorkgroupSize, 1, 1},
      .constant_size = sizeof(constants),
      .constants = &constants,
      .binding_count = 2,
      .bindings = bindings,
  };
  const uint64_t one = 1;
  bool ok =
      !report(halo_command_buffer_create(target->device, HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                         &commands), "command buffer create") &&
      !report(halo_command_buffer_begin(commands), "begin") &&
      !report(halo_command_buffer_dispatch(commands, &params), "dispatch") &&
      !report(halo_command_buffer_end(commands), "end") &&
      !report(halo_semaphore_create(target->device, 0, HALO_SEMAPHORE_FLAG_NONE, &done),
              "semaphore create");
  if (ok) {
    halo_queue_execute_info_t info = {
        .struct_size = sizeof(info),
        .affinity = HALO_QUEUE_AFFINITY_ANY,
        .signal_count = 1,
        .signal_semaphores = &done,
        .signal_values = &one,
        .command_buffer_count = 1,
        .command_buffers = &commands,
    };
    ok = !report(halo_device_queue_execute(target->device, &info), "queue execute") &&
         !report(halo_semaphore_wait(done, 1, halo_deadline_after_ns(60LL * 1000000000)),
                 "wait for the dispatch");
  }
  halo_semaphore_release(done);
  halo_command_buffer_release(commands);
  return ok;
}

/* Counts the elements of |y| that are not a * x + y. */
static bool check(halo_buffer_t* y, size_t* out_wrong) {
  void* pointer = NULL;
  if (report(halo_buffer_map_range(y, 0, HALO_WHOLE_BUFFER, &pointer), "map") ||
      report(halo_buffer_invalidate_range(y, 0, HALO_WHOLE_BUFFER), "invalidate")) {
    return false;
  }
  const float* result = pointer;
  *out_wrong = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    if (result[i] != kA * x_of(i) + y_of(i)) {
      if (*out_wrong == 0) {
        fprintf(stderr, "halo-saxpy: y[%u] is %g, expected %g\n", i, result[i],
                kA * x_of(i) + y_of(i));
      }
      ++*out_wrong;
    }
  }
  return !report(halo_buffer_unmap_range(y, 0, HALO_WHOLE_BUFFER), "unmap");
}

static int run(const saxpy_target_t* target) {
  halo_executable_t* executable = NULL;
  halo_buffer_t* x = NULL;
  halo_buffer_t* y = NULL;
  const halo_executable_params_t params = {.struct_size = sizeof(params),
                                           .format = target->format,
                                           .data = target->kernel,
                                           .data_size = target->kernel_size};
  size_t wrong = 0;
  const bool ok =
      !report(halo_executable_create(target->device, &params, &executable),
              "executable create") &&
      make_buffer(target, x_of, &x) && make_buffer(target, y_of, &y) &&
      dispatch(target, executable, y, x) && check(y, &wrong);
  halo_buffer_release(y);
  halo_buffer_release(x);
  halo_executable_release(executable);
  if (!ok) return EXIT_FAILURE;
  printf("halo-saxpy: %s: %d elements, y = %g * x + y, %zu wrong\n",
         wrong == 0 ? "OK" : "MISMATCH", kCount, kA, wrong);
  return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char** argv) {
  char folder[PATH_MAX];
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    fprintf(stderr, "usage: halo-saxpy [KERNEL_FOLDER]\n");
    return EXIT_FAILURE;
  }
  if (argc == 2) {
    snprintf(folder, sizeof(folder), "%s", argv[1]);
  } else if (!default_kernel_folder(folder, sizeof(folder))) {
    fprintf(stderr, "halo-saxpy: cannot find this program's folder; name the kernel folder\n");
    return EXIT_FAILURE;
  }
  halo_registry_t* registry = NULL;
  if (report(halo_registry_create(NULL, &registry), "registry create")) return EXIT_FAILURE;
  saxpy_target_t target = {0};
  int result = EXIT_FAILURE;
  if (!open_target(registry, folder, &target)) {
    fprintf(stderr,
            "halo-saxpy: no device offers dispatch with a saxpy kernel in %s; run halo-info\n",
            folder);
  } else {
    result = run(&target);
    halo_device_release(target.device);
  }
  free(target.kernel);
  halo_registry_release(registry);
  return result;
}
