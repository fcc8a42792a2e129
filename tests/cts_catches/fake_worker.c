/* A stand-in for a halo-cts worker that misbehaves on request, for the
 * process pool's tests. The first argument picks the behaviour:
 *
 *   flood               writes to stdout without end.
 *   close-and-block     closes stdout and stderr, then blocks for ever.
 *   helper-holds-pipe   starts a child that keeps the pipe open and blocks;
 *                       the worker itself exits 0 at once.
 *   big BYTES           prints "HEAD\n", BYTES filler bytes, "TAIL\n", and
 *                       exits with code 3.
 *   exit CODE           prints "bye\n" and exits with CODE.
 *   abort               dies of SIGABRT.
 *
 * Blocking uses pause(): only the pool's kill ends it. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes all of |data|; returns 0 once the reader is gone. */
static int write_all(const char* data, size_t size) {
  while (size > 0) {
    ssize_t written = write(STDOUT_FILENO, data, size);
    if (written <= 0) {
      return 0;
    }
    data += written;
    size -= (size_t)written;
  }
  return 1;
}

static void block_for_ever(void) {
  for (;;) {
    pause();
  }
}

static int flood(void) {
  char line[4096];
  memset(line, 'x', sizeof(line) - 1);
  line[sizeof(line) - 1] = '\n';
  while (write_all(line, sizeof(line))) {
  }
  return 1;
}

static int big(long bytes) {
  char chunk[4096];
  memset(chunk, 'y', sizeof(chunk));
  if (!write_all("HEAD\n", 5)) {
    return 1;
  }
  while (bytes > 0) {
    size_t size = bytes < (long)sizeof(chunk) ? (size_t)bytes : sizeof(chunk);
    if (!write_all(chunk, size)) {
      return 1;
    }
    bytes -= (long)size;
  }
  return write_all("TAIL\n", 5) ? 3 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  signal(SIGPIPE, SIG_IGN);
  if (strcmp(mode, "flood") == 0) {
    return flood();
  }
  if (strcmp(mode, "close-and-block") == 0) {
    close(STDOUT_FILENO);
    close(STDERR_FILENO);
    block_for_ever();
  }
  if (strcmp(mode, "helper-holds-pipe") == 0) {
    pid_t helper = fork();
    if (helper == 0) {
      block_for_ever();
    }
    return helper > 0 ? 0 : 1;
  }
  if (strcmp(mode, "big") == 0 && argc > 2) {
    return big(atol(argv[2]));
  }
  if (strcmp(mode, "exit") == 0 && argc > 2) {
    write_all("bye\n", 4);
    return atoi(argv[2]);
  }
  if (strcmp(mode, "abort") == 0) {
    abort();
  }
  fprintf(stderr, "fake_worker: unknown mode '%s'\n", mode);
  return 2;
}
