/* halo-share: two processes share a buffer and a timeline semaphore through
 * file descriptors passed over a Unix socket.
 *
 * The producer (the parent) allocates an exportable buffer on the first
 * device that exports buffers as opaque fds, exports it, and exports an
 * exportable semaphore: the device's own when it exports semaphores as
 * opaque fds too, or else a host timeline (HOST_TIMELINE_FD) of a device
 * that shares those (the cpu plugin's), which the producer's queue signals
 * as any foreign semaphore. It sends the fds with SCM_RIGHTS, then fills the
 * buffer on its queue and signals the semaphore. The consumer (the child,
 * with a registry of its own) imports both, queues a copy out of the shared
 * buffer that waits on the imported semaphore, so it runs after the
 * producer's fill, and checks every word. With no shareable semaphore at all
 * the producer waits for its fill and says so over the socket instead.
 *
 * Neither process copies the data through the host: the consumer's device
 * reads the memory the producer's device wrote. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "halo/halo.h"

enum { kWords = 256 * 1024 };
static const uint32_t kPattern = 0x5ca1ab1eu;

/* What the producer tells the consumer besides the fds. */
typedef struct share_message_t {
  uint8_t uuid[16];
  uint64_t buffer_size;
  uint64_t memory_size;
  /* The semaphore's handle type; 0 when none is shared. */
  halo_external_handle_type_t semaphore_type;
} share_message_t;

static bool report(halo_status_t status, const char* what) {
  if (status == NULL) return false;
  fprintf(stderr, "halo-share: %s failed: %s: %s\n", what,
          halo_status_code_name(halo_status_code(status)),
          halo_status_message(status));
  halo_status_free(status);
  return true;
}

/* The first device of |registry| that exports and imports buffers as opaque
 * fds, with |uuid| when it is not NULL; whether it shares its semaphores so
 * too in |out_shares_semaphores|. NULL when there is none. */
static halo_device_t* open_sharing_device(halo_registry_t* registry,
                                          const uint8_t* uuid,
                                          bool* out_shares_semaphores) {
  const halo_external_handle_type_t fd = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  size_t count = 0;
  if (report(halo_registry_device_count(registry, &count), "device count")) {
    return NULL;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = NULL;
    if (halo_registry_create_device(registry, i, NULL, &device) != NULL) {
      continue; /* a device that cannot be created is not the one */
    }
    halo_device_capabilities_t caps = {.struct_size = sizeof(caps)};
    halo_device_info_t info = {.struct_size = sizeof(info)};
    if (!report(halo_device_query_capabilities(device, &caps), "capabilities") &&
        !report(halo_device_query_info(device, &info), "info") &&
        (caps.buffer_export_types & fd) && (caps.buffer_import_types & fd) &&
        (uuid == NULL || memcmp(uuid, info.uuid, sizeof(info.uuid)) == 0)) {
      *out_shares_semaphores = (caps.semaphore_export_types & fd) &&
                               (caps.semaphore_import_types & fd);
      printf("halo-share: process %d uses '%s'\n", (int)getpid(), info.name);
      return device;
    }
    halo_device_release(device);
  }
  return NULL;
}

/* The first device of |registry| that exports and imports semaphores as
 * host timelines, or NULL. */
static halo_device_t* open_timeline_device(halo_registry_t* registry) {
  const halo_external_handle_type_t type = HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;
  size_t count = 0;
  if (report(halo_registry_device_count(registry, &count), "device count")) {
    return NULL;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = NULL;
    if (halo_registry_create_device(registry, i, NULL, &device) != NULL) continue;
    halo_device_capabilities_t caps = {.struct_size = sizeof(caps)};
    if (!report(halo_device_query_capabilities(device, &caps), "capabilities") &&
        (caps.semaphore_export_types & type) && (caps.semaphore_import_types & type)) {
      return device;
    }
    halo_device_release(device);
  }
  return NULL;
}

/* Sends |message| and |fds| (|fd_count| of them) over |socket_fd|. */
static bool send_with_fds(int socket_fd, const share_message_t* message,
                          const int* fds, int fd_count) {
  char control[CMSG_SPACE(2 * sizeof(int))];
  memset(control, 0, sizeof(control));
  struct iovec part = {.iov_base = (void*)message, .iov_len = sizeof(*message)};
  struct msghdr header = {.msg_iov = &part, .msg_iovlen = 1,
                          .msg_control = control,
                          .msg_controllen = CMSG_SPACE(fd_count * sizeof(int))};
  struct cmsghdr* rights = CMSG_FIRSTHDR(&header);
  rights->cmsg_level = SOL_SOCKET;
  rights->cmsg_type = SCM_RIGHTS;
  rights->cmsg_len = CMSG_LEN(fd_count * sizeof(int));
  memcpy(CMSG_DATA(rights), fds, fd_count * sizeof(int));
  return sendmsg(socket_fd, &header, 0) == (ssize_t)sizeof(*message);
}

/* Receives what send_with_fds sent; the fds land in |fds| (-1 where none). */
static bool receive_with_fds(int socket_fd, share_message_t* message,
                             int fds[2]) {
  char control[CMSG_SPACE(2 * sizeof(int))];
  struct iovec part = {.iov_base = message, .iov_len = sizeof(*message)};
  struct msghdr header = {.msg_iov = &part, .msg_iovlen = 1,
                          .msg_control = control,
                          .msg_controllen = sizeof(control)};
  fds[0] = fds[1] = -1;
  if (recvmsg(socket_fd, &header, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*message)) {
    return false;
  }
  struct cmsghdr* rights = CMSG_FIRSTHDR(&header);
  if (rights != NULL && rights->cmsg_type == SCM_RIGHTS) {
    size_t count = (rights->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    memcpy(fds, CMSG_DATA(rights), (count > 2 ? 2 : count) * sizeof(int));
  }
  return true;
}

/* Records |record| into a one-shot command buffer and submits it, waiting
 * for (wait, 1) when |wait| is not NULL and signalling (signal, 1). */
static bool submit(halo_device_t* device, halo_command_buffer_t* commands,
                   halo_semaphore_t* wait, halo_semaphore_t* signal) {
  const uint64_t one = 1;
  halo_queue_execute_info_t info = {
      .struct_size = sizeof(info),
      .affinity = HALO_QUEUE_AFFINITY_ANY,
      .wait_count = wait != NULL ? 1 : 0,
      .wait_semaphores = &wait,
      .wait_values = &one,
      .signal_count = 1,
      .signal_semaphores = &signal,
      .signal_values = &one,
      .command_buffer_count = 1,
      .command_buffers = &commands,
  };
  return !report(halo_device_queue_execute(device, &info), "queue execute");
}

static halo_command_buffer_t* begin(halo_device_t* device) {
  halo_command_buffer_t* commands = NULL;
  if (report(halo_command_buffer_create(device, HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                        &commands),
             "command buffer create") ||
      report(halo_command_buffer_begin(commands), "command buffer begin")) {
    halo_command_buffer_release(commands);
    return NULL;
  }
  return commands;
}

/* The producer: exports, sends, fills, signals. The semaphore is
 * |timeline_device|'s, shared as |semaphore_type| (0: not shared). Returns an
 * exit status. */
static int produce_on(halo_device_t* device, halo_device_t* timeline_device,
                      halo_external_handle_type_t semaphore_type, int socket_fd) {
  const bool shares_semaphores = semaphore_type != 0;
  const uint64_t size = kWords * sizeof(uint32_t);
  int result = EXIT_FAILURE;
  halo_buffer_t* buffer = NULL;
  halo_semaphore_t* filled = NULL;
  halo_command_buffer_t* commands = NULL;
  halo_external_handle_t memory = {.struct_size = sizeof(memory), .fd = -1};
  halo_external_handle_t timeline = {.struct_size = sizeof(timeline), .fd = -1};
  const halo_buffer_params_t params = {
      .struct_size = sizeof(params),
      .memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL,
      .usage = HALO_BUFFER_USAGE_TRANSFER_TARGET | HALO_BUFFER_USAGE_TRANSFER_SOURCE,
      .flags = HALO_BUFFER_FLAG_EXPORTABLE,
      .size = size};
  halo_device_info_t info = {.struct_size = sizeof(info)};
  if (report(halo_buffer_allocate(device, &params, &buffer), "buffer allocate") ||
      report(halo_semaphore_create(timeline_device, 0,
                                   shares_semaphores ? HALO_SEMAPHORE_FLAG_EXPORTABLE : 0,
                                   &filled),
             "semaphore create") ||
      report(halo_buffer_export(buffer, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &memory),
             "buffer export") ||
      (shares_semaphores &&
       report(halo_semaphore_export(filled, semaphore_type, &timeline),
              "semaphore export")) ||
      report(halo_device_query_info(device, &info), "info")) {
    goto done;
  }
  share_message_t message = {.buffer_size = size, .memory_size = memory.size,
                             .semaphore_type = semaphore_type};
  memcpy(message.uuid, info.uuid, sizeof(message.uuid));
  const int fds[2] = {memory.fd, timeline.fd};
  if (!send_with_fds(socket_fd, &message, fds, shares_semaphores ? 2 : 1)) {
    perror("halo-share: sendmsg");
    goto done;
  }
  /* The consumer owns its copies now (SCM_RIGHTS duplicates them). */
  if ((commands = begin(device)) == NULL ||
      report(halo_command_buffer_fill(commands, buffer, 0, size, &kPattern,
                                      sizeof(kPattern)),
             "fill") ||
      report(halo_command_buffer_end(commands), "command buffer end") ||
      !submit(device, commands, NULL, filled)) {
    goto done;
  }
  if (!shares_semaphores) {
    /* No shared timeline: the host orders the two processes instead. */
    if (report(halo_semaphore_wait(filled, 1, HALO_DEADLINE_INFINITE_FUTURE),
               "wait for the fill")) {
      goto done;
    }
    const char filled_byte = 'F';
    if (write(socket_fd, &filled_byte, 1) != 1) goto done;
  }
  char verdict = 0;
  if (read(socket_fd, &verdict, 1) == 1 && verdict == 'K') result = EXIT_SUCCESS;
done:
  if (memory.fd >= 0) close(memory.fd);
  if (timeline.fd >= 0) close(timeline.fd);
  halo_command_buffer_release(commands);
  halo_semaphore_release(filled);
  halo_buffer_release(buffer);
  return result;
}

static int produce(int socket_fd) {
  halo_registry_t* registry = NULL;
  if (report(halo_registry_create(NULL, &registry), "registry create")) {
    return EXIT_FAILURE;
  }
  bool shares_semaphores = false;
  halo_device_t* device = open_sharing_device(registry, NULL, &shares_semaphores);
  /* Without the device's own timelines, a host timeline of another. */
  halo_device_t* timeline_device = NULL;
  halo_external_handle_type_t semaphore_type = 0;
  if (device != NULL && shares_semaphores) {
    semaphore_type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  } else if (device != NULL && (timeline_device = open_timeline_device(registry)) != NULL) {
    semaphore_type = HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;
  }
  int result = EXIT_SUCCESS;
  if (device == NULL) {
    printf("halo-share: skipped: no device shares buffers as opaque fds\n");
    const share_message_t none = {0};
    if (write(socket_fd, &none, sizeof(none)) != (ssize_t)sizeof(none)) {
      result = EXIT_FAILURE;
    }
  } else {
    printf("halo-share: the semaphore is %s\n",
           shares_semaphores ? "the device's own, shared as an opaque fd"
           : semaphore_type  ? "a host timeline, shared as a HOST_TIMELINE_FD"
                             : "not shareable here: the host hands off");
    result = produce_on(device, timeline_device != NULL ? timeline_device : device,
                        semaphore_type, socket_fd);
  }
  halo_device_release(timeline_device);
  halo_device_release(device);
  halo_registry_release(registry);
  return result;
}

/* Checks every word of |buffer| (host-visible) against kPattern. */
static bool check_words(halo_buffer_t* buffer) {
  void* words = NULL;
  if (report(halo_buffer_map_range(buffer, 0, HALO_WHOLE_BUFFER, &words), "map")) {
    return false;
  }
  size_t wrong = 0;
  for (size_t i = 0; i < kWords; ++i) wrong += ((uint32_t*)words)[i] != kPattern;
  if (report(halo_buffer_unmap_range(buffer, 0, HALO_WHOLE_BUFFER), "unmap")) {
    return false;
  }
  printf("halo-share: process %d read %d words the other process's device wrote, "
         "%zu wrong\n", (int)getpid(), kWords, wrong);
  return wrong == 0;
}

/* The consumer: imports, copies out on the device after the fill, checks.
 * The semaphore is imported into |timeline_device|. */
static int consume_on(halo_device_t* device, halo_device_t* timeline_device,
                      const share_message_t* message, int fds[2], int socket_fd) {
  int result = EXIT_FAILURE;
  halo_buffer_t *shared = NULL, *local = NULL;
  halo_semaphore_t *filled = NULL, *copied = NULL;
  halo_command_buffer_t* commands = NULL;
  halo_external_handle_t memory = {.struct_size = sizeof(memory),
                                   .type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD,
                                   .fd = fds[0], .size = message->memory_size};
  halo_external_handle_t timeline = {.struct_size = sizeof(timeline),
                                     .type = message->semaphore_type,
                                     .fd = fds[1]};
  const halo_buffer_params_t shared_params = {
      .struct_size = sizeof(shared_params),
      .memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL,
      .usage = HALO_BUFFER_USAGE_TRANSFER_TARGET | HALO_BUFFER_USAGE_TRANSFER_SOURCE,
      .size = message->buffer_size};
  const halo_buffer_params_t local_params = {
      .struct_size = sizeof(local_params),
      .memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT,
      .usage = HALO_BUFFER_USAGE_TRANSFER_TARGET | HALO_BUFFER_USAGE_MAPPING,
      .size = message->buffer_size};
  if (report(halo_buffer_import(device, &shared_params, &memory, &shared),
             "buffer import")) {
    goto done;
  }
  fds[0] = -1; /* the import owns it now */
  if (message->semaphore_type != 0) {
    if (timeline_device == NULL) {
      fprintf(stderr, "halo-share: no device here imports the semaphore\n");
      goto done;
    }
    if (report(halo_semaphore_import(timeline_device, &timeline, &filled),
               "semaphore import")) {
      goto done;
    }
    fds[1] = -1;
  } else {
    char filled_byte = 0;
    if (read(socket_fd, &filled_byte, 1) != 1 || filled_byte != 'F') goto done;
  }
  if (report(halo_buffer_allocate(device, &local_params, &local), "buffer allocate") ||
      report(halo_semaphore_create(device, 0, 0, &copied), "semaphore create") ||
      (commands = begin(device)) == NULL ||
      report(halo_command_buffer_copy(commands, shared, 0, local, 0, message->buffer_size),
             "copy") ||
      report(halo_command_buffer_end(commands), "command buffer end") ||
      !submit(device, commands, filled, copied) ||
      report(halo_semaphore_wait(copied, 1, HALO_DEADLINE_INFINITE_FUTURE), "wait")) {
    goto done;
  }
  if (check_words(local)) result = EXIT_SUCCESS;
done:
  halo_command_buffer_release(commands);
  halo_semaphore_release(copied);
  halo_semaphore_release(filled);
  halo_buffer_release(local);
  halo_buffer_release(shared);
  return result;
}

static int consume(int socket_fd) {
  share_message_t message;
  int fds[2];
  if (!receive_with_fds(socket_fd, &message, fds)) return EXIT_FAILURE;
  if (message.buffer_size == 0) return EXIT_SUCCESS; /* nothing to share */
  int result = EXIT_FAILURE;
  halo_registry_t* registry = NULL;
  if (!report(halo_registry_create(NULL, &registry), "registry create")) {
    bool shares_semaphores = false;
    halo_device_t* device = open_sharing_device(registry, message.uuid, &shares_semaphores);
    halo_device_t* timeline_device =
        message.semaphore_type == HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD
            ? open_timeline_device(registry)
            : device;
    if (device != NULL) {
      result = consume_on(device, timeline_device, &message, fds, socket_fd);
    }
    if (timeline_device != device) halo_device_release(timeline_device);
    halo_device_release(device);
  }
  const char verdict = result == EXIT_SUCCESS ? 'K' : 'X';
  if (write(socket_fd, &verdict, 1) != 1) result = EXIT_FAILURE;
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
  }
  halo_registry_release(registry);
  return result;
}

int main(void) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    perror("halo-share: socketpair");
    return EXIT_FAILURE;
  }
  /* Fork before any registry exists: each process loads its own plugins. */
  pid_t child = fork();
  if (child < 0) {
    perror("halo-share: fork");
    return EXIT_FAILURE;
  }
  if (child == 0) {
    close(sockets[0]);
    const int result = consume(sockets[1]);
    fflush(stdout); /* _exit skips stdio's flush */
    _exit(result);
  }
  close(sockets[1]);
  int result = produce(sockets[0]);
  close(sockets[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != EXIT_SUCCESS) {
    result = EXIT_FAILURE;
  }
  printf("halo-share: %s\n", result == EXIT_SUCCESS ? "OK" : "FAILED");
  return result;
}
